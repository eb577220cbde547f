"""Heuristic for Muggins dominoes and its family (``muggins_dominoes_v0``), every variant.

The layout is rebuilt from the public history in the view (``plays``: every tile laid this
hand with its slot) with the game's own layout rules, so the score of every legal play is
exact in every variant (line, spinner, sniff, every double a spinner).
- Play: take the largest immediate score; when no play scores (or among equal scores), play
  the heaviest tile (shed pips: they count for the opponents when a hand ends), keeping
  variety of suits (then prefer the play after which the hand still holds the most
  different pips, so as not to be forced to draw later).
- Announce: the true score of one's play (never lose points to a call).
- Respond: call "Muggins!" on every wrong announcement (the true score is computed from the
  layout, which is public), accept a right one.
- Knock or draw (``knocking=True``): knock when the player it forces is one's partner (an
  opponent loses a turn and the partner scores or nothing happens); without partners, knock
  (the left opponent loses a turn) unless the opponent it forces to score could reach the
  target with one play, or leads the score of the two.
- Extra play or stop (``extra_play=True``): make the best extra play (by the play rule) when it
  scores, or when the hand still holds a tile that fits the layout after it (shedding pips
  without being left to draw next turn); otherwise stop.
"""

from __future__ import annotations

import numpy as np
from muggins_env.agents.base import HeuristicBase
from muggins_env.agents.position_values import dominoes_table

from muggins_env.games.dominoes.layout import Layout
from muggins_env.games.dominoes.rules import TILE_BITS
from muggins_env.kernel.tiles import HALVES, WEIGHT, num_tiles


class DominoesHeuristic(HeuristicBase):
    __doc__ = __doc__

    def __init__(self, game) -> None:
        super().__init__(game)
        self._cache_plays: list[tuple] = []
        self._cache_layout: Layout | None = None

    def layout_of(self, view: dict) -> Layout:
        """The current layout, replayed from the view's public ``plays`` (incrementally when
        the plays extend the ones last replayed: search rollouts branch, so check the prefix)."""
        g = self.game
        plays = [tuple(p) for p in view["plays"]]
        done = len(self._cache_plays) if self._cache_layout is not None else -1
        if done < 0 or done > len(plays) or plays[:done] != self._cache_plays:
            self._cache_layout = Layout(g.variant.layout, g.variant.sniff, g.num_arms)
            done = 0
        lay = self._cache_layout
        for _, tile, slot in plays[done:]:
            if slot == 0:
                lay.place_lead(tile)
            else:
                lay.place(tile, slot)
        self._cache_plays = plays
        return lay

    def _play_keys(self, view: dict, legal, lay: Layout | None = None) -> list[tuple]:
        g = self.game
        lay = self.layout_of(view) if lay is None else lay
        hand = view["hand"]
        out = []
        for a in legal:
            a = int(a)
            if a >= g.PASS:
                out.append(((-1, -1, -1), a))
                continue
            tile, slot = g.decode_play(a)
            if slot == 0:
                score = g.score_table[min(WEIGHT[tile], g.max_count)] if lay.lead < 0 else 0
            else:
                c = lay.copy()
                c.place(tile, slot)
                score = g.score_table[c.count]
            pips = set()
            for t in hand:
                if t != tile:
                    pips.update(HALVES[t])
            out.append(((score, WEIGHT[tile], len(pips)), a))
        return out

    def reply_risks(self, view: dict, legal, lay: Layout | None = None) -> dict[int, float]:
        """For each play in ``legal``: the expected points of the next seat's best answer to it, its
        hand taken as a uniform draw of its ``tile_counts`` tiles from the tiles this seat has not
        seen (neither in its hand nor played). What a play leaves open is what the heuristic's
        ranking misses (``heuristic:value=net`` subtracts it; the ``extended`` features give it to a
        network; their strength: docs/results.md)."""
        g = self.game
        lay = self.layout_of(view) if lay is None else lay
        seen = set(view["hand"]) | set(view["played"])
        unseen = [t for t in range(num_tiles(g.set_max)) if t not in seen]
        seats = len(view["tile_counts"])
        held = min(int(view["tile_counts"][(view["seat"] + 1) % seats]), len(unseen))
        out = {}
        for a in legal:
            a = int(a)
            if a >= g.PASS:
                continue
            tile, slot = g.decode_play(a)
            c = lay.copy()
            if slot == 0:
                c.place_lead(tile)
            else:
                c.place(tile, slot)
            out[a] = expected_best(self._answers(c, unseen), held)  # the tile played is in the hand, not unseen
        return out

    def _answers(self, lay: Layout, tiles: list[int]) -> list[int]:
        """The best score each of ``tiles`` makes on ``lay`` (0 where it does not fit or score)."""
        table, bits, pip = self.game.score_table, lay.open_bits, lay.pip
        out = []
        for t in tiles:
            best = 0
            if TILE_BITS[t] & bits:
                hi, lo = HALVES[t]
                for k in lay.open_arms:
                    if pip[k] == hi or pip[k] == lo:
                        c = lay.copy()
                        c.place(t, k)
                        best = max(best, table[c.count])
            out.append(best)
        return out

    def knocks(self, view: dict) -> bool:
        """Knock (rather than draw) when one cannot play (see the module docstring)."""
        g = self.game
        me, n = view["seat"], len(view["tile_counts"])
        teams, scores = view["teams"], view["scores"]
        forced, skipped = teams[(me + 2) % n], teams[(me + 1) % n]
        if forced == teams[me]:
            return True
        return scores[forced] + g.max_announcement < g.target and scores[forced] <= scores[skipped]

    def extra_or_stop(self, view: dict, legal, lay: Layout | None = None) -> int:
        """The extra play worth making, else STOP (see the module docstring)."""
        g = self.game
        plays = [a for a in legal if a != g.STOP]
        (score, _, _), best = max(self._play_keys(view, plays, lay))
        if score > 0:
            return best
        tile, slot = g.decode_play(best)
        c = (self.layout_of(view) if lay is None else lay).copy()
        c.place(tile, slot)
        rest = [t for t in view["hand"] if t != tile]
        return best if any(TILE_BITS[t] & c.open_bits for t in rest) else g.STOP

    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        g = self.game
        first = int(legal[0])
        if g.ANNOUNCE <= first <= g.ANNOUNCE + g.max_announcement:  # announce the true score
            true = g.score_table[view["count"]]
            return g.ANNOUNCE + true
        if first in (g.ACCEPT, g.MUGGINS):
            true = g.score_table[view["count"]]
            return g.MUGGINS if view["review"]["announced"] != true else g.ACCEPT
        if first == g.KNOCK:
            return g.KNOCK if self.knocks(view) else g.DRAW
        if int(legal[-1]) == g.STOP:
            return self.extra_or_stop(view, legal)
        return max(self._choice_keys(view, legal))[1]

    def _choice_keys(self, view: dict, legal) -> list[tuple]:
        """The keys a play is chosen and ranked by (the largest first)."""
        return self._play_keys(view, legal)

    def act_on_state(self, state, rng: np.random.Generator) -> int:
        """``choose`` on ``state.public_view(player)`` for search rollouts, from the state's
        fields that view copies (its layout is the public one the view's plays rebuild, the
        seat's hand, the scores, the tile counts, the announcement under review): the same
        move without building the view or replaying the layout."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        legal.sort()  # the mask's order
        g = self.game
        first = legal[0]
        if g.ANNOUNCE <= first <= g.ANNOUNCE + g.max_announcement:
            return g.ANNOUNCE + g.score_table[state.layout.count]
        if first in (g.ACCEPT, g.MUGGINS):
            true = g.score_table[state.layout.count]
            return g.MUGGINS if state.review[1] != true else g.ACCEPT
        p = state.current_player()
        if first == g.KNOCK:
            view = {"seat": p, "tile_counts": [len(h) for h in state.hands], "teams": g.teams,
                    "scores": state.scores}
            return g.KNOCK if self.knocks(view) else g.DRAW
        view = {"hand": state.hands[p]}
        if legal[-1] == g.STOP:
            return self.extra_or_stop(view, legal, state.layout)
        return max(self._play_keys(view, legal, state.layout))[1]

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        g = self.game
        if len(legal) == 1:
            return "it is the only legal move"
        if g.ANNOUNCE <= action <= g.ANNOUNCE + g.max_announcement:
            return f"the count {view['count']} scores {action - g.ANNOUNCE}: announce it exactly"
        if action in (g.ACCEPT, g.MUGGINS):
            true = g.score_table[view["count"]]
            said = view["review"]["announced"]
            return (f"{said} is the true score" if action == g.ACCEPT
                    else f"{said} is not the true score {true}: call muggins")
        (score, weight, pips), _ = max(self._play_keys(view, legal))
        return (f"it scores {score} now (the most on offer), sheds {weight} pips and keeps {pips} "
                "different numbers in hand to follow with")

    def candidates(self, view: dict, legal: np.ndarray, k: int) -> list[int]:
        g = self.game
        if int(legal[0]) == g.KNOCK:  # knock or draw: let the search compare both
            return [int(a) for a in legal]
        if int(legal[0]) >= g.PASS:
            return [self.choose(view, legal, None)]
        if int(legal[-1]) == g.STOP:  # the extra play: the best plays and stopping
            plays = [a for a in legal if a != g.STOP]
            return [a for _, a in sorted(self._play_keys(view, plays), reverse=True)[:max(1, k - 1)]] + [g.STOP]
        return [a for _, a in sorted(self._choice_keys(view, legal), reverse=True)[:k]]


class NetDominoesHeuristic(DominoesHeuristic):
    """``heuristic:value=net``: the heuristic that ranks its plays by their points less the next
    seat's expected best answer (``reply_risks``: what the play leaves open), then as the
    heuristic does (heaviest tile, variety of suits); announcements, calls, knocks and extra plays
    are the heuristic's. It reads the whole view at every decision (the hand, the tiles played,
    the seats' tile counts), so its rollouts go through ``public_view``."""

    name = "heuristic:value=net"

    def _choice_keys(self, view: dict, legal) -> list[tuple]:
        lay = self.layout_of(view)
        risks = self.reply_risks(view, legal, lay)
        return [((score - risks.get(a, 0.0), weight, pips), a)
                for (score, weight, pips), a in self._play_keys(view, legal, lay)]

    act_on_state = HeuristicBase.act_on_state  # the view's tiles played and counts, not the bare hand

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        g = self.game
        if len(legal) == 1 or not action < g.PASS or int(legal[-1]) == g.STOP:
            return super().explain(view, legal, action)
        score = self._play_keys(view, [action])[0][0][0]
        risk = self.reply_risks(view, [action]).get(action, 0.0)
        return (f"it scores {score} now and leaves the next player an expected best answer of {risk:.1f}: "
                "the most points net of the answer")


def expected_best(values: list[int], held: int) -> float:
    """The expected largest of ``held`` values drawn without replacement from ``values`` (0 for none):
    the i-th largest is the maximum when the i larger ones are not drawn and it is."""
    n = len(values)
    if held <= 0 or n == 0:
        return 0.0
    held = min(held, n)
    out, p_none = 0.0, 1.0  # p_none: the chance that none of the larger ones is drawn
    for i, v in enumerate(sorted(values, reverse=True)):
        if v <= 0:
            break
        p_this = held / (n - i)  # drawn, given that none of the i larger ones is
        out += v * p_none * p_this
        p_none *= 1 - p_this
        if p_none <= 0:
            break
    return out


class DominoesEvaluator:
    """Search rollouts to the end of the current hand; value = the change of (own side's score
    - the other sides' mean score) / target, plus the return when the game ends."""

    horizon = None

    def __init__(self, game) -> None:
        self.target = float(game.target)

    @staticmethod
    def _margin(view: dict, player: int) -> float:
        sc, teams = view["scores"], view["teams"]
        mine = sc[teams[player]]
        return mine - (sum(sc) - mine) / (len(sc) - 1)

    def start(self, state, player):
        # the view's "hand_number", "scores" and "teams", read from the state (public fields)
        return state.hand_no, self._margin({"scores": state.scores, "teams": state.game.teams}, player)

    def stop(self, state, player, marker) -> bool:
        return state.hand_no != marker[0]

    def value(self, state, player, marker) -> float:
        v = (self._margin({"scores": state.scores, "teams": state.game.teams}, player) - marker[1]) / self.target
        if state.is_terminal():
            v += float(state.returns()[player])
        return v


class DominoesTableEvaluator(DominoesEvaluator):
    """``search:N,value=table``: rollouts to the end of the current hand, as the default
    evaluator's, valued by the position reached: the player's side's chance to win from the
    next hand's start (``position_values.dominoes_table``), as a return (2 * chance - 1), or the
    return if the game ended. The tables are those of the default game with two sides (2
    players to 200, 4 in partnerships to 150): any other option is refused."""

    setting = "value=table"
    #: options that do not change a hand's play or the race (how rewards are paid, the hand limit)
    FREE = ("reward", "max_hands")

    def __init__(self, game) -> None:
        super().__init__(game)
        n, partners = game.num_players, game.partnerships
        default = type(game)(num_players=n, partnerships=partners)
        differ = sorted(k for k in game.options if k not in self.FREE and game.options[k] != default.options[k])
        if game.num_sides != 2 or differ:
            what = (f"{n} players{' in partnerships' if partners else ''}" if game.num_sides != 2 else
                    "options " + ", ".join(f"{k}={game.options[k]!r}" for k in differ))
            raise ValueError(f"search value=table: no dominoes position values for {what}; tables exist for "
                             "the default game with 2 players and 4 in partnerships (variant, target and the "
                             "other options at their defaults)")
        self.table = dominoes_table(n)
        self.teams = list(game.teams)

    def value(self, state, player, marker) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        own = self.teams[player]
        sc = state.scores
        return 2.0 * float(self.table[sc[own], sc[1 - own]]) - 1.0
