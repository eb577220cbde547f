"""# Michigan (stops game) — `michigan_v0`

The household stops game with a printed payment layout and a widow (docs/rules/michigan.md §3), of the
Boodle / Newmarket family. All 52 cards are dealt one at a time clockwise from the dealer's
left to the players and to a hidden extra hand, the *widow*, which takes the last card of
each round. Ranks rise 2..10 J Q K A. A lead is the leader's lowest card of a suit; then the
holder of the next higher card of that suit must play it, whoever they are, and so on,
until an ace or a card nobody holds (in the widow or already played) stops the sequence:
the player of the stopping card leads again, a different suit if they hold one. Before each
hand every player puts 1 chip on each boodle card (A♥ K♣ Q♦ J♠) and 2 on the Kitty; playing
a boodle card from a hand collects its chips; the first player out takes the Kitty and 1 chip
per card left in each opponent's hand. The deal passes left; after `num_hands` hands what is
left on the layout is split equally.

| | |
|---|---|
| players | 3–8 (`num_players`, default 4) |
| actions | `Discrete(52)`: card ids |
| observation | `Box(0, 1, (N,), float32)` + `action_mask` `Box(0, 1, (52,), int8)`; N = 134 + 56n |
| rewards | `"chips"`: each step's chip change (sums to the final balance); `"win"`: at the end +1 shared by the top balances, −1 shared by the rest |
| version | v0 |

## Actions
| index | meaning |
|---|---|
| 0–51 | play the card with this id (`suit*13 + rank-1`, suits ♣♦♥♠, A=1 … K=13; 0 = A♣, 51 = K♠) |

On a lead the legal actions are the lowest card of each suit the leader holds — after a
stop, only suits other than the stopped one unless the leader holds nothing else (then the
lowest card of the stopped suit). When following, the single card needed (a forced
decision: `skip_forced=True` applies these automatically).

## Observation (seats relative to the observer: 0 = self, 1 = left neighbour, ...)
own hand by card id (52) · per card id, one-hot relative seat that played it this hand
(52·n) · cards a stop has shown to be in the widow (52) · the sequence being followed: suit
(4) and Michigan rank 2..A of the card needed next (13) · the stopped suit the leader must
avoid (4) · phase lead/follow (2) · seat to act (n) · dealer (n) · layout A♥ K♣ Q♦ J♠ Kitty
as x/(x+50) (5) · balances as 0.5 + 0.5·x/(|x|+50) (n) · cards held per seat, then the
widow, /13 (n+1) · hands finished / `num_hands` (1). Never another hand or the widow's
cards. `infos[agent]["view"]` (with `readable_infos=True`) holds the same as readable data
(own hand, played cards with seats, sequence, stopped suit, layout, balances, counts, dealer,
whether leading).

## State
`state()` (PettingZoo's centralised state, `state_space` = `Box(0, 1)` float32): every seat's
observation as above, by absolute seat (`observation_0` ... `observation_{n-1}`, n × the
observation size), then what no seat sees: `widow`, the widow's cards (52; every hand is in its seat's
observation). `game.state_layout` names every piece; `full_state()` is the same state as a
readable dict.

## Options
| option | default | allowed |
|---|---|---|
| `num_players` | 4 | 3–8 |
| `num_hands` | `num_players` (one rotation of the deal) | int ≥ 1 |
| `reward` | `"chips"` | `"chips"`, `"win"` |
| `skip_forced` | False | apply single-action decisions automatically |
| `render_mode` | None | "ansi", "human" |

## Rigged deal
`reset(options={"deal": {"dealer": 3, "hands": [[card, ...] per seat], "widow": [card, ...]}})`,
cards as ids or strings (`"10♦"`, `"TD"`), all 52 exactly once, sizes as the deal gives them:
one card at a time from the dealer's left, the widow last in each round (4 players: the
dealer's left and the next seat 11, the others 10, the widow 10); a wrong size raises
`ValueError` stating the expected sizes. It fixes the first hand;
later hands are shuffled from the episode's generator.

## Rules decisions (docs/rules/michigan.md §3 leaves open)
- The first hand's contributions are made at reset and paid out in the first step's rewards.
- A step that ends a hand carries the going-out payments and the next hand's contributions
  (or, on the last hand, the equal split of the layout).
- `"win"` ties: equal top balances share +1; if all balances are equal every reward is 0.
"""

from typing import Any, ClassVar

from .env import KernelAECEnv, wrapped
from .games.michigan import MichiganGame


class raw_env(KernelAECEnv):
    game_cls = MichiganGame
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "michigan_v0",
                                          "is_parallelizable": False}


env = wrapped(raw_env)
