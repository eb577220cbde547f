"""One game at a table of humans and agents, over the AEC env: the engine of every face.

``GameSession(env_id, seats=["human", "heuristic", ...], options=..., seed=...)`` owns a raw
env and the agents of the agent seats. It answers whose turn it is, hands a seat its view
(``view(player)``: only what that player may see: the table drawn from its seat, its
readable view and, on its turn, its legal moves by name), applies a human's move after
checking it (``play``: out of turn, illegal or unreadable moves raise ``MoveError`` naming
what is allowed), lets the agents (and forced moves) play one at a time (``advance``), and
appends every action to its game record (``record``, ``muggins_env/records.py``).

The terminal UI (``play/tui``) and the web app are thin faces of this object: no
rules and nothing specific to one game is needed above it. Everything it knows comes from
the env (readable move names, views, the kernel state's public protocol: ``render(player)``,
``scoreboard()``, ``deal()``) and from the agents.

Forced moves (a single legal action) are applied by the session for every seat when
``auto_forced`` (default): a human is never asked to confirm the only card they may play,
and agents are not asked either, exactly as tournaments with ``skip_forced`` play. The env
itself runs with ``skip_forced=False``, so every action is in the record.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from muggins_env import ENV_NAMES, make
from muggins_env import agents as muggins_agents
from muggins_env.decision import agent_inputs
from muggins_env.env import ADAPTER_OPTIONS
from muggins_env.kernel.cards import format_card, parse_card
from muggins_env.kernel.tiles import format_tile, parse_tile
from muggins_env.records import GameRecord, MoveRecord

HUMAN = "human"


class MoveError(ValueError):
    """A move the session refuses: out of turn, illegal, unreadable, or the game is over."""


@dataclass
class SeatView:
    """What one seat may see now (never another player's hidden cards)."""

    player: int
    table: str  # the table drawn from this seat
    phase: str
    to_act: int | None  # None once the game is over
    legal_moves: dict[int, str]  # this seat's legal moves by name (empty when not its turn)
    view: dict  # the game's readable per-player view
    scores: list[float]
    score_unit: str
    #: the last moves as this seat saw them: {"ply", "player", "move", "forced", "points", "scores"}
    recent: list[dict] = field(default_factory=list)

    @property
    def your_turn(self) -> bool:
        return self.to_act == self.player

    def to_dict(self) -> dict:
        """JSON-ready (a web face sends this, and only this, to the seat's client)."""
        d = asdict(self)
        d["legal_moves"] = {str(a): name for a, name in self.legal_moves.items()}
        d["your_turn"] = self.your_turn
        return d


def _canonical(token: str) -> str:
    """A token of a move name or of typed text, with cards and tiles in one spelling."""
    t = token.strip(".,;:!?()[]").lower()
    if re.fullmatch(r"(10|[2-9atjqk])[cdhs♣♦♥♠]", t):
        try:
            return format_card(parse_card(t)).lower()
        except ValueError:
            return t
    if re.fullmatch(r"\d+[-:]\d+", t):
        try:
            return format_tile(parse_tile(t, 99))
        except ValueError:
            return t
    return t


def _tokens(text: str) -> list[str]:
    return [c for c in (_canonical(t) for t in text.replace("→", " ").split()) if c]


def _fits(typed: list[str], words: list[str]) -> bool:
    return all(words.count(t) >= typed.count(t) for t in set(typed))


_ASIDE = re.compile(r"\([^)]*\)")  # "(open 4)", "(Q♠)": what a move's name adds in parentheses


def match_move(text: str, legal_moves: Mapping[int, str]) -> int:
    """The legal move that typed ``text`` names: its readable name, or words of it (``5H``
    for ``lay 5♥``, ``common 2`` for ``J♦ → common pile 2 (Q♠)``, ``6-4 1`` for ``6-4 on arm 1
    (open 4)``). Cards may be typed ``5H``/``5♥``/``TD``, tiles ``6-4``/``4-6``. Words that fit
    one move outside the parentheses of the names choose it (``5-1 1`` is arm 1, not ``5-1 on
    arm 2 (open 1)``). Raises ``MoveError`` (with the legal names, and the closest names to a
    typo: "did you mean 'accept'?") when no move or several moves fit."""
    typed = _tokens(text)
    if not typed:
        raise MoveError("type a move (or its number); legal moves: " + ", ".join(legal_moves.values()))
    exact = [a for a, name in legal_moves.items() if _tokens(name) == typed]
    if len(exact) == 1:
        return exact[0]
    main = [a for a, name in legal_moves.items() if _fits(typed, _tokens(_ASIDE.sub(" ", name)))]
    if len(main) == 1:
        return main[0]
    fits = [a for a, name in legal_moves.items() if _fits(typed, _tokens(name))]
    if len(fits) == 1:
        return fits[0]
    if not fits:
        names = list(legal_moves.values())
        lowered = {name.lower(): name for name in names}
        close = difflib.get_close_matches(" ".join(text.split()).lower(), list(lowered), n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(repr(lowered[c]) for c in close)}? " if close else ""
        raise MoveError(f"{text.strip()!r} is not a legal move; {hint}legal moves: " + ", ".join(names))
    raise MoveError(f"{text.strip()!r} fits several moves: " + ", ".join(legal_moves[a] for a in (main or fits))
                    + "; say which")


class GameSession:
    """A game between humans and agents; see the module docstring."""

    def __init__(self, env_id: str, seats: Sequence[Any], options: Mapping | None = None,
                 seed: int | None = None, deal: Mapping | None = None, agent_seed: int | None = None,
                 rngs: Sequence[np.random.Generator] | None = None, auto_forced: bool = True,
                 meta: Mapping | None = None) -> None:
        if env_id not in ENV_NAMES:
            raise ValueError(f"unknown env {env_id!r}; known envs: {', '.join(ENV_NAMES)}")
        options = dict(options or {})
        bad = sorted(set(options) & set(ADAPTER_OPTIONS))  # the session sets the adapter's options itself
        if bad:
            raise ValueError(f"option(s) {bad} are set by the session itself (forced moves: auto_forced=...); "
                             "give game options only")
        self.env_id = env_id
        self.options = options
        self.env = make(env_id, raw=True, readable_infos=True, **options)
        n = len(self.env.possible_agents)
        seats = list(seats)
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seat(s) given for {n} players: give one per seat "
                             f"('human' or an agent spec)")
        self.seats: list[str] = []
        self.agents: list[Any] = []
        for s, seat in enumerate(seats):
            if seat == HUMAN:
                self.seats.append(HUMAN)
                self.agents.append(None)
            elif isinstance(seat, str):
                self.seats.append(seat)
                self.agents.append(muggins_agents.make_agent(seat, env_id, options))
            else:  # an agent object
                self.seats.append(getattr(seat, "name", type(seat).__name__))
                self.agents.append(seat)
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed={seed!r} must be an int")
        self.seed = int(seed)
        if rngs is None:
            base = self.seed if agent_seed is None else int(agent_seed)
            rngs = [np.random.default_rng([base, s, 0x5E55]) for s in range(n)]
        elif len(rngs) != n:
            raise ValueError(f"{len(rngs)} generators given for {n} seats")
        self.rngs = list(rngs)
        self.auto_forced = bool(auto_forced)
        self.env.reset(seed=self.seed, options={"deal": dict(deal)} if deal is not None else None)
        for a in self.agents:
            if a is not None and callable(getattr(a, "reset", None)):
                a.reset()
        state = self.env.kernel_state
        unit, scores = state.scoreboard()
        first_deal = state.deal()
        self.record = GameRecord(env_id=env_id, options=dict(options), seed=self.seed,
                                 deal=dict(deal) if deal is not None else None, seats=list(self.seats),
                                 score_unit=unit, deals=[{"ply": 0, "deal": first_deal}] if first_deal else [],
                                 meta=dict(meta or {}))
        self._scores = scores
        self._deal = first_deal

    # -- whose turn ------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def is_over(self) -> bool:
        return self.env.kernel_state.is_terminal()

    @property
    def to_act(self) -> int | None:
        """The seat to act, None once the game is over."""
        return None if self.is_over else int(self.env.kernel_state.current_player())

    def legal_moves(self) -> dict[int, str]:
        """The legal moves of the seat to act, by readable name in this position."""
        if self.is_over:
            return {}
        info = self.env.infos[self.env.agent_selection]
        return dict(info["legal_moves"])

    @property
    def waiting_for_human(self) -> bool:
        """A human seat is to act and has a real choice (so ``advance`` stops here)."""
        p = self.to_act
        return p is not None and self.seats[p] == HUMAN and not self._forced()

    def _forced(self) -> bool:
        return self.auto_forced and len(self.legal_moves()) == 1

    # -- views -----------------------------------------------------------------------------------
    def view(self, player: int, recent: int = 8) -> SeatView:
        """What seat ``player`` may see now."""
        self._check_seat(player)
        state = self.env.kernel_state
        unit, scores = state.scoreboard()
        to_act = self.to_act
        return SeatView(player=player, table=state.render(player), phase=state.phase_name(), to_act=to_act,
                        legal_moves=self.legal_moves() if to_act == player else {},
                        view=state.public_view(player), scores=scores, score_unit=unit,
                        recent=[self.seen(m, player) for m in self.record.moves[-recent:]] if recent else [])

    @staticmethod
    def seen(move: MoveRecord, player: int | None) -> dict:
        """A move as seat ``player`` saw it (None: the full view): a face-down card is not named."""
        return {"ply": move.ply, "player": move.player, "move": move.seen_by(player), "forced": move.forced,
                "points": list(move.points), "scores": list(move.scores)}

    def full_table(self) -> str:
        """The whole table, hidden cards included (replays and debugging, never a seat's view)."""
        return self.env.kernel_state.render()

    def returns(self) -> list[float]:
        return [float(x) for x in self.env.kernel_state.returns()]

    def hint(self, player: int) -> tuple[int, str, str]:
        """What the heuristic would play for ``player`` now, from that seat's view only:
        ``(action, readable name, why in a sentence)``."""
        if self.to_act != player:
            raise MoveError(f"no hint: it is not player {player}'s turn")
        h = getattr(self, "_hint_agent", None)
        if h is None:
            h = self._hint_agent = muggins_agents.make_heuristic(self.env_id, self.options)
        state = self.env.kernel_state
        mask = state.legal_actions_mask()
        view = state.public_view(player)
        action = int(h.act(state.observation(player), mask.copy(), np.random.default_rng(len(self.record.moves)),
                           {"view": view}))
        return action, state.action_to_string(action), h.explain(view, np.flatnonzero(mask), action)

    # -- moves -----------------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """The legal move of the seat to act that typed text names (see ``match_move``)."""
        if self.is_over:
            raise MoveError("the game is over")
        return match_move(text, self.legal_moves())

    def play(self, player: int, move: int | str) -> MoveRecord:
        """Seat ``player`` plays ``move`` (an action index or typed text), checked first."""
        self._check_seat(player)
        if self.is_over:
            raise MoveError("the game is over: no more moves")
        to_act = self.to_act
        if player != to_act:
            raise MoveError(f"it is player {to_act}'s turn, not player {player}'s")
        legal = self.legal_moves()
        if isinstance(move, str):
            action = match_move(move, legal)
        elif isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
            action = int(move)
            if action not in legal:
                raise MoveError(f"action {action} is not legal for player {player}; legal moves: "
                                + ", ".join(f"{a} ({name})" for a, name in legal.items()))
        else:
            raise MoveError(f"move {move!r} is neither an action index nor text")
        return self._apply(player, action, by=self.seats[player], forced=len(legal) == 1)

    def advance(self) -> Iterator[MoveRecord]:
        """Let the agents and forced moves play, one move per item, until a human seat has a
        real choice or the game ends (a face shows each move as it comes)."""
        while not self.is_over and not self.waiting_for_human:
            yield self.step_once()

    def step_once(self) -> MoveRecord:
        """One agent's move, or one forced move."""
        p = self.to_act
        if p is None:
            raise MoveError("the game is over: no more moves")
        legal = self.legal_moves()
        if self.auto_forced and len(legal) == 1:
            return self._apply(p, next(iter(legal)), by=self.seats[p], forced=True)
        if self.agents[p] is None:
            raise MoveError(f"player {p} is a human seat: its move comes from play()")
        seat, think = self.agent_turn()
        return self.play_agent(seat, think())

    def agent_turn(self) -> tuple[int, Callable[[], int]] | None:
        """``(seat, think)`` when the seat to act is an agent with a real choice (else None):
        ``think()`` computes its action from copies of what the agent may see, so it may run in
        another thread while the session answers views; ``play_agent`` then applies it."""
        p = self.to_act
        if p is None or self.agents[p] is None or self._forced():
            return None
        agent, state = self.agents[p], self.env.kernel_state
        mask = state.legal_actions_mask().copy()  # the env's mask for the seat to act, the agent's own
        observation, info = agent_inputs(agent, state, p, mask,
                                         lambda: [(m.player, m.seen_by(p)) for m in self.record.moves],
                                         snapshot=True)  # think() may run while the session moves on
        rng = self.rngs[p]
        return p, lambda: int(agent.act(observation, mask, rng, info))

    def play_agent(self, player: int, action: int) -> MoveRecord:
        """Apply the action an agent chose at ``agent_turn`` (a RuntimeError if it is not legal)."""
        legal = self.legal_moves()
        if self.to_act != player or action not in legal:
            raise RuntimeError(f"agent {self.seats[player]} of player {player} chose illegal action {action}")
        move = self._apply(player, action, by=self.seats[player], forced=len(legal) == 1)
        agent = self.agents[player]
        log = getattr(agent, "last_log", None)
        if log:  # what a language-model player was asked and answered: into the record
            move.llm = [dict(x) for x in log]
            agent.last_log = None
        return move

    def take_over(self, player: int, agent: Any) -> None:
        """Agent ``agent`` plays human seat ``player`` from now on (a person who stayed away)."""
        self._check_seat(player)
        if self.agents[player] is not None:
            raise MoveError(f"player {player} is not a human seat")
        self.agents[player] = agent
        self.seats[player] = getattr(agent, "name", type(agent).__name__)
        self.record.meta.setdefault("stand_ins", {})[str(player)] = {"player": self.seats[player],
                                                                     "ply": len(self.record.moves)}

    def restore(self, moves: Sequence[Mapping | MoveRecord]) -> None:
        """Play a saved game's moves again (a server restart), each checked against the position:
        the seat to act and the move's name must be the recorded ones (a ``ValueError`` if not)."""
        for m in moves:
            m = m if isinstance(m, MoveRecord) else MoveRecord(**m)
            if self.is_over or self.to_act != m.player:
                raise ValueError(f"ply {m.ply}: player {self.to_act} is to act, the saved game says {m.player}")
            legal = self.legal_moves()
            if legal.get(m.action) != m.name:
                raise ValueError(f"ply {m.ply}: action {m.action} is {legal.get(m.action)!r} here, the saved "
                                 f"game says {m.name!r}")
            self._apply(m.player, m.action, by=m.by, forced=m.forced)

    def _apply(self, player: int, action: int, by: str, forced: bool) -> MoveRecord:
        env = self.env
        state = env.kernel_state
        name = state.action_to_string(action)
        public = state.public_action_to_string(action)
        env.step(action)
        state = env.kernel_state
        rewards = [float(x) for x in state.rewards()]
        _, scores = state.scoreboard()
        points = [b - a for a, b in zip(self._scores, scores)]
        self._scores = scores
        move = MoveRecord(ply=len(self.record.moves), player=player, action=action, name=name, by=by,
                          forced=forced, rewards=rewards, points=points, scores=list(scores),
                          public=public if public != name else None)
        self.record.moves.append(move)
        deal = state.deal()
        if deal is not None and deal != self._deal:  # a new hand was dealt
            self._deal = deal
            self.record.deals.append({"ply": len(self.record.moves), "deal": deal})
            move.new_hand = True
        if state.is_terminal():
            self.record.finish(self.returns(), scores, bool(state.is_truncated()))
        return move

    def _check_seat(self, player: Any) -> None:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) \
                or not 0 <= player < self.num_players:
            raise MoveError(f"player {player!r} is not a seat; seats: 0..{self.num_players - 1}")
