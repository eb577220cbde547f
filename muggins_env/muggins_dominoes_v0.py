"""# Muggins dominoes and the Fives family — `muggins_dominoes_v0`

Muggins ("All Fives", "Ponta de Cinco") and its family (docs/rules/dominoes.md §2): players add matching
tiles to the layout and score when the *count* (the sum of the layout's open ends) is a
multiple of 5 (or 3); a player who dominoes scores the pips left in the opponents' hands;
with the *muggins rule* each play's score must be announced and opponents may call
"Muggins!" on a wrong announcement. Orthogonal options (docs/rules/dominoes.md §2.8) switch the scoring
(`fives`, `threes`, `fives_and_threes`, `per_five`, `primes`), the layout (a line, one spinner,
the sniff, every double a spinner), the lead, knocking and the extra play; a `variant` name is a
preset of them (table under Options).

| | |
|---|---|
| players | 2–4 (`num_players`, default 2; `partnerships=True` with 4: seats 0 & 2 against 1 & 3) |
| actions | `Discrete(num_tiles * num_slots + max_announcement + 4)` (+2 with `knocking`, +1 with `extra_play`), e.g. 108 for the default game |
| observation | `Box(0, 1, (N,), float32)` + `action_mask` `Box(0, 1, (A,), int8)` |
| rewards | at the end the winning side +1, the others share −1; a draw or truncation 0 |
| version | v0 |

## Actions (a contract per configuration)
`num_slots` = 3 (`spinners="none"`), 5 (`first`, `sniff`), `2 * set_max + 5` (`every`);
`num_tiles` = 28, 55, 91, 136 for `set_max` 6, 9, 12, 15 (6, 10 for the research sizes 2, 3);
`max_announcement` = M below. The default game has 108 actions; `five_up` on the double-15 set
4858.

| index | meaning |
|---|---|
| `tile * num_slots + slot` | play `tile` (kernel tile id: `high*(high+1)/2 + low`, `"5-3"`) at `slot` |
| `P = num_tiles * num_slots` | pass (cannot play and the boneyard is exhausted: the only action then) |
| `P + 1 + v`, v = 0..M | announce a score of `v` for one's play (0 = silence) |
| `P + 2 + M` | accept the announcement under review |
| `P + 3 + M` | call "Muggins!" on it |
| `K = P + 4 + M` | (`knocking=True` only) **knock**: one cannot play and the boneyard has a tile to draw |
| `K + 1` | (`knocking=True` only) **draw** instead (then automatic, as without knocking) |
| `S` = the next index | (`extra_play=True` only) **stop**: decline the extra play |

These last actions come after every other, so an index means the same with or without them.
`infos["legal_moves"]` (with `readable_infos=True`) names them `knock`, `draw`, `stop (no extra play)`.

Slots: **0** = the lead (the first tile of a hand; it is forced: the highest double, else the
heaviest tile, ties by the higher half). **1** and **2** = the two arms from the lead: 1 on
its high half (west), 2 on its low half (east); for a spinner lead these are its sides.
**3, 4, …** = the ends of the spinners (north, south), two per spinner in the order the
spinners were played (the first spinner of a hand gets 3 and 4, the next in `five_up` 5 and
6, …); they open when both sides of their spinner are covered. A tile may go on an open end
whose pip matches one of its halves; the mask holds exactly those plays.

M (the largest score one play can make, exactly: the best score of every count a layout can
show; `layout.reachable_counts`), per preset for double-6 / 9 / 12 / 15: `muggins` 20/30/40/50,
`all_threes` 18/30/42/54, `fives_and_threes` 8/16/16/24, `all_fives` and `sniff` 35/60/80/100,
`five_up` 15/34/60/94 (the largest counts are 75/171/304/474: `layout.EVERY_DOUBLE_MAX_COUNT`),
`fives_1863` 4/6/8/10, `primes` 17/23/31/43. `Game.play_action("5-3", 2)`,
`Game.announce_action(v)`, `Game.PASS`, `.ACCEPT`, `.MUGGINS`, `.KNOCK`, `.DRAW`, `.STOP`
(-1 when the option is off) give indices by name, and `Game.decode_play(a)` the tile and slot
of a play index (`Game` = `muggins_env.games.dominoes.DominoesGame`).

Drawing is not an action: a player who cannot play draws automatically until they draw a
playable tile (which they then must play: the mask holds only plays) or the boneyard is
down to `boneyard_reserve`, then passes. With `muggins` on, every play is followed by the
player's announcement (credited at once) and the opponents' responses, clockwise from the
player's left (only the other side with partnerships), until one calls or all accept.

**Knocking** (`knocking=True`, 3-4 players): a player who cannot play while the boneyard has a
tile to draw chooses `knock` or `draw`. A knock skips the left neighbour; the player after
(the partner, with partnerships) must then make a scoring play if they hold one (the mask
holds only those), and play goes on from them; if they hold none, play reverts to the knocker,
who draws (automatically) and plays or passes, then the skipped player plays. **Extra play**
(`extra_play=True`): after a double or a play that scores (its true score), the same player
may play one more tile that fits (not their last; no drawing for it) or `stop`; the extra tile
earns no further extra play; with the muggins rule each play is announced and reviewed first.

## Observation (relative to the observer, all in [0, 1])
own tiles (num_tiles, multi-hot) · tiles on the layout (num_tiles) · layout empty, i.e. the
next play is the lead (1) · per arm 1..num_arms: open, open pip one-hot (set_max+1), the end
is a crosswise double counting its total pips, the end is on a spinner (a free side or a bare
end), that spinner counts pips now (set_max+5 each) · count / count bound (1) · scores /
target per relative side, own first, capped at 1 (sides) · tiles in hand / num_tiles per
relative seat (n) · tiles drawn this hand / num_tiles per relative seat (n) · boneyard size
/ num_tiles (1) · phase play/announce/respond (3) · relative seat whose turn it is (n) ·
relative seat to decide (n) · the announcement under review, one-hot 0..M (M+1) · with
`knocking`: "you cannot play: knock or draw" (1, shown to that player only), the relative seat
of the knocker while a knock awaits its forced scoring play (n) · with `extra_play`: an extra
play is pending (1).
Never an opponent's (or partner's) tiles nor the boneyard's. `infos["view"]` (with
`readable_infos=True`) has the same as
a dict (own tile ids, open ends with slot, pip and kind, count, scores, tile counts, drawn,
boneyard size, the review, the last settled review with its true score, the last hand; with
the options: `knock` and `last_knock`, `extra_play`, `redeals`).

## State
`state()` (PettingZoo's centralised state, `state_space` = `Box(0, 1)` float32): every seat's
observation as above, by absolute seat (`observation_0` ... `observation_{n-1}`, n × the
observation size), then what no seat sees: `boneyard`, its tiles in order: per tile id, (L − k)/L for the
k-th tile from the top of a boneyard of L (the top 1, the bottom 1/L), 0 for a tile not in it
(`kernel.pile_order`; the number of tiles of the set). `game.state_layout` names every piece;
`full_state()` is the same state as a readable dict.

## Rewards
`reward="win"` (default): when a side reaches the target the winning side gets +1 and the
others share −1 (−1/(n−1) each; partnerships ±1). `reward="points"`: also, every step, each
player gets (own side's score change − the opponents' mean change) / target (zero-sum).
With `episode="hand"` the side with the highest score after the hand wins (a tie: 0 to all).

## Options
| option | default | allowed |
|---|---|---|
| `num_players` | 2 | 2, 3, 4 |
| `partnerships` | False | True with 4 players (shared score, partners' hands count together) |
| `variant` | `"muggins"` | a preset (table below): `muggins`, `all_threes`, `fives_and_threes`, `all_fives`, `sniff`, `five_up`, `fives_1863`, `primes` |
| `scoring` | the preset's | `fives` (the count, a multiple of 5), `threes` (of 3), `fives_and_threes` (1 per multiple of 5 plus 1 per multiple of 3), `per_five` (1 per 5), `primes` (a prime count scores itself) |
| `spinners` | the preset's | `none` (a line), `first` (the first double a spinner), `sniff`, `every` (every double a spinner) |
| `lead` | `"heaviest"` | `heaviest` (the highest double, else the heaviest tile), `double` (the highest double; nobody holds one: the hand is dealt again from the episode's generator) |
| `knocking` | False | True with 3-4 players (2 players: an error) |
| `extra_play` | False | True |
| `win_bonus` | `"pips"` (1 in `fives_1863`) | `"pips"` (§2.5; in `primes` scoring the opponents' heaviest tile rounded to the nearest prime), or an int ≥ 0: the points the side that dominoes, or has the lowest total in a blocked hand, scores |
| `set_max` | 6 | 6, 9, 12, 15; 2, 3 (research sizes, for the OpenSpiel bridge; line layouts, `spinners="none"`, only) |
| `hand_size` | 7 (2–3 players), 5 (4) | int ≥ 1 with `num_players * hand_size + boneyard_reserve ≤ num_tiles` |
| `boneyard_reserve` | 0 | int ≥ 0: tiles left in the boneyard that may not be drawn |
| `muggins` | `"forfeit"` (`"off"` in `fives_1863`) | `"forfeit"` (a founded call voids the play's score), `"claim"` (the caller also scores the true score), `"off"` (scores credited automatically, no announcement) |
| `target` | the preset's: 200 (2 players) / 150 (3–4); 61 in `fives_and_threes`, `five_up`; 31 in `fives_1863` | int ≥ 1 |
| `episode` | `"game"` | `"game"` (hands until a side reaches the target), `"hand"` (one hand) |
| `reward` | `"win"` | `"win"`, `"points"` |
| `max_hands` | 100 | int ≥ 1: hands before the game is truncated as a draw |
| `skip_forced`, `render_mode` | | as every env |

Presets (an option given explicitly overrides its preset's value: `variant="fives_and_threes",
spinners="first"` is fives and threes with a spinner; every combination is a game, except
`knocking=True` with 2 players, a `ValueError`):

| `variant` | `scoring` | `spinners` | other defaults |
|---|---|---|---|
| `muggins` | `fives` | `none` | |
| `all_threes` | `threes` | `none` | end bonus rounded to 3s |
| `fives_and_threes` | `fives_and_threes` | `none` | target 61 |
| `all_fives` | `fives` | `first` | |
| `sniff` | `fives` | `sniff` | |
| `five_up` | `per_five` | `every` | target 61 |
| `fives_1863` | `per_five` | `none` | target 31, `muggins="off"`, `win_bonus=1` |
| `primes` | `primes` | `none` | |

The rest of the family in a sentence each (docs/rules/dominoes.md §2.8): **fives and threes
with a spinner** scores the `fives_and_threes` table on a one-spinner layout; **the 1863 All
Fives** scores one point per five, plays to 31 without the muggins rule, and the hand's winner
scores `win_bonus` points instead of pips; **Primes** scores a prime count and ends a hand with
the opponents' heaviest tile rounded to the nearest prime; **the double lead** makes the highest
double lead and deals again when nobody holds one; **knocking** lets a player who cannot play
skip the next player and force the one after to make a scoring play (or, lacking one, send play
back to the knocker, who draws); **the extra play** lets a player who laid a double or scored
lay one more tile (not their last) or stop.

## Rigged deal
`reset(options={"deal": {"hands": [[tile, ...] per seat], "boneyard": [tile, ...]}})`: tiles
as ids or `"5-3"` strings, the boneyard top first (drawn in that order); every tile of the
set exactly once; hands may have any sizes ≥ 1. Only the first hand is rigged: later hands
are dealt from the episode's generator (with `lead="double"`, so is a rigged hand nobody
holds a double in).
"""

from typing import Any, ClassVar

from .env import KernelAECEnv, wrapped
from .games.dominoes import DominoesGame


class raw_env(KernelAECEnv):
    game_cls = DominoesGame
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "muggins_dominoes_v0",
                                          "is_parallelizable": False}


env = wrapped(raw_env)
