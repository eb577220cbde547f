"""Our games as RLlib envs (new API stack), for ``--backend rllib``: one vector env of seats, or a ``MultiAgentEnv``.

``rllib.env_runner: single_agent`` (the default): ``MugginsSeatVectorEnv`` holds the learner's
seat of each game of an env runner (a ``SeatEnv``, the SB3 trainer's seat env: the pool plays the
other seats) as one Gymnasium vector env with a flat observation (the observation, then the
mask), and ``SeatEnvRunner`` samples it in a lean loop: one forward pass and one draw for all
games a step, RLlib's ``SingleAgentEpisode`` chunks built once per ``sample()``.

``rllib.env_runner: multi_agent``: ``MugginsMultiAgentEnv`` drives the kernel ``State`` turn by
turn, as ``SeatEnv`` does, with the AEC env's agent names, observations, forced moves
(``skip_forced``) and seeds: an episode's deal is the one the AEC env's ``reset(seed=s)`` deals
for a reset seed ``s`` drawn from the env's stream. The seats RLlib plays are the agents
``player_<i>``; only the agent to act observes (its observation and mask under the Dict keys
``observations`` / ``action_mask``). With an ``opponents`` sampler (the training ``OpponentPool``) each episode has
one RLlib seat (the learner, a random seat or ``seat``) and the other seats are played inside the
env by our Agent objects (``random``, ``heuristic``, frozen numpy snapshots), exactly as
``SeatEnv`` does; with ``opponents=None`` every seat is an RLlib agent (one shared policy plays
itself). Reward accounting is ``SeatEnv``'s, per RLlib seat: everything the game pays a seat
(during its own move, the others' turns, forced moves, the end) is held until that seat's next
observation and returned with it, each point exactly once; what is paid before a seat's first
decision goes with its second observation (the reward of its first step). At the end every RLlib
seat that has acted gets its last observation (a zero mask) and the rest of its reward.

Snapshots and curriculum weights reach the pools of every env of an env-runner process through
``broadcast`` (the envs register themselves in the process), and ``drain_results`` collects the
learner's returns per opponent kind for the trainer's logs.
"""

from __future__ import annotations

import gc
import time
import uuid
import weakref
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.wrappers.vector import DictInfoToList
from ray.rllib.core.columns import Columns
from ray.rllib.env.env_context import EnvContext
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

import muggins_env
from muggins_env.decision import agent_action, apply_action, play_forced_moves
from muggins_env.env import check_reset_options
from muggins_env.kernel.game import State
from muggins_env.kernel.rewards import quiet_rewards
from muggins_env.kernel.seeds import game_seed, game_seed_of
from muggins_env.wrappers import MAX_SKIPPED_IN_A_ROW, OpponentSampler

OBS, MASK = "observations", "action_mask"

_LIVE: weakref.WeakSet = weakref.WeakSet()  # the envs of this process (an env runner's)


class MugginsMultiAgentEnv(MultiAgentEnv):
    """See the module docstring. ``config``: RLlib's env config (a dict, with ``worker_index``
    and ``vector_index`` when RLlib makes it) with ``game`` (env id), ``env_options``,
    ``skip_forced``, ``seed``, ``seat`` and, for training, ``pool`` (kwargs of
    ``OpponentPool``), ``reward_scale`` and ``features``; or pass ``opponents`` directly.
    ``game`` is the kernel ``Game`` and ``state`` the episode's rules ``State`` (hidden cards
    included: not a player's view)."""

    def __init__(self, config: dict | None = None, opponents: OpponentSampler | None = None) -> None:
        from muggins_env.agents import make_game

        super().__init__()
        # RLlib's EnvContext carries the runner's index as an attribute (lost by dict())
        self._worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        config = dict(config or {})
        game_id = _game_id(config)
        options = dict(config.get("env_options") or {})
        self.skip_forced = bool(config.get("skip_forced", True))
        self.game = game = make_game(game_id, options)
        self.n = game.num_players
        self.state: State | None = None
        if opponents is None and config.get("pool") is not None:
            from muggins_env.train.pool import OpponentPool

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
        self.possible_agents = [f"player_{i}" for i in range(self.n)]  # the AEC env's names
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self._quiet = quiet_rewards(self.n)
        self._no_moves = np.zeros(game.num_actions, np.int8)  # the mask of a seat not to act
        self._mask = self._no_moves  # the legal actions of the seat to act (the game's array)
        self._seat = 0  # the seat to act, or the last one that did once the game is over
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
        deal = check_reset_options(options).get("deal")
        for _ in range(MAX_SKIPPED_IN_A_ROW):
            self.lineup = {}
            if self.sample_opponents is not None:
                learner = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(self.n))
                self.lineup = self.sample_opponents(self._rng, learner, self.n)
                for agent in self.lineup.values():
                    if getattr(agent, "reset", None) is not None:
                        agent.reset()
            # a reset seed drawn from the env's stream, as the AEC env's reset(seed=...) takes it
            self.state = self.game.new_initial_state(seed=game_seed_of(game_seed(self._rng)), deal=deal)
            self._pending = [0.0] * self.n
            self._returns = [0.0] * self.n
            self._acted = [False] * self.n
            self._collect(play_forced_moves(self.state) if self.skip_forced else None)
            self._advance()
            if not self.state.is_terminal():
                break  # an RLlib seat must act (else: no decision in this episode, no signal)
        else:
            raise RuntimeError(f"{MAX_SKIPPED_IN_A_ROW} episodes in a row ended before an RLlib seat had a decision")
        agent = self.possible_agents[self._seat]
        return {agent: self._observe(self._seat)}, {}

    def step(self, action_dict: dict):
        state, seat = self.state, self._seat
        if state is None:
            raise RuntimeError("step() called before reset()")
        agent = self.possible_agents[seat]
        if state.is_terminal() or agent not in action_dict:
            raise ValueError(f"step() expects the action of {agent!r} (the agent to act), got {sorted(action_dict)}")
        self._acted[seat] = True
        self._apply(int(action_dict[agent]))
        self._advance()
        if not state.is_terminal():
            nxt = self._seat
            obs = {self.possible_agents[nxt]: self._observe(nxt)}
            rew = {self.possible_agents[nxt]: self._pay(nxt)} if self._acted[nxt] else {}
            return obs, rew, {"__all__": False}, {"__all__": False}, {}
        done = [i for i in range(self.n) if self._acted[i]]
        obs = {self.possible_agents[i]: self._observe(i) for i in done}
        rew = {self.possible_agents[i]: self._pay(i) for i in done}
        truncated = state.is_truncated()
        self._record()
        return obs, rew, {"__all__": not truncated}, {"__all__": truncated}, {}

    # -- internals -------------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        """Apply ``action`` (then the forced moves, with ``skip_forced``), holding what it paid."""
        self._collect(apply_action(self.state, action, self.skip_forced))  # the game validates and raises

    def _collect(self, gained: np.ndarray | None) -> None:
        """Add what the last apply paid every seat to their pending rewards."""
        if gained is None or gained is self._quiet:  # most steps pay nothing (the games' shared zeros)
            return
        values = gained.tolist()
        if any(values):
            pending, returns = self._pending, self._returns
            for i, r in enumerate(values):
                pending[i] += r
                returns[i] += r

    def _advance(self) -> None:
        """Play the seats of the lineup until an RLlib seat must act or the game ends."""
        state = self.state
        while True:
            p = state.current_player()
            if p < 0:  # TERMINAL
                self._mask = self._no_moves
                return
            self._seat, self._mask = p, state.legal_actions_mask()
            if p not in self.lineup:
                return
            self._apply(agent_action(self.lineup[p], state, p, self._mask, self._rng))

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        obs = self.state.observation(seat)
        mask = (self._mask if seat == self._seat else self._no_moves).copy()
        if self.features is not None:
            obs = np.concatenate([obs, self.features(self.state.public_view(seat), mask)])
        return {OBS: obs.astype(np.float32, copy=False), MASK: mask.astype(np.float32)}

    def _pay(self, seat: int) -> float:
        r, self._pending[seat] = float(self._pending[seat]), 0.0
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
        if isinstance(env, MugginsSeatVectorEnv):
            n += env.broadcast(method, *args)
        elif env.sample_opponents is not None:
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
    return _flat_box(space[OBS], space[MASK].shape[0])


def _flat_box(obs: gym.spaces.Box, num_actions: int) -> gym.spaces.Box:
    """The observation's Box followed by a 0/1 mask of ``num_actions``."""
    return gym.spaces.Box(np.concatenate([obs.low, np.zeros(num_actions, np.float32)]),
                          np.concatenate([obs.high, np.ones(num_actions, np.float32)]),
                          (obs.shape[0] + num_actions,), np.float32)


def _game_id(config: dict) -> str:
    game_id = config.get("game")
    if game_id not in muggins_env.ENV_NAMES:
        raise ValueError(f"env config game={game_id!r} is not allowed; allowed: {', '.join(muggins_env.ENV_NAMES)}")
    return game_id


class MugginsSeatVectorEnv(gym.vector.VectorEnv):
    """The learner's seat of ``num_envs`` games as one Gymnasium ``VectorEnv``, for RLlib's
    ``SingleAgentEnvRunner`` (``rllib.env_runner: single_agent``, made by ``SeatEnvRunner``).

    Each game is a ``SeatEnv``, the SB3 trainer's seat env (the same rewards, forced moves and
    opponents, straight on the rules state), and the games of a runner share one opponent pool,
    as SB3's vec env does: a training episode has one RLlib seat, so RLlib's single-agent
    episodes and connectors carry it at a fraction of the multi-agent path's cost. The
    observation is one flat Box row per game, the observation then the mask (``flat_space``),
    written into one array. Autoreset is Gymnasium's ``NEXT_STEP`` (what RLlib expects): after a
    game's last step, the next ``step`` ignores that game's action and returns the first
    observation of its next game with reward 0. ``config``: ``MugginsMultiAgentEnv``'s (with the
    runner's ``worker_index`` when RLlib makes it), ``pool`` required.
    """

    metadata: ClassVar[dict] = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, config: dict | None = None, num_envs: int = 1) -> None:
        from muggins_env.agents import make_game
        from muggins_env.agents.features import make_features
        from muggins_env.train.pool import OpponentPool

        from muggins_env.wrappers import SeatEnv

        worker = int(getattr(config, "worker_index", 0) or 0)
        config = dict(config or {})
        game_id = _game_id(config)
        if config.get("pool") is None:
            raise ValueError("the seat vector env needs an opponent pool (config 'pool'): "
                             "without one every seat is an RLlib agent (use MugginsMultiAgentEnv)")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not allowed; allowed: an int >= 1")
        options = dict(config.get("env_options") or {})
        self.pool = OpponentPool(game_id, options, **config["pool"])
        seat = config.get("seat", "random")
        # one stream per game of every runner: RLlib gives all runners the same config seed
        seeds = np.random.SeedSequence([int(config.get("seed", 0)), worker]).generate_state(num_envs, np.uint64)
        self.envs = []
        for i in range(num_envs):
            game = make_game(game_id, options)
            self.envs.append(SeatEnv(game, seat=None if seat in (None, "random") else int(seat), opponents=self.pool,
                                     skip_forced=bool(config.get("skip_forced", True)), seed=int(seeds[i] >> 1),
                                     reward_scale=float(config.get("reward_scale", 1.0)), illegal="raise",
                                     features=make_features(config.get("features", "none"), game_id, game)))
        one = self.envs[0]
        self.num_envs = num_envs
        self.size = one.observation_space.shape[0]
        self.single_observation_space = _flat_box(one.observation_space, one.action_space.n)
        self.single_action_space = one.action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._obs = np.zeros((num_envs, self.single_observation_space.shape[0]), np.float32)
        self._done = [False] * num_envs
        self.results: dict[str, list[float]] = {}  # learner returns per opponent kind (unscaled)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        for i, env in enumerate(self.envs):
            self._write(i, env.reset(seed=None if seed is None else seed + i, options=options)[0], env)
        self._done = [False] * self.num_envs
        return self._obs.copy(), {}

    def step(self, actions):
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        done = self._done
        for i, env in enumerate(self.envs):
            if done[i]:  # NEXT_STEP autoreset: this game's action is ignored
                obs, _ = env.reset()
                done[i] = False
            else:
                obs, r, term, trunc, info = env.step(int(actions[i]))
                rewards[i], terminated[i], truncated[i] = r, term, trunc
                if term or trunc:
                    done[i] = True
                    self.results.setdefault(info.get("opponents") or "all", []).append(
                        float(info["returns"][env.learner]))
            self._write(i, obs, env)
        return self._obs.copy(), rewards, terminated, truncated, {}

    def _write(self, i: int, obs: np.ndarray, env: Any) -> None:
        row = self._obs[i]
        row[:self.size] = obs
        row[self.size:] = env.legal_mask()  # all zeros once the game is over

    def broadcast(self, method: str, *args: Any) -> int:
        getattr(self.pool, method)(*args)
        return self.num_envs  # the games that play this pool


class _Chunk:
    """One game's steps since the last ``sample()`` call, as lists (the ``SingleAgentEpisode`` is built once at the end)."""

    __slots__ = ("actions", "id_", "logits", "logp", "obs", "rewards", "started", "t0", "terminated", "truncated")

    def __init__(self, obs: np.ndarray, id_: str | None = None, t0: int = 0) -> None:
        self.id_ = id_ or uuid.uuid4().hex
        self.t0 = t0
        self.started = time.perf_counter()
        self.obs, self.actions, self.rewards, self.logp, self.logits = [obs], [], [], [], []
        self.terminated = self.truncated = False

    def episode(self, spaces: tuple, seq: int) -> SingleAgentEpisode:
        k = len(self.actions)
        eps = SingleAgentEpisode(
            self.id_, observations=self.obs, observation_space=spaces[0], action_space=spaces[1],
            infos=[{} for _ in range(k + 1)], actions=self.actions, rewards=self.rewards,
            terminated=self.terminated, truncated=self.truncated, t_started=self.t0, len_lookback_buffer=0,
            extra_model_outputs={Columns.ACTION_LOGP: self.logp, Columns.ACTION_DIST_INPUTS: self.logits,
                                 WEIGHTS_SEQ_NO: [seq] * k})
        eps._start_time, eps._last_step_time = self.started, time.perf_counter()  # the duration RLlib logs
        return eps


class SeatEnvRunner(SingleAgentEnvRunner):
    """RLlib's ``SingleAgentEnvRunner`` over one ``MugginsSeatVectorEnv`` of the runner's
    ``num_envs_per_env_runner`` games, with a lean sampling loop.

    ``make_env`` builds the vector env itself: RLlib's ``vector_entry_point`` path hands the env a
    plain dict without the runner's index, which the games' seeds need. ``_sample`` (by
    timesteps, the training path) replaces RLlib's per-game, per-step episode and connector
    calls, about half of a step's cost there, by one batched forward pass of the module, one
    categorical draw for all games and per-game lists, from which it builds the same
    ``SingleAgentEpisode`` chunks once per call (observations, actions, rewards, log-probs,
    action distribution inputs, weights' sequence number; ongoing games continue under the same
    episode id in the next call) and logs the same sampling metrics; episodes sent to another
    process are numpy'd whatever ``episodes_to_numpy`` says. Sampling by episodes or with random
    actions goes to RLlib's own loop.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if (self.worker_index or 0) > 0:
            # a remote runner's process: its heap (torch, RLlib, its module and games) lives as long
            # as it does, kept out of the full collections that sampling's episodes set off (each
            # would walk all of it); in the driver, the trainer freezes and unfreezes around its loop
            gc.collect()
            gc.freeze()

    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        ctx = EnvContext(dict(self.config.env_config), worker_index=self.worker_index, num_workers=self.num_workers)
        self.games = MugginsSeatVectorEnv(ctx, self.config.num_envs_per_env_runner)
        _LIVE.add(self.games)  # broadcast and drain_results reach its pool and results
        self.env = DictInfoToList(self.games)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
        self._chunks: list[_Chunk] | None = None

    def _sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None, explore: bool,
                random_actions: bool = False, force_reset: bool = False) -> list:
        if num_timesteps is None or random_actions:
            self._chunks, self._needs_initial_reset = None, True  # RLlib's loop starts from fresh games
            out = super()._sample(num_timesteps=num_timesteps, num_episodes=num_episodes, explore=explore,
                                  random_actions=random_actions, force_reset=force_reset)
            self._needs_initial_reset = True  # and so does ours after it
            return out
        import torch

        games, n = self.games, self.num_envs
        if force_reset or self._needs_initial_reset or self._chunks is None:
            self._obs, _ = games.reset()
            self._chunks = [_Chunk(self._obs[i]) for i in range(n)]
            self._needs_initial_reset = False
        chunks, obs, module, seq = self._chunks, self._obs, self.module, self._weights_seq_no
        forward = module.forward_exploration if explore else module.forward_inference
        ts, done = 0, []
        while ts < num_timesteps:
            with torch.no_grad():
                logits = forward({Columns.OBS: torch.from_numpy(obs)})[Columns.ACTION_DIST_INPUTS]
                if explore:
                    actions = torch.multinomial(torch.softmax(logits, -1), 1)[:, 0]
                else:
                    actions = torch.argmax(logits, -1)
                logp = torch.log_softmax(logits, -1).gather(1, actions[:, None])[:, 0]
            acts, logp, logits = actions.numpy(), logp.numpy(), logits.numpy()
            obs, rewards, terminated, truncated, _ = games.step(acts)
            for i in range(n):
                c = chunks[i]
                if c.terminated or c.truncated:  # this step reset game i (NEXT_STEP): a new episode
                    chunks[i] = _Chunk(obs[i])
                    continue
                c.obs.append(obs[i])
                c.actions.append(int(acts[i]))
                c.rewards.append(float(rewards[i]))
                c.logp.append(logp[i])
                c.logits.append(logits[i])
                ts += 1
                if terminated[i] or truncated[i]:
                    c.terminated, c.truncated = bool(terminated[i]), bool(truncated[i])
                    done.append(c.episode(self._spaces(), seq))
        self._obs = obs
        ongoing = []
        for i, c in enumerate(chunks):
            if c.actions and not (c.terminated or c.truncated):
                eps = c.episode(self._spaces(), seq)
                self._ongoing_episodes_for_metrics[eps.id_].append(eps)
                ongoing.append(eps)
                chunks[i] = _Chunk(c.obs[-1], c.id_, c.t0 + len(c.actions))
        self._done_episodes_for_metrics.extend(done)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(done))
        out = done + ongoing
        # episodes that leave this process (a remote runner's, or for a learner actor) travel as numpy
        # arrays: pickling one array a column costs a fraction of pickling a list of per-step ones
        leave = (self.worker_index or 0) > 0 or self.config.num_learners > 0
        return [e.to_numpy() for e in out] if self.episodes_to_numpy or leave else out

    def _spaces(self) -> tuple:
        return self.games.single_observation_space, self.games.single_action_space
