"""ONE generic PettingZoo AEC adapter over any game of the kernel.

It knows nothing of any one game: it asks the kernel ``State`` whose turn it is, what is
legal, what each player sees and what each step paid, and handles once, for every game,
what PettingZoo expects: agent names, cached spaces, dead-agent steps, cumulative rewards,
illegal actions, ``skip_forced``, rigged deals through ``reset(options={"deal": ...})``,
seeding, rendering, and the full state (``state()``: an array in ``state_space``, as
PettingZoo's convention is; ``full_state()``: the same as a readable dict).

Everything handed out is the caller's and plain data: observations and masks are new writable
arrays, and an info is an ordinary dict of arrays (``{"action_mask": ...}``, what
tensor-converting libraries such as TorchRL and Tianshou accept), for the agent to act and the
waiting ones alike. The readable extras (``phase``, ``legal_moves``, ``view``) come with
``readable_infos=True`` (built eagerly at every decision) or on demand from ``readable_info()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .decision import apply_action, play_forced_moves
from .kernel.game import Game, IllegalActionError, State
from .kernel.options import plain
from .kernel.rewards import quiet_rewards
from .kernel.seeds import game_seed as draw_game_seed

#: options the adapter takes itself; every other keyword goes to the game
ADAPTER_OPTIONS = ("render_mode", "skip_forced", "readable_infos")
RESET_OPTIONS = ("deal",)


def check_seed(seed: Any) -> int | None:
    """``reset``'s seed: None or an int >= 0 (a numpy int too), as Gymnasium requires."""
    seed = plain(seed)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed={seed!r} is not allowed; allowed: None or an int >= 0")
    return seed


def check_reset_options(options: Any) -> dict:
    """``reset``'s options as a new dict: None or a mapping of the known reset options."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping such as {{'deal': ...}} (or None), "
                         f"got {type(options).__name__} {options!r}")
    options = dict(options)
    # PettingZoo's api_test probes reset with options={"options": 1}; accept only that key.
    options.pop("options", None)
    unknown = sorted(set(options) - set(RESET_OPTIONS), key=repr)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
                         f"known reset options: {', '.join(RESET_OPTIONS)}")
    return options


class KernelAECEnv(AECEnv):
    """PettingZoo ``AECEnv`` over a kernel game. Subclass with ``game_cls`` and ``metadata``."""

    game_cls: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "kernel_env",
                                          "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, skip_forced: bool = False,
                 readable_infos: bool = False, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; allowed: None, "
                             + ", ".join(map(repr, self.metadata["render_modes"])))
        skip_forced, readable_infos = plain(skip_forced), plain(readable_infos)  # np.bool_ as bool
        for name, value in (("skip_forced", skip_forced), ("readable_infos", readable_infos)):
            if not isinstance(value, bool):
                raise ValueError(f"option {name}={value!r} is not allowed; allowed values: True, False")
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.readable_infos = readable_infos
        self.game = self.game_cls(**options)
        n, a = self.game.num_players, self.game.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(self.game.observation_low, self.game.observation_high,
                                      (self.game.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (a,), np.int8),
        })
        self.observation_spaces = {agent: obs_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(a) for agent in self.possible_agents}
        #: ``state()``'s space: every seat's observation, then what no seat sees (``game.state_layout``)
        self.state_space = spaces.Box(0.0, 1.0, (self.game.state_size,), np.float32)
        self._zeros = np.zeros(a, dtype=np.int8)  # never handed out: its copies are (cheaper than np.zeros)
        self._zeros.flags.writeable = False
        self._seed_rng: np.random.Generator | None = None
        self._state: State | None = None
        self._mask = self._zeros  # the env's own: only copies are handed out
        self.agents = []
        self._over = True  # until reset: step() says to call reset() first
        self._to_act: str | None = None  # the agent whose turn it is (None once the game is over)
        self._quiet = quiet_rewards(n)  # what the state's rewards() is when a step pays nothing

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed, options = check_seed(seed), check_reset_options(options)
        # a reset that raises (a bad deal) leaves the env as it was, its seed stream included
        rng = self._seed_rng if seed is None else np.random.default_rng(seed)
        if rng is None:
            rng = np.random.default_rng()
        kept = rng is self._seed_rng  # a new generator is dropped on failure: nothing to restore
        before = rng.bit_generator.state if kept else None
        game_seed = draw_game_seed(rng)
        try:
            state = self.game.new_initial_state(seed=game_seed, deal=options.get("deal"))
        except BaseException:
            if kept:
                rng.bit_generator.state = before
            raise
        self._seed_rng, self._state = rng, state
        self.agents = self.possible_agents[:]
        self.rewards = self._zero_rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {"action_mask": self._zeros.copy()} for agent in self.agents}
        self._info_agent = None
        self._over = False
        self._to_act = None
        self._skip_agent_selection = None
        gained = play_forced_moves(state) if self.skip_forced else None
        if gained is not None:
            self.rewards = {agent: float(gained[i]) for agent, i in self._index.items()}
            self._accumulate_rewards()
        self._sync()

    def step(self, action: Any) -> None:
        if self._over:  # every agent ends together: the dead steps that remove them
            if not self.agents:
                raise RuntimeError("step() called with no agent left: "
                                   + ("call reset() first" if self._state is None else
                                      "the episode is over and every agent was removed; call reset()"))
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        state = self._state
        if agent != self._to_act:  # cannot happen through agent_iter
            raise IllegalActionError(f"{agent} acted out of turn; it is {self._to_act}'s turn")
        gained = apply_action(state, action, self.skip_forced)  # the game validates and raises clearly
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0
        if gained is self._quiet:  # most steps pay nothing: nothing to accumulate, and the
            self.rewards = self._zero_rewards  # episode's all-zero dict serves again
        else:
            values = gained.tolist()
            if any(values):
                self.rewards = rewards = dict(zip(self.possible_agents, map(float, values)))
                for a, r in rewards.items():  # PettingZoo's _accumulate_rewards, inlined
                    cumulative[a] += r
            else:
                self.rewards = self._zero_rewards  # (reset builds a new one)
        self._sync()
        if self.render_mode == "human":
            self.render()

    def _sync(self) -> None:
        """Refresh agent_selection, end flags, the cached mask and infos after the state moved."""
        state = self._state
        infos = self.infos
        player = state.current_player()  # TERMINAL (-1) exactly when the episode is over
        previous = self._info_agent  # the only agent whose info holds a legal move
        if player < 0:
            if previous is not None:  # a new info: the one handed out before stays the caller's
                infos[previous] = {"action_mask": self._zeros.copy()}
            flags = self.truncations if state.is_truncated() else self.terminations
            for agent in self.agents:
                flags[agent] = True
            self._over = True
            self._to_act = None
            self._mask = self._zeros
            self._info_agent = None
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = self._to_act = agent = self.possible_agents[player]
        self._mask = mask = state.legal_actions_mask()  # may be the game's shared read-only array
        if previous is not None and previous != agent:  # a new info: the one handed out stays the caller's
            infos[previous] = {"action_mask": self._zeros.copy()}
        self._info_agent = agent
        if self.readable_infos:
            info = self.readable_info()
            info["action_mask"] = mask.copy()
            infos[agent] = info
        else:
            infos[agent] = {"action_mask": mask.copy()}

    def readable_info(self) -> dict:
        """The readable extras of the agent to act's decision, as a new dict: ``phase`` (its
        name), ``legal_moves`` (``{action: readable name}``) and ``view`` (``public_view``: what
        that agent may know, as readable data). What ``readable_infos=True`` puts in every info
        of the agent to act; empty once the episode is over."""
        state = self._state
        if state is None:
            raise RuntimeError("readable_info() called before reset()")
        player = state.current_player()
        if player < 0:
            return {}
        return {"phase": state.phase_name(),
                "legal_moves": {int(a): state.action_to_string(int(a)) for a in np.flatnonzero(self._mask)},
                "view": state.public_view(player)}

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIter:
        """PettingZoo's ``agent_iter`` (the agent to act, until no agent is left, at most
        ``max_iter`` times) with a generator for its iterator: each step of the loop pays less."""
        return _AgentIter(self, max_iter)

    # -- views -----------------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and mask, new arrays (the state builds a new observation)."""
        return {"observation": self._state.observation(self._index[agent]),
                "action_mask": (self._mask if agent == self._to_act else self._zeros).copy()}

    def last(self, observe: bool = True) -> tuple:
        agent = self.agent_selection  # PettingZoo's last(), without its per-call assert
        if observe:  # observe(agent), inlined: last() is called once a step
            obs = {"observation": self._state.observation(self._index[agent]),
                   "action_mask": (self._mask if agent == self._to_act else self._zeros).copy()}
        else:
            obs = None
        return (obs, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent],
                self.infos[agent])

    def state(self) -> np.ndarray:
        """The full information state as a new float32 array in ``state_space`` (PettingZoo's
        convention, for centralised critics): every seat's observation, then what no seat sees
        (the game's ``state_layout`` names each piece; the env page documents them)."""
        if self._state is None:
            raise RuntimeError("state() called before reset()")
        return self._state.state_array()

    def full_state(self) -> dict:
        """The full state as a readable dict (hidden cards included): records, replays, debugging."""
        if self._state is None:
            raise RuntimeError("full_state() called before reset()")
        return self._state.full_state()

    @property
    def kernel_state(self) -> State:
        """The rules state behind the env (hidden cards included): not a player's view."""
        return self._state

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._state.render() if self._state is not None else "(not reset)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.metadata["name"]


class _AgentIter:
    """What ``agent_iter`` returns: iterable again and again, like PettingZoo's ``AECIterable``."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env: AECEnv, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self):
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An action outside the action space given to the wrapped env. An ``AssertionError``, as
    PettingZoo's ``AssertOutOfBoundsWrapper`` raises, and an ``IllegalActionError`` (a
    ``ValueError``) like every other bad input of the suite; unlike a bare ``assert`` it names
    the value and what is allowed, and it is raised under ``python -O`` too."""


class ClearOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's out-of-bounds check with a message that names the value and the space."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if isinstance(action, (bool, np.bool_)):  # True is an int in Python, not an action here
            raise ActionOutOfBoundsError(f"action {action!r} for {agent} is a bool, not an action; "
                                         f"allowed: an int 0..{self.action_space(agent).n - 1}")
        if action is None:
            if not (self.terminations[agent] or self.truncations[agent]):
                raise ActionOutOfBoundsError(f"action None given for {agent}, who is still in the game; "
                                             "None is only for agents whose episode has ended")
        elif not _in_space(self.action_space(agent), action):
            n = self.action_space(agent).n
            raise ActionOutOfBoundsError(f"action {action!r} for {agent} is not in the action space "
                                         f"Discrete({n}); allowed: an int 0..{n - 1}")
        wrappers.BaseWrapper.step(self, action)


class CallersMaskTerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's illegal-action ending (-1 for the offender), judged on a copy of the mask it
    handed out: the observation returned is the caller's, and writing into it changes nothing."""

    def observe(self, agent: str) -> Any:
        obs = super().observe(agent)
        if agent == self.agent_selection and isinstance(obs, dict):
            self._prev_obs = {"action_mask": obs["action_mask"].copy()}
        return obs


def _in_space(space: spaces.Discrete, action: Any) -> bool:
    """Whether ``action`` is in ``space``, for any int (Gymnasium 1.0's ``Discrete.contains`` raises
    ``OverflowError`` on an int beyond int64, such as 10**20)."""
    if isinstance(action, (int, np.integer)):
        return int(space.start) <= int(action) < int(space.start) + int(space.n)
    try:
        return bool(space.contains(action))
    except (OverflowError, TypeError, ValueError):
        return False


def wrapped(raw_cls: type[KernelAECEnv]):
    """The ``env()`` factory of a game module, wrapped as PettingZoo classic envs are:
    an illegal action ends the episode with -1 for the offender instead of raising; an
    action outside the action space raises ``ActionOutOfBoundsError`` (an AssertionError)."""

    def env(**options: Any) -> AECEnv:
        e = raw_cls(**options)
        e = CallersMaskTerminateIllegalWrapper(e, illegal_reward=-1)
        e = ClearOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    env.__doc__ = f"The wrapped {raw_cls.metadata['name']} AEC env (PettingZoo classic wrappers)."
    return env
