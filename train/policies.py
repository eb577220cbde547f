"""The skip-linear actor (config ``ppo.skip_linear: true``).

The action logits are ``head(MLP(obs)) + S obs``: besides the MLP, a linear path from the
observation straight to the logits. Where the observation holds per-action quantities (the
derived features give, per card, its immediate points, the next player's expected answer, the
expected show of laying it away), the right move is close to a linear function of the slots
aligned with each action. An MLP fitted on the heuristic's moves memorised them instead
(cribbage: 99.8% of the training plays, 84% of fresh ones); the linear path generalises.

Built as SB3 expects: the policy's MLP extractor returns ``[MLP(obs), obs]`` as the actor's
latent, so ``action_net`` over it is exactly ``head`` and ``S`` side by side (the numpy export,
``agents.ppo.NumpyPolicy``, splits it back). The critic is the plain MLP.
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor


class SkipMlpExtractor(MlpExtractor):
    def __init__(self, feature_dim: int, net_arch, activation_fn, device="auto") -> None:
        super().__init__(feature_dim, net_arch=net_arch, activation_fn=activation_fn, device=device)
        self.latent_dim_pi += feature_dim

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return th.cat([self.policy_net(features), features], dim=1)


class SkipLinearMaskablePolicy(MaskableActorCriticPolicy):
    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SkipMlpExtractor(self.features_dim, net_arch=self.net_arch,
                                              activation_fn=self.activation_fn, device=self.device)
