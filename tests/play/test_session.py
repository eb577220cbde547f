"""The game session (humans and agents over the env) and game records: whose turn, checked
moves, seat views that hide what the seat may not see, typed moves, hints, the record, its
JSON and its deterministic replay, on every env."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from muggins_env.eval.tournament import game_seed_of, play_game
from muggins_env.play.session import GameSession, MoveError, match_move

from muggins_env import ENV_NAMES, make, records
from muggins_env.kernel import format_card, parse_cards
from muggins_env.records import GameRecord, RecordError

#: small configurations so that a whole game of every env stays quick
SMALL = {"muggins_cards_v0": {"num_players": 3}, "cribbage_v0": {"target": 61},
         "muggins_dominoes_v0": {"target": 61}, "michigan_v0": {"num_players": 3, "num_hands": 2}}


def players(env_id: str) -> int:
    return len(make(env_id, raw=True, **SMALL[env_id]).possible_agents)


def agent_game(env_id: str, seed: int = 3) -> GameSession:
    n = players(env_id)
    s = GameSession(env_id, ["heuristic"] + ["random"] * (n - 1), options=SMALL[env_id], seed=seed)
    for _ in s.advance():
        pass
    return s


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_a_recorded_game_of_every_env_replays_to_the_same_returns(env_id, tmp_path):
    s = agent_game(env_id)
    assert s.is_over and s.record.finished
    assert s.record.returns == s.returns()
    path = s.record.save(tmp_path / "game.json")
    loaded = records.load(path)
    assert loaded.to_dict() == s.record.to_dict()
    assert records.replay(loaded) == pytest.approx(s.returns())
    # every move's points add up to the final scores, and the rewards to the returns
    start = s.record.moves[0].scores[0] - s.record.moves[0].points[0]
    assert start + sum(m.points[0] for m in loaded.moves) == pytest.approx(loaded.scores[0])
    assert [sum(m.rewards[p] for m in loaded.moves) for p in range(s.num_players)] == pytest.approx(loaded.returns)


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_the_session_plays_the_tournament_game_with_the_same_seeds(env_id):
    # the harness's play_game and a session given the same reset seed and agent generators
    # reach the same end: the session adds no randomness and skips forced moves the same way
    from muggins_env.agents import make_agent, make_game

    n, opts = players(env_id), SMALL[env_id]
    specs = ["heuristic"] + ["random"] * (n - 1)

    def rngs():
        return [np.random.default_rng([7, s]) for s in range(n)]

    state, _, plies = play_game(make_game(env_id, opts), [make_agent(a, env_id, opts) for a in specs], 11, rngs())
    s = GameSession(env_id, specs, options=opts, seed=11, rngs=rngs())
    list(s.advance())
    assert s.returns() == pytest.approx(list(state.returns())) and len(s.record.moves) == plies
    assert game_seed_of(11) == game_seed_of(s.seed)


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_every_recorded_deal_deals_the_same_cards_again(env_id):
    s = agent_game(env_id, seed=5)
    deals = s.record.deals
    assert deals and deals[0]["ply"] == 0
    e0 = make(env_id, raw=True, **SMALL[env_id])
    e0.reset(seed=5)
    e1 = make(env_id, raw=True, **SMALL[env_id])
    e1.reset(seed=5, options={"deal": deals[0]["deal"]})
    assert e1.full_state() == e0.full_state()  # the first hand, rigged from the record, is the seed's hand
    for d in deals:
        game = make(env_id, raw=True, **SMALL[env_id]).game
        assert game.new_initial_state(seed=0, deal=d["deal"]).deal() == d["deal"]
    assert len(deals) == 1 + sum(m.new_hand for m in s.record.moves)


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_a_seat_view_shows_nothing_the_seat_may_not_see(env_id):
    s = GameSession(env_id, ["random"] * players(env_id), options=SMALL[env_id], seed=8)
    rng = np.random.default_rng(0)
    gen = s.advance()
    for _ in range(12):
        next(gen)
        state = s.env.kernel_state
        for p in range(s.num_players):
            v = s.view(p)
            # re-dealing what p cannot see leaves p's table text unchanged
            assert state.resample_hidden(p, rng).render(p) == v.table
            assert (v.legal_moves != {}) == (p == s.to_act)
    if env_id in ("cribbage_v0", "muggins_dominoes_v0", "michigan_v0"):  # games with hidden hands
        full = s.full_table()
        assert all(s.view(p).table != full for p in range(s.num_players))


def test_moves_are_checked_with_clear_errors():
    s = GameSession("cribbage_v0", ["human", "human"], seed=1)
    p = s.to_act
    legal = s.legal_moves()
    with pytest.raises(MoveError, match=f"it is player {p}'s turn, not player {1 - p}'s"):
        s.play(1 - p, next(iter(legal)))
    with pytest.raises(MoveError, match="not legal .*legal moves: .*lay away"):
        s.play(p, 52)  # "go" is not legal while laying away
    with pytest.raises(MoveError, match="is not a legal move; legal moves: lay away"):
        s.play(p, "announce 12")
    with pytest.raises(MoveError, match="neither an action index nor text"):
        s.play(p, 1.5)
    with pytest.raises(MoveError, match="is not a seat; seats: 0..1"):
        s.view(2)
    assert s.record.moves == []  # nothing refused reached the record
    move = s.play(p, next(iter(legal)))
    assert move.player == p and move.name == legal[move.action] and s.record.moves == [move]


def test_typed_moves_match_readable_names():
    cards = {52: "go", 17: "lay 5♦", 30: "lay 5♥", 65: "announce 12", 66: "announce 13", 88: "muggins 4"}
    assert match_move("5H", cards) == 30 and match_move("5♥", cards) == 30 and match_move("lay 5d", cards) == 17
    assert match_move("GO", cards) == 52 and match_move("announce 12", cards) == 65
    assert match_move("muggins 4", cards) == 88
    tiles = {74: "6-4 on arm 1 (open 4)", 75: "6-4 on arm 2 (open 6)", 90: "Muggins!", 91: "accept"}
    assert match_move("4-6 2", tiles) == 75 and match_move("muggins", tiles) == 90
    with pytest.raises(MoveError, match="fits several moves: 6-4 on arm 1 .*6-4 on arm 2"):
        match_move("6-4", tiles)
    with pytest.raises(MoveError, match="fits several moves"):
        match_move("announce", cards)
    with pytest.raises(MoveError, match="'7C' is not a legal move; legal moves: go, lay 5♦"):
        match_move("7C", cards)
    with pytest.raises(MoveError, match="type a move"):
        match_move("  ", cards)


def test_a_human_seat_plays_typed_moves_and_agents_answer():
    deal = {"dealer": 1, "hands": [parse_cards("5♥ 7♣ 2♣ 3♣ A♠ 4♠"), parse_cards("10♦ 9♦ 8♦ 7♦ A♥ 4♥")],
            "starter": "6♠"}
    s = GameSession("cribbage_v0", ["human", "heuristic"], seed=2, deal=deal)
    assert s.waiting_for_human and s.to_act == 0
    s.play(0, "5h")
    s.play(0, "as")
    assert [m.name for m in s.record.moves] == ["lay away 5♥", "lay away A♠"]
    agent_moves = list(s.advance())
    assert agent_moves and all(m.player == 1 or m.forced for m in agent_moves)
    assert s.record.deal == deal and sorted(s.record.deals[0]["deal"]["hands"][0]) == sorted(parse_cards("5♥ 7♣ 2♣ 3♣ A♠ 4♠"))


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_a_hint_is_a_legal_move_with_a_reason(env_id):
    opts = {"num_players": 3, "mistakes": True} if env_id == "muggins_cards_v0" else SMALL[env_id]  # choices
    s = GameSession(env_id, ["human"] * players(env_id), options=opts, seed=4)
    list(s.advance())
    hints = 0
    while hints < 6 and not s.is_over:
        p = s.to_act
        action, name, why = s.hint(p)
        assert action in s.legal_moves() and name == s.legal_moves()[action]
        assert len(why) > 10 and "strategy" not in why  # the game's own reason, not the fallback
        with pytest.raises(MoveError, match="not player"):
            s.hint((p + 1) % s.num_players)
        s.play(p, action)
        list(s.advance())
        hints += 1
    assert hints >= 1


def test_hint_explains_in_the_games_terms():
    deal = {"dealer": 1, "hands": [parse_cards("5♥ 7♣ 2♣ 3♣ A♠ 4♠"), parse_cards("10♦ 9♦ 8♦ 7♦ A♥ 4♥")],
            "starter": "6♠"}
    s = GameSession("cribbage_v0", ["human", "human"], seed=2, deal=deal)
    _, name, why = s.hint(0)
    assert name.startswith("lay away") and "keeps the best hand" in why and format_card(s.hint(0)[0]) in why


def test_session_refuses_bad_setups():
    with pytest.raises(ValueError, match="unknown env 'chess'"):
        GameSession("chess", ["human"])
    with pytest.raises(ValueError, match="3 seat\\(s\\) given for 2 players"):
        GameSession("cribbage_v0", ["human"] * 3)
    with pytest.raises(ValueError, match="unknown agent spec 'alphazero'"):
        GameSession("cribbage_v0", ["human", "alphazero"])
    with pytest.raises(ValueError, match="set by the session itself"):
        GameSession("cribbage_v0", ["human", "random"], options={"skip_forced": True})


def test_records_refuse_what_is_not_a_record(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="is not JSON"):
        records.load(bad)
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(RecordError, match="not a muggins_env game record"):
        records.load(bad)
    with pytest.raises(RecordError, match="no game record at"):
        records.load(tmp_path / "missing.json")
    rec = agent_game("michigan_v0").record.to_dict()
    bad.write_text(json.dumps(dict(rec, version=99)))
    with pytest.raises(RecordError, match="version 99 is not supported"):
        records.load(bad)
    broken = dict(rec, moves=[{"ply": 0}])
    with pytest.raises(RecordError, match="malformed game record"):
        GameRecord.from_dict(broken)


def test_a_tampered_record_does_not_replay():
    rec = agent_game("cribbage_v0").record
    data = rec.to_dict()
    k = next(i for i, m in enumerate(data["moves"]) if not m["forced"])
    legal_other = [m for m in data["moves"] if m["player"] == data["moves"][k]["player"]]
    assert legal_other
    data["moves"][k] = dict(data["moves"][k], name="lay away K♠ (made up)")
    with pytest.raises(RecordError, match=f"ply {k}: action .* the record says 'lay away K♠ \\(made up\\)'"):
        records.replay(GameRecord.from_dict(data))
    data = rec.to_dict()
    data["returns"] = [9.0, -9.0]
    with pytest.raises(RecordError, match="replayed returns .* differ"):
        records.replay(GameRecord.from_dict(data))
    data = rec.to_dict()
    data["seed"] += 1
    with pytest.raises(RecordError, match="ply 0"):
        records.replay(GameRecord.from_dict(data))


def test_positions_step_through_the_game():
    rec = agent_game("muggins_dominoes_v0").record
    states = records.positions(rec)
    assert len(states) == len(rec.moves) + 1
    assert states[0].current_player() == rec.moves[0].player and states[-1].is_terminal()
    assert [list(s.returns()) for s in states[-1:]] == [rec.returns]


def test_a_card_laid_away_face_down_is_not_named_to_the_others():
    s = GameSession("cribbage_v0", ["human", "random"], seed=2)
    list(s.advance())
    while s.env.kernel_state.phase_name() == "discard":
        s.play(0, next(iter(s.legal_moves())))
        for _ in s.advance():
            if s.env.kernel_state.phase_name() != "discard":
                break
    lay_aways = [m for m in s.record.moves if m.name.startswith("lay away")]
    assert len(lay_aways) == 4
    for m in lay_aways:
        other = 1 - m.player
        assert m.public == "lay away a card" and m.seen_by(other) == "lay away a card"
        assert m.seen_by(m.player) == m.name and m.seen_by(None) == m.name
    seen = s.view(0).recent
    assert [r["move"] for r in seen if r["player"] == 1][:2] == ["lay away a card"] * 2
    assert [r["move"] for r in seen if r["player"] == 0][:2] == [m.name for m in lay_aways if m.player == 0]


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_the_table_text_reads_as_english(env_id):
    # issue 16: "stock  1 cards", "players 1 win", Michigan's unexplained "3♣/3"
    s = GameSession(env_id, ["random"] * players(env_id), options=SMALL[env_id], seed=9)
    texts = []
    for _ in s.advance():
        texts += [s.full_table()] + [s.view(p).table for p in range(s.num_players)]
    text = "\n".join(texts)
    assert not re.search(r"\b1 (cards|tiles)\b", text) and "  1 card" not in text
    assert not re.search(r"players \d+ win", text)
    assert re.search(r"\b1 (card|tile)\b", text) or env_id == "michigan_v0"
    if env_id == "michigan_v0":
        assert "(card/player): " in text
    assert re.search(r"(player \d+ wins|side \d+ wins|players \d+(, \d+)+ win|draw|top balance)", texts[-1])


def test_a_seat_view_is_json_ready():
    s = GameSession("michigan_v0", ["human", "random", "random"], options={"num_players": 3}, seed=1)
    list(s.advance())
    p = s.to_act
    data = json.loads(json.dumps(s.view(p).to_dict()))
    assert data["your_turn"] and data["player"] == p
    assert {int(a): n for a, n in data["legal_moves"].items()} == s.legal_moves()
    assert data["view"]["hand"] == s.view(p).view["hand"]
