"""The text view of a decision (issue 35, item 1): built only from what the seat may know.

The strong check: for random positions of every env, the text view of seat ``p`` is the same
for the true state and for ``state.resample_hidden(p, rng)`` (everything ``p`` cannot see
re-dealt), with the same history, so no hidden card can reach a language model's prompt. Then
a direct one: an opponent's hidden card names never appear in the table or the moves shown.
The harnesses (``agent_action``, ``play_game``, ``GameSession``) give it to agents with
``needs_text`` only, with every move as that seat saw it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from muggins_env import ENV_NAMES, game_class
from muggins_env.games import declaration
from muggins_env.kernel.cards import format_card
from muggins_env.kernel.tiles import format_tile
from muggins_env.text_view import HistoryKeeper, format_prompt, text_view
from muggins_env.wrappers import SeatEnv, agent_action

SMALL = {"muggins_cards_v0": {"num_players": 3}, "cribbage_v0": {"num_players": 2},
         "muggins_dominoes_v0": {"num_players": 2}, "michigan_v0": {"num_players": 3}}


def _positions(env_id: str, seeds=range(4), stops=(0, 3, 9, 20, 40)):
    """(state, history keeper) at several random positions of several games."""
    game = game_class(env_id)(**SMALL[env_id])
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(seed=seed)
        keeper = HistoryKeeper(game.num_players)
        ply = 0
        for stop in stops:
            while ply < stop and not state.is_terminal():
                a = int(rng.choice(state.legal_actions()))
                keeper.before_apply(state, a)
                state.apply(a)
                ply += 1
            if state.is_terminal():
                break
            yield state, keeper


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_text_view_is_the_same_for_every_resampled_state(env_id):
    rng = np.random.default_rng(7)
    checked = 0
    for state, keeper in _positions(env_id):
        for p in range(state.game.num_players):
            view = text_view(state, p, keeper.of(p))
            for _ in range(2):
                other = state.resample_hidden(p, rng)
                assert text_view(other, p, keeper.of(p)) == view, (env_id, p)
            checked += 1
        me = state.current_player()
        assert text_view(state, me, keeper.of(me))["legal_moves"] == {
            a: state.action_to_string(a) for a in state.legal_actions()}
    assert checked >= 8


def _hidden_names(env_id: str, state, p: int) -> set[str]:
    """Names of cards (tiles) that seat p cannot see now."""
    full = state.full_state()
    if env_id == "muggins_cards_v0":  # every stock is face down, its owner's included
        return {format_card(c) for stock in full["stocks"] for c in stock}
    if env_id == "muggins_dominoes_v0":
        return {format_tile(t) for q, hand in enumerate(full["hands"]) if q != p for t in hand} | \
               {format_tile(t) for t in full["boneyard"]}
    hands = {format_card(c) for q, hand in enumerate(full["hands"]) if q != p for c in hand}
    if env_id == "michigan_v0":  # the layout's four boodle labels are printed on the table
        hands |= {format_card(c) for c in full["widow"] if c not in full["known_widow"]}
        hands -= {"A♥", "K♣", "Q♦", "J♠"}
    return hands


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_no_hidden_card_name_reaches_the_prompt(env_id):
    checked = 0
    for state, keeper in _positions(env_id, seeds=range(3), stops=(0, 2, 5)):
        if env_id == "cribbage_v0" and state.phase_name() not in ("discard", "play"):
            continue  # the show lays every hand open
        p = state.current_player()
        view = text_view(state, p, keeper.of(p))
        shown = view["table"] + "\n" + "\n".join(view["legal_moves"].values())
        for name in _hidden_names(env_id, state, p):
            assert not re.search(rf"(?<![0-9A-Za-z]){re.escape(name)}(?![0-9])", shown), (env_id, name, shown)
        checked += 1
    assert checked >= 3


def test_face_down_moves_are_not_named_in_other_seats_history():
    game = game_class("cribbage_v0")(num_players=2)
    state = game.new_initial_state(seed=3)
    keeper = HistoryKeeper(2)
    p = state.current_player()
    a = state.legal_actions()[0]
    name, public = state.action_to_string(a), state.public_action_to_string(a)
    assert name != public  # laying away to the crib is face down
    keeper.before_apply(state, a)
    state.apply(a)
    assert keeper.of(p) == [(p, name)] and keeper.of(1 - p) == [(p, public)]
    assert name not in "\n".join(text_view(state, 1 - p, keeper.of(1 - p))["history"])


def test_view_fields_and_prompt():
    for env_id in ENV_NAMES:
        state = game_class(env_id)(**SMALL[env_id]).new_initial_state(seed=0)
        p = state.current_player()
        view = text_view(state, p, [])
        assert set(view) == {"system", "game", "you", "num_players", "phase", "scores", "table", "history",
                             "legal_moves"}
        assert view["system"] == declaration(env_id).rules_text and view["table"] == state.render(p)
        other = (p + 1) % state.game.num_players
        assert text_view(state, other, [])["legal_moves"] == {}
        listed, unlisted = format_prompt(view, True), format_prompt(view, False)
        first = next(iter(view["legal_moves"].values()))
        assert f"1. {first}" in listed and "Your legal moves" not in unlisted
    with pytest.raises(ValueError, match="not a seat"):
        text_view(state, 9, [])


class _TextAgent:
    needs_text = True
    needs_info = True

    def __init__(self):
        self.seen = []

    def act(self, observation, mask, rng, info=None):
        self.seen.append(info["text"])
        return int(next(iter(info["text"]["legal_moves"])))


def test_harnesses_give_text_only_to_agents_that_need_it():
    from muggins_env.eval.tournament import play_game
    from muggins_env.play.session import GameSession

    game = game_class("cribbage_v0")(num_players=2)
    state = game.new_initial_state(seed=1)
    agent = _TextAgent()
    p = state.current_player()
    agent_action(agent, state, p, state.legal_actions_mask(), np.random.default_rng(0), [(0, "x")])
    assert agent.seen[-1]["history"] == ["player 0" + (" (you)" if p == 0 else "") + ": x"]

    agent = _TextAgent()
    final, _decisions, _ = play_game(game, [agent, _TextAgent()], 5, [np.random.default_rng(i) for i in range(2)])
    assert final.is_terminal() and len(agent.seen) >= 1
    assert all(t["you"] == 0 for t in agent.seen) and len(agent.seen[-1]["history"]) > 10

    session = GameSession("cribbage_v0", [_TextAgent(), "random"], options={"num_players": 2}, seed=4)
    for _ in range(6):
        session.step_once()
    texts = session.agents[0].seen
    assert texts and texts[-1]["history"] == [f"player {m.player}{' (you)' if m.player == 0 else ''}: {m.seen_by(0)}"
                                              for m in session.record.moves[:len(texts[-1]["history"])]]

    env = SeatEnv("cribbage_v0", {"num_players": 2}, seat=0, opponents=_TextAgent(), seed=2)
    env.reset()
    for _ in range(5):
        _obs, _r, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            break
    seen = env.lineup[1].seen
    assert seen and seen[-1]["you"] == 1 and seen[-1]["history"]
