"""What a move did, in words: the notes the terminal prints under a move line.

``notes(env_id, before, after, move)`` reads only public information: the seat's public view
(``state.public_view``) before and after the move, and the move record (who, the action, the
points). It never needs, and never names, a hidden card. Per game:

- cribbage: every count settled by the move, with its breakdown (fifteens, pairs, runs, flush,
  nobs), its announcement and its outcome (accepted, muggins N for whom, an overcount, an
  unfounded call), whose hand or crib it was; the reason of each pegging score ("fifteen for
  2", "a pair for 2", "a run of 3 for 3", "31 for 2", "go for 1", "last card for 1"), his heels;
- Muggins dominoes: the verdict of the review a move settled (accepted, or the Muggins call
  founded or unfounded, with the true score now that it is settled);
- card Muggins: the verdict of a "Muggins!" call (the placement stood, or was wrong).

A game's declaration names its notes function (``narrator``, e.g.
``"muggins_env.play.tui.narrate:cribbage_notes"``); Michigan declares none: its moves say it all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from muggins_env.games import declaration
from muggins_env.kernel.cards import format_card
from muggins_env.kernel.declaration import load_hook


def _cards(cards: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in cards)


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


# -- cribbage ------------------------------------------------------------------------------------------
_PAIRS = {2: "a pair for 2", 6: "a pair royal for 6", 12: "a double pair royal for 12"}
_PARTS = ("fifteens", "pairs", "runs", "flush", "nobs")


def _count_line(rv: dict, starter: int | None, dealer: int | None) -> str:
    whose = f"player {rv['counter']}'s " + ("crib" if rv["is_crib"] else "hand")
    if rv["is_crib"] and dealer is not None and dealer != rv["counter"]:
        whose += f" (dealer {dealer})"
    shown = _cards(rv["cards"]) + (f" + starter {format_card(starter)}" if starter is not None else "")
    parts = [f"{k} {rv['breakdown'][k]}" for k in _PARTS if rv["breakdown"].get(k)]
    true, announced, outcome = rv["true"], rv["announced"], rv["outcome"]
    head = f"{whose} {shown} = {true} ({', '.join(parts) or 'nothing'})"
    if outcome == "automatic":
        return f"{head}: counted"
    said = f"announced {announced}"
    if outcome == "all accepted":
        if announced == true:
            verdict = "accepted"
        elif announced < true:
            verdict = f"accepted; {_plural(true - announced, 'missed point')} lost"
        else:
            verdict = f"accepted; an overcount of {announced - true} nobody called"
    elif outcome == "overcount unfounded":
        verdict = f"the overcount call was unfounded ({announced} is not more than {true})"
    elif outcome.startswith("false muggins:"):
        verdict = (f"the muggins call was unfounded (nothing was missed): "
                   f"{outcome.split(':', 1)[1].strip()}")
    elif outcome.startswith("muggins:"):
        verdict = f"muggins! {outcome.split(':', 1)[1].strip()} of the {true - announced} missed"
    elif outcome.startswith("overcount:"):
        verdict = f"overcount by {announced - true}: {outcome.split(':', 1)[1].strip()}"
    else:
        verdict = outcome
    return f"{head}: {said}, {verdict}"


def cribbage_notes(before: dict, after: dict, move: Any) -> list[str]:
    from muggins_env.games.cribbage.rules import GO, VALUE
    from muggins_env.games.cribbage.scoring import play_breakdown

    out: list[str] = []
    gained = [p for p, d in enumerate(move.points) if d > 0]
    phase, action = before["phase"], int(move.action)
    if phase == "discard" and before["starter"] is None and after["starter"] is not None:
        out.append(f"the starter is cut: {format_card(after['starter'])}")
        if format_card(after["starter"]).startswith("J") and gained:
            out.append(f"his heels: the starter is a jack, 2 for the dealer, player {before['dealer']}")
    elif phase == "play" and action < GO:
        series = list(before["series"]) + [action]
        count = before["count"] + VALUE[action]
        pb = play_breakdown(series)
        reasons = []
        if pb.fifteen:
            reasons.append("fifteen for 2")
        if pb.thirty_one:
            reasons.append("31 for 2")
        if pb.pairs:
            reasons.append(_PAIRS[pb.pairs])
        if pb.run:
            reasons.append(f"a run of {pb.run} for {pb.run}")
        if count != 31:
            if move.new_hand or not any(after["hand_sizes"]) and after["phase"] != "play":
                reasons.append("last card for 1")
            elif after["phase"] == "play" and after["count"] == 0 and gained:
                reasons.append("go for 1 (nobody else can lay a card)")
        if reasons:
            out.append(f"player {move.player}: count {count}, " + ", ".join(reasons))
    elif phase == "play" and action == GO and gained:
        out.append(f"go: 1 for player {gained[0]}, who laid the last card")
    # the counts this move settled (the last one of a deal shows in the next deal's view)
    done = before["shown"]
    settled = after["previous_deal_shown"] if move.new_hand else after["shown"]
    for rv in settled[len(done):]:
        out.append(_count_line(rv, before["starter"], before["dealer"]))
    return out


# -- Muggins dominoes -----------------------------------------------------------------------------------
def dominoes_notes(before: dict, after: dict, move: Any) -> list[str]:
    rv, last = before.get("review"), after.get("last_review")
    if rv is None or after.get("review") is not None or not last or last.get("seat") != rv["seat"]:
        return []
    mover, announced, true = last["seat"], last["announced"], last["true_score"]
    if last["caller"] < 0:
        tail = ""
        if announced < true:
            tail = f"; {_plural(true - announced, 'point')} not announced are lost"
        elif announced > true:
            tail = "; an overcount nobody called"
        return [f"player {mover}'s announcement of {announced} stands (true score {true}){tail}"]
    if last["founded"]:
        return [(f"player {last['caller']} called Muggins: founded, player {mover} announced {announced} "
                 f"but the true score was {true}")]
    return [(f"player {last['caller']} called Muggins: unfounded, player {mover}'s announcement of "
             f"{announced} was right")]


# -- card Muggins -------------------------------------------------------------------------------------
def muggins_cards_notes(before: dict, after: dict, move: Any) -> list[str]:
    from muggins_env.games.muggins_cards import CALL

    rv = before.get("review")
    if rv is None or int(move.action) != CALL:
        return []
    card, placer = rv["card"], rv["placer"]
    if rv["common_pile"] >= 0:
        where = f"common pile {rv['common_pile']}"
        commons = after.get("commons") or []
        stood = rv["common_pile"] < len(commons) and commons[rv["common_pile"]] == card
    else:
        owner = rv["discard_of"]
        where = "their own discard" if owner == placer else f"player {owner}'s discard"
        tops = after.get("discard_tops") or []
        stood = owner < len(tops) and tops[owner] == card
    if after.get("phase") == "rechoose":
        stood = False
    if stood:
        return [f"player {move.player} called Muggins!: unfounded, {format_card(card)} fits {where} and stays"]
    again = (f"; player {placer} chooses a fitting common pile again" if after.get("phase") == "rechoose"
             else f"; each other player gives player {placer} a card")
    return [f"player {move.player} called Muggins!: founded, {format_card(card)} did not belong on {where}{again}"]


def notes(env_id: str, before: dict, after: dict, move: Any) -> list[str]:
    """What ``move`` did beyond its name and points, from public views only (see the module)."""
    path = declaration(env_id).narrator  # the game's declared narrator (None: names and points only)
    return load_hook(path)(before, after, move) if path is not None else []
