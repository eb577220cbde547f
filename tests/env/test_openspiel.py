"""The OpenSpiel bridge (``muggins_env.openspiel``, extra ``[openspiel]``): OpenSpiel's own
consistency test per env and per research-size configuration, move-by-move agreement with the
env on the same deals, and exploitability against values computed by hand / another route."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'muggins_env[openspiel]')")

import muggins_env
from muggins_env import openspiel as mo

FULL = [  # every env at (or near) its default size; shorter games where the default takes long
    ("muggins_cards_v0", {}),
    ("muggins_cards_v0", {"num_players": 3, "mistakes": True}),
    ("cribbage_v0", {"target": 61}),
    ("cribbage_v0", {"num_players": 3, "target": 61}),
    ("michigan_v0", {"num_hands": 2}),
    ("muggins_dominoes_v0", {}),
    ("muggins_dominoes_v0", {"num_players": 4, "partnerships": True, "target": 100}),
    ("muggins_dominoes_v0", {"num_players": 3, "knocking": True, "extra_play": True, "variant": "all_fives",
                             "lead": "double", "target": 100}),
]


@pytest.mark.parametrize("env_id,params", FULL, ids=lambda x: str(x))
def test_random_sim_test_full_size(env_id, params):
    pyspiel.random_sim_test(mo.load(env_id, **params), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", sorted(mo.RESEARCH_CONFIGS))
def test_random_sim_test_research_configs(name):
    env_id, params = mo.RESEARCH_CONFIGS[name]
    pyspiel.random_sim_test(mo.load(env_id, **params), num_sims=5, serialize=True, verbose=False)


def test_every_env_is_registered_with_its_options_as_parameters():
    names = set(pyspiel.registered_names())
    for env_id in muggins_env.ENV_NAMES:
        assert f"python_{env_id}" in names
    game = pyspiel.load_game("python_muggins_dominoes_v0", {"num_players": 2, "set_max": 3, "hand_size": 3})
    assert game.num_players() == 2
    kg = game.kernel_game
    assert (kg.set_max, kg.hand_size, kg.target, kg.num_tiles) == (3, 3, 200, 10)  # dependent defaults stay
    assert game.num_distinct_actions() == kg.num_actions
    four = pyspiel.load_game("python_muggins_dominoes_v0", {"num_players": 4})
    assert (four.kernel_game.hand_size, four.kernel_game.target) == (5, 150)
    assert pyspiel.load_game("python_cribbage_v0", {"num_players": 3}).num_distinct_actions() == \
        muggins_env.game_class("cribbage_v0")(num_players=3).num_actions
    with pytest.raises(ValueError, match=r"hand_size=7 and boneyard_reserve=0 do not fit a double-3 set"):
        pyspiel.load_game("python_muggins_dominoes_v0", {"set_max": 3})
    with pytest.raises(ValueError, match=r"set_max=4 is not allowed; allowed values: 2, 3, 6, 9, 12, 15"):
        pyspiel.load_game("python_muggins_dominoes_v0", {"set_max": 4})


# -- the same deals, move by move -----------------------------------------------------------------------
def mirror_outcome(state, rng, cache, game):
    """The chance outcome the env's own generator gives at this chance node (the kernel asks the
    generator the same questions in the same order, whether bridged or not)."""
    (kind, n), partial = state.chance_request()
    if kind == "integers":
        return int(rng.integers(n))
    if kind == "permutation":
        if not partial:
            cache["perm"] = rng.permutation(n).tolist()
        return cache["perm"][len(partial)]
    if kind == "hands":  # dominoes: each hand in increasing order, the boneyard drawn top (last) first
        kg = game.kernel_game
        if not partial:
            perm = rng.permutation(n).tolist()
            h, p = kg.hand_size, kg.num_players
            cache["hands"] = [t for i in range(p) for t in sorted(perm[i * h:(i + 1) * h])]
            cache["bone"] = perm[p * h:]
        return cache["hands"][len(partial)]
    assert kind == "draw"
    return cache["bone"].pop()


AGREE = [
    ("muggins_cards_v0", {}, 3),
    ("cribbage_v0", {"target": 61}, 2),
    ("cribbage_v0", {"num_players": 4, "target": 61}, 1),
    ("michigan_v0", {"num_hands": 3}, 2),
    ("muggins_dominoes_v0", {}, 2),
    ("muggins_dominoes_v0", {"num_players": 3, "knocking": True, "lead": "double", "target": 100}, 2),
    ("muggins_dominoes_v0", {"set_max": 3, "hand_size": 3, "episode": "hand"}, 5),
]


@pytest.mark.parametrize("env_id,params,episodes", AGREE, ids=lambda x: str(x))
def test_bridge_and_env_agree_move_by_move(env_id, params, episodes):
    game = mo.load(env_id, **params)
    env = muggins_env.make(env_id, raw=True, **params)
    pick = random.Random(7)
    for seed in range(episodes):
        env.reset(seed=seed)
        # the env's kernel generator (env.reset seeds it from the reset seed like this)
        rng = np.random.default_rng(int(np.random.default_rng(seed).integers(2**63 - 1)))
        state, cache = game.new_initial_state(), {}
        returns = np.zeros(game.num_players())
        moves = 0
        while True:
            while state.is_chance_node():
                outcome = mirror_outcome(state, rng, cache, game)
                assert outcome in dict(state.chance_outcomes())
                state.apply_action(outcome)
            done = all(env.terminations.values()) or all(env.truncations.values())
            assert state.is_terminal() == done
            np.testing.assert_allclose(state.returns(), returns)
            if done:
                break
            agent = env.agent_selection
            assert state.current_player() == env.possible_agents.index(agent)
            mask = env.observe(agent)["action_mask"]
            assert state.legal_actions() == np.flatnonzero(mask).tolist()
            np.testing.assert_array_equal(state.observation_tensor(), env.observe(agent)["observation"])
            action = pick.choice(state.legal_actions())
            state.apply_action(action)
            env.step(action)
            returns += [env.rewards[a] for a in env.possible_agents]
            moves += 1
        assert moves > 0


@pytest.mark.parametrize("env_id,params", [("muggins_dominoes_v0", mo.RESEARCH_CONFIGS["d3_h2_r4_off"][1]),
                                           ("muggins_dominoes_v0", {"num_players": 3}),
                                           ("cribbage_v0", {}), ("michigan_v0", {})], ids=str)
def test_resample_from_infostate_keeps_what_the_player_knows(env_id, params):
    game = mo.load(env_id, **params)
    pick = random.Random(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    state = game.new_initial_state()
    while checked < 40:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(pick.choices(outcomes, probs)[0])
            continue
        p = state.current_player()
        for q in range(game.num_players()):
            r = state.resample_from_infostate(q, sampler)
            assert r.information_state_string(q) == state.information_state_string(q)
            np.testing.assert_array_equal(r.observation_tensor(q), state.observation_tensor(q))
            assert r.current_player() == p
            if q == p:
                assert r.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(pick.choice(state.legal_actions()))


# -- exploitability: the same number by independent routes ---------------------------------------------
def brute_force_best_response(game, br, policy_of):
    """Player ``br``'s best-response value against ``policy_of(state) -> {action: prob}`` for the
    others, by a plain walk of the whole tree (no OpenSpiel algorithm): every history with the
    chance-and-opponents reach, the best action per information state decided deepest first
    (perfect recall: an information state's own-move count orders them)."""
    nodes = []  # (state, reach, kind, data)

    def walk(state, reach):
        i = len(nodes)
        if state.is_terminal():
            nodes.append(("t", state.returns()[br], None))
            return i
        if state.is_chance_node():
            nodes.append(None)
            kids = [(p, walk(state.child(a), reach * p)) for a, p in state.chance_outcomes()]
            nodes[i] = ("c", kids, None)
            return i
        p = state.current_player()
        nodes.append(None)
        if p == br:
            kids = {a: walk(state.child(a), reach) for a in state.legal_actions()}
            key = state.information_state_string()
            nodes[i] = ("b", kids, (key, reach))
        else:
            kids = [(pr, walk(state.child(a), reach * pr)) for a, pr in policy_of(state).items() if pr > 0]
            nodes[i] = ("o", kids, None)
        return i

    root = walk(game.new_initial_state(), 1.0)
    infosets = {}
    for i, node in enumerate(nodes):
        if node[0] == "b":
            infosets.setdefault(node[2][0], []).append(i)
    choice = {}

    def value(i):
        kind, kids, data = nodes[i]
        if kind == "t":
            return kids
        if kind in ("c", "o"):
            return sum(p * value(j) for p, j in kids)
        return value(kids[choice[data[0]]])

    for key in sorted(infosets, key=lambda k: -k.count("|")):  # deeper information states first
        members = infosets[key]
        actions = nodes[members[0]][1]
        totals = {a: sum(nodes[i][2][1] * value(nodes[i][1][a]) for i in members) for a in actions}
        choice[key] = max(totals, key=lambda a: (totals[a], -a))
    return value(root)


def policy_value(game, policy_of):
    def v(state):
        if state.is_terminal():
            return np.array(state.returns())
        if state.is_chance_node():
            return sum(p * v(state.child(a)) for a, p in state.chance_outcomes())
        return sum(p * v(state.child(a)) for a, p in policy_of(state).items() if p > 0)

    return v(game.new_initial_state())


def uniform(state):
    legal = state.legal_actions()
    return {a: 1.0 / len(legal) for a in legal}


def test_nash_conv_of_uniform_random_by_three_routes():
    from open_spiel.python import policy as pol
    from open_spiel.python.algorithms import exploitability

    env_id, params = mo.RESEARCH_CONFIGS["d2_h2_off"]
    game = mo.load(env_id, **params)
    on_policy = policy_value(game, uniform)
    by_hand = sum(brute_force_best_response(game, p, uniform) - on_policy[p] for p in range(2))
    assert on_policy.sum() == pytest.approx(0.0, abs=1e-12)  # zero-sum
    assert by_hand == pytest.approx(1 / 12, abs=1e-9)
    # OpenSpiel's Python best response on the bridged game, and its C++ one on the EFG copy
    assert exploitability.nash_conv(game, pol.UniformRandomPolicy(game)) == pytest.approx(by_hand, abs=1e-9)
    ex = mo.export_efg(game)
    assert [len(x) for x in ex.infosets] == [175, 175] and ex.histories == 1098
    efg = ex.game()
    tabular = pol.TabularPolicy(efg)  # uniform
    assert pyspiel.nash_conv(efg, pol.python_policy_to_pyspiel_policy(tabular)) == pytest.approx(by_hand, abs=1e-9)


def test_cfr_on_the_efg_copy_converges_and_its_value_is_the_bridges():
    from open_spiel.python import policy as pol

    env_id, params = mo.RESEARCH_CONFIGS["d2_h2_off"]
    game = mo.load(env_id, **params)
    ex = mo.export_efg(game)
    efg = ex.game()
    solver = pyspiel.CFRSolver(efg)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    avg = solver.average_policy()
    nash_conv = pyspiel.nash_conv(efg, avg)
    assert nash_conv < 1e-3
    # the same average policy played on the bridged game: EFG information state "p-p-number-",
    # EFG actions labelled by the env's action ids
    number = [{key: i + 1 for i, (key, _, _) in enumerate(ex.infosets[p])} for p in range(2)]
    tp = pol.TabularPolicy(efg)
    label = {}
    for key, row in tp.state_lookup.items():
        s = tp.states[row]
        label[key] = {a: int(s.action_to_string(a)) for a in s.legal_actions()}

    def on_bridge(state):
        p = state.current_player()
        key = f"{p}-{p}-{number[p][state.information_state_string()]}-"
        return {label[key][a]: pr for a, pr in avg.get_state_policy(key)}

    value = policy_value(game, on_bridge)
    efg_value = pyspiel.expected_returns(efg.new_initial_state(), avg, -1, True)
    np.testing.assert_allclose(value, efg_value, atol=1e-9)
    # what a best response gains against the CFR average: brute force on the bridge = C++ on the copy
    gain = sum(brute_force_best_response(game, p, on_bridge) - value[p] for p in range(2))
    assert gain == pytest.approx(nash_conv, abs=1e-9)


# -- agents both ways -------------------------------------------------------------------------------------
SMALL = {"set_max": 3, "hand_size": 3, "episode": "hand"}


def test_suite_agents_as_openspiel_bots_and_policies():
    from muggins_env.agents.openspiel import SuiteBot, SuitePolicy
    from open_spiel.python.algorithms import exploitability

    game = mo.load("muggins_dominoes_v0", **SMALL)
    bots = [SuiteBot(game, "heuristic"), SuiteBot(game, "random", seed=1)]
    rng = np.random.RandomState(0)
    totals = np.zeros(2)
    for _ in range(6):
        totals += pyspiel.evaluate_bots(game.new_initial_state(), bots, rng.randint(2**31))
    assert totals.sum() == pytest.approx(0.0)
    small = mo.load(*mo.RESEARCH_CONFIGS["d2_h2_off"][:1], **mo.RESEARCH_CONFIGS["d2_h2_off"][1])
    assert exploitability.nash_conv(small, SuitePolicy(small, "random")) == pytest.approx(1 / 12, abs=1e-9)
    heuristic = SuitePolicy(small, "heuristic")
    value = policy_value(small, lambda s: heuristic.action_probabilities(s))
    gain = sum(brute_force_best_response(small, p, lambda s: heuristic.action_probabilities(s)) - value[p]
               for p in range(2))
    assert exploitability.nash_conv(small, heuristic) == pytest.approx(gain, abs=1e-9)


def test_openspiel_ismcts_as_an_agent_spec_in_a_tournament():
    from muggins_env.agents import make_agent, parse_spec
    from muggins_env.eval.tournament import run_tournament

    assert parse_spec("openspiel:ismcts:20") == ("openspiel", "ismcts:20", {})
    with pytest.raises(ValueError, match=r"openspiel agent 'alphazero' is unknown; known: ismcts, mcts"):
        make_agent("openspiel:alphazero", "muggins_dominoes_v0", SMALL)
    with pytest.raises(ValueError, match=r"N must be an int >= 1"):
        make_agent("openspiel:ismcts:many", "muggins_dominoes_v0", SMALL)
    result = run_tournament("muggins_dominoes_v0", SMALL, ["openspiel:ismcts:20", "random"], deals=2, seed=0,
                            workers=1, progress=False)
    assert len(result.records) == 4  # 2 deals x 2 seatings
    for r in result.records:
        assert sum(r.returns) == pytest.approx(0.0)
