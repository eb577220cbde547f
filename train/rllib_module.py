"""The action-masking PPO RLModule of ``--backend rllib`` and its export to numpy.

The env (``train/rllib_env.py``) observes ``{"observations", "action_mask"}``; the module runs
RLlib's default PPO torch module on ``observations`` and adds log(mask) (clamped) to the action
logits, so that an illegal action is never sampled nor trained on. ``numpy_policy`` exports the
actor (encoder MLP + linear ``pi`` head) to ``agents/ppo.py``'s ``NumpyPolicy``: a trained RLlib
policy plays (``rllib:PATH``) without Ray or torch.
"""

from __future__ import annotations

from typing import Any

from muggins_env.agents.ppo import NumpyPolicy
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from .rllib_env import MASK, OBS


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """Default PPO MLP on the observation; logits masked by the action mask. The observation is
    the Dict ``{"observations", "action_mask"}`` (the multi-agent env) or one flat Box whose last
    ``action_space.n`` entries are the mask (the single-agent seat env: RLlib's episodes and
    connectors handle a plain Box at a fraction of a Dict's cost)."""

    def __init__(self, *, observation_space=None, action_space=None, **kwargs: Any) -> None:
        import gymnasium as gym

        self.observation_space_with_mask = observation_space
        if isinstance(observation_space, gym.spaces.Dict):
            inner = observation_space[OBS]
        else:  # flat: the observation, then the mask
            size = observation_space.shape[0] - action_space.n
            inner = gym.spaces.Box(observation_space.low[:size], observation_space.high[:size], (size,),
                                   observation_space.dtype)
        self._flat_actions = None if isinstance(observation_space, gym.spaces.Dict) else int(action_space.n)
        super().__init__(observation_space=inner, action_space=action_space, **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch: dict) -> tuple[Any, dict]:
        if "action_mask" in batch:  # already split (compute_values after _forward_train)
            return batch["action_mask"], batch
        obs = batch[Columns.OBS]
        batch = dict(batch)
        if isinstance(obs, dict):
            batch[Columns.OBS], batch["action_mask"] = obs[OBS], obs[MASK]
        else:
            n = self._flat_actions
            batch[Columns.OBS], batch["action_mask"] = obs[..., :-n], obs[..., -n:]
        return batch["action_mask"], batch

    @staticmethod
    def _masked(out: dict, mask: Any) -> dict:
        import torch

        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return out

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def numpy_policy(module: Any, activation: str, features: str | None = None) -> NumpyPolicy:
    """The actor of a (Masked) default PPO torch module: its actor encoder's Linear layers, each
    followed by ``activation``, then the linear ``pi`` head (``head_fcnet_hiddens=[]``)."""
    import torch

    actor = module.encoder.actor_encoder if hasattr(module.encoder, "actor_encoder") else module.encoder.encoder
    linears = [m for m in actor.modules() if isinstance(m, torch.nn.Linear)]
    head = [m for m in module.pi.modules() if isinstance(m, torch.nn.Linear)]
    if len(head) != 1:
        raise ValueError(f"the pi head has {len(head)} linear layers; the numpy export needs head_fcnet_hiddens=[]")

    def arrays(m: torch.nn.Linear) -> tuple:
        return m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()

    return NumpyPolicy([arrays(m) for m in linears], arrays(head[0]), activation, features)
