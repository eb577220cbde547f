"""Single-agent views of the multi-agent games, for single-agent RL libraries (SB3).

``SeatEnv``: a ``gymnasium.Env`` in which the learner holds one seat of a kernel game (a
random seat each episode, or a fixed one) and every other seat is played by an opponent
drawn from a pool. ``step`` applies the learner's action, then plays the opponents (and,
with ``skip_forced``, every single-legal-action decision, the learner's included) until the
learner must choose again or the game ends.

Reward accounting (the contract): the reward of a transition is the sum of
``state.rewards()[learner]`` over EVERY ``apply`` from the learner's action up to (not
including) its next decision or the end -- points the opponents score (or make the learner
lose) during their turns, forced moves, and the terminal outcome all reach the learner's
transition, each exactly once. Whatever is paid before the learner's first decision of an
episode is added to the reward of its first step. An episode that ends before the learner
has any decision (possible with ``skip_forced``) carries no learning signal and is skipped
by ``reset`` (counted in ``skipped_episodes``) unless ``skip_decisionless=False`` (evaluation:
then ``reset`` may return a finished episode, whose learner return is ``pending_reward``).

Illegal actions (``illegal=``): by default, as in the wrapped AEC env (PettingZoo's classic
convention), an in-space action outside the mask ends the episode at once with a reward of
``ILLEGAL_REWARD`` = -1 for the learner (not multiplied by ``reward_scale``), ``terminated=True``,
``info["illegal_action"]`` set and no move made; this is what Gymnasium's and SB3's env checkers
and algorithms without masking expect. ``illegal="raise"`` raises ``IllegalActionError`` instead
(debugging). A value that is no action at all (a bool, a float, out of the space) always raises.

``gymnasium.make("muggins_env/<env_id>-seat", env_options=..., opponents=...)`` builds one
(registered on ``import muggins_env``).

``action_masks()`` lives on the env itself, so that sb3-contrib's ``MaskablePPO`` finds it
through ``SubprocVecEnv``/``DummyVecEnv`` (``env_method("action_masks")``). At a finished
episode it is all ones, never empty: Gymnasium's vector envs (next-step autoreset) step a
finished env once more, and whatever action is sampled then only resets it.

``BatchedSeatVecEnv``: many ``SeatEnv`` games stepped in one process, observations,
rewards and masks gathered into preallocated arrays; it implements SB3's ``VecEnv``
(with ``action_masks()``), auto-resets finished games and puts the last observation in
``infos[i]["terminal_observation"]`` as SB3 expects.

Opponents implement the agent protocol of ``muggins_env.agents.base``:
``act(observation, action_mask, rng, info=None) -> int``, given what ``muggins_env.decision``
builds for every harness: ``info`` is ``state.public_view(p)`` (None when the agent's
``needs_info`` is False, which saves building it), or, for an agent with ``needs_sampler``,
``{"view", "action_mask", "seat", "phase", "resample"}`` where ``resample(rng)`` is
``state.resample_hidden(p, rng)``; an agent with ``needs_observation = False`` gets ``None``
for the observation (which saves building it); an agent with ``needs_text`` (a language-model
player) gets ``info["text"]``, the decision in words from its seat's view
(``muggins_env.text_view``; the env then keeps every seat's move history as that seat saw it).
An agent's ``reset()``, if any, is called before each episode. Moves are validated once, by the
game's ``apply`` (the kernel's guard).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .decision import agent_action
from .env import check_reset_options, check_seed
from .kernel.game import Game, IllegalActionError, State
from .kernel.options import plain
from .kernel.seeds import game_seed
from .text_view import HistoryKeeper


class Agent(Protocol):  # the shape SeatEnv relies on (the agents package defines the real one)
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator,
            info: dict | None = None) -> int: ...


class UniformRandomAgent:
    """Uniform over the legal actions (the opponent used when no pool is given, and the
    training pool's ``random``): it needs neither the observation nor the readable view."""

    needs_info = False
    needs_observation = False
    name = "random"

    def act(self, observation, action_mask, rng, info=None) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[rng.integers(len(legal))])


#: reset gives up after this many episodes in a row without a learner decision
MAX_SKIPPED_IN_A_ROW = 1000

#: ``SeatEnv(illegal=...)``: "terminate" (an illegal learner action ends the episode with
#: ``ILLEGAL_REWARD``, as the wrapped AEC env does) or "raise" (``IllegalActionError``)
ILLEGAL_MODES = ("terminate", "raise")
ILLEGAL_REWARD = -1.0

#: ``sampler(rng, learner_seat, num_players) -> {seat: agent}`` for every other seat
OpponentSampler = Callable[[np.random.Generator, int, int], "dict[int, Agent]"]


def fixed_opponents(agent: Agent) -> OpponentSampler:
    """A sampler that puts the same agent in every other seat."""

    def sample(rng, learner, n):
        return {p: agent for p in range(n) if p != learner}

    return sample


def make_spec_agent(spec: str, game_id: str, options: dict) -> Agent:
    """An agent from a spec (``heuristic``, ``search:200``, ``zoo:cribbage_v0``, ...), by the agents' factory."""
    # the one import of the core that names the floor above it (tests/package/test_layers.py allows exactly
    # this one): lazily, so the rules and the env load without the agents
    from muggins_env.agents.factory import make_agent

    return make_agent(spec, game_id, options)


def spec_opponents(specs: str | Sequence[str], game_id: str, options: dict) -> OpponentSampler:
    """A sampler from agent specs: one spec drawn per episode, its agents at every other seat
    (one agent instance per seat and spec, made once)."""
    specs = [specs] if isinstance(specs, str) else list(specs)
    if not specs:
        raise ValueError("opponents: give at least one agent spec")
    made: dict[tuple[str, int], Agent] = {}

    def sample(rng, learner, n):
        spec = specs[int(rng.integers(len(specs)))] if len(specs) > 1 else specs[0]
        lineup = {}
        for p in range(n):
            if p != learner:
                if (spec, p) not in made:
                    made[(spec, p)] = make_spec_agent(spec, game_id, options)
                lineup[p] = made[(spec, p)]
        return lineup

    return sample


def _game_of(game: Game | str, options: dict | None) -> Game:
    if isinstance(game, Game):
        if options:
            raise ValueError("pass options only with a game id, not with a Game instance")
        return game
    from . import game_class

    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"env_options must be a mapping of game options (or None), got {options!r}")
    return game_class(game)(**(options or {}))


class SeatEnv(gym.Env):
    """One seat of a kernel game as a single-agent gymnasium env (see the module docstring).

    ``game``: an env id (``"cribbage_v0"``) with ``env_options``, or a kernel ``Game``.
    ``seat``: ``None`` (random each episode) or a fixed seat. ``opponents``: an
    ``OpponentSampler`` (see ``fixed_opponents``; the training pool is one), an agent for every
    other seat, an agent spec (``"random"``, ``"heuristic"``, ``"ppo:path"``) or a list of specs
    (one drawn per episode for the whole table), or None for uniform random opponents. ``skip_forced``: apply every decision
    that has a single legal action automatically (the learner's too). ``reward_scale``
    multiplies every reward ``step`` returns (e.g. chips or points into roughly [-1, 1]).
    ``features``: None, or a callable ``(view, mask) -> float32[features.size]`` whose output is
    appended to the learner's observation (``muggins_env.agents.features``: computed from the
    learner's readable view only). ``illegal``: ``"terminate"`` or ``"raise"`` (module docstring).
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, game: Game | str, env_options: dict | None = None, *, seat: int | None = None,
                 opponents: OpponentSampler | Agent | None = None, skip_forced: bool = True,
                 seed: int | None = None, render_mode: str | None = None,
                 skip_decisionless: bool = True, reward_scale: float = 1.0, features: Any = None,
                 illegal: str = "terminate") -> None:
        super().__init__()
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r} is not allowed; allowed: " + ", ".join(map(repr, ILLEGAL_MODES)))
        self.illegal = illegal
        self.game = _game_of(game, env_options)
        n = self.game.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat={seat!r} is not allowed; allowed: None (random) or 0..{n - 1}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, 'ansi'")
        self.render_mode = render_mode
        self.fixed_seat = None if seat is None else int(seat)
        for name, value in (("skip_forced", skip_forced), ("skip_decisionless", skip_decisionless)):
            if not isinstance(plain(value), bool):
                raise ValueError(f"{name}={value!r} is not allowed; allowed: True, False")
        reward_scale = plain(reward_scale)
        if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float, np.floating)):
            raise ValueError(f"reward_scale={reward_scale!r} is not allowed; allowed: a number")
        self.skip_forced = bool(skip_forced)
        self.skip_decisionless = bool(skip_decisionless)
        self.reward_scale = float(reward_scale)
        if opponents is None:
            opponents = fixed_opponents(UniformRandomAgent())
        elif isinstance(opponents, str) or (isinstance(opponents, (list, tuple))
                                            and all(isinstance(s, str) for s in opponents)):
            opponents = spec_opponents(opponents, self.game.FACTS.name, self.game.options)
        elif hasattr(opponents, "act"):
            opponents = fixed_opponents(opponents)
        elif not callable(opponents):
            raise ValueError(f"opponents={opponents!r} is not allowed; allowed: None, an agent spec or a list "
                             "of specs, an agent, or a sampler (rng, learner, n) -> {seat: agent}")
        self.sample_opponents: OpponentSampler = opponents
        self.features = features
        extra = int(features.size) if features is not None else 0
        low, high = self.game.observation_low, self.game.observation_high
        if extra:  # derived features are scaled into [0, 1] too
            size = self.game.observation_size
            low = np.concatenate([np.broadcast_to(np.asarray(low, np.float32), (size,)), np.zeros(extra, np.float32)])
            high = np.concatenate([np.broadcast_to(np.asarray(high, np.float32), (size,)), np.ones(extra, np.float32)])
        self.observation_space = spaces.Box(low, high, (self.game.observation_size + extra,), np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        seed = check_seed(seed)
        self._rng = self._np_random = np.random.default_rng(seed)  # gymnasium's np_random is the same
        self._np_random_seed = -1 if seed is None else seed  # -1: gymnasium's "not known"
        self.state: State | None = None
        self._illegal_end = False  # the episode ended on an illegal action of the learner
        self._history: HistoryKeeper | None = None  # kept when an opponent needs_text
        self.learner = 0
        self.lineup: dict[int, Agent] = {}
        self._learner_mask: np.ndarray | None = None  # the learner's mask at its current decision
        self._pending = 0.0
        self.skipped_episodes = 0
        self.episode_return = 0.0
        self.episode_decisions = 0

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed, deal = check_seed(seed), check_reset_options(options).get("deal")
        # a reset that raises (a bad deal) leaves the env as it was, its generator included
        saved = (self._rng, self._rng.bit_generator.state, self._np_random, getattr(self, "_np_random_seed", None))
        try:
            super().reset(seed=seed)  # seeds np_random (the gymnasium contract): the generator used below
            if seed is not None:
                self._rng = self._np_random
            self._new_episode(deal)
        except BaseException:
            self._rng, state, self._np_random, self._np_random_seed = saved
            self._rng.bit_generator.state = state
            raise
        return self._observe(), self._info()

    def _new_episode(self, deal) -> None:
        rng = self._rng
        n = self.game.num_players
        for _ in range(MAX_SKIPPED_IN_A_ROW):
            learner = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
            lineup = self.sample_opponents(rng, learner, n)
            state = self.game.new_initial_state(seed=game_seed(rng), deal=deal)
            self.learner, self.lineup, self.state = learner, lineup, state
            self._illegal_end = False
            self._history = (HistoryKeeper(n) if any(getattr(a, "needs_text", False) for a in lineup.values())
                             else None)
            for agent in lineup.values():
                reset = getattr(agent, "reset", None)
                if reset is not None:
                    reset()
            self.episode_return = 0.0
            self.episode_decisions = 0
            self._pending = self._advance()
            if not state.is_terminal() or deal is not None or not self.skip_decisionless:
                return
            self.skipped_episodes += 1  # over before the learner had a choice: no signal
        raise RuntimeError(f"{MAX_SKIPPED_IN_A_ROW} episodes in a row ended before the learner "
                           f"(seat {self.learner}) had a decision; use skip_decisionless=False")

    def step(self, action):
        state = self.state
        if state is None:
            raise RuntimeError("step() called before reset()")
        if self._illegal_end or state.is_terminal():
            raise RuntimeError("step() called on a finished episode; call reset()")
        entry = None
        if self._history is not None and self.action_space.contains(action) and not isinstance(action, bool):
            entry = HistoryKeeper.entry(state, int(action))
        try:
            state.apply(action)  # the game's apply validates (kernel guard): a clear error if illegal
            if entry is not None:
                self._history.add(entry)
        except IllegalActionError:
            if self.illegal == "raise" or not self.action_space.contains(action) or isinstance(action, bool):
                raise  # "raise", or not an action at all (a bool, a float, out of the space)
            return self._end_on_illegal(action)
        self.episode_decisions += 1
        reward = self._pending + float(state.rewards()[self.learner])
        self._pending = 0.0
        reward += self._advance()
        if self.reward_scale != 1.0:
            reward *= self.reward_scale
        self.episode_return += reward
        terminated = state.is_terminal() and not state.is_truncated()
        truncated = state.is_terminal() and state.is_truncated()
        return self._observe(), reward, terminated, truncated, self._info()

    def _end_on_illegal(self, action):
        """PettingZoo's convention for classic games (the wrapped AEC env): an illegal action
        ends the episode with ``ILLEGAL_REWARD`` for the learner (not scaled) and no move made."""
        self._illegal_end = True
        self._learner_mask = None
        self._pending = 0.0
        self.episode_decisions += 1
        self.episode_return += ILLEGAL_REWARD
        info = self._info()
        info["illegal_action"] = int(action)
        return self._observe(), ILLEGAL_REWARD, True, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, a new bool array. Once the episode is over (or
        before the first reset) every action is allowed: the env takes no more moves, and
        Gymnasium's vector envs under next-step autoreset step a finished env once more with any
        action, which only resets it; a masked sampler then never meets an empty row."""
        if self._over():
            return np.ones(self.game.num_actions, dtype=bool)
        return self._legal_now()

    def legal_mask(self) -> np.ndarray:
        """The learner's legal actions now as a new bool array, all False once the episode is
        over (what the observation's features and RLlib's observation row see)."""
        if self._over():
            return np.zeros(self.game.num_actions, dtype=bool)
        return self._legal_now()

    def _legal_now(self) -> np.ndarray:
        mask = self._learner_mask
        if mask is None:  # e.g. the state was changed from outside (tests)
            mask = self.state.legal_actions_mask()
        return mask.astype(bool)

    def _over(self) -> bool:
        return self.state is None or self._illegal_end or self.state.is_terminal()

    def render(self):
        return None if self.render_mode is None else self.state.render()

    @property
    def pending_reward(self) -> float:
        """What the learner was paid since its last decision and not yet given by ``step``."""
        return self._pending

    def call_opponents(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a method of the opponent sampler (e.g. the pool's ``add_snapshot``), through
        ``VecEnv.env_method`` when the env lives in a subprocess."""
        return getattr(self.sample_opponents, method)(*args, **kwargs)

    # -- internals -------------------------------------------------------------------------------
    def _advance(self) -> float:
        """Play opponents and forced moves until the learner must choose or the game ends;
        return the sum of the learner's rewards over every apply made."""
        state = self.state
        learner = self.learner
        rng = self._rng
        skip = self.skip_forced
        total = 0.0
        self._learner_mask = None
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            if skip and mask.sum() == 1:
                action = int(mask.argmax())
            elif p == learner:
                self._learner_mask = mask
                break
            else:
                action = agent_action(self.lineup[p], state, p, mask, rng,
                                      self._history.of(p) if self._history is not None else None)
            if self._history is not None:
                self._history.before_apply(state, action)
            state.apply(action)  # validated by the game (an agent's illegal move raises clearly)
            total += float(state.rewards()[learner])
        return total

    def _observe(self) -> np.ndarray:
        obs = self.state.observation(self.learner)
        if self.features is None:
            return obs
        mask = self.legal_mask().astype(np.int8)
        return np.concatenate([obs, self.features(self.state.public_view(self.learner), mask)])

    def _info(self) -> dict:
        info: dict[str, Any] = {"seat": self.learner}
        if self.state.is_terminal():
            info["opponents"] = getattr(self.lineup, "name", "")
            info["returns"] = self.state.returns().tolist()
            info["episode_decisions"] = self.episode_decisions
        return info


class BatchedSeatVecEnv:  # replaced below by a subclass of SB3's VecEnv when SB3 is installed
    pass


try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv
except ImportError:  # pragma: no cover - SB3 is an optional dependency (extra "train")
    _SB3VecEnv = None

if _SB3VecEnv is not None:

    class BatchedSeatVecEnv(_SB3VecEnv):  # type: ignore[no-redef]
        """Many ``SeatEnv`` games stepped in one process (SB3 ``VecEnv`` with ``action_masks``).

        ``envs``: the SeatEnvs (or ``make_env`` and ``num_envs``). Observations, rewards, done
        flags and masks live in preallocated arrays; a finished game is reset at once and its
        last observation goes to ``infos[i]["terminal_observation"]``; ``infos[i]["episode"]``
        holds ``{"r": return, "l": learner decisions}`` (what SB3's logger averages).
        """

        def __init__(self, envs: Sequence[SeatEnv] | None = None, make_env: Callable[[int], SeatEnv] | None = None,
                     num_envs: int | None = None) -> None:
            if envs is None:
                if make_env is None or not num_envs:
                    raise ValueError("give envs, or make_env and num_envs >= 1")
                envs = [make_env(i) for i in range(num_envs)]
            self.envs = list(envs)
            e0 = self.envs[0]
            super().__init__(len(self.envs), e0.observation_space, e0.action_space)
            n, size, a = len(self.envs), e0.observation_space.shape[0], e0.action_space.n
            self._obs = np.zeros((n, size), dtype=np.float32)
            self._rew = np.zeros(n, dtype=np.float32)
            self._done = np.zeros(n, dtype=bool)
            self._masks = np.zeros((n, a), dtype=bool)
            self._actions = np.zeros(n, dtype=np.int64)
            self._seeds: list[int | None] = [None] * n
            self._options: list[dict] = [{} for _ in range(n)]

        def reset(self):
            for i, env in enumerate(self.envs):
                obs, _ = env.reset(seed=self._seeds[i], options=self._options[i] or None)
                self._obs[i] = obs
                self._masks[i] = env.action_masks()
            self._seeds = [None] * self.num_envs
            self.reset_infos = [{} for _ in range(self.num_envs)]
            return self._obs.copy()

        def step_async(self, actions) -> None:
            self._actions[:] = np.asarray(actions).reshape(-1)

        def step_wait(self):
            infos = []
            for i, env in enumerate(self.envs):
                obs, r, term, trunc, info = env.step(int(self._actions[i]))
                self._rew[i] = r
                done = term or trunc
                self._done[i] = done
                if done:
                    info = dict(info)
                    info["terminal_observation"] = obs
                    info["TimeLimit.truncated"] = bool(trunc and not term)
                    info["episode"] = {"r": env.episode_return, "l": env.episode_decisions}
                    obs, _ = env.reset()
                self._obs[i] = obs
                self._masks[i] = env.action_masks()
                infos.append(info)
            return self._obs.copy(), self._rew.copy(), self._done.copy(), infos

        def action_masks(self) -> np.ndarray:
            return self._masks.copy()

        def close(self) -> None:
            pass

        def seed(self, seed: int | None = None):
            if seed is None:
                return [None] * self.num_envs
            self._seeds = [seed + i for i in range(self.num_envs)]
            return self._seeds

        def get_attr(self, attr_name: str, indices=None) -> list:
            return [getattr(self.envs[i], attr_name) for i in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
            for i in self._get_indices(indices):
                setattr(self.envs[i], attr_name, value)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
            if method_name == "action_masks" and indices is None:
                return list(self._masks.copy())
            return [getattr(self.envs[i], method_name)(*method_args, **method_kwargs)
                    for i in self._get_indices(indices)]

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False for _ in self._get_indices(indices)]

        def get_images(self):
            return [None for _ in self.envs]
