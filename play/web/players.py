"""The players a ``muggins-serve`` operator offers: the only agents its tables may seat.

A table's creator picks each agent seat by *name* from this set, never by spec: a spec such as
``ppo:/path/model.zip`` would make the server read (and unpickle) a file named by a web page.
The set is fixed when the server starts: ``random``, ``heuristic``, ``search:N`` for N up to a
cap, every model of the zoo (``zoo:<name>``), the strongest player of each zoo configuration
(``best:<name>``, a search guided by its network, when its budget is within the cap), and whatever the operator adds with
``--agent NAME=SPEC`` (the spec is checked then, and only the name is ever shown to a seat or
written into a game record).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from muggins_env.agents.zoo import best_players, list_models, model_card, trained_options
from muggins_env.play.web.limits import short

from muggins_env import agents as muggins_agents

DEFAULT_MAX_SEARCH = 400
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,39}")
SEARCH_RE = re.compile(r"search:([1-9][0-9]{0,6})")


@dataclass(frozen=True)
class Player:
    name: str  # what a table's creator picks and every seat sees
    spec: str  # the agent spec behind it (never sent to a client)
    doc: str
    games: tuple[str, ...] | None = None  # the games it plays (None: every game)
    options: Mapping[str, Any] | None = None  # the only options it plays (a zoo card's; None: any)

    @property
    def inline(self) -> bool:
        """A player that moves in well under a millisecond (``random``, ``heuristic``, a zoo network):
        it plays on the server's own thread, where a trip to a thinker thread would cost more than
        its move (and, under the GIL, slow every request); anything else thinks on a thinker thread."""
        return self.spec.split(":", 1)[0] in ("random", "heuristic", "zoo")


class Roster:
    """The operator's set of players; see the module docstring."""

    def __init__(self, extra: Mapping[str, str] | None = None, max_search: int = DEFAULT_MAX_SEARCH,
                 zoo: bool = True) -> None:
        if isinstance(max_search, bool) or not isinstance(max_search, int) or max_search < 0:
            raise ValueError(f"max_search={max_search!r} must be an int >= 0 (0: no search players)")
        self.max_search = max_search
        self.players: dict[str, Player] = {}
        self._add(Player("random", "random", "uniform over the legal moves"))
        self._add(Player("heuristic", "heuristic", "the game's documented strategy"))
        for n in (100, 400):
            if n <= max_search:
                self._add(Player(f"search:{n}", f"search:{n}", f"Monte-Carlo search, {n} rollouts a decision"))
        if zoo:
            self._add_zoo()
        for name, spec in (extra or {}).items():
            self.add(name, spec)

    def _add(self, player: Player) -> None:
        self.players[player.name] = player

    def _add_zoo(self) -> None:
        plays = {}  # zoo model -> the options it plays, which its best: player plays too
        for model in list_models():
            game_id = model.split("/")[0]
            plays[model] = trained_options(game_id, model_card(model))
            self._add(Player(f"zoo:{model}", f"zoo:{model}", f"a trained network{_options_text(game_id, plays[model])}",
                             (game_id,), plays[model]))
        for model, record in best_players().items():
            budget = muggins_agents.parse_spec(record["spec"])[2]["budget"]
            if budget <= self.max_search and model in plays:
                self._add(Player(f"best:{model}", f"best:{model}",
                                 f"the strongest player for zoo:{model}'s game: search:{budget} guided by that network",
                                 (model.split("/")[0],), plays[model]))

    def add(self, name: str, spec: str) -> None:
        """An operator's player (``--agent NAME=SPEC``); the spec must name a known agent kind."""
        if not isinstance(name, str) or not NAME_RE.fullmatch(name) or name == "human":
            raise ValueError(f"player name {name!r} must be 1-40 letters, digits or _.:/+- (not 'human')")
        muggins_agents.parse_spec(spec)  # a clear error now rather than at the first table
        self._add(Player(name, spec, f"the operator's {spec.split(':', 1)[0]} player"))

    def names(self) -> list[str]:
        return list(self.players)

    def resolve(self, name: Any) -> Player:
        """The player called ``name``; ``search:N`` within the cap is always offered."""
        if isinstance(name, str) and name in self.players:
            return self.players[name]
        m = SEARCH_RE.fullmatch(name) if isinstance(name, str) else None
        if m and int(m.group(1)) <= self.max_search:
            return Player(name, name, f"Monte-Carlo search, {m.group(1)} rollouts a decision")
        search = f", search:N for N <= {self.max_search}" if self.max_search else ""
        raise ValueError(f"{short(name)} is not one of this server's players; players: "
                         f"{', '.join(self.players)}{search}")

    def make(self, name: str, game: str, options: Mapping | None = None) -> Any:
        """A fresh agent of player ``name`` for one table (errors name the player, never its spec)."""
        player = self.resolve(name)
        if player.games is not None and game not in player.games:
            raise ValueError(f"player {name!r} plays {', '.join(player.games)}, not {game}")
        try:
            agent = muggins_agents.make_agent(player.spec, game, dict(options or {}))
        except (ValueError, FileNotFoundError, OSError, ImportError) as e:
            if player.spec.startswith(("zoo:", "best:", "search:")) or player.spec in ("random", "heuristic"):
                raise ValueError(str(e)) from None  # the package's own players: their message is safe
            raise ValueError(f"player {name!r} cannot play {game} with these options") from None
        agent.name = player.name
        return agent

    def catalog(self, games: Iterable[str]) -> list[dict]:
        """The players for the create form: name, a line on each, the games each plays and, for a
        zoo network or a best: player, the only options it plays (the form offers it for those)."""
        games = list(games)
        return [{"name": p.name, "doc": p.doc, "games": list(p.games) if p.games else games}
                | ({"options": dict(p.options)} if p.options is not None else {})
                for p in self.players.values()]


def _options_text(game_id: str, options: Mapping[str, Any]) -> str:
    """" for 2 players, muggins off": the player count and every option off the game's default."""
    declared = muggins_agents.make_game(game_id).OPTIONS
    n = options.get("num_players")
    words = [f"{k.replace('_', ' ')} {'on' if v is True else 'off' if v is False else v}" for k, v in options.items()
             if k != "num_players" and k in declared and not callable(declared[k].default) and v != declared[k].default]
    return (f" for {n} players" if n else "") + "".join(f", {w}" for w in words)
