"""The pieces the cribbage AEC loop keeps or shares to go faster, each against a from-scratch build:
the board carried into a new deal, the scores written into it, the settled counts written as they
settle (kept through an end in the show), the per-player gathers that hide the others' cards, and
``reset``'s seed stream when a reset fails."""

from __future__ import annotations

import random

import numpy as np
import pytest

import muggins_env
from muggins_env.games.cribbage import CribbageGame
from muggins_env.games.cribbage.observation import board_of
from muggins_env.games.cribbage.rules import DISCARD, OVER
from tests.equivalence.test_fast_paths import reference_cribbage_observation

OPTIONS = [{"num_players": 2}, {"num_players": 2, "muggins": False}, {"num_players": 3},
           {"num_players": 4}, {"num_players": 3, "muggins": False, "target": 61},
           {"num_players": 2, "lowball": True, "reward": "points"}]


def _scratch(state, player: int) -> np.ndarray:
    """``player``'s observation from a clone, which keeps no board (no observer)."""
    twin = state.clone()
    assert twin.seen is None
    return twin.observation(player)


@pytest.mark.parametrize("options", OPTIONS)
def test_kept_board_through_deals_and_ends_equal_a_fresh_build(options):
    game = CribbageGame(**options)
    rng = random.Random(3)
    carried = ended_in_show = 0
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        while True:
            for p in range(state.n):  # every player observed, every step
                obs = state.observation(p)
                np.testing.assert_array_equal(obs, reference_cribbage_observation(state, p))
                np.testing.assert_array_equal(obs, _scratch(state, p))
            if state.is_terminal():
                break
            deals, board = state.deals, state.seen.board
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            if state.deals != deals:  # a new deal: the board moved on, not rebuilt
                assert state.phase == DISCARD and state.seen.board is board
                carried += 1
        assert state.phase == OVER and state.seen.board is board  # the end keeps it
        ended_in_show += bool(state.shown)
    assert carried > 0 and ended_in_show > 0


@pytest.mark.parametrize("options", OPTIONS[:4])
def test_views_observed_now_and_then_equal_a_fresh_build(options):
    """Some players observed on some steps only: views built mid-deal, carried, or stale scores."""
    game = CribbageGame(**options)
    rng = random.Random(5)
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            for p in range(state.n):
                if rng.random() < 0.3:
                    np.testing.assert_array_equal(state.observation(p), _scratch(state, p))
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            if rng.random() < 0.05:
                state = state.clone()  # no kept view: the next observations rebuild them
        for p in range(state.n):
            np.testing.assert_array_equal(state.observation(p), _scratch(state, p))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_each_gather_reads_only_what_its_player_may_see(num_players):
    """The board holds every hand and every seat's crib discards; a player's gather reads its
    own blocks, never another seat's, and each board entry at most once."""
    game = CribbageGame(num_players=num_players)
    board = board_of(game)
    hidden = {s: set(range(board.hand_at[s], board.hand_at[s] + 52))
              | set(range(board.discards_at[s], board.discards_at[s] + 52)) for s in range(num_players)}
    for p in range(num_players):
        at = board.gather[p]
        assert len(at) == game.observation_size and len(set(at.tolist())) == len(at)
        assert not at.flags.writeable
        read = set(at.tolist())
        assert hidden[p] <= read
        for s in range(num_players):
            if s != p:
                assert not read & hidden[s], (p, s)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_settled_blocks_have_the_same_layout(num_players):
    game = CribbageGame(num_players=num_players)
    o, (lo, prev_lo, size) = game.observation_offsets, board_of(game).shown_block
    assert (lo, prev_lo) == (o["shown_totals"], o["previous_shown_totals"])
    names = ["shown_totals", "shown_announced", "shown_breakdown", "crib"]
    assert [o[k] - lo for k in names] == [o["previous_" + k] - prev_lo for k in names]
    assert size == sum(game.observation_layout[k] for k in names)


def test_a_failed_reset_leaves_the_seed_stream_as_it_was():
    bad = {"deal": {"dealer": 0, "hands": [["AS"] * 6, ["2S"] * 6], "starter": "3S"}}

    def games(fail_at: set[int]) -> list:
        env = muggins_env.make("cribbage_v0", raw=True)
        out = []
        for i in range(6):
            seed = 7 if i == 0 else (11 if i == 3 else None)
            if i in fail_at:
                with pytest.raises(ValueError):
                    env.reset(seed=None, options=bad)
                with pytest.raises(ValueError):
                    env.reset(seed=99, options=bad)
            env.reset(seed=seed)
            out.append(env.full_state())
        return out

    assert games(set()) == games({1, 2, 4})
