"""Dominoes: the expected answer of the next seat to each play (``DominoesHeuristic.reply_risks``)
and the ``extended`` features that hand it to a network.

- ``expected_best`` is the mean, over every hand the next seat could hold, of its best value
  (checked against the enumeration of every such hand).
- ``reply_risks`` is that mean over the hands the next seat could hold from the tiles the player
  has not seen, each scored on the layout the rules leave after the play (enumerated for late
  positions of seeded games, with the rules' own state after the play).
- The ``extended`` set adds exactly one block (the risks, by play action) to the ``hinted`` inputs;
  ``derived`` and ``hinted`` keep the sizes the shipped models read; the scorer reads the block
  through one more per-action channel.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.features import action_features, make_features
from muggins_env.agents.heuristic_dominoes import DominoesHeuristic, expected_best

from muggins_env.kernel.tiles import HALVES, num_tiles


@pytest.mark.parametrize("values,held", [([3, 0, 2, 2, 5, 0], 2), ([0, 0, 0], 2), ([4], 1), ([1, 2, 3, 4], 4),
                                         ([2, 2, 1, 0, 0, 0, 0, 3], 3), ([5, 1], 0)])
def test_expected_best_is_the_mean_best_of_every_draw(values, held):
    draws = list(combinations(values, held))
    want = np.mean([max(d, default=0) for d in draws]) if held else 0.0
    assert expected_best(values, held) == pytest.approx(want)


def _late_play_positions(opts: dict, count: int, most_unseen: int = 10):
    game = make_game("muggins_dominoes_v0", opts)
    heuristic = make_agent("heuristic", "muggins_dominoes_v0", opts)
    rng = np.random.default_rng(0)
    out = []
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal() and len(out) < count:
            p = state.current_player()
            view = state.public_view(p)
            mask = state.legal_actions_mask()
            plays = [a for a in np.flatnonzero(mask) if a < game.PASS]
            unseen = num_tiles(game.set_max) - len(view["hand"]) - len(view["played"])
            if view["phase"] == "play" and len(plays) >= 2 and unseen <= most_unseen:
                out.append(state.clone())
            state.apply(int(heuristic.act(None, mask.astype(np.int8), rng, view)))
        if len(out) >= count:
            return game, out
    raise AssertionError("too few late positions")


@pytest.mark.parametrize("opts", [{}, {"num_players": 4, "partnerships": True}])
def test_reply_risks_enumerate_the_next_seats_hands(opts):
    game, positions = _late_play_positions(opts, 6)
    h = DominoesHeuristic(game)
    for state in positions:
        p = state.current_player()
        view = state.public_view(p)
        legal = [a for a in np.flatnonzero(state.legal_actions_mask()) if a < game.PASS]
        risks = h.reply_risks(view, legal)
        assert set(risks) == {int(a) for a in legal}
        nxt = (p + 1) % game.num_players
        held = len(state.hands[nxt])
        unseen = [t for t in range(num_tiles(game.set_max)) if t not in view["hand"] and t not in view["played"]]
        assert set(state.hands[nxt]) <= set(unseen)  # the next seat's true hand is one of those drawn
        for a in legal:
            after = state.clone()
            after.apply(int(a))  # the rules' layout after the play
            def best(t: int, lay=after.layout) -> int:
                hi, lo = HALVES[t]
                scores = [0]
                for k in lay.open_arms:
                    if lay.pip[k] in (hi, lo):
                        c = lay.copy()
                        c.place(t, k)
                        scores.append(game.score_table[c.count])
                return max(scores)

            each = {t: best(t) for t in unseen if t != game.decode_play(int(a))[0]}
            want = np.mean([max(each[t] for t in hand) for hand in combinations(sorted(each), held)])
            assert risks[int(a)] == pytest.approx(want), (a, risks[int(a)], want)


def test_extended_features_add_the_risks_by_play_and_keep_the_shipped_sizes():
    game = make_game("muggins_dominoes_v0")
    derived = make_features("derived", "muggins_dominoes_v0", game)
    hinted = make_features("hinted", "muggins_dominoes_v0", game)
    extended = make_features("extended", "muggins_dominoes_v0", game)
    plays = game.PASS
    # the shipped models read these sizes: one-hot true score (max_announcement + 1), a wrong
    # announcement, each play's score
    assert derived.size == game.max_announcement + 2 + plays
    assert hinted.size == derived.size + game.num_actions
    assert extended.size == hinted.size + plays
    _, positions = _late_play_positions({}, 3, most_unseen=20)
    h = DominoesHeuristic(game)
    for state in positions:
        p = state.current_player()
        view, mask = state.public_view(p), state.legal_actions_mask()
        x = extended(view, mask)
        risk = x[extended.base.RISK:extended.base.size]
        want = np.zeros(plays)
        for a, r in h.reply_risks(view, [a for a in np.flatnonzero(mask) if a < plays]).items():
            want[a] = r / game.max_announcement
        assert np.allclose(risk, want) and want.any()
        np.testing.assert_array_equal(x[:derived.size], derived(view, mask))
        assert x[extended.offset + hinted.hint(view, mask)] == 1.0
    # the scorer: one more channel than hinted, pointing at the risk of each play
    ah = action_features("muggins_dominoes_v0", game, "hinted")
    ae = action_features("muggins_dominoes_v0", game, "extended")
    assert ae.index.shape[1] == ah.index.shape[1] + 1
    risk_channel = ae.index[:, -2]  # the hint stays the last channel
    assert np.array_equal(risk_channel[:plays], game.observation_size + extended.base.RISK + np.arange(plays))
    assert (risk_channel[plays:] == -1).all()


@pytest.mark.parametrize("opts", [{}, {"num_players": 4, "partnerships": True}, {"variant": "sniff"},
                                  {"num_players": 3, "knocking": True, "extra_play": True}])
def test_the_net_heuristic_plays_the_most_points_net_of_the_answer(opts):
    """``heuristic:value=net`` plays, among the plays, the one whose score less the enumerated
    expected answer is largest (ties: the heuristic's order); every other decision is the
    heuristic's; the two differ somewhere in a few games."""
    game = make_game("muggins_dominoes_v0", opts)
    net = make_agent("heuristic:value=net", "muggins_dominoes_v0", opts)
    plain = make_agent("heuristic", "muggins_dominoes_v0", opts)
    assert net.name == "heuristic:value=net"
    rng = np.random.default_rng(1)
    differ = plays = 0
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            view, mask = state.public_view(p), state.legal_actions_mask()
            legal = np.flatnonzero(mask)
            a = int(net.act(None, mask.astype(np.int8), rng, view))
            h = int(plain.act(None, mask.astype(np.int8), np.random.default_rng(0), view))
            assert mask[a]
            is_play = len(legal) > 1 and view["phase"] == "play" and legal[-1] < game.PASS
            if is_play:
                plays += 1
                keys = net._play_keys(view, legal)
                risks = net.reply_risks(view, legal)
                want = max(((s - risks[int(b)], w, d), int(b)) for (s, w, d), b in keys)[1]
                assert a == want
                differ += a != h
            elif len(legal) > 1 and not (game.KNOCK is not None and legal[0] == game.KNOCK):
                assert a == h, view["phase"]
            state.apply(a)
    assert plays > 20 and differ > 0


def test_value_net_is_for_dominoes_only():
    with pytest.raises(ValueError) as e:
        make_agent("heuristic:value=net", "cribbage_v0", {"num_players": 2})
    assert "value=net" in str(e.value) and "muggins_dominoes_v0" in str(e.value)
    with pytest.raises(ValueError) as e:
        make_agent("heuristic:value=magic", "muggins_dominoes_v0")
    assert "points|table|net" in str(e.value)
