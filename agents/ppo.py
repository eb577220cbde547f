"""Trained PPO policies as agents (the spec ``ppo:path``).

A MaskablePPO ``MlpPolicy`` (flatten -> policy MLP -> action logits) is run in numpy: no
torch at play time, ~10 us per decision, and it is what the self-play pool uses for frozen
snapshots of the learner. Illegal actions get probability 0 (their logits are masked).

``load_ppo_agent(path, game_id, options)`` accepts a run directory (``model.zip`` and its
``model.npz`` in it), a ``.zip`` saved by sb3-contrib, or a ``.npz`` written by
``NumpyPolicy.save``; it checks that the policy fits the game's observation and action sizes.
A ``.npz`` whose ``kind`` is ``action_scorer`` holds the per-action scorer (``agents/scorer.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from muggins_env.agents.base import player_view
from muggins_env.agents.features import make_features
from muggins_env.agents.policy import _TORCH_ACTIVATIONS, ACTIVATIONS, MaskedPolicy
from muggins_env.agents.scorer import KIND, ScorerPolicy

from muggins_env.env import ADAPTER_OPTIONS


class NumpyPolicy(MaskedPolicy):
    """The actor of a MaskablePPO MlpPolicy: ``layers`` of (W, b) then the action head."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], head: tuple[np.ndarray, np.ndarray],
                 activation: str = "tanh", features: str | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not supported; allowed: {', '.join(ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.head = (np.ascontiguousarray(head[0], np.float32), np.asarray(head[1], np.float32))
        self.activation = activation
        self.features = None if features in (None, "none") else str(features)  # derived features it expects
        self._act = ACTIVATIONS[activation]
        self.obs_size = self.layers[0][0].shape[1] if self.layers else self.head[0].shape[1]
        self.num_actions = self.head[0].shape[0]
        # transposed copies: x @ W.T is the hot path
        self._t = [(w.T.copy(), b) for w, b in self.layers]
        self._head_t = (self.head[0].T.copy(), self.head[1])

    @classmethod
    def from_sb3(cls, policy: Any) -> NumpyPolicy:
        """From a (Maskable)ActorCriticPolicy with an MLP extractor and a flatten extractor."""
        sd = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
        prefix = "mlp_extractor.policy_net."
        idx = sorted({int(k[len(prefix):].split(".")[0]) for k in sd if k.startswith(prefix)})
        layers = [(sd[f"{prefix}{i}.weight"], sd[f"{prefix}{i}.bias"]) for i in idx
                  if f"{prefix}{i}.weight" in sd]
        act = _TORCH_ACTIVATIONS.get(getattr(policy, "activation_fn", None).__name__, None)
        if act is None:
            raise ValueError(f"unsupported activation {policy.activation_fn!r}; use Tanh or ReLU")
        return cls(layers, (sd["action_net.weight"], sd["action_net.bias"]), act)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, np.float32)
        for w, b in self._t:
            x = self._act(x @ w + b)
        w, b = self._head_t
        return x @ w + b

    # -- persistence -------------------------------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"activation": np.array(self.activation)}
        if self.features:
            out["features"] = np.array(self.features)
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        out["head_w"], out["head_b"] = self.head
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> NumpyPolicy:
        n = sum(1 for k in arrays if k.startswith("w"))
        layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
        features = str(arrays["features"]) if "features" in arrays else None
        return cls(layers, (arrays["head_w"], arrays["head_b"]), str(arrays["activation"]), features)

    @classmethod
    def load(cls, path: str | os.PathLike) -> NumpyPolicy:
        with np.load(path, allow_pickle=False) as data:
            return cls.from_arrays({k: data[k] for k in data.files})


def policy_from_arrays(arrays: dict[str, np.ndarray]) -> Any:
    """A numpy policy from its saved arrays: the per-action scorer or the MLP, by ``kind``."""
    if "kind" in arrays:
        if str(arrays["kind"]) != KIND:
            raise ValueError(f"unknown policy kind {str(arrays['kind'])!r}; known: mlp (no kind), {KIND}")
        return ScorerPolicy.from_arrays(arrays)
    return NumpyPolicy.from_arrays(arrays)


def load_npz(path: str | os.PathLike) -> Any:
    """The numpy policy saved at ``path`` (``.npz``), whichever kind it is."""
    with np.load(path, allow_pickle=False) as data:
        return policy_from_arrays({k: data[k] for k in data.files})


def policy_from_sb3(policy: Any) -> Any:
    """The numpy actor of an SB3 policy: the per-action scorer's or the MLP's."""
    if hasattr(policy.mlp_extractor, "coef"):  # train.scorer_policy.ActionScorerNet
        return ScorerPolicy.from_sb3(policy)
    return NumpyPolicy.from_sb3(policy)


class PPOAgent:
    """An agent playing a trained policy: the most probable legal action (``deterministic``,
    the default) or a sample from the masked distribution. A policy trained with derived
    features (``agents.features``) gets them appended to the observation, computed from the
    player's readable view in ``info``."""

    def __init__(self, policy: NumpyPolicy, deterministic: bool = True, name: str = "ppo",
                 features: Any = None) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.name = name
        self.features = features
        self.needs_info = features is not None

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
            info: dict | None = None) -> int:
        if self.features is not None:
            if not info:
                raise ValueError(f"{self.name} was trained with derived features: it needs the player's "
                                 "readable view in info")
            observation = np.concatenate([observation, self.features(player_view(info), action_mask)])
        return self.policy.act(observation, action_mask, rng, self.deterministic)

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, deterministic={self.deterministic})"


def _resolve(path: Path) -> Path:
    if path.is_dir():
        for name in ("model.npz", "policy.npz", "model.zip"):
            if (path / name).exists():
                return path / name
        raise FileNotFoundError(f"no model.npz, policy.npz or model.zip in {path}")
    if not path.exists() and path.with_suffix(".zip").exists():
        return path.with_suffix(".zip")
    if not path.exists():
        raise FileNotFoundError(f"PPO model {str(path)!r} not found (a run directory, .zip or .npz)")
    return path


def load_policy(path: str | os.PathLike) -> Any:
    path = _resolve(Path(path))
    if path.suffix == ".npz":
        return load_npz(path)
    sibling = path.with_name(path.stem + ".npz")  # written beside every saved model.zip
    if sibling.exists() and sibling.stat().st_mtime >= path.stat().st_mtime:
        return load_npz(sibling)
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(path), device="cpu")
    return policy_from_sb3(model.policy)


def model_card(path: str | os.PathLike) -> dict | None:
    """The ``model_card.json`` of the run a model belongs to, if any."""
    p = Path(path)
    for d in ([p] if p.is_dir() else [p.parent, p.parent.parent]):
        card = d / "model_card.json"
        if card.exists():
            return json.loads(card.read_text())
    return None


def load_ppo_agent(path: str | os.PathLike, game_id: str, options: dict | None = None,
                   deterministic: bool = True, kind: str = "ppo") -> PPOAgent:
    """The agent of spec ``ppo:path`` (or ``kind:path``) for ``game_id`` with env ``options``."""
    from muggins_env import game_class

    policy = load_policy(path)
    game = game_class(game_id)(**{k: v for k, v in (options or {}).items() if k not in ADAPTER_OPTIONS})
    if policy.features is None:  # a .zip without its .npz: the run's config says
        policy.features = ((model_card(path) or {}).get("config") or {}).get("features")
        policy.features = None if policy.features in (None, "none") else policy.features
    features = make_features(policy.features, game_id, game)
    extra = features.size if features is not None else 0
    if policy.obs_size != game.observation_size + extra or policy.num_actions != game.num_actions:
        card = model_card(path) or {}
        trained = f" (trained on {card.get('game')} {card.get('env_options')})" if card else ""
        raise ValueError(
            f"PPO model {str(path)!r}{trained} expects observations of {policy.obs_size} and "
            f"{policy.num_actions} actions, but {game_id} with options {options or {}} has "
            f"{game.observation_size + extra} (features: {policy.features or 'none'}) and {game.num_actions}")
    card = model_card(path)
    if card and card.get("game") not in (None, game_id):
        raise ValueError(f"PPO model {str(path)!r} was trained on {card['game']}, not {game_id}")
    return PPOAgent(policy, deterministic=deterministic, name=f"{kind}:{path}", features=features)


def load_rllib_agent(path: str | os.PathLike, game_id: str, options: dict | None = None,
                     deterministic: bool = True) -> PPOAgent:
    """The agent of spec ``rllib:path``: the numpy export (``model.npz``) of a run of
    ``muggins-train --backend rllib``, or one of its ``.npz`` files; playing needs no Ray."""
    p = Path(path)
    if not ((p.is_dir() and (p / "model.npz").exists()) or (p.suffix == ".npz" and p.is_file())):
        raise FileNotFoundError(f"RLlib policy {str(path)!r} not found: give the run directory of "
                                "muggins-train --backend rllib (with model.npz) or one of its .npz files")
    return load_ppo_agent(p, game_id, options, deterministic, kind="rllib")
