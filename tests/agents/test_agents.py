"""Baseline agents: spec parsing, legality over many states of every game, the resampler the
search agent relies on, and hand-checked heuristic decisions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from muggins_env.agents import RandomAgent, make_agent, make_game, parse_spec, player_view
from muggins_env.agents.search import SearchAgent

from muggins_env import ENV_NAMES

GAMES = ENV_NAMES  # every game declares a heuristic
#: small, bounded configurations per game (and the player counts each allows)
CONFIGS = {
    "muggins_cards_v0": [{"num_players": 4, "max_turns": 150}, {"num_players": 3, "max_turns": 150},
                         {"num_players": 4, "mistakes": True, "max_turns": 150}],
    "michigan_v0": [{"num_players": 3, "num_hands": 1}, {"num_players": 4, "num_hands": 1}],
    "muggins_dominoes_v0": [{"num_players": 2, "episode": "hand"}, {"num_players": 3, "episode": "hand"},
                            {"num_players": 4, "partnerships": True, "episode": "hand"},
                            {"num_players": 2, "episode": "hand", "variant": "all_fives", "muggins": "claim"},
                            {"num_players": 2, "episode": "hand", "variant": "five_up"},
                            {"num_players": 3, "episode": "hand", "knocking": True, "extra_play": True},
                            {"num_players": 4, "partnerships": True, "episode": "hand", "knocking": True,
                             "lead": "double"},
                            {"num_players": 2, "episode": "hand", "variant": "primes", "extra_play": True},
                            {"num_players": 2, "variant": "fives_1863"}],
    "cribbage_v0": [{"num_players": 2, "target": 61}, {"num_players": 3, "target": 61},
                    {"num_players": 4, "target": 61}],
}
CASES = [(g, o) for g in GAMES for o in CONFIGS.get(g, [{}])]


# -- specs ------------------------------------------------------------------------------------------------
def test_parse_spec():
    assert parse_spec("random") == ("random", "", {})
    assert parse_spec("search:200") == ("search", "200", {"budget": 200})
    assert parse_spec("search:50,z=0.5,max_candidates=3") == (
        "search", "50", {"budget": 50, "z": 0.5, "max_candidates": 3})
    assert parse_spec("ppo:runs/a:b/model.zip") == ("ppo", "runs/a:b/model.zip", {})


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown agent spec 'alphazero'"),
    ("search:-3", "search:N"),
    ("search:10,depth=3", "unknown search setting"),
    ("random:3", "takes no arguments"),
    ("ppo:", "give the model path"),
    ("rllib:", "give the model path"),
    ("", "known kinds"),
])
def test_bad_specs_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "michigan_v0", {})


def test_unknown_game_and_option_are_clear_errors():
    with pytest.raises(ValueError, match="unknown env"):
        make_agent("random", "go_v0", {})
    with pytest.raises(ValueError, match="num_players"):
        make_agent("heuristic", "michigan_v0", {"num_players": 20})


def test_ppo_spec_is_lazy_and_reports_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        make_agent(f"ppo:{tmp_path}/nothing.zip", "michigan_v0", {})


def test_rllib_spec_plays_a_numpy_policy_without_ray_and_reports_missing_runs(tmp_path):
    from muggins_env.agents.ppo import NumpyPolicy

    with pytest.raises(FileNotFoundError, match="muggins-train --backend rllib"):
        make_agent(f"rllib:{tmp_path}", "michigan_v0", {})
    game = make_game("michigan_v0", {"num_players": 4})
    rng = np.random.default_rng(0)
    head = (rng.normal(size=(game.num_actions, 8)), np.zeros(game.num_actions))
    NumpyPolicy([(rng.normal(size=(8, game.observation_size)), np.zeros(8))], head).save(tmp_path / "model.npz")
    agent = make_agent(f"rllib:{tmp_path}", "michigan_v0", {"num_players": 4})
    state = game.new_initial_state(seed=1)
    p = state.current_player()
    mask = state.legal_actions_mask()
    assert agent.name == f"rllib:{tmp_path}" and mask[agent.act(state.observation(p), mask, rng)]


def test_kinds_built():
    assert isinstance(make_agent("random", "michigan_v0"), RandomAgent)
    s = make_agent("search:40", "michigan_v0")
    assert isinstance(s, SearchAgent) and s.budget == 40 and s.needs_sampler


def test_player_view_accepts_infos_or_view():
    assert player_view({"action_mask": 1, "view": {"seat": 2}}) == {"seat": 2}
    assert player_view({"seat": 2}) == {"seat": 2}
    assert player_view(None) == {}
    with pytest.raises(ValueError, match="readable_infos=True"):  # a default env info: only the mask
        player_view({"action_mask": np.ones(3, np.int8)})


# -- legality and the resampler over many states of every game ---------------------------------------------
def _info(state, p):
    mask = state.legal_actions_mask()
    return {"action_mask": mask, "view": state.public_view(p),
            "resample": lambda rng, _s=state, _p=p: _s.resample_hidden(_p, rng)}


@pytest.mark.parametrize("game_id, options", CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_every_agent_returns_legal_actions(game_id, options, seed):
    game = make_game(game_id, options)
    agents = [make_agent(s, game_id, options) for s in ("random", "heuristic", "search:4")]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    searched = 0
    for _ in range(3000):
        if state.is_terminal():
            break
        p = state.current_player()
        mask = state.legal_actions_mask()
        k = int(rng.integers(3)) if searched < 6 else int(rng.integers(2))
        agent = agents[k]
        action = agent.act(state.observation(p), mask.copy(), rng, _info(state, p))
        assert mask[action] == 1, f"{agent!r} chose illegal {action} in {game_id}:\n{state.render()}"
        if k == 2 and mask.sum() > 1:
            searched += 1
        state.apply(action)


@pytest.mark.parametrize("game_id, options", CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
def test_resample_keeps_what_the_player_knows(game_id, options):
    """Everything the player may know (observation, readable view, mask when acting) stays;
    the true state is untouched; and what it cannot see does change (somewhere)."""
    game = make_game(game_id, options)
    rng = np.random.default_rng(11)
    state = game.new_initial_state(seed=5)
    heur = make_agent("heuristic", game_id, options)
    changed = checked = 0
    for step in range(400):
        if state.is_terminal():
            break
        if step % 3 == 0:
            before_full = repr(state.full_state())
            for p in range(game.num_players):
                other = state.resample_hidden(p, rng)
                assert other is not state
                assert np.array_equal(other.observation(p), state.observation(p))
                assert repr(other.public_view(p)) == repr(state.public_view(p))
                assert other.current_player() == state.current_player()
                if p == state.current_player():
                    assert np.array_equal(other.legal_actions_mask(), state.legal_actions_mask())
                changed += repr(other.full_state()) != before_full
                checked += 1
            assert repr(state.full_state()) == before_full  # the true state is untouched
        state.apply(heur.act_on_state(state, rng) if step % 2 else int(rng.choice(state.legal_actions())))
    assert checked > 0 and changed > 0


def test_search_never_receives_the_true_state():
    game = make_game("michigan_v0", {"num_players": 3, "num_hands": 1})
    state = game.new_initial_state(seed=2)
    seen = []

    def sampler(rng):
        s = state.resample_hidden(state.current_player(), rng)
        seen.append(s)
        return s

    agent = make_agent("search:12", "michigan_v0", {"num_players": 3, "num_hands": 1})
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    p = state.current_player()
    a = agent.act(state.observation(p), state.legal_actions_mask(), np.random.default_rng(0),
                  {"view": state.public_view(p), "resample": sampler})
    assert a in state.legal_actions()
    assert seen and all(s is not state for s in seen)
    # later chance (the next hands) is unknown: rollouts never use the true random stream
    assert all(s.rng.bit_generator.state != state.rng.bit_generator.state for s in seen)
    with pytest.raises(ValueError, match="resample"):
        agent.act(state.observation(p), state.legal_actions_mask(), np.random.default_rng(0),
                  state.public_view(p))


# -- hand-checked heuristic decisions ----------------------------------------------------------------------
def _c(text):
    from muggins_env.kernel.cards import parse_card

    return parse_card(text)


def test_muggins_cards_destinations_follow_rules_examples():
    from muggins_env.agents.heuristic_muggins_cards import correct_destinations

    commons = [_c("5C"), _c("9D"), _c("KH"), _c("2S")]
    # docs/rules/muggins_cards.md §1.5: A (seat 0) exposes 6♥, B's discard top 7♦: the common 5♣ has priority
    assert correct_destinations(_c("6H"), 0, commons, [-1, _c("7D"), -1, -1]) == [0]
    # J♥: no common fits; B (relative seat 1, action 4) before C
    assert correct_destinations(_c("JH"), 0, commons, [-1, _c("QS"), _c("10C"), -1]) == [4]
    # nothing fits: own discard (action 10); an empty discard is never a destination
    assert correct_destinations(_c("7C"), 0, commons, [-1, -1, -1, -1]) == [10]


def test_muggins_cards_heuristic_calls_every_mistake_and_only_mistakes():
    h = make_agent("heuristic", "muggins_cards_v0", {"mistakes": True})
    view = {"seat": 1, "card_in_play": _c("6H"), "commons": [_c("5C"), _c("9D"), _c("KH"), _c("2S")],
            "discard_tops": [-1, _c("7D"), -1, -1],
            "review": {"placer": 0, "action": 4, "card": _c("6H"), "common_pile": -1, "discard_of": 1}}
    legal = np.array([11, 12])
    assert h.choose(view, legal, None) == 12  # 6♥ on B's 7♦ while 5♣ fitted: "Muggins!"
    view["review"] = dict(view["review"], action=0, common_pile=0, discard_of=-1)
    assert h.choose(view, legal, None) == 11  # the correct placement: pass


def test_muggins_cards_heuristic_never_misplays_and_leaves_fewest_fitting_cards():
    h = make_agent("heuristic", "muggins_cards_v0", {"mistakes": True})
    # 2♥ fits both A♣ and 3♦. On A♣: tops 2♥ 3♦ fit ranks A,2,3,4 (4+3+3+4 = 14 hidden cards);
    # on 3♦: tops A♣ 2♥ fit ranks A,2,3 (3+3+4 = 10): choose pile 1
    view = {"seat": 0, "card_in_play": _c("2H"), "commons": [_c("AC"), _c("3D")],
            "discard_tops": [-1, _c("3C"), -1, -1]}
    every_placement = np.array([0, 1, 4, 5, 6, 10])
    assert h.choose(view, every_placement, None) == 1
    # 9♥ fits no common pile; B's 3♣ does not fit either: own discard, though every pile is offered
    view["card_in_play"] = _c("9H")
    assert h.choose(view, every_placement, None) == 10
    # what a search may try: only the correct destinations (a misplay is always called)
    assert h.candidates(view, every_placement, 6) == [10]
    view["card_in_play"] = _c("2H")
    assert h.candidates(view, every_placement, 6) == [0, 1]


def test_muggins_cards_heuristic_uses_the_next_cards_everyone_knows():
    h = make_agent("heuristic", "muggins_cards_v0", {})
    # 6♥ fits 5♣ (pile 0) and 7♦ (pile 1): covering 5♣ keeps 7♦, covering 7♦ keeps 5♣
    view = {"seat": 0, "card_in_play": _c("6H"), "commons": [_c("5C"), _c("7D"), _c("KH"), _c("QS")],
            "discard_tops": [-1, -1, -1, -1], "next_cards": [_c("8C"), -1, -1, -1]}
    legal = np.array([0, 1])
    assert h.choose(view, legal, None) == 0  # my known 8♣ fits the 7♦ I keep
    view["next_cards"] = [_c("4C"), -1, -1, -1]
    assert h.choose(view, legal, None) == 1  # my known 4♣ fits the 5♣ I keep
    # no card of mine known: keep the top that fewer opponents' known next cards fit
    view["next_cards"] = [-1, _c("4C"), _c("4D"), _c("8S")]
    assert h.choose(view, legal, None) == 0  # keep 7♦: only 8♠ fits it (4♣ and 4♦ fit 5♣)
    view["next_cards"] = [-1, _c("8C"), _c("4D"), _c("8S")]
    assert h.choose(view, legal, None) == 1  # keep 5♣: only 4♦ fits it
    # my own card first: 4♣ is worth keeping 5♣ even though two opponents' cards fit it too
    view["next_cards"] = [_c("4C"), _c("4D"), _c("4S"), -1]
    assert h.choose(view, legal, None) == 1
    # nothing known: the fewest hidden fitting cards. Keeping 7♦ (tops 6♥ 7♦ K♥ Q♠) leaves ranks
    # 5 6 7 8 J Q K fitting: 4+3+3+4+4+3+3 = 24 hidden; keeping 5♣ (5♣ 6♥ K♥ Q♠) leaves 4 5 6 7
    # J Q K: 4+3+3+4+4+3+3 = 24 as well, so the lowest index; with 8♣ face up on B's discard
    # the 7♦ side has one fewer (23): still pile 0, and with 4♣ there instead pile 1
    view["next_cards"] = [-1, -1, -1, -1]
    assert h.choose(view, legal, None) == 0
    view["discard_tops"] = [-1, _c("8C"), -1, -1]
    assert h.choose(view, legal, None) == 0
    view["discard_tops"] = [-1, _c("4C"), -1, -1]
    assert h.choose(view, legal, None) == 1


def test_dominoes_heuristic_largest_score_true_announcement_and_calls():
    from muggins_env.kernel.tiles import parse_tile

    game = make_game("muggins_dominoes_v0", {})
    h = make_agent("heuristic", "muggins_dominoes_v0", {})
    # Britannica (docs/rules/dominoes.md §2.6b): open ends 2 | 4 (lead [4-2]: arm 1 = 4, arm 2 = 2);
    # [4-3] on the 4 counts 2 + 3 = 5, [4-4] crosswise counts 2 + 8 = 10: play [4-4]
    lead = parse_tile("4-2")
    view = {"hand_number": 1, "lead": lead, "plays": [[1, lead, 0]], "count": 6, "review": None,
            "hand": [parse_tile("4-3"), parse_tile("4-4"), parse_tile("6-0")]}
    legal = np.array(sorted([game.play_action("4-3", 1), game.play_action("4-4", 1)]))
    assert h.choose(view, legal, None) == game.play_action("4-4", 1)
    # the scoring play first, whatever the weights
    view["hand"] = [parse_tile("2-1"), parse_tile("2-0")]
    legal = np.array(sorted([game.play_action("2-1", 2), game.play_action("2-0", 2)]))
    # [2-1]: 4 + 1 = 5 scores 5; [2-0]: 4 + 0 = 4 scores nothing
    assert h.choose(view, legal, None) == game.play_action("2-1", 2)
    view["hand"] = [parse_tile("2-3"), parse_tile("2-2")]
    legal = np.array(sorted([game.play_action("2-3", 2), game.play_action("2-2", 2)]))
    # [2-3]: 4 + 3 = 7, [2-2] crosswise: 4 + 4 = 8: neither scores; [2-3] is the heavier (5 > 4)
    assert h.choose(view, legal, None) == game.play_action("2-3", 2)
    # announce: the layout counts 10 after one's play: announce 10
    announce = np.arange(game.ANNOUNCE, game.ANNOUNCE + game.max_announcement + 1)
    view["count"] = 10
    assert h.choose(view, announce, None) == game.ANNOUNCE + 10
    respond = np.array([game.ACCEPT, game.MUGGINS])
    view["review"] = {"seat": 0, "announced": 5}
    assert h.choose(view, respond, None) == game.MUGGINS
    view["review"] = {"seat": 0, "announced": 10}
    assert h.choose(view, respond, None) == game.ACCEPT
    view["count"], view["review"] = 7, {"seat": 0, "announced": 0}
    assert h.choose(view, respond, None) == game.ACCEPT  # 7 scores nothing: silence was right


def test_dominoes_heuristic_knocks_for_a_partner_and_against_the_leader_only_when_safe():
    from tests.games.dominoes.test_dominoes_rules import make

    deal = [["6-6", "1-0"], ["2-1", "3-2"], ["5-5", "4-2"], ["6-3", "6-4"]]
    e = make(deal, boneyard=["1-1"], num_players=4, partnerships=True, knocking=True, muggins="off")
    h = make_agent("heuristic", "muggins_dominoes_v0", {"num_players": 4, "partnerships": True, "knocking": True})
    e.step(e.game.play_action("6-6", 0))
    view, legal = e.infos["player_1"]["view"], np.array([e.game.KNOCK, e.game.DRAW])
    assert h.choose(view, legal, None) == e.game.KNOCK  # the forced player is the partner
    g3 = make_game("muggins_dominoes_v0", {"num_players": 3, "knocking": True})
    h3 = make_agent("heuristic", "muggins_dominoes_v0", {"num_players": 3, "knocking": True})
    legal3 = np.array([g3.KNOCK, g3.DRAW])
    view = {"seat": 1, "tile_counts": [3, 3, 3], "teams": [0, 1, 2], "scores": [40, 0, 60]}
    assert h3.choose(view, legal3, None) == g3.KNOCK  # skips the leader (seat 2), forces seat 0
    view["scores"] = [60, 0, 40]
    assert h3.choose(view, legal3, None) == g3.DRAW  # would force the leader to score
    view["scores"] = [140, 0, 145]
    assert h3.choose(view, legal3, None) == g3.DRAW  # seat 0 could reach 150 with one play


def test_dominoes_heuristic_extra_play_when_it_scores_or_keeps_a_fitting_tile_else_stop():
    from tests.games.dominoes.test_dominoes_rules import make

    opts = {"extra_play": True, "muggins": "off"}
    h = make_agent("heuristic", "muggins_dominoes_v0", opts)
    e = make([["5-5", "5-0", "4-1", "3-1"], ["6-2", "2-1", "6-1"]], **opts)
    g = e.game
    e.step(g.play_action("5-5", 0))
    info = e.infos["player_0"]
    legal = np.flatnonzero(info["action_mask"])
    assert g.STOP in legal and h.choose(info["view"], legal, None) in (g.play_action("5-0", 1),
                                                                        g.play_action("5-0", 2))  # 10: scores
    e = make([["5-5", "5-4", "2-1", "3-1"], ["6-2", "2-0", "6-1"]], **opts)
    e.step(g.play_action("5-5", 0))
    info = e.infos["player_0"]
    # 5-4 makes 10 + 4 = 14 (no score) and nothing else in hand fits 4 or 5: stop
    assert h.choose(info["view"], np.flatnonzero(info["action_mask"]), None) == g.STOP
    e = make([["5-5", "5-4", "4-1", "3-1"], ["6-2", "2-0", "6-1"]], **opts)
    e.step(g.play_action("5-5", 0))
    info = e.infos["player_0"]
    # 5-4 (14, no score) keeps 4-1, which fits the 4 after it: shed the pips
    assert h.choose(info["view"], np.flatnonzero(info["action_mask"]), None) in (g.play_action("5-4", 1),
                                                                                  g.play_action("5-4", 2))


def test_michigan_heuristic_leads_the_suit_it_controls():
    h = make_agent("heuristic", "michigan_v0", {})
    base = {"played": [], "known_widow": [], "widow_count": 10,
            "layout": {"A♥": 4, "K♣": 4, "Q♦": 4, "J♠": 4, "Kitty": 8}}
    # 2♣ 3♣ 4♣ run (3 cards shed at once) against a lone 5♦: lead 2♣
    view = dict(base, hand=[_c("2C"), _c("3C"), _c("4C"), _c("5D")])
    assert h.choose(view, np.array([_c("2C"), _c("5D")]), None) == _c("2C")
    # K♠ then A♠: two cards shed and the ace stops: the lead comes back. 2♦ alone (3♦ unseen)
    # sheds one and most likely passes the lead
    view = dict(base, hand=[_c("KS"), _c("AS"), _c("2D")])
    assert h.choose(view, np.array([_c("2D"), _c("KS")]), None) == _c("KS")
    # 9♥ whose 10♥ was played (a stop it controls) against 9♦ whose 10♦ is unseen
    view = dict(base, hand=[_c("9H"), _c("9D")], played=[[_c("10H"), 2]])
    assert h.choose(view, np.array([_c("9D"), _c("9H")]), None) == _c("9H")
