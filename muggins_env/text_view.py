"""A text view of a decision, built only from what the seat to act may know.

``text_view(state, player, history)`` gives a language-model player (or any text harness) its
decision as a dict of plain text:

- ``"system"``: the game's rules in a few sentences (its declaration's ``rules_text``; the full
  rules are ``docs/rules/<game>.md``);
- ``"game"``: the game's long name and its options;
- ``"phase"``, ``"scores"``: the phase of play and the scoreboard (public);
- ``"table"``: the table as ``player`` sees it (``state.render(player)``: never another
  player's hidden cards);
- ``"history"``: the moves so far as ``player`` saw them, one line each (``history`` holds
  ``(seat, name as this seat saw it)`` pairs: ``MoveRecord.seen_by(player)``, or
  ``public_action_to_string`` for another seat's move, so a card laid face down is not named);
- ``"legal_moves"``: ``{action: name}`` when ``player`` is to act (else empty).

Everything comes from the seat's view: the dict is the same for the true state and for any
``state.resample_hidden(player, rng)`` with the same history (``tests/env/test_text_view.py``
checks it for random positions of every env). ``HistoryKeeper`` keeps every seat's history
while a harness applies moves (``eval``'s ``play_game``, ``SeatEnv``); ``format_prompt``
joins a view into one user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .games import GAMES, declaration

HISTORY_LINE = "player {seat}{you}: {move}"


def rules_text(state_or_game: Any) -> str:
    """The short rules text of the game of a state (or a Game)."""
    game = getattr(state_or_game, "game", state_or_game)
    facts = game.FACTS
    if facts.name in GAMES:
        return declaration(facts.name).rules_text
    return f"{facts.long_name}: play by its rules."


def history_lines(history: Sequence[tuple[int, str]], player: int) -> list[str]:
    """``(seat, move name as player saw it)`` pairs as lines ("player 1 (you): lay 5♥")."""
    out = []
    for seat, move in history:
        out.append(HISTORY_LINE.format(seat=int(seat), you=" (you)" if int(seat) == player else "", move=move))
    return out


def text_view(state: Any, player: int, history: Sequence[tuple[int, str]] = (),
              max_history: int | None = None) -> dict:
    """The text view of ``state`` for seat ``player`` (see the module docstring); ``history``:
    ``(seat, name as player saw it)`` pairs; ``max_history`` keeps only the last moves."""
    game = state.game
    n = game.num_players
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"player={player!r} is not a seat; seats: 0..{n - 1}")
    lines = history_lines(history, player)
    if max_history is not None and len(lines) > max_history:
        lines = [f"({len(lines) - max_history} earlier moves not shown)"] + lines[-max_history:]
    unit, scores = state.scoreboard()
    opts = ", ".join(f"{k}={v}" for k, v in game.options.items())
    to_act = None if state.is_terminal() else int(state.current_player())
    legal = ({int(a): state.action_to_string(int(a)) for a in state.legal_actions()}
             if to_act == player else {})
    return {
        "system": rules_text(game),
        "game": f"{game.FACTS.long_name} ({game.FACTS.name}; {opts})",
        "you": player,
        "num_players": n,
        "phase": state.phase_name(),
        "scores": f"{unit}: " + "  ".join(f"player {p}: {s:g}" for p, s in enumerate(scores)),
        "table": state.render(player),
        "history": lines,
        "legal_moves": legal,
    }


def format_prompt(view: dict, list_moves: bool = True) -> str:
    """One user message from a text view: the table, the history and (``list_moves``) the
    legal moves numbered from 1."""
    parts = [f"Game: {view['game']}", f"You are player {view['you']} of {view['num_players']}.",
             f"Phase: {view['phase']}", f"Scores: {view['scores']}", "", "The table as you see it:",
             view["table"], ""]
    if view["history"]:
        parts += ["Moves so far (as you saw them):", *view["history"], ""]
    else:
        parts += ["No moves yet.", ""]
    if list_moves and view["legal_moves"]:
        parts.append("Your legal moves:")
        parts += [f"{i}. {name}" for i, name in enumerate(view["legal_moves"].values(), 1)]
    return "\n".join(parts).rstrip() + "\n"


class HistoryKeeper:
    """Every seat's move history as that seat saw it, kept while a harness applies moves:
    call ``before_apply(state, action)`` just before ``state.apply(action)``."""

    def __init__(self, num_players: int) -> None:
        self.seen: list[list[tuple[int, str]]] = [[] for _ in range(num_players)]

    def before_apply(self, state: Any, action: int) -> None:
        self.add(self.entry(state, action))

    @staticmethod
    def entry(state: Any, action: int) -> tuple[int, str, str]:
        """``(seat, name, public name)`` of ``action`` in ``state`` (before it is applied)."""
        return int(state.current_player()), state.action_to_string(action), state.public_action_to_string(action)

    def add(self, entry: tuple[int, str, str]) -> None:
        p, name, public = entry
        for q, hist in enumerate(self.seen):
            hist.append((p, name if q == p else public))

    def of(self, player: int) -> list[tuple[int, str]]:
        return self.seen[player]
