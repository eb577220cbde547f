"""# Cribbage with muggins counting — `cribbage_v0`

Standard cribbage (docs/rules/cribbage.md §4.1) in which players count their own hands and crib aloud and
the opponents may claim missed points ("muggins N") or denounce an overcount (§4.2). The
play (pegging) is scored automatically. The episode is a whole game to `target`.

| | |
|---|---|
| players | 2, 3, or 4 in two partnerships (partners opposite) |
| actions | `Discrete(114)` |
| observation | `Box(0, 1, (N,), float32)` + `action_mask` `Box(0, 1, (114,), int8)` |
| rewards | winning side +1, the others share −1 (`reward="points"` adds per-step point differences / target); `lowball`: the side that reaches the target −1, the others share +1 |
| version | v0 |

## Actions
| index | meaning |
|---|---|
| 0–51 | a card id: lay it away to the crib (discard phase, one card per action), or lay it in the play |
| 52 | "go" (legal only when no card can be laid without passing 31) |
| 53–82 | announce a count of 0–29 (53 + count) |
| 83 | accept the count under review |
| 84 | "overcount!" |
| 85–113 | "muggins N", N = 1–29 missed points (84 + N) |

Phases: `discard` (seats from the dealer's left lay away 2 cards — 1 with 3–4 players — one
per action; then the starter is cut and a jack pegs 2 for the dealer), `play`, `announce` (muggins mode: the counter announces), `respond` (opponents
in turn from the counter's left, only the other side in partnerships), `over`. With
`muggins=False` counts are automatic and the show has no decisions. Readable moves in
`infos[agent]["legal_moves"]` (with `readable_infos=True`): `"lay away 5♥"`, `"lay 5♥"`, `"go"`, `"announce 12"`, `"accept"`,
`"overcount"`, `"muggins 4"`.

## Observation (seats and sides relative to the observer, all in [0, 1])
own hand (52) · own crib discards (52) · starter once cut (52) · cards laid in this deal's
play per relative seat (n × 52) · cards in the current series (52) · count/31 · seats that
said go (n) · scores/target per relative side · dealer (n) · seat to act (n) · phase (5:
discard, play, announce, respond, over) · cards under count, face up (52) · counter (n) ·
counting the crib · announcement/29 · responders who accepted so far/n · for each settled
count of this deal (a slot per relative seat, then the crib): true total/29 (n+1),
announcement/29 (n+1), breakdown fifteens/16, pairs/12, runs/12, flush/5, nobs/1
((n+1) × 5) · the crib, face up from its count on (52) · the same settled pieces and crib
for the previous deal (its last counts settle as the next deal begins). Sizes: 2 players
529, 3 players 600, 4 players 669 (`game.observation_layout` names every piece,
`observation_offsets` where it starts). Never an opponent's unplayed cards, the crib before it is turned, the pack or the next deals.
`infos[agent]["view"]` (with `readable_infos=True`) has the same as readable data, with each
settled count's breakdown and outcome (this deal's and the previous deal's).

## State
`state()` (PettingZoo's centralised state, `state_space` = `Box(0, 1)` float32): every seat's
observation as above, by absolute seat (`observation_0` ... `observation_{n-1}`, n × the
observation size), then what no seat sees: `crib`, the cards in the crib, laid away or (3 players) from the
pack, turned up or not (52) · `starter`, the starter card, cut or not (52). Sizes: 2 players
1,162, 3 players 1,904, 4 players 2,780 (`game.state_layout` names every piece).
`full_state()` is the same state as a readable dict.

## Lowball ("A perder", docs/rules/cribbage.md §4.2c)
`lowball=True`: the deal, play, show and scores are standard cribbage, counted automatically
(no announce or respond phase), and the side that first reaches the target **loses**; the
game ends at that moment. Rewards: that side −1, every other side +1/(sides − 1) (2 players
±1; 3 players −1 and +0.5, +0.5; partnerships by side). With `reward="points"` the per-step
term is reversed: (the opponents' mean change − own change) / target. Lowball is never
played with muggins (the seed: "si se eligen los dos, se juega A perder sin Muggins"), so
`lowball=True, muggins=True` is not an error: it plays lowball without muggins.
`game.options` keeps what was asked, `game.effective_options` what is played
(`muggins=False`), and `render()` names the variant in its first line. Actions and the
observation are those of the normal game (the announce and respond entries stay unused).
The agents play it the lowball way: the heuristic plays to avoid points (lays away the lowest
expected hand, with its own crib counted against it and an opponent's crib given the most;
pegs the card that scores least, low cards first), `search:N` counts the score margin the
lowball way, and the derived features give the least expected values.

## Options
| option | default | allowed |
|---|---|---|
| `num_players` | 2 | 2, 3, 4 (partnerships) |
| `target` | 121 | 121, 61 |
| `muggins` | True | False: hands and crib counted automatically (standard cribbage); off whenever `lowball` is on |
| `reward` | `"win"` | `"points"` |
| `lowball` | False | True: "A perder", reaching the target loses (see above); played without muggins |

## Rigged deal
`{"dealer": int, "hands": [[card, ...] per seat], "crib_card": card (3 players only),
"starter": card}` (6 cards each with 2 players, 5 with 3–4); cards as ids or strings; later
deals are shuffled from the seed.

## Scoring API
`muggins_env.games.cribbage`: `score_hand(hand, starter, crib=False)`, `score_breakdown`
(fifteens, pairs, runs, flush, nobs), `score_play(laid)` / `play_breakdown(laid)` (points to
the last card laid since the reset), `score_hands_batch(hands (N, 4), starters (N,),
crib=False)` (all 12,994,800 hand+starter pairs in under a second) and
`discard_values(cards, n_discard, excluded=())` (expected hand value of every lay-away over
the unseen starters, ~0.15 ms for a 6-card hand); cards as ids or strings. The batch scorer
reproduces the published distribution of all 12,994,800 (hand, starter) pairs exactly
(`tests/games/cribbage/test_cribbage_scoring.py`).
"""

from typing import Any, ClassVar

from .env import KernelAECEnv, wrapped
from .games.cribbage import CribbageGame


class raw_env(KernelAECEnv):
    game_cls = CribbageGame
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "cribbage_v0",
                                          "is_parallelizable": False}


env = wrapped(raw_env)
