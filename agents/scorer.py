"""The ``action_scorer`` policy in numpy: what plays a trained scorer, without torch.

The state (observation ++ derived features) is embedded once by an MLP (s); every action a is
then scored by shared weights from that embedding and its own features f_a (``ActionFeatures``):

    logit_a = f_a . (C s + c) + v . act(W_a f_a + W_s s + b)

a state-dependent weighting of the action's features (so a fixed expression of them, such as
the immediate points minus the next player's answer, is representable exactly) plus a small
shared network of them (absent when trained with ``action_hidden: 0``).
Illegal actions get probability 0. ``train/scorer_policy.py`` is the same network in torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from muggins_env.agents.features import ActionFeatures
from muggins_env.agents.policy import _TORCH_ACTIVATIONS, ACTIVATIONS, MaskedPolicy

KIND = "action_scorer"


class ScorerPolicy(MaskedPolicy):
    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], pair: dict[str, np.ndarray],
                 actions: ActionFeatures, activation: str = "tanh", features: str | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not supported; allowed: {', '.join(ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.pair = {k: np.asarray(v, np.float32) for k, v in pair.items()}  # coef_w, coef_b [, w_state, b, w_action, v]
        self.actions = actions
        self.activation = activation
        self.features = None if features in (None, "none") else str(features)
        self._act = ACTIVATIONS[activation]
        self.obs_size = self.layers[0][0].shape[1]
        self.num_actions = len(actions.index)
        self._t = [(w.T.copy(), b) for w, b in self.layers]
        self._coef = self.pair["coef_w"].T.copy()
        self.hidden = "v" in self.pair
        if self.hidden:
            self._ws, self._wa = self.pair["w_state"].T.copy(), self.pair["w_action"].T.copy()

    @classmethod
    def from_sb3(cls, policy: Any) -> ScorerPolicy:
        """From a ``train.scorer_policy.ActionScorerPolicy``."""
        sd = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
        prefix = "mlp_extractor.state_net."
        idx = sorted({int(k[len(prefix):].split(".")[0]) for k in sd if k.startswith(prefix)})
        layers = [(sd[f"{prefix}{i}.weight"], sd[f"{prefix}{i}.bias"]) for i in idx if f"{prefix}{i}.weight" in sd]
        m = "mlp_extractor."
        pair = {"coef_w": sd[m + "coef.weight"], "coef_b": sd[m + "coef.bias"]}
        if m + "score.weight" in sd:
            pair.update(w_state=sd[m + "state_to_hidden.weight"], b=sd[m + "state_to_hidden.bias"],
                        w_action=sd[m + "action_to_hidden.weight"], v=sd[m + "score.weight"][0])
        act = _TORCH_ACTIVATIONS[policy.activation_fn.__name__]
        return cls(layers, pair, ActionFeatures(sd[m + "index"], sd[m + "static"]), act)

    def _scores(self, x: np.ndarray, actions: np.ndarray | slice) -> np.ndarray:
        s = x
        for w, b in self._t:
            s = self._act(s @ w + b)
        f = self.actions(x, actions)  # [..., n, F]
        c = s @ self._coef + self.pair["coef_b"]  # [..., F]
        out = (f @ c[..., :, None])[..., 0]
        if self.hidden:
            h = self._act(f @ self._wa + (s @ self._ws + self.pair["b"])[..., None, :])
            out = out + h @ self.pair["v"]
        return out

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self._scores(np.asarray(obs, np.float32), slice(None))

    def legal_logits(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return self._scores(np.asarray(obs, np.float32), legal)  # only the legal actions are scored

    def to_arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"kind": np.array(KIND), "activation": np.array(self.activation),
                                      "action_index": self.actions.index, "action_static": self.actions.static}
        if self.features:
            out["features"] = np.array(self.features)
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        out.update({f"pair_{k}": v for k, v in self.pair.items()})
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> ScorerPolicy:
        n = sum(1 for k in arrays if k.startswith("w") and k[1:].isdigit())
        layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
        pair = {k[5:]: v for k, v in arrays.items() if k.startswith("pair_")}
        features = str(arrays["features"]) if "features" in arrays else None
        return cls(layers, pair, ActionFeatures(arrays["action_index"], arrays["action_static"]),
                   str(arrays["activation"]), features)
