"""The action-masking PPO RLModule of ``--backend rllib``, its learner and its export to numpy.

The env (``train/rllib_env.py``) observes ``{"observations", "action_mask"}``; the module runs
RLlib's default PPO torch module on ``observations`` and adds log(mask) (clamped) to the action
logits, so that an illegal action is never sampled nor trained on. ``numpy_policy`` exports the
actor (encoder MLP + linear ``pi`` head) to ``agents/ppo.py``'s ``NumpyPolicy``: a trained RLlib
policy plays (``rllib:PATH``) without Ray or torch. ``MaskedPPOTorchLearner`` computes RLlib's PPO
loss from one log-softmax of the masked logits (RLlib builds two torch ``Categorical`` objects a
minibatch, one of them only for a KL term that ``use_kl_loss=False`` never uses).
"""

from __future__ import annotations

from typing import Any

from muggins_env.agents.ppo import NumpyPolicy
from muggins_env.train.rllib_env import MASK, OBS
from ray.rllib.algorithms.ppo.ppo import (
    LEARNER_RESULTS_KL_KEY,
    LEARNER_RESULTS_VF_EXPLAINED_VAR_KEY,
    LEARNER_RESULTS_VF_LOSS_UNCLIPPED_KEY,
)
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.learner import ENTROPY_KEY, POLICY_LOSS_KEY, VF_LOSS_KEY
from ray.rllib.evaluation.postprocessing import Postprocessing
from ray.rllib.utils.torch_utils import FLOAT_MIN, explained_variance


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

        # logits + clamp(log(mask), FLOAT_MIN), as RLlib's masking examples, in one op: in float32 a
        # logit plus FLOAT_MIN is FLOAT_MIN
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
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


class MaskedPPOTorchLearner(PPOTorchLearner):
    """RLlib's PPO torch learner with the same loss (clipped surrogate, value loss clipped at
    ``vf_clip_param``, entropy bonus, means over the loss mask) and the same logged metrics,
    computed from one ``log_softmax`` of the logits. With ``use_kl_loss`` (not ours) it is RLlib's."""

    def compute_loss_for_module(self, *, module_id: Any, config: Any, batch: dict, fwd_out: dict) -> Any:
        import torch

        if config.use_kl_loss:
            return super().compute_loss_for_module(module_id=module_id, config=config, batch=batch, fwd_out=fwd_out)
        module = self.module[module_id].unwrapped()
        if Columns.LOSS_MASK in batch:
            keep = batch[Columns.LOSS_MASK]
            valid = torch.sum(keep)

            def mean(x: Any) -> Any:
                return torch.sum(x[keep]) / valid
        else:
            mean = torch.mean
        log_probs = torch.log_softmax(fwd_out[Columns.ACTION_DIST_INPUTS], dim=-1)
        logp = log_probs.gather(-1, batch[Columns.ACTIONS].long().unsqueeze(-1)).squeeze(-1)
        ratio = torch.exp(logp - batch[Columns.ACTION_LOGP])
        entropy = -torch.sum(torch.exp(log_probs) * log_probs, dim=-1)
        adv = batch[Postprocessing.ADVANTAGES]
        surrogate = torch.min(adv * ratio, adv * torch.clamp(ratio, 1 - config.clip_param, 1 + config.clip_param))
        values = module.compute_values(batch, embeddings=fwd_out.get(Columns.EMBEDDINGS))
        vf_loss = torch.pow(values - batch[Postprocessing.VALUE_TARGETS], 2.0)
        vf_clipped = torch.clamp(vf_loss, 0, config.vf_clip_param)
        ent_coeff = self.entropy_coeff_schedulers_per_module[module_id].get_current_value()
        total = mean(-surrogate + config.vf_loss_coeff * vf_clipped - ent_coeff * entropy)
        self.metrics.log_dict({
            POLICY_LOSS_KEY: -mean(surrogate), VF_LOSS_KEY: mean(vf_clipped),
            LEARNER_RESULTS_VF_LOSS_UNCLIPPED_KEY: mean(vf_loss),
            LEARNER_RESULTS_VF_EXPLAINED_VAR_KEY: explained_variance(batch[Postprocessing.VALUE_TARGETS], values),
            ENTROPY_KEY: mean(entropy), LEARNER_RESULTS_KL_KEY: torch.tensor(0.0),
        }, key=module_id, window=1)
        return total


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
