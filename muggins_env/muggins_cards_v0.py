"""# Muggins (card game) — `muggins_cards_v0`

The Victorian family game of neighbouring ranks (docs/rules/muggins_cards.md §1). Each player turns up the top
card of a face-down personal stock and must place it: on a common pile it fits (ranks
differing by exactly 1, no wrap; the player chooses among several), else on the first
opponent discard clockwise whose top it fits, else on their own discard. The first player
to place their last card correctly wins. With `mistakes=True` any physical placement is
allowed and the others may call "Muggins!": a founded call moves the card and each other
player gives the offender the top card of their stock.

| | |
|---|---|
| players | 3–7 (`num_players`, default 4) |
| actions | `Discrete(13)` |
| observation | `Box(0, 1, (N,), float32)` + `action_mask` `Box(0, 1, (13,), int8)` |
| rewards | winner +1, others −1/(n−1); a truncated hand 0 to all |
| version | v0 |

## Actions
| index | meaning |
|---|---|
| 0–3 | put the card in play on common pile *i* (order of the deal's `commons`) |
| 4–9 | put it on the discard of the opponent at relative seat 1–6 (4 = left neighbour) |
| 10 | put it on one's own discard |
| 11 | pass (an observer lets the placement stand; `mistakes=True` only) |
| 12 | call "Muggins!" on the placement under review (`mistakes=True` only) |

With `mistakes=False` the mask holds only the correct destinations, so most turns are
forced (one legal action); `skip_forced=True` hides those and agents see only the choice
between fitting common piles.

## Observation (relative to the observer's seat, all in [0, 1])
card in play rank (13) · 4 common piles × (present, top rank 13) · per relative seat
(self first): discard top rank (13), stock size/52, discard size/52 · seat to act (n) ·
phase place/call/rechoose (3) · seat whose card is in play (n) · destination under review
as a relative action index (11) · count of each rank face up on any pile /4 (13) ·
turns/max_turns · per relative seat (self first): rank of the card it exposes next, when
everyone knows it (13). During a review the card is not on its pile yet: it lands only when
the review settles, so every piece (pile tops, stock and discard sizes, the ranks face up,
the next cards; `full_state()` too) shows the table as before the placement, and the card
shows as the card in play with its destination under review. A stock's order is never shown, the owner's included, except what the
table has watched: a recycled discard comes back in the order it was built face up, so its
cards are known from the top down to the first card nobody has seen (a penalty card given
from an unknown stock top). The readable view holds the same as `next_cards` (card ids, -1
unknown).

## State
`state()` (PettingZoo's centralised state, `state_space` = `Box(0, 1)` float32): every seat's
observation as above, by absolute seat (`observation_0` ... `observation_{n-1}`, n × the
observation size), then what no seat sees: per absolute seat, `stock_<seat>`, its face-down stock in order:
per card id, (L − k)/L for the k-th card from the top of a stock of L (the top 1, the bottom
1/L), 0 for a card not in it (52 each; `kernel.pile_order`). `game.state_layout` names every
piece; `full_state()` is the same state as a readable dict.

## Options
| option | default | allowed |
|---|---|---|
| `num_players` | 4 | 3–7 |
| `mistakes` | False | True: every physical placement is offered and a call phase follows each: the observers, clockwise from the placer's left, choose pass or "Muggins!"; False: only correct placements are offered and there is no call phase |
| `max_turns` | 1000 | int ≥ 1: the hand is then truncated as a draw |
| `skip_forced` | False | apply single-action decisions automatically |
| `render_mode` | None | "ansi", "human" |

## Rigged deal
`reset(options={"deal": {"dealer": 3, "stocks": [[top, ...], ...], "discards": [[bottom, ...],
...], "commons": ["5♣", ["9♦", "K♥"], ...]}})`: stocks top card first, discards bottom
first (optional), 1–4 common piles each a card or a list bottom first; cards as ids or
strings; all 52 cards exactly once.
"""

from typing import Any, ClassVar

from .env import KernelAECEnv, wrapped
from .games.muggins_cards import MugginsCardsGame


class raw_env(KernelAECEnv):
    game_cls = MugginsCardsGame
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "muggins_cards_v0",
                                          "is_parallelizable": False}


env = wrapped(raw_env)
