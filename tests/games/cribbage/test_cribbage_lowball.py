"""Cribbage lowball ("A perder", docs/rules/cribbage.md §4.2c) through the env API with rigged deals: the
side that first reaches the target loses and the game ends then (in the play, by his heels,
in the show), standard scoring counted automatically, ``muggins=True`` played without
muggins, the rewards for 2, 3 and 4 players, ``reward="points"`` reversed; conformance, the
information-leak test (random-play properties: ``test_cribbage_rules.py``); the heuristic, search and the derived
features play and describe it the lowball way."""

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.heuristic_cribbage import CribbageEvaluator, discard_values

from muggins_env.cribbage_v0 import env as wrapped_env
from muggins_env.cribbage_v0 import raw_env
from muggins_env.games.cribbage import GO, CribbageGame
from muggins_env.kernel.cards import parse_cards
from tests.conformance import check_api, check_info_leak
from tests.games.cribbage.test_cribbage_env import cid, step

PONE, DEALER = 0, 1
# docs/rules/cribbage.md §4.2b's full play: pone K 7 2 3 (lays away A♠ 4♠), dealer 10 9 8 7 (A♥ 4♥), starter 6♠.
# Hand-counted shows (6♠ starter): pone K♣ 7♣ 2♣ 3♣ 8 (fifteens K+2+3, 7+6+2; four-card flush);
# dealer 10♦ 9♦ 8♦ 7♦ 13 (run of five, fifteens 9+6 and 8+7, flush); crib A♠ 4♠ A♥ 4♥ 8.
FULL_PLAY = {"dealer": DEALER, "hands": [parse_cards("K♣ 7♣ 2♣ 3♣ A♠ 4♠"), parse_cards("10♦ 9♦ 8♦ 7♦ A♥ 4♥")],
             "starter": "6♠"}
PLAY = ["K♣", "10♦", "7♣", GO, "2♣", "9♦", "3♣", "8♦", "7♦"]  # pone 1 for the go, dealer 1 for the last card


def make(deal, **opts):
    e = raw_env(lowball=True, readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=0, options={"deal": deal})
    return e


def play_through(e, moves):
    for a in moves:
        step(e, a)


def returns(e):
    return e.kernel_state.returns().tolist()


# -- the rules -------------------------------------------------------------------------------------------
def test_scoring_is_standard_and_counted_automatically():
    """A whole deal: the play and the show score exactly as in standard cribbage; no count is
    announced (lowball is never played with muggins: muggins=True is played without it)."""
    e = make(FULL_PLAY, muggins=True)
    play_through(e, ["A♠", "4♠", "A♥", "4♥"] + PLAY)
    s = e.kernel_state  # the show needed no decision: the next deal's lay-away is next
    assert e.infos[e.agent_selection]["phase"] == "discard" and s.deals == 2
    assert s.scores == [1 + 8, 1 + 13 + 8]  # go + hand; last card + hand + crib
    assert [rv["outcome"] for rv in s.previous_shown] == ["automatic"] * 3
    assert s.game.options["muggins"] is True and s.game.effective_options["muggins"] is False
    assert not s.game.muggins


def test_reaching_the_target_in_the_play_loses_at_once():
    e = make(FULL_PLAY, target=61)
    play_through(e, ["A♠", "4♠", "A♥", "4♥", "K♣", "10♦", "7♣", GO])
    s = e.kernel_state
    s.scores[PONE] = 60
    step(e, "2♣")  # the go point: 61
    assert s.is_terminal() and s.scores == [61, 0] and s.loser_side == PONE
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert len(s.play_order) == 4  # nothing was played or scored after it
    assert "side 0 reached the target and loses" in s.render()


def test_his_heels_can_lose_the_game_for_the_dealer_before_the_play():
    e = make(dict(FULL_PLAY, starter="J♠"), target=61)
    e.kernel_state.scores[DEALER] = 59
    play_through(e, ["A♠", "4♠", "A♥", "4♥"])
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [0, 61] and s.loser_side == DEALER
    assert returns(e) == [1.0, -1.0]


def test_the_show_order_decides_who_reaches_the_target_first_and_loses():
    """Both would pass the target in the show; the pone counts first, so the pone loses even
    though the dealer's hand is the bigger one (the side that *first* reaches it loses)."""
    e = make(FULL_PLAY, target=61)
    e.kernel_state.scores[:] = [55, 50]
    play_through(e, ["A♠", "4♠", "A♥", "4♥"] + PLAY)  # pone 56 + 8 = 64; the dealer's 13 is never counted
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [64, 51] and s.loser_side == PONE
    assert returns(e) == [-1.0, 1.0]


THREE = {"dealer": 2, "hands": [parse_cards("9♣ 10♣ Q♣ 6♣ 2♠"), parse_cards("4♦ 10♦ 5♦ 9♦ 3♠"),
                                parse_cards("8♥ K♥ 7♥ 9♥ 4♠")], "crib_card": "5♠", "starter": "K♠"}


def test_three_players_the_one_who_reaches_the_target_gets_minus_one_the_others_half_each():
    e = make(THREE, num_players=3, target=61)
    play_through(e, ["2♠", "3♠", "4♠"])
    e.kernel_state.scores[0] = 59
    play_through(e, ["9♣", "4♦", "8♥", "10♣"])  # 31 for two: seat 0 reaches 61
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [61, 0, 0]
    assert returns(e) == [-1.0, 0.5, 0.5]
    assert e.rewards == {"player_0": -1.0, "player_1": 0.5, "player_2": 0.5}


def test_partnerships_lose_and_win_by_side():
    deal = {"dealer": 3, "hands": [parse_cards("9♣ 10♣ Q♣ 6♣ 2♠"), parse_cards("4♦ 10♦ 5♦ 9♦ 3♠"),
                                   parse_cards("8♥ K♥ 7♥ 5♥ 4♠"), parse_cards("A♣ 2♣ 3♣ 4♣ 5♣")],
            "starter": "K♠"}
    e = make(deal, num_players=4, target=61)
    play_through(e, ["2♠", "3♠", "4♠", "5♣"])
    e.kernel_state.scores[0] = 60  # the side of seats 0 and 2
    play_through(e, ["6♣", "4♦"])
    step(e, "5♥")  # seat 2: fifteen 2 + the run 4-5-6 3
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [65, 0] and s.loser_side == 0
    assert returns(e) == [-1.0, 1.0, -1.0, 1.0]


def test_points_reward_is_reversed_two_players():
    e = make(FULL_PLAY, reward="points")
    play_through(e, ["A♠", "4♠", "A♥", "4♥", "K♣", "10♦", "7♣", GO])
    step(e, "2♣")  # the pone pegs 1 for the go: bad for the pone in lowball
    assert e.rewards == pytest.approx({"player_0": -1 / 121, "player_1": 1 / 121})


def test_points_reward_is_reversed_and_zero_sum_with_three_players():
    e = make(THREE, num_players=3, reward="points")
    play_through(e, ["2♠", "3♠", "4♠", "9♣", "4♦", "8♥"])
    step(e, "10♣")  # 31 for two to seat 0: (opponents' mean change - own change) / target
    assert e.rewards == pytest.approx({"player_0": -2 / 121, "player_1": 1 / 121, "player_2": 1 / 121})


# -- conformance and properties --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_and_seed(n):
    opts = {"num_players": n, "lowball": True, "target": 61}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=60)
    check_api(lambda: raw_env(skip_forced=True, **opts), lambda: wrapped_env(skip_forced=True, **opts),
              num_cycles=60)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_information_leak(n):
    state = CribbageGame(num_players=n, lowball=True, muggins=True, target=61).new_initial_state(seed=n)
    assert check_info_leak(state, seed=n, max_decisions=150) > 0


# -- agents and features ---------------------------------------------------------------------------------
def _view(deal, seat, lowball, moves=()):
    game = make_game("cribbage_v0", {"num_players": 2, "lowball": lowball})
    state = game.new_initial_state(seed=0, deal=deal)
    for m in moves:
        state.apply(cid(m) if isinstance(m, str) else m)
    return game, state, state.public_view(seat)


LAY_AWAY = {"dealer": DEALER, "hands": [parse_cards("A♣ 3♦ 7♥ 9♠ 5♣ 5♦"), parse_cards("K♣ Q♦ J♥ 10♠ 2♣ 8♦")],
            "starter": "4♥"}


def test_heuristic_lays_away_to_avoid_points():
    """The pone keeps the 5s in standard cribbage; in lowball it keeps A 3 7 9 (little to
    score) and gives the pair of fives to the dealer's crib, points the dealer must take.
    As dealer in lowball the pair would score for itself: it never lays both away."""
    fives = {cid("5♣"), cid("5♦")}
    for lowball, expect in ((False, False), (True, True)):
        _game, _state, view = _view(LAY_AWAY, PONE, lowball)
        best = make_agent("heuristic", "cribbage_v0", {"lowball": lowball}).discard_ranking(view, None)[0][1]
        assert (set(best) == fives) is expect
    deal = dict(LAY_AWAY, dealer=PONE)
    _game, _state, view = _view(deal, PONE, True)
    best = make_agent("heuristic", "cribbage_v0", {"lowball": True}).discard_ranking(view, None)[0][1]
    assert set(best) != fives


PEG = {"dealer": DEALER, "hands": [parse_cards("K♣ 7♣ 7♦ 2♠ A♠ 4♠"), parse_cards("5♦ 3♥ Q♥ J♥ A♥ 4♥")],
       "starter": "6♠"}


def test_heuristic_pegs_to_score_least():
    """After the pone's K (10) the standard heuristic takes the fifteen with the 5; in lowball
    it lays a card that scores nothing, the lowest of them (3♥)."""
    moves = ["A♠", "4♠", "A♥", "4♥", "K♣"]
    for lowball, expect in ((False, "5♦"), (True, "3♥")):
        _game, state, view = _view(PEG, DEALER, lowball, moves)
        h = make_agent("heuristic", "cribbage_v0", {"lowball": lowball})
        assert h.act(None, state.legal_actions_mask(), np.random.default_rng(0), view) == cid(expect)


def test_search_values_points_the_lowball_way():
    """search:N's evaluator counts the margin the other way in lowball: the fifteen (2 points
    to the searcher) is valued below laying the 3 that scores nothing, and the reverse in
    standard cribbage."""
    moves = ["A♠", "4♠", "A♥", "4♥", "K♣"]
    for lowball in (False, True):
        _game, state, view = _view(PEG, DEALER, lowball, moves)
        agent = make_agent("search:120,z=0", "cribbage_v0", {"lowball": lowball})
        info = {"view": view, "resample": lambda r, s=state: s.resample_hidden(DEALER, r)}
        agent.act(None, state.legal_actions_mask(), np.random.default_rng(1), info)
        v = agent.last_values
        assert (v[cid("5♦")] < v[cid("3♥")]) is lowball, v


def test_evaluator_margin_and_end_are_lowball():
    game = make_game("cribbage_v0", {"num_players": 3, "lowball": True, "target": 61})
    state = game.new_initial_state(seed=0)
    ev = CribbageEvaluator(game)
    marker = ev.start(state, 0)
    state.scores[0] += 6  # own side +6, the others' mean 0: bad in lowball
    state.scores[1] += 3
    assert ev.value(state, 0, marker) == pytest.approx(-(6 - 1.5) / 61)
    assert ev.value(state, 1, marker) == pytest.approx(-(3 - 3) / 61)


def test_heuristic_beats_random_in_lowball():
    opts = {"num_players": 2, "lowball": True, "target": 61}
    game = make_game("cribbage_v0", opts)
    h, r = make_agent("heuristic", "cribbage_v0", opts), make_agent("random", "cribbage_v0", opts)
    total = 0.0
    for seed in range(4):
        for seat in range(2):
            state, rng = game.new_initial_state(seed=seed), np.random.default_rng(seed)
            while not state.is_terminal():
                p = state.current_player()
                agent = h if p == seat else r
                state.apply(agent.act(None, state.legal_actions_mask(), rng, state.public_view(p)))
            total += state.returns()[seat]
    assert total >= 6  # at least 7 of 8 games


def test_derived_features_take_the_least_expected_value_in_lowball():
    from muggins_env.agents.features import CribbageFeatures as F
    from muggins_env.agents.features import derived_features

    for lowball, pick in ((False, max), (True, min)):
        game, state, view = _view(LAY_AWAY, PONE, lowball)
        f = derived_features("cribbage_v0", game)(view, state.legal_actions_mask())
        shows = discard_values(view["hand"], 2, False, crib_samples=0)
        deals = discard_values(view["hand"], 2, False, rng=np.random.default_rng(0))
        for c in view["hand"]:
            show = pick(v for v, away in shows if c in away)
            deal = pick(v for v, away in deals if c in away)
            assert f[113 + c] == pytest.approx(min(show / 29, 1.0), abs=1e-6)
            assert f[F.DEAL_VALUE + c] == pytest.approx(min(max((deal + 15) / 60, 0.0), 1.0), abs=1e-6)


def test_training_runs_on_lowball_with_derived_features(tmp_path):
    from muggins_env.train.config import from_dict
    from muggins_env.train.trainer import train

    cfg = from_dict({
        "game": "cribbage_v0", "env_options": {"num_players": 2, "lowball": True, "target": 61},
        "features": "derived", "opponents": {"random": 1.0, "heuristic": 1.0, "self": 1.0},
        "self_play": {"snapshot_every": 128, "window": 2},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "budget": {"total_timesteps": 128, "n_envs": 4}, "checkpoint_every": 128,
        "eval": {"deals": 1, "opponents": ["heuristic"]},
    })
    card = train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    assert card["timesteps"] >= 128 and card["config"]["env_options"]["lowball"] is True
    ev = card["evaluation"][0]
    assert ev["opponent"] == "heuristic" and ev["games"] == 1 * 2


def test_lowball_cribbage_names_the_winning_side_of_two():
    from muggins_env.agents import make_game

    for n, sides in ((2, 2), (4, 2), (3, 3)):
        game = make_game("cribbage_v0", {"num_players": n, "lowball": True})
        state = game.new_initial_state(seed=5)
        rng = __import__("numpy").random.default_rng(5)
        while not state.is_terminal():
            state.apply(int(rng.choice(state.legal_actions())))
        full = state.full_state()
        assert full["loser_side"] in range(sides)
        assert full["winner_side"] == (1 - full["loser_side"] if sides == 2 else -1), (n, full["winner_side"])
        if sides == 2:  # the winner's seats are the ones with +1
            assert all((state.returns()[s] > 0) == (game.teams[s] == full["winner_side"]) for s in range(n))
