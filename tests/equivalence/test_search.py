"""The fast ``search:N`` (issue #31 item 2) and the policy-guided search (item 3).

- The search makes exactly the decisions of its frozen reference (``benchmarks/search_reference.py``:
  the loop and the view-per-step rollouts as they were), with exactly the same ``last_values``,
  for fixed seeds over many positions of every game.
- Each heuristic's ``act_on_state`` (the rollouts' fast path, read from the state) plays what
  ``choose`` on ``public_view`` plays, with the same use of the generator.
- ``search:N,policy=<spec>[,rollout=...][,prior=...]`` runs, plays only legal moves (in its
  rollouts too, where the policy gets only the seat's observation, mask and view), and wrong
  settings are clear ValueErrors naming the value and what is allowed.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game, parse_spec

from tests import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from search_reference import make_reference_search, reference_act_on_state

#: (game id, options, budget, games, decisions compared at most)
CASES = [
    ("cribbage_v0", {"num_players": 2}, 30, 2, 40),
    ("cribbage_v0", {"num_players": 3}, 24, 1, 25),
    ("cribbage_v0", {"num_players": 4}, 24, 1, 25),
    ("cribbage_v0", {"num_players": 2, "lowball": True}, 24, 1, 25),
    ("muggins_dominoes_v0", {}, 30, 2, 40),
    ("muggins_dominoes_v0", {"num_players": 3, "knocking": True, "extra_play": True}, 24, 1, 30),
    ("muggins_dominoes_v0", {"num_players": 2, "variant": "sniff"}, 24, 1, 25),
    ("michigan_v0", {}, 40, 2, 30),
    ("muggins_cards_v0", {"num_players": 4, "mistakes": True}, 24, 1, 30),
]


def _info(state, p):
    return {"view": state.public_view(p), "action_mask": state.legal_actions_mask(),
            "resample": lambda r, _s=state, _p=p: _s.resample_hidden(_p, r)}


@pytest.mark.parametrize("game_id,options,budget,games,most", CASES,
                         ids=[f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in c[1].items()) or 'default'}" for c in CASES])
def test_same_decisions_and_values_as_the_reference(game_id, options, budget, games, most):
    game = make_game(game_id, options)
    heuristic = make_agent("heuristic", game_id, options)
    new = make_agent(f"search:{budget}", game_id, options)
    ref = make_reference_search(game_id, options, budget=budget)
    compared = weighed = 0
    for g in range(games):
        state = game.new_initial_state(seed=7100 + g)
        rng = np.random.default_rng([g, 31])
        while not state.is_terminal() and compared < most * (g + 1) / games:
            p = state.current_player()
            mask = state.legal_actions_mask()
            if mask.sum() > 1:
                seed = int(rng.integers(2**62))
                a_ref = ref.act(state.observation(p), mask.copy(), np.random.default_rng(seed), _info(state, p))
                a_new = new.act(state.observation(p), mask.copy(), np.random.default_rng(seed), _info(state, p))
                assert a_new == a_ref, (game_id, options, g, state.phase_name())
                assert new.last_values == ref.last_values  # the same floats, not merely close
                compared += 1
                weighed += len(new.last_values) >= 2
                # the game goes on with the heuristic now and then, to reach other positions
                a = a_new if compared % 3 else heuristic.act(state.observation(p), mask.copy(), rng,
                                                             {"view": state.public_view(p)})
            else:
                a = int(mask.argmax())
            state.apply(a)
    assert compared > 0
    assert weighed > 0 or game_id == "muggins_cards_v0"


@pytest.mark.parametrize("game_id,options", [(c[0], c[1]) for c in CASES],
                         ids=[f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in c[1].items()) or 'default'}" for c in CASES])
def test_act_on_state_is_choose_on_the_view(game_id, options):
    """On states of heuristic games and their determinisations, the fast path and the view
    path give the same move and leave the generator in the same state."""
    game = make_game(game_id, options)
    fast = make_agent("heuristic", game_id, options)
    slow = make_agent("heuristic", game_id, options)
    checked = 0
    for g in range(3):
        state = game.new_initial_state(seed=8200 + g)
        rng = np.random.default_rng(g)
        while not state.is_terminal() and checked < 400 * (g + 1):
            for s in (state, state.resample_hidden(state.current_player(), rng)):
                seed = int(rng.integers(2**62))
                r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
                a_fast = fast.act_on_state(s, r1)
                a_slow = reference_act_on_state(slow, s, r2)
                assert a_fast == a_slow, (game_id, options, s.phase_name())
                assert r1.bit_generator.state == r2.bit_generator.state
                # a second call hits the fast path's caches: still the same move and stream
                r1 = np.random.default_rng(seed)
                assert fast.act_on_state(s, r1) == a_slow
                assert r1.bit_generator.state == r2.bit_generator.state
                checked += 1
            state.apply(reference_act_on_state(slow, state, rng))
    assert checked > 50


def test_a_stream_is_a_fresh_seeded_generator_in_every_rollout():
    """Replayed, recorded, diverging, skipped or used through its bit generator: every rollout
    of a world sees exactly the draws of ``np.random.default_rng(seed)``."""
    from muggins_env.agents.rollout_streams import ReplayStream

    plans = [
        [("random", ((3, 4),)), ("permutation", (52,)), ("integers", (10,))],
        [("random", ((3, 4),)), ("permutation", (52,)), ("integers", (10,))],  # replayed
        [("random", ((3, 4),)), ("integers", (7,)), ("random", ())],  # diverges at the second
        [("random", ((3, 4),)), ("permutation", (52,)), ("integers", (10,)), ("random", (5,))],  # longer
        [("skip", ((3, 4),)), ("permutation", (52,)), ("bits", ()), ("random", (2,))],
        [("bits", ()), ("random", ((3, 4),)), ("permutation", (52,))],
        [],
        [("integers", (0, 9)), ("choice", (5, 3))],
    ]
    stream = ReplayStream()
    rng = np.random.default_rng(4)
    for world in range(3):
        seed = int(rng.integers(2**62))
        stream.world(seed)
        for plan in plans:
            s, ref = stream.rollout(), np.random.default_rng(seed)
            for name, args in plan:
                if name == "skip":
                    s.skip("random", *args)
                    ref.random(*args)
                elif name == "bits":
                    assert s.bit_generator.state == ref.bit_generator.state
                else:
                    got, want = getattr(s, name)(*args), getattr(ref, name)(*args)
                    assert np.array_equal(got, want), (world, plan, name)
                    if isinstance(got, np.ndarray):
                        got[...] = 0  # a caller writing to a result never changes a later replay
            assert s.bit_generator.state == ref.bit_generator.state


def test_show_scores_is_the_batch_scorer():
    from muggins_env.games.cribbage.scoring import score_hands_batch, score_shows

    rng = np.random.default_rng(3)
    for crib in (True, False):
        for own_n in (1, 2, 3, 4):
            for _ in range(30):
                cards = rng.permutation(52)
                k, m = 7, 11
                own = np.array([cards[i * own_n:(i + 1) * own_n] for i in range(k)], dtype=np.int32)
                rest = cards[k * own_n:]
                fill = np.array([rng.choice(rest, 5 - own_n, replace=False) for _ in range(m)], dtype=np.int32)
                got = score_shows(own, fill, crib)
                hands = np.concatenate([np.repeat(own, m, axis=0), np.tile(fill[:, :-1], (k, 1))], axis=1)
                want = score_hands_batch(hands, np.tile(fill[:, -1], k), crib).reshape(k, m)
                assert got.dtype == want.dtype and (got == want).all()
                assert (got.mean(axis=1) == want.mean(axis=1)).all()


# -- policy-guided search ----------------------------------------------------------------------------
class Recorder:
    """Wraps a policy agent: records what it is given and checks that it plays legal moves."""

    def __init__(self, agent, game):
        self.agent, self.game, self.calls = agent, game, 0
        self.needs_info = getattr(agent, "needs_info", True)
        self.name = getattr(agent, "name", "recorded")

    def act(self, observation, action_mask, rng, info=None):
        assert observation.shape == (self.game.observation_size,) and observation.dtype == np.float32
        assert action_mask.dtype == np.int8 and action_mask.sum() >= 1
        if info is not None and "seat" in info:  # a rollout seat: its own view, nothing more
            assert info["view"]["seat"] == info["seat"] and "resample" not in info
        a = self.agent.act(observation, action_mask, rng, info)
        assert action_mask[a], "the policy was asked for a move and played an illegal one"
        self.calls += 1
        return a

    def __getattr__(self, name):  # policy / features / candidates of the wrapped agent
        return getattr(self.agent, name)


@pytest.mark.parametrize("spec", ["search:24,policy=zoo:cribbage_v0",
                                  "search:24,policy=zoo:cribbage_v0,rollout=heuristic,prior=policy",
                                  "search:24,policy=heuristic,prior=policy",
                                  "search:24,policy=zoo:cribbage_v0,rollout=heuristic,prior=hybrid",
                                  "search:24,policy=random"])
def test_guided_search_plays_legal_moves(spec):
    options = {"num_players": 2}
    game = make_game("cribbage_v0", options)
    agent = make_agent(spec, "cribbage_v0", options)
    assert agent.name == spec
    rec = Recorder(agent.policy, game)
    agent.policy = rec
    if agent.rollout == "policy":
        agent._roller.agent = rec
    seen = []
    real_act = agent.act

    def act(observation, action_mask, rng, info=None):
        a = real_act(observation, action_mask, rng, info)
        assert action_mask[a]
        if len(agent.last_values) >= 2:
            assert all(action_mask[c] for c in agent.last_values)
            seen.append(a)
        return a

    agent.act = act
    heuristic = make_agent("heuristic", "cribbage_v0", options)
    rngs = [np.random.default_rng([5, s]) for s in range(2)]
    # a deal or two: the play_game harness checks every move the search makes (check_legal)
    state = game.new_initial_state(seed=11)
    for a in (agent, heuristic):
        getattr(a, "reset", lambda: None)()
    steps = 0
    while not state.is_terminal() and state.deals <= 2:
        p = state.current_player()
        mask = state.legal_actions_mask()
        if mask.sum() == 1:
            a = int(mask.argmax())
        elif p == 0:
            a = agent.act(state.observation(p), mask.copy(), rngs[0], _info(state, p))
        else:
            a = heuristic.act(state.observation(p), mask.copy(), rngs[1], {"view": state.public_view(p)})
        state.apply(state.check_legal(a))
        steps += 1
    assert seen, "the guided search never weighed two moves"
    if agent.rollout == "policy" or agent.prior in ("policy", "hybrid"):
        assert rec.calls > 0


@pytest.mark.parametrize("game_id", ["cribbage_v0", "muggins_dominoes_v0", "michigan_v0"])
def test_hybrid_prior_with_the_heuristic_as_policy_is_the_plain_search(game_id):
    """prior=hybrid keeps the plain search's candidates and adds only the policy's move: with the
    heuristic as the policy it weighs the same moves on the same worlds and plays the same."""
    game = make_game(game_id, {})
    plain = make_agent("search:16", game_id, {})
    hybrid = make_agent("search:16,policy=heuristic,rollout=heuristic,prior=hybrid", game_id, {})
    state = game.new_initial_state(seed=4)
    rng = np.random.default_rng(0)
    weighed = 0
    while not state.is_terminal() and weighed < 12:
        p = state.current_player()
        mask = state.legal_actions_mask()
        obs, info = state.observation(p), _info(state, p)
        a = plain.act(obs, mask.copy(), np.random.default_rng([weighed, 1]), info)
        b = hybrid.act(obs, mask.copy(), np.random.default_rng([weighed, 1]), info)
        assert a == b and plain.last_values == hybrid.last_values
        weighed += len(plain.last_values) >= 2
        legal = np.flatnonzero(mask)
        state.apply(int(legal[rng.integers(len(legal))]))
    assert weighed >= 3


def test_hybrid_prior_adds_the_policys_move_and_keeps_it_without_evidence():
    class Contrarian:  # ranks the heuristic's move last: its own move is never the heuristic's
        name = "contrarian"

        def __init__(self, heuristic):
            self.heuristic = heuristic

        def candidates(self, view, legal, k):
            ranked = self.heuristic.candidates(view, legal, len(legal))
            return (ranked[1:] + ranked[:1])[:k] if len(ranked) > 1 else ranked

        def act(self, observation, action_mask, rng, info=None):
            view = info.get("view", info) if isinstance(info, dict) else info
            return int(self.candidates(view, np.flatnonzero(action_mask), 1)[0])

    game = make_game("cribbage_v0", {})
    agent = make_agent("search:8,policy=heuristic,rollout=heuristic,prior=hybrid,z=1000", "cribbage_v0", {})
    agent.policy = Contrarian(agent.heuristic)
    state = game.new_initial_state(seed=9)
    p = state.current_player()
    mask = state.legal_actions_mask()
    info = _info(state, p)
    heuristic_move = int(agent.heuristic.act(state.observation(p), mask, np.random.default_rng(0), info))
    theirs = agent.policy.act(None, mask, None, info)
    assert theirs != heuristic_move
    a = agent.act(state.observation(p), mask.copy(), np.random.default_rng(1), info)
    assert theirs in agent.last_values and heuristic_move in agent.last_values
    assert a == theirs  # z=1000: no evidence is enough, the policy's move is kept


def test_guided_search_in_a_tournament(tmp_path):
    from muggins_env.eval.tournament import run_tournament

    res = run_tournament("muggins_dominoes_v0", {}, ["search:12,policy=zoo:muggins_dominoes_v0,prior=policy",
                                                      "heuristic"], deals=1, seed=3, workers=1, progress=False)
    assert len(res.records) == 2


def test_guided_search_spec_settings():
    kind, arg, kw = parse_spec("search:200,policy=zoo:cribbage_v0/4p,rollout=heuristic,prior=policy")
    assert (kind, arg) == ("search", "200")
    assert kw == {"budget": 200, "policy": "zoo:cribbage_v0/4p", "rollout": "heuristic", "prior": "policy"}
    a = make_agent("search:10,policy=zoo:cribbage_v0", "cribbage_v0", {"num_players": 2})
    assert a.rollout == "policy" and a.prior == "heuristic" and a.name == "search:10,policy=zoo:cribbage_v0"
    plain = make_agent("search:10", "cribbage_v0", {"num_players": 2})
    assert plain.policy is None and plain.rollout == "heuristic" and plain.name == "search:10"
    import copy
    import pickle

    for agent in (a, plain):  # agents travel to worker processes and get copied
        assert pickle.loads(pickle.dumps(agent)).name == agent.name
        assert copy.deepcopy(agent).name == agent.name


@pytest.mark.parametrize("spec,words", [
    ("search:100,speed=3", ["speed", "allowed", "policy", "rollout", "prior"]),
    ("search:100,policy=search:10", ["search:10", "zoo", "ppo", "rllib", "heuristic"]),
    ("search:100,policy=magic:x", ["magic:x", "known kinds"]),
    ("search:100,policy=5", ["policy=5", "agent spec"]),
    ("search:100,rollout=fast", ["rollout='fast'", "heuristic, policy"]),
    ("search:100,prior=neural", ["prior='neural'", "heuristic, policy"]),
    ("search:100,prior=policy", ["prior=policy", "policy=<agent spec>"]),
    ("search:100,rollout=policy", ["rollout=policy", "policy=<agent spec>"]),
])
def test_bad_search_settings_are_clear_errors(spec, words):
    with pytest.raises(ValueError) as e:
        make_agent(spec, "cribbage_v0", {"num_players": 2})
    for w in words:
        assert w in str(e.value), (w, str(e.value))


@pytest.mark.parametrize("spec,words", [
    ("search:100,policy=zoo:no_such_model", ["no_such_model", "available"]),
    ("search:100,policy=zoo:michigan_v0", ["zoo:michigan_v0", "cribbage_v0"]),
    ("search:100,policy=ppo:/nonexistent/model.zip", ["/nonexistent/model.zip", "not found"]),
    ("search:100,policy=random,prior=policy", ["prior=policy", "ranks moves", "random"]),
])
def test_bad_policies_are_clear_errors(spec, words):
    with pytest.raises(ValueError) as e:
        make_agent(spec, "cribbage_v0", {"num_players": 2})
    for w in words:
        assert w in str(e.value), (w, str(e.value))
