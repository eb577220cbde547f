"""The ``action_scorer`` policy for sb3-contrib ``MaskablePPO`` (config ``ppo.policy: action_scorer``).

DouZero-style: the state is embedded once (an MLP over the observation with the derived
features), then every action is scored by the same small network from that embedding and the
action's own features (``agents.features.action_features``), and the masked softmax over the
legal actions is the policy. A decision such as "the card whose kept hand is worth most" is one
function applied to every card, so it generalises across cards where a head with one logit per
action index has to learn it index by index. The value head is a separate MLP on the same input.
``agents/scorer.py`` runs the actor in numpy (``model.npz``).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def _mlp(sizes: list[int], activation_fn: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), activation_fn()]
    return nn.Sequential(*layers)


class ActionScorerNet(nn.Module):
    """``forward_actor`` -> the logits of every action [B, A]; ``forward_critic`` -> the value latent.

    logit_a = f_a . (C s + c) + v . act(W_a f_a + W_s s + b), f_a = [gathered_a, static_a]: a
    state-dependent linear score of the action's features plus a small shared network of them
    (``hidden`` units; 0: none). The static part never forms a [B, A, .] tensor (its products
    with the state are [B, s] @ [s, A]): on a busy 2-core machine memory traffic is the cost.
    """

    def __init__(self, obs_dim: int, index: np.ndarray, static: np.ndarray, net_arch: list[int],
                 hidden: int, activation_fn: type[nn.Module]) -> None:
        super().__init__()
        index = np.asarray(index, np.int64)
        self.register_buffer("index", torch.as_tensor(index.astype(np.int32)))
        self.register_buffer("static", torch.as_tensor(np.asarray(static, np.float32)))
        self.register_buffer("_gather", torch.as_tensor(np.maximum(index, 0).reshape(-1)))
        self.register_buffer("_valid", torch.as_tensor((index >= 0).astype(np.float32)))
        self.k = index.shape[1]
        self.state_net = _mlp([obs_dim, *net_arch], activation_fn)
        self.value_mlp = _mlp([obs_dim, *net_arch], activation_fn)
        n_features = self.k + static.shape[1]
        self.coef = nn.Linear(net_arch[-1], n_features)
        self.hidden = int(hidden)
        if self.hidden:
            self.state_to_hidden = nn.Linear(net_arch[-1], self.hidden)
            self.action_to_hidden = nn.Linear(n_features, self.hidden, bias=False)
            self.score = nn.Linear(self.hidden, 1, bias=False)
        self.act = activation_fn()
        self.latent_dim_pi = len(index)
        self.latent_dim_vf = net_arch[-1]

    def gathered(self, x: torch.Tensor) -> torch.Tensor:
        """The per-action entries of the input, [B, A, k]."""
        return x.index_select(1, self._gather).view(x.shape[0], -1, self.k) * self._valid

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        g = self.gathered(x)
        s = self.state_net(x)
        c = self.coef(s)  # [B, F]
        logits = torch.bmm(g, c[:, :self.k, None]).squeeze(-1) + c[:, self.k:] @ self.static.T
        if self.hidden:
            w = self.action_to_hidden.weight  # [H, F]
            pre = g @ w[:, :self.k].T + (self.static @ w[:, self.k:].T)[None] + self.state_to_hidden(s)[:, None, :]
            logits = logits + (self.act(pre) @ self.score.weight[0])
        return logits

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value_mlp(x)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """A MaskableActorCriticPolicy whose actor is an ``ActionScorerNet`` (its output is the logits:
    no ``action_net`` on top). Extra keyword arguments: ``action_index``, ``action_static`` (the
    game's ``ActionFeatures``) and ``action_hidden`` (the width of the pair network)."""

    def __init__(self, *args: Any, action_index: Any = None, action_static: Any = None,
                 action_hidden: int = 8, **kwargs: Any) -> None:
        if action_index is None or action_static is None:
            raise ValueError("ActionScorerPolicy needs action_index and action_static (agents.features.action_features)")
        self.action_index = np.asarray(action_index)
        self.action_static = np.asarray(action_static, np.float32)
        self.action_hidden = int(action_hidden)
        super().__init__(*args, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(action_index=self.action_index, action_static=self.action_static,
                    action_hidden=self.action_hidden)
        return data

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        pi = list(arch["pi"] if isinstance(arch, dict) else arch)
        if len(self.action_index) != self.action_space.n:
            raise ValueError(f"action features for {len(self.action_index)} actions, but the env has "
                             f"{self.action_space.n}")
        self.mlp_extractor = ActionScorerNet(self.features_dim, self.action_index, self.action_static, pi,
                                             self.action_hidden, self.activation_fn)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the extractor's actor output is already the logits
        ex = self.mlp_extractor
        for layer in (ex.coef, ex.score) if ex.hidden else (ex.coef,):  # small initial logits, as SB3's action_net
            nn.init.orthogonal_(layer.weight, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
