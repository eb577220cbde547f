"""``search:N``: a determinised Monte-Carlo agent (the strong reference), for every game.

At a decision with several legal actions it
1. asks the heuristic for its move and, where the heuristic ranks moves
   (``candidates(view, legal, k)``), keeps its ``max_candidates`` best (all of them otherwise);
2. samples ``worlds = max(1, N // len(candidates))`` determinisations: kernel states drawn by
   ``info["resample"](rng)`` = ``state.resample_hidden(player, rng)``, in which every card
   the player cannot see is re-dealt consistently with what it knows (cards seen played or
   shown never move), with a fresh random stream for later chance (the next deals); so N is
   the number of rollouts per decision;
3. in each world applies every candidate and plays the game on with the heuristic at every
   seat (the same world and the same random stream for every candidate: common random
   numbers, so that differences between candidates are not noise) until the end, or until
   the game's evaluator stops the rollout (the end of the current hand, or ``horizon``
   decisions), and scores it with the evaluator (the return, plus a small score-margin term
   where the game keeps a score);
4. plays the candidate with the best mean value, except that it keeps the heuristic's move
   unless another beats it by more than ``z`` standard errors of the paired difference
   (no deviation from a sound default without evidence).

It never sees the true state: only the observation, the mask and the readable view, and
determinised states from the sampler. Options (spec ``search:N`` or ``make_agent`` kwargs):
``budget`` (N, default 200), ``max_candidates`` (default 6), ``z`` (default 1.0),
``horizon`` (decisions per rollout, default per game). ``search:N,value=table`` (cribbage):
the evaluator values each rollout by the chance to win from the position reached at the end of
the deal (``position_values``), not by its points; the agent's name carries the setting.
``search:N,worlds=inferred``: the worlds are drawn by ``state.resample_inferred`` (the harness
hands it as ``info["resample"]`` to an agent with ``inferred_worlds``), which also keeps what the
public moves showed (in dominoes, the tiles a seat that drew or passed could not hold; in
cribbage, the cards a seat that said go could not hold; in Michigan, the cards below a lead); the
default ``worlds=uniform`` is ``resample_hidden``'s re-deal. ``search:N,alloc=halving``: the N rollouts
in ceil(log2 k) rounds (sequential halving), each dropping the worse half of the candidates by mean
(never the default), so the candidates it hesitates between get most of the worlds; with two
candidates it is the plain search. ``search:N,alloc=race``: successive elimination, rounds of
N // (4 k) worlds (at least 2) for the k candidates still in, a candidate leaving once the best beats
it by more than 2 standard errors of the paired difference (after 0.3 N rollouts; the default only
beyond ``z`` too) or equals it in every world so far, until one is left or the next round would pass
2.5 N rollouts: the budget goes to the close decisions (``RACE_*``).

Policy-guided search (spec ``search:N,policy=<agent spec>[,rollout=policy|heuristic]
[,prior=heuristic|policy|hybrid]``, ``make_agent`` kwargs ``policy``, ``rollout``, ``prior``): the
policy is any agent spec that plays from observations (``zoo:...``, ``ppo:...``, ``rllib:...``,
``heuristic``, ``random``; not ``search``), built for the same game and options.
- ``rollout=policy`` (the default once a policy is given): the policy plays every seat in the
  rollouts, from each rollout state's ``observation(seat)``, ``legal_actions_mask()`` and, for
  a policy that reads the view (derived features), ``public_view(seat)``: exactly what that
  seat would get at the table, never the determinised state itself. ``rollout=heuristic``
  keeps the heuristic's rollouts.
- ``prior=policy``: the candidates are the policy's ``max_candidates`` most probable legal
  moves (a trained policy's masked softmax; the heuristic's own ranking when the policy is
  ``heuristic``) and the move kept without evidence is the policy's; ``prior=heuristic`` (the
  default) keeps the heuristic's candidates and default move.
- ``prior=hybrid``: the heuristic's candidates (those of the plain search, so a decision costs
  what ``search:N``'s does wherever the network agrees with the heuristic) with the policy's
  most probable move added in front when it is not among them, and the policy's move as the
  one kept without evidence. ``prior=policy`` weighs up to ``max_candidates`` moves at every
  decision with two legal moves, where the heuristic often offers one (an announcement, an
  obvious placement): in dominoes that made a move 5x as dear as ``search:100``'s.
Without ``policy`` the agent is exactly the plain ``search:N``.

Speed (exactly the decisions and values of the plain loop, ``benchmarks/search_reference.py``
keeps it; ``benchmarks/bench_search.py`` times both, ``tests/equivalence/test_search.py`` compares
them): each world's two random streams (the rollouts' ``default_rng(seed)`` and the world's
later chance) are one reused generator each, seeded at most once per world and only if a
rollout draws; the first rollout's draws are recorded and replayed to the others
(``ReplayStream``, in ``muggins_env.agents.rollout_streams``); the last candidate is played out
on the world itself (no clone); the heuristics' ``act_on_state`` read the rollout
state's fields that ``public_view`` would copy instead of building the view at every step, and
keep what rollouts recompute (the cribbage play and lay-away values, the show counts); the
evaluators read the same fields from the state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from muggins_env.agents.base import legal_of, player_view, state_sampler
from muggins_env.agents.rollout_streams import ReplayStream

from muggins_env.decision import agent_action

#: values of the search settings that name a choice
ROLLOUTS = ("heuristic", "policy")
PRIORS = ("heuristic", "policy", "hybrid")
#: how the worlds are drawn: ``uniform`` (``resample_hidden``: every hidden card anywhere it could
#: be by counts) or ``inferred`` (``resample_inferred``: also where the public moves allow it)
WORLDS = ("uniform", "inferred")
#: how the rollouts are shared among the candidates: ``uniform`` (every candidate in every world)
#: ``halving`` (sequential halving: rounds that drop the worse half of the candidates) or ``race``
#: (successive elimination: rounds until the others are settled, between RACE_MIN and RACE_MAX x N)
ALLOCS = ("uniform", "halving", "race")
#: ``alloc=race``: rounds of N // (RACE_ROUNDS * k) worlds (at least 2) for the k candidates still
#: in; a candidate leaves once the best's mean beats it by more than RACE_DROP standard errors of
#: the paired difference (after RACE_MIN * N rollouts), or when its rollouts equal the best's in
#: every world so far; the race ends when one is left or the next round would pass RACE_MAX * N
RACE_ROUNDS, RACE_MIN, RACE_MAX, RACE_DROP = 4, 0.3, 2.5, 2.0
#: agent kinds that may guide the search
POLICY_KINDS = ("zoo", "ppo", "rllib", "heuristic", "random")


class Evaluator:
    """Default rollout evaluation: play to the end; the value is the player's return."""

    horizon: int | None = None  # decisions per rollout (None: to the end or the evaluator's stop)

    def start(self, state: Any, player: int) -> Any:
        return None

    def stop(self, state: Any, player: int, marker: Any) -> bool:
        return False

    def value(self, state: Any, player: int, marker: Any) -> float:
        return float(state.returns()[player])


def _policy_scores(policy: Any, observation, mask: np.ndarray, view: dict) -> np.ndarray | None:
    """The policy's probability of every action (None when it has none: not a trained policy)."""
    net = getattr(policy, "policy", None)
    if net is None or not hasattr(net, "probabilities"):
        return None
    obs = observation
    features = getattr(policy, "features", None)
    if features is not None:
        obs = np.concatenate([obs, features(view, mask)])
    return np.asarray(net.probabilities(obs, mask), dtype=np.float64).reshape(-1)


class _RolloutPolicy:
    """A policy agent playing a rollout state's seat from what that seat may know."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def act_on_state(self, state: Any, rng: np.random.Generator) -> int:
        mask = state.legal_actions_mask()
        legal = mask.nonzero()[0]
        if len(legal) == 1:
            return int(legal[0])
        a = int(agent_action(self.agent, state, state.current_player(), mask.copy(), rng, bare_view=False))
        if not 0 <= a < len(mask) or not mask[a]:  # a policy must never make an illegal move
            raise AssertionError(f"rollout policy {getattr(self.agent, 'name', self.agent)!r} chose illegal "
                                 f"action {a}; legal {legal.tolist()}")
        return a


class SearchAgent:
    needs_info = True
    needs_sampler = True

    def __init__(self, game: Any, heuristic: Any, evaluator: Evaluator | None = None, budget: int = 200,
                 max_candidates: int = 6, z: float = 1.0, horizon: int | None = None,
                 policy: Any = None, rollout: str | None = None, prior: str = "heuristic",
                 policy_spec: str | None = None, worlds: str = "uniform", alloc: str = "uniform") -> None:
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
            raise ValueError(f"search budget={budget!r} is not allowed: rollouts per decision, an int >= 1")
        if rollout is None:
            rollout = "policy" if policy is not None else "heuristic"
        if rollout not in ROLLOUTS:
            raise ValueError(f"search rollout={rollout!r} is not allowed; allowed: {', '.join(ROLLOUTS)}")
        if worlds not in WORLDS:
            raise ValueError(f"search worlds={worlds!r} is not allowed; allowed: {', '.join(WORLDS)}")
        if alloc not in ALLOCS:
            raise ValueError(f"search alloc={alloc!r} is not allowed; allowed: {', '.join(ALLOCS)}")
        if prior not in PRIORS:
            raise ValueError(f"search prior={prior!r} is not allowed; allowed: {', '.join(PRIORS)}")
        if policy is None and (rollout == "policy" or prior in ("policy", "hybrid")):
            raise ValueError(f"search rollout={rollout!r}, prior={prior!r}: a policy is needed for "
                             "'policy' (give policy=<agent spec>, e.g. policy=zoo:cribbage_v0)")
        if policy is not None and not hasattr(policy, "act"):
            raise ValueError(f"search policy={policy!r} is not an agent (it has no act method)")
        if prior in ("policy", "hybrid") and not (hasattr(getattr(policy, "policy", None), "probabilities")
                                                  or hasattr(policy, "candidates")):
            raise ValueError(f"search prior={prior} needs a policy that ranks moves (zoo:, ppo:, rllib: or "
                             f"heuristic); {policy_spec or getattr(policy, 'name', policy)!r} does not")
        self.game = game
        self.heuristic = heuristic
        self.evaluator = evaluator or Evaluator()
        self.budget = int(budget)
        self.max_candidates = max(1, int(max_candidates))
        self.z = float(z)
        self.horizon = horizon if horizon is not None else self.evaluator.horizon
        self.policy = policy
        self.rollout = rollout
        self.prior = prior
        name = f"search:{self.budget}"
        if policy is not None:
            pname = policy_spec or getattr(policy, "name", type(policy).__name__)
            name += f",policy={pname}"
            if rollout != "policy":
                name += f",rollout={rollout}"
            if prior != "heuristic":
                name += f",prior={prior}"
        setting = getattr(self.evaluator, "setting", None)  # an evaluator chosen by a spec setting
        if setting:
            name += f",{setting}"
        self.inferred_worlds = worlds == "inferred"  # the harness hands it resample_inferred
        if self.inferred_worlds:
            name += ",worlds=inferred"
        self.alloc = alloc
        self.halving = alloc == "halving"
        if alloc != "uniform":
            name += f",alloc={alloc}"
        self.name = name
        self._roller = _RolloutPolicy(policy) if rollout == "policy" else heuristic
        self._streams = (ReplayStream(), ReplayStream())
        self._policy_rng = np.random.default_rng(0x5EED)
        self.last_values: dict[int, float] = {}

    def reset(self) -> None:
        self.last_values = {}
        self._policy_rng = np.random.default_rng(0x5EED)
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset()

    # -- the candidates ---------------------------------------------------------------------------
    def _heuristic_candidates(self, observation, action_mask, rng, info, view, legal) -> tuple[int, list | None]:
        default = int(self.heuristic.act(observation, action_mask, rng, info))
        cands = None
        if hasattr(self.heuristic, "candidates"):
            cands = [int(a) for a in self.heuristic.candidates(view, legal, self.max_candidates)]
        return default, cands

    def _policy_candidates(self, observation, action_mask, rng, info, view, legal) -> tuple[int, list | None]:
        policy = self.policy
        probs = _policy_scores(policy, observation, action_mask, view)
        if probs is not None:
            order = sorted((int(a) for a in legal), key=lambda a: (-probs[a], a))
            default = int(policy.act(observation, action_mask, rng, info))
            return default, order[: self.max_candidates]
        if hasattr(policy, "candidates"):  # a heuristic as the policy: its own ranking
            default = int(policy.act(observation, action_mask, rng, info))
            return default, [int(a) for a in policy.candidates(view, legal, self.max_candidates)]
        raise ValueError(f"search prior=policy needs a policy that ranks moves (zoo:, ppo:, rllib: or "
                         f"heuristic); {getattr(policy, 'name', policy)!r} does not")

    def act(self, observation, action_mask, rng, info=None) -> int:
        self.last_values = {}  # filled only when two or more candidates were weighed
        legal = legal_of(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        sampler = state_sampler(info)
        if sampler is None:
            raise ValueError("the search agent needs info['resample'] (a callable rng -> "
                             "state.resample_hidden(player, rng)); play it through muggins_env.eval "
                             "or give the sampler in info")
        view = player_view(info)
        if self.prior == "hybrid":
            default, cands = self._heuristic_candidates(observation, action_mask, rng, info, view, legal)
            # the policy's own draws (a sampling policy, a heuristic's ties) come from a stream of
            # its own, so that the worlds are the plain search's
            mine, _ = self._policy_candidates(observation, action_mask, self._policy_rng, info, view, legal)
            cands = list(cands) if cands else [int(a) for a in legal]
            if default not in cands:
                cands = [default] + cands[: self.max_candidates - 1]
            default = mine
        else:
            pick = self._policy_candidates if self.prior == "policy" else self._heuristic_candidates
            default, cands = pick(observation, action_mask, rng, info, view, legal)
        if not cands:
            cands = [int(a) for a in legal]
        if default not in cands:
            cands = [default] + cands[: self.max_candidates - 1]
        if len(cands) == 1:
            return cands[0]
        d = cands.index(default)
        race = self._race if self.alloc == "race" else self._rounds
        values, alive = race(cands, d, sampler, rng)
        every = np.nanmean(values, axis=0) if np.isnan(values).any() else values.mean(axis=0)  # dropped: fewer worlds
        self.last_values = dict(zip(cands, every.tolist()))
        means = values[:, alive].mean(axis=0)
        best = alive[int(np.argmax(means))]
        if d not in alive:  # the race settled against the default
            return cands[best]
        worlds = len(values)
        if best == d or worlds < 2:
            return cands[best] if worlds >= 2 or self.z <= 0 else default
        diff = values[:, best] - values[:, d]
        se = float(diff.std(ddof=1)) / np.sqrt(worlds)
        return cands[best] if diff.mean() > self.z * se else default

    def _rounds(self, cands: list[int], d: int, sampler: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
        """``alloc=uniform`` (one round) and ``alloc=halving``: the values [worlds, candidates]
        (NaN where a candidate was dropped) and the candidates still in (the default always)."""
        k = len(cands)
        rounds = max(1, (k - 1).bit_length()) if self.halving else 1  # ceil(log2 k)
        alive = list(range(k))
        blocks = []  # per round: the values of its worlds (NaN for candidates already dropped)
        for r in range(rounds):
            block = self._evaluate(cands, alive, max(1, self.budget // rounds // len(alive)), sampler, rng)
            blocks.append(block)
            if r < rounds - 1:  # keep the better half by mean over every world so far, and the default
                means = np.vstack(blocks)[:, alive].mean(axis=0)
                keep = sorted(range(len(alive)), key=lambda i: (-means[i], i))[: (len(alive) + 1) // 2]
                alive = sorted({alive[i] for i in keep} | {d})
        return np.vstack(blocks), alive

    def _race(self, cands: list[int], d: int, sampler: Any, rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
        """``alloc=race`` (successive elimination, see RACE_*): the values and the candidates still
        in; the default leaves only when beaten by more than max(RACE_DROP, z) standard errors."""
        k = len(cands)
        batch = max(2, self.budget // (RACE_ROUNDS * k))
        least, most = RACE_MIN * self.budget, RACE_MAX * self.budget
        alive = list(range(k))
        blocks, spent = [], 0
        while True:
            blocks.append(self._evaluate(cands, alive, batch, sampler, rng))
            spent += batch * len(alive)
            values = np.vstack(blocks)
            means = np.nanmean(values, axis=0)
            best = max(alive, key=lambda j: (means[j], j == d))  # ties: the default
            keep = []
            for j in alive:
                if j == best:
                    keep.append(j)
                    continue
                diff = values[:, best] - values[:, j]
                diff = diff[~np.isnan(diff)]  # the worlds both were played in
                if not diff.any():  # the same value in every world so far
                    if j == d:
                        keep.append(j)
                    continue
                se = float(diff.std(ddof=1)) / np.sqrt(len(diff))
                drop = max(RACE_DROP, self.z) if j == d else RACE_DROP
                if spent < least or diff.mean() <= drop * se:
                    keep.append(j)
            alive = keep
            if len(alive) == 1 or spent + batch * len(alive) > most:
                return values, alive

    def _evaluate(self, cands: list[int], alive: list[int], worlds: int, sampler: Any,
                  rng: np.random.Generator) -> np.ndarray:
        """``worlds`` fresh worlds, each playing out the ``alive`` candidates (indices into
        ``cands``) with common random numbers: a [worlds, len(cands)] array, NaN for the others."""
        values = np.full((worlds, len(cands)), np.nan)
        rollout = self._rollout
        last = alive[-1]
        # the rollouts' generators: default_rng(seed) per rollout and the world's stream (its
        # later chance) per rollout state, each seeded once per world and only if drawn from
        stream, world_stream = self._streams
        for w in range(worlds):
            world = sampler(rng)
            has_rng = hasattr(type(world), "rng") or hasattr(world, "rng")  # (not building a lazy one)
            if has_rng:  # later chance (next deals) is unknown too: never the true stream
                world_stream.world(int(rng.integers(2**62)))
            player = world.current_player()
            stream.world(int(rng.integers(2**62)))
            row = values[w]
            for j in alive:
                s = world if j == last else world.clone()  # the last candidate may use the world itself
                if has_rng:
                    s.rng = world_stream.rollout()
                row[j] = rollout(s, cands[j], player, stream.rollout())
        return values

    def _rollout(self, state: Any, action: int, player: int, rng: np.random.Generator) -> float:
        ev = self.evaluator
        marker = ev.start(state, player)
        state.apply(action)
        act = self._roller.act_on_state
        apply = state.apply
        stop = ev.stop
        is_terminal = state.is_terminal
        horizon = self.horizon
        if horizon is None:
            while not is_terminal():
                if stop(state, player, marker):
                    break
                apply(act(state, rng))
        else:
            steps = 0
            while not is_terminal():
                if steps >= horizon:
                    break
                if stop(state, player, marker):
                    break
                apply(act(state, rng))
                steps += 1
        return ev.value(state, player, marker)

    def __repr__(self) -> str:
        extra = f", policy={self.name.partition(',policy=')[2]!r}" if self.policy is not None else ""
        return f"SearchAgent(budget={self.budget}, max_candidates={self.max_candidates}, z={self.z}{extra})"
