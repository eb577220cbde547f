"""Game records: every action of one game, saved as JSON, replayed deterministically.

A record holds what the env needs to deal the same cards (env id, game options, the reset
seed, the rigged deal if there was one) and every action in order, with who took it and its
readable name, so ``replay(record)`` steps a fresh env through the same game and checks that
it reaches the same rewards and returns. The format (``FORMAT``, ``VERSION``) is documented
in the README ("Game records"); ``load`` refuses anything else with a clear error.

Records are written by ``GameSession`` (``play/session.py``: ``muggins-play``,
``muggins-eval --save-games``) and read by ``muggins-replay`` and ``make play``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "muggins_env game record"
VERSION = 1


class RecordError(ValueError):
    """A file that is not a valid game record, or a record the env does not replay to."""


@dataclass
class MoveRecord:
    ply: int  # 0-based index of the action in the game
    player: int  # the seat that acted
    action: int  # the env's action index
    name: str  # its readable name in that position
    by: str  # "human" or the agent spec of that seat
    forced: bool  # the only legal action
    rewards: list[float]  # every seat's reward for this step
    points: list[float]  # change of every seat's score (the game's own: points, chips, cards left)
    scores: list[float]  # every seat's score after it
    new_hand: bool = False  # a new hand was dealt after this action
    public: str | None = None  # the name the other players see, when it differs (a card laid face down)
    #: what a language-model player was asked and answered for this move, one dict per exchange
    #: (``{"prompt": [...messages], "answer", "parsed", "legal", "reason", "tokens", "seconds"}``, or a
    #: ``{"fallback": spec, ...}`` entry): written only when present, so other records are unchanged.
    #: It shows the acting seat's own view: a record is a whole-game document (every hidden card)
    llm: list[dict] | None = None

    def to_dict(self) -> dict:
        d = {"ply": self.ply, "player": self.player, "action": self.action, "name": self.name, "by": self.by,
             "forced": self.forced, "rewards": list(self.rewards), "points": list(self.points),
             "scores": list(self.scores)}  # by hand, not asdict: a server writes one per move
        if self.new_hand:
            d["new_hand"] = True
        if self.public is not None:
            d["public"] = self.public
        if self.llm:
            d["llm"] = [dict(x) for x in self.llm]
        return d

    def seen_by(self, seat: int | None) -> str:
        """The move's name as ``seat`` sees it (None: the full view)."""
        return self.name if seat is None or seat == self.player or self.public is None else self.public


@dataclass
class GameRecord:
    env_id: str
    options: dict
    seed: int  # the env's reset seed: reset(seed=seed, options={"deal": deal})
    deal: dict | None  # the rigged deal of the first hand, None when the seed dealt it
    seats: list[str]  # "human" or an agent spec, per seat
    score_unit: str = "points"
    deals: list[dict] = field(default_factory=list)  # [{"ply": k, "deal": {...}}]: each hand as dealt
    moves: list[MoveRecord] = field(default_factory=list)
    finished: bool = False
    truncated: bool = False
    returns: list[float] | None = None  # per seat, once finished
    scores: list[float] | None = None  # the game's own final score per seat, once finished
    meta: dict = field(default_factory=dict)  # free-form: tournament deal, seating, times, ...

    def finish(self, returns: list[float], scores: list[float], truncated: bool) -> None:
        self.finished, self.truncated = True, truncated
        self.returns, self.scores = list(returns), list(scores)

    # -- JSON ------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "env_id": self.env_id, "options": dict(self.options),
                "seed": self.seed, "deal": self.deal, "seats": list(self.seats), "score_unit": self.score_unit,
                "deals": list(self.deals), "moves": [m.to_dict() for m in self.moves],
                "finished": self.finished, "truncated": self.truncated, "returns": self.returns,
                "scores": self.scores, "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, data: Any, source: str = "record") -> GameRecord:
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise RecordError(f"{source} is not a muggins_env game record (expected \"format\": {FORMAT!r})")
        if data.get("version") != VERSION:
            raise RecordError(f"{source}: record version {data.get('version')!r} is not supported; "
                              f"this muggins_env reads version {VERSION}")
        try:
            moves = [MoveRecord(**m) for m in data["moves"]]
            rec = cls(env_id=data["env_id"], options=dict(data["options"]), seed=int(data["seed"]),
                      deal=data["deal"], seats=list(data["seats"]), score_unit=data.get("score_unit", "points"),
                      deals=list(data.get("deals", [])), moves=moves, finished=bool(data["finished"]),
                      truncated=bool(data.get("truncated", False)), returns=data.get("returns"),
                      scores=data.get("scores"), meta=dict(data.get("meta") or {}))
        except (KeyError, TypeError, ValueError) as e:
            raise RecordError(f"{source}: malformed game record ({type(e).__name__}: {e})") from None
        for i, m in enumerate(rec.moves):
            if m.ply != i:
                raise RecordError(f"{source}: move {i} has ply {m.ply}; moves must be in order from 0")
        return rec

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON (UTF-8, cards with suit symbols); returns the path."""
        path = Path(path)
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)  # never a half-written record
        return path


def load(path: str | Path) -> GameRecord:
    """Read a record saved by ``GameRecord.save`` (a clear ``RecordError`` for anything else)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"no game record at {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read {str(path)!r}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{str(path)!r} is not JSON ({e})") from None
    return GameRecord.from_dict(data, source=repr(str(path)))


def _close(a: list[float] | None, b: list[float]) -> bool:
    return a is not None and len(a) == len(b) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b))


def replay(record: GameRecord, on_position: Callable[[Any, MoveRecord | None], None] | None = None) -> list[float]:
    """Step a fresh env through ``record``, checking each actor, move name and reward, and
    the final returns; return the returns. ``on_position(env, move)`` is called at the start
    (``move`` None) and after every move. Raises ``RecordError`` at the first difference."""
    from . import make

    try:
        env = make(record.env_id, raw=True, **record.options)
        env.reset(seed=record.seed, options={"deal": record.deal} if record.deal is not None else None)
    except ValueError as e:
        raise RecordError(f"the record's game cannot be set up: {e}") from None
    if on_position is not None:
        on_position(env, None)
    for m in record.moves:
        state = env.kernel_state
        if state.is_terminal():
            raise RecordError(f"ply {m.ply}: the game is already over, but the record goes on")
        if state.current_player() != m.player:
            raise RecordError(f"ply {m.ply}: player {state.current_player()} is to act, the record says {m.player}")
        name = state.action_to_string(m.action) if 0 <= m.action < env.game.num_actions else None
        if name != m.name:
            raise RecordError(f"ply {m.ply}: action {m.action} is {name!r} here, the record says {m.name!r}")
        try:
            env.step(m.action)
        except ValueError as e:
            raise RecordError(f"ply {m.ply}: {e}") from None
        if not _close(m.rewards, [float(x) for x in env.kernel_state.rewards()]):
            raise RecordError(f"ply {m.ply}: rewards {list(env.kernel_state.rewards())} differ from the "
                              f"record's {m.rewards}")
        if on_position is not None:
            on_position(env, m)
    returns = [float(x) for x in env.kernel_state.returns()]
    if record.finished:
        if not env.kernel_state.is_terminal():
            raise RecordError("the record says the game ended, but after its moves it goes on")
        if not _close(record.returns, returns):
            raise RecordError(f"replayed returns {returns} differ from the record's {record.returns}")
    return returns


def positions(record: GameRecord) -> list[Any]:
    """The kernel state before the first move and after each move (``len(moves) + 1``
    states), replayed and checked: what a replay viewer steps through."""
    out: list[Any] = []
    replay(record, lambda env, _m: out.append(env.kernel_state.clone()))
    return out
