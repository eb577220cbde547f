"""Our PettingZoo AEC envs as an RLlib ``MultiAgentEnv`` (new API stack), for ``--backend rllib``.

``MugginsMultiAgentEnv`` drives the raw AEC env (``muggins_env.<id>.raw_env``) turn by turn. The
seats RLlib plays are the agents ``player_<i>``; only the agent to act observes (its
observation and mask under the Dict keys ``observations`` / ``action_mask``). With an
``opponents`` sampler (the training ``OpponentPool``) each episode has one RLlib seat (the
learner, a random seat or ``seat``) and the other seats are played inside the env by our Agent
objects (``random``, ``heuristic``, frozen numpy snapshots), exactly as ``SeatEnv`` does; with
``opponents=None`` every seat is an RLlib agent (one shared policy plays itself).

Reward accounting is ``SeatEnv``'s, per RLlib seat: everything the AEC env pays a seat (during
its own move, the others' turns, forced moves, the end) is held until that seat's next
observation and returned with it, each point exactly once; what is paid before a seat's first
decision goes with its second observation (the reward of its first step). At the end every RLlib
seat that has acted gets its last observation (a zero mask) and the rest of its reward.

Snapshots and curriculum weights reach the pools of every env of an env-runner process through
``broadcast`` (envs register themselves in the process), and ``drain_results`` collects the
learner's returns per opponent kind for the trainer's logs.
"""

from __future__ import annotations

import weakref
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import muggins_env
from muggins_env.wrappers import MAX_SKIPPED_IN_A_ROW, OpponentSampler, agent_action

OBS, MASK = "observations", "action_mask"

_LIVE: weakref.WeakSet = weakref.WeakSet()  # the envs of this process (an env runner's)


class MugginsMultiAgentEnv(MultiAgentEnv):
    """See the module docstring. ``config``: RLlib's env config (a dict, with ``worker_index``
    and ``vector_index`` when RLlib makes it) with ``game`` (env id), ``env_options``,
    ``skip_forced``, ``seed``, ``seat`` and, for training, ``pool`` (kwargs of
    ``OpponentPool``), ``reward_scale`` and ``features``; or pass ``opponents`` directly."""

    def __init__(self, config: dict | None = None, opponents: OpponentSampler | None = None) -> None:
        super().__init__()
        # RLlib's EnvContext carries the runner's index as an attribute (lost by dict())
        self._worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        config = dict(config or {})
        game_id = config.get("game")
        if game_id not in muggins_env.ENV_NAMES:
            raise ValueError(f"env config game={game_id!r} is not allowed; allowed: {', '.join(muggins_env.ENV_NAMES)}")
        options = dict(config.get("env_options") or {})
        self.aec = muggins_env.make(game_id, raw=True, skip_forced=bool(config.get("skip_forced", True)),
                                    readable_infos=False, **options)
        game = self.aec.game
        self.n = game.num_players
        if opponents is None and config.get("pool") is not None:
            from .pool import OpponentPool

            opponents = OpponentPool(game_id, options, **config["pool"])
        self.sample_opponents = opponents
        seat = config.get("seat", "random")
        self.fixed_seat = None if seat in (None, "random") else int(seat)
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.features = None
        if config.get("features", "none") not in (None, "none"):
            from muggins_env.agents.features import make_features

            self.features = make_features(config["features"], game_id, game)
        extra = int(self.features.size) if self.features is not None else 0
        low = np.broadcast_to(np.asarray(game.observation_low, np.float32), (game.observation_size,))
        high = np.broadcast_to(np.asarray(game.observation_high, np.float32), (game.observation_size,))
        low = np.concatenate([low, np.zeros(extra, np.float32)])
        high = np.concatenate([high, np.ones(extra, np.float32)])
        space = gym.spaces.Dict({OBS: gym.spaces.Box(low, high, (game.observation_size + extra,), np.float32),
                                 MASK: gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32)})
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents}
        # RLlib seeds env i of env runner w with seed + w + i: the runner's index keeps the streams apart
        self._rng = np.random.default_rng([int(config.get("seed", 0)), self._worker, vector])
        self.lineup: dict[int, Any] = {}
        # per seat, as Python lists: a step touches one or two entries, where numpy's per-item cost is the larger
        self._pending = [0.0] * self.n
        self._acted = [False] * self.n
        self.results: dict[str, list[float]] = {}  # learner returns per opponent kind (unscaled)
        self._returns = [0.0] * self.n
        _LIVE.add(self)

    # -- MultiAgentEnv API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng([int(seed), self._worker] if self._worker else int(seed))
        for _ in range(MAX_SKIPPED_IN_A_ROW):
            self.lineup = {}
            if self.sample_opponents is not None:
                learner = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(self.n))
                self.lineup = self.sample_opponents(self._rng, learner, self.n)
                for agent in self.lineup.values():
                    if getattr(agent, "reset", None) is not None:
                        agent.reset()
            self.aec.reset(seed=int(self._rng.integers(2**63 - 1)), options=options)
            self._pending = [0.0] * self.n
            self._returns = [0.0] * self.n
            self._acted = [False] * self.n
            self._collect()
            self._advance()
            if not self.aec._over:
                break  # an RLlib seat must act (else: no decision in this episode, no signal)
        else:
            raise RuntimeError(f"{MAX_SKIPPED_IN_A_ROW} episodes in a row ended before an RLlib seat had a decision")
        return {self.aec.agent_selection: self._observe(self.aec.agent_selection)}, {}

    def step(self, action_dict: dict):
        agent = self.aec.agent_selection
        if self.aec._over or agent not in action_dict:
            raise ValueError(f"step() expects the action of {agent!r} (the agent to act), got {sorted(action_dict)}")
        self._acted[self.aec._index[agent]] = True
        self.aec.step(int(action_dict[agent]))
        self._collect()
        self._advance()
        if not self.aec._over:
            nxt = self.aec.agent_selection
            obs = {nxt: self._observe(nxt)}
            rew = {nxt: self._pay(nxt)} if self._acted[self.aec._index[nxt]] else {}
            return obs, rew, {"__all__": False}, {"__all__": False}, {}
        done = [a for a in self.possible_agents if self._acted[self.aec._index[a]]]
        obs = {a: self._observe(a) for a in done}
        rew = {a: self._pay(a) for a in done}
        truncated = any(self.aec.truncations.values())
        self._record()
        return obs, rew, {"__all__": not truncated}, {"__all__": truncated}, {}

    # -- internals -------------------------------------------------------------------------------
    def _collect(self) -> None:
        """Add what the AEC env's last step (or reset) paid every seat to their pending rewards."""
        aec = self.aec
        rewards = aec.rewards
        if rewards is aec._zero_rewards:  # most steps pay nothing (the AEC env's shared all-zero dict)
            return
        pending, returns = self._pending, self._returns
        for i, r in enumerate(rewards.values()):  # in possible_agents order, as the AEC env builds it
            pending[i] += r
            returns[i] += r

    def _advance(self) -> None:
        """Play the seats of the lineup until an RLlib seat must act or the game ends."""
        aec = self.aec
        while not aec._over:
            p = aec._index[aec.agent_selection]
            if p not in self.lineup:
                return
            aec.step(agent_action(self.lineup[p], aec._state, p, aec._mask, self._rng))
            self._collect()

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        o = self.aec.observe(agent)
        obs, mask = o["observation"], o["action_mask"]
        if self.features is not None:
            view = self.aec.kernel_state.public_view(self.aec._index[agent])
            obs = np.concatenate([obs, self.features(view, mask)])
        return {OBS: obs.astype(np.float32, copy=False), MASK: mask.astype(np.float32)}

    def _pay(self, agent: str) -> float:
        i = self.aec._index[agent]
        r, self._pending[i] = float(self._pending[i]), 0.0
        return r * self.reward_scale

    def _record(self) -> None:
        if self.lineup:
            learner = next(i for i in range(self.n) if i not in self.lineup)
            kind = getattr(self.lineup, "name", "") or "all"
            self.results.setdefault(kind, []).append(float(self._returns[learner]))


def broadcast(method: str, *args: Any) -> int:
    """Call ``method`` of the opponent pool of every env of this process; return how many."""
    n = 0
    for env in list(_LIVE):
        if env.sample_opponents is not None:
            getattr(env.sample_opponents, method)(*args)
            n += 1
    return n


def drain_results() -> dict[str, list[float]]:
    """The learner returns per opponent kind recorded by the envs of this process since the last call."""
    out: dict[str, list[float]] = {}
    for env in list(_LIVE):
        for kind, rets in env.results.items():
            out.setdefault(kind, []).extend(rets)
        env.results = {}
    return out


def flat_space(space: gym.spaces.Dict) -> gym.spaces.Box:
    """The Dict observation space as one Box: the observation, then the mask."""
    obs, mask = space[OBS], space[MASK]
    return gym.spaces.Box(np.concatenate([obs.low, mask.low]), np.concatenate([obs.high, mask.high]),
                          (obs.shape[0] + mask.shape[0],), np.float32)


def _flat(o: dict[str, np.ndarray]) -> np.ndarray:
    return np.concatenate([o[OBS], o[MASK]])


class MugginsSeatEnv(gym.Env):
    """The learner's seat of ``MugginsMultiAgentEnv`` as a single-agent Gymnasium env, for RLlib's
    ``SingleAgentEnvRunner`` (``rllib.env_runner: single_agent``): a training episode has one RLlib
    seat (the pool plays the others), so RLlib's lighter single-agent episodes and connectors
    carry the same data, the SB3 seat env's shape. Its observation is one flat Box, the
    observation then the mask (``flat_space``): RLlib handles a Box at a fraction of a Dict's cost.
    Same config, rewards, pool and broadcast."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        self.multi = MugginsMultiAgentEnv(config)
        if self.multi.sample_opponents is None:
            raise ValueError("the single-agent seat env needs an opponent pool (config 'pool'): "
                             "without one every seat is an RLlib agent (use MugginsMultiAgentEnv)")
        first = self.multi.possible_agents[0]
        space = self.multi.observation_spaces[first]
        self.observation_space = flat_space(space)
        self.action_space = self.multi.action_spaces[first]
        self._agent: str | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, _ = self.multi.reset(seed=seed, options=options)
        (self._agent, o), = obs.items()
        return _flat(o), {}

    def step(self, action):
        agent = self._agent
        obs, rew, term, trunc, _ = self.multi.step({agent: action})
        return _flat(obs[agent]), float(rew.get(agent, 0.0)), bool(term["__all__"]), bool(trunc["__all__"]), {}
