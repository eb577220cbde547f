"""# Muggins dominoes and the Fives family — `muggins_dominoes_v0`

Muggins ("All Fives", "Ponta de Cinco") and its family (RULES.md §2): players add matching
tiles to the layout and score when the *count* (the sum of the layout's open ends) is a
multiple of 5 (or 3); a player who dominoes scores the pips left in the opponents' hands;
with the *muggins rule* each play's score must be announced and opponents may call
"Muggins!" on a wrong announcement. Variants switch the scoring and the layout: a line, one
spinner (`all_fives`, `sniff`) or every double a spinner (`five_up`).

| | |
|---|---|
| players | 2–4 (`num_players`, default 2; `partnerships=True` with 4: seats 0 & 2 against 1 & 3) |
| actions | `Discrete(num_tiles * num_slots + max_announcement + 4)`, e.g. 108 for the default game |
| observation | `Box(0, 1, (N,), float32)` + `action_mask` `Box(0, 1, (A,), int8)` |
| rewards | at the end the winning side +1, the others share −1; a draw or truncation 0 |
| version | v0 |

## Actions (a contract per configuration)
`num_slots` = 3 (line variants), 5 (`all_fives`, `sniff`), `2 * set_max + 5` (`five_up`);
`num_tiles` = 28, 55, 91, 136 for `set_max` 6, 9, 12, 15; `max_announcement` = M below.

| index | meaning |
|---|---|
| `tile * num_slots + slot` | play `tile` (kernel tile id: `high*(high+1)/2 + low`, `"5-3"`) at `slot` |
| `P = num_tiles * num_slots` | pass (cannot play and the boneyard is exhausted: the only action then) |
| `P + 1 + v`, v = 0..M | announce a score of `v` for one's play (0 = silence) |
| `P + 2 + M` | accept the announcement under review |
| `P + 3 + M` | call "Muggins!" on it |

Slots: **0** = the lead (the first tile of a hand; it is forced: the highest double, else the
heaviest tile, ties by the higher half). **1** and **2** = the two arms from the lead: 1 on
its high half (west), 2 on its low half (east); for a spinner lead these are its sides.
**3, 4, …** = the ends of the spinners (north, south), two per spinner in the order the
spinners were played (the first spinner of a hand gets 3 and 4, the next in `five_up` 5 and
6, …); they open when both sides of their spinner are covered. A tile may go on an open end
whose pip matches one of its halves; the mask holds exactly those plays.

M (largest score one play can make, from a count bound: the arms' largest possible ends):
double-6: `muggins` 20, `all_threes` 21, `fives_and_threes` 8, `all_fives`/`sniff` 35,
`five_up` 21; double-15: 55, 57, 24, 105, 105, 114. `Game.play_action("5-3", 2)`,
`Game.announce_action(v)`, `Game.PASS`, `.ACCEPT`, `.MUGGINS` give indices by name.

Drawing is not an action: a player who cannot play draws automatically until they draw a
playable tile (which they then must play: the mask holds only plays) or the boneyard is
down to `boneyard_reserve`, then passes. With `muggins` on, every play is followed by the
player's announcement (credited at once) and the opponents' responses, clockwise from the
player's left (only the other side with partnerships), until one calls or all accept.

## Observation (relative to the observer, all in [0, 1])
own tiles (num_tiles, multi-hot) · tiles on the layout (num_tiles) · layout empty, i.e. the
next play is the lead (1) · per arm 1..num_arms: open, open pip one-hot (set_max+1), the end
is a crosswise double counting its total pips, the end is on a spinner (a free side or a bare
end), that spinner counts pips now (set_max+5 each) · count / count bound (1) · scores /
target per relative side, own first, capped at 1 (sides) · tiles in hand / num_tiles per
relative seat (n) · tiles drawn this hand / num_tiles per relative seat (n) · boneyard size
/ num_tiles (1) · phase play/announce/respond (3) · relative seat whose turn it is (n) ·
relative seat to decide (n) · the announcement under review, one-hot 0..M (M+1).
Never an opponent's (or partner's) tiles nor the boneyard's. `infos["view"]` has the same as
a dict (own tile ids, open ends with slot, pip and kind, count, scores, tile counts, drawn,
boneyard size, the review, the last settled review with its true score, the last hand).

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
| `variant` | `"muggins"` | `muggins`, `all_threes`, `fives_and_threes` (line); `all_fives`, `sniff` (one spinner); `five_up` (every double) |
| `set_max` | 6 | 6, 9, 12, 15 |
| `hand_size` | 7 (2–3 players), 5 (4) | int ≥ 1 with `num_players * hand_size + boneyard_reserve ≤ num_tiles` |
| `boneyard_reserve` | 0 | int ≥ 0: tiles left in the boneyard that may not be drawn |
| `muggins` | `"forfeit"` | `"forfeit"` (a founded call voids the play's score), `"claim"` (the caller also scores the true score), `"off"` (scores credited automatically, no announcement) |
| `target` | 200 (2 players) / 150 (3–4); 61 in `fives_and_threes`, `five_up` | int ≥ 1 |
| `episode` | `"game"` | `"game"` (hands until a side reaches the target), `"hand"` (one hand) |
| `reward` | `"win"` | `"win"`, `"points"` |
| `max_hands` | 100 | int ≥ 1: hands before the game is truncated as a draw |
| `skip_forced`, `render_mode` | | as every env |

## Rigged deal
`reset(options={"deal": {"hands": [[tile, ...] per seat], "boneyard": [tile, ...]}})`: tiles
as ids or `"5-3"` strings, the boneyard top first (drawn in that order); every tile of the
set exactly once; hands may have any sizes ≥ 1. Only the first hand is rigged: later hands
are dealt from the episode's generator.
"""

from typing import Any, ClassVar

from .env import KernelAECEnv, wrapped
from .games.dominoes import DominoesGame


class raw_env(KernelAECEnv):
    game_cls = DominoesGame
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "muggins_dominoes_v0",
                                          "is_parallelizable": False}


env = wrapped(raw_env)
