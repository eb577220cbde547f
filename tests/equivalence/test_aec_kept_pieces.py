"""The kept pieces added for the AEC loop's speed (issue 32 item 6) against builds from scratch.

- dominoes: the observer keeps the layout's board and writes it in place from each play (only
  the arm played on in a line, every arm with spinners): after every step it must equal one
  built from the state's plays and layout, for every layout family;
- Card Muggins: the table's pieces are kept laid out for seat 0 and rotated per observer by an
  index: every player's observation must equal one built with nothing kept, for 3-7 players;
- Michigan: the second player observed in a hand gets every seat's view built at once (one
  array, a row per seat); each row, and every observation after it, must equal the view built
  for that seat alone, with cards played and the widow's cards shown or not, also in pickles and
  deep copies of an observed state;
- cribbage: the kept views survive an end in the play (they only lose the go flags), and the
  state is slotted: its clones, pickles and deep copies must play on exactly as the state does.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import muggins_env
from tests.equivalence.test_aec_observations import fresh_observation
from tests.equivalence.test_fast_paths import reference_cribbage_observation

DOMINOES = [
    {"num_players": 2, "variant": "fives_1863"},
    {"num_players": 2, "variant": "muggins"},
    {"num_players": 2, "variant": "all_fives"},
    {"num_players": 2, "variant": "sniff"},
    {"num_players": 2, "variant": "five_up"},
    {"num_players": 2, "set_max": 9},
    {"num_players": 4, "partnerships": True},
    {"num_players": 3, "knocking": True, "extra_play": True, "variant": "all_fives"},
]


def _random_play(env, rng: random.Random, check) -> int:
    steps = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        check(env)
        if term or trunc:
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
    check(env)
    return steps


@pytest.mark.parametrize("options", DOMINOES)
def test_dominoes_kept_board_equals_a_fresh_build(options):
    env = muggins_env.make("muggins_dominoes_v0", raw=True, **options)
    rng = random.Random(3)

    def check(env):
        state = env.kernel_state
        seen = state.seen
        if seen is not None and seen.board is not None:
            np.testing.assert_array_equal(seen.board, seen.build_board())
        for p in range(state.n):
            np.testing.assert_array_equal(state.observation(p), fresh_observation(state, p))

    steps = 0
    for seed in range(3):
        env.reset(seed=seed)
        steps += _random_play(env, rng, check)
    assert steps > 50


def reference_cards_observation(state, player: int) -> np.ndarray:
    """Card Muggins' observation written piece by piece from the state's lists (the README's layout)."""
    from muggins_env.games.muggins_cards import OVER, REVIEW
    from muggins_env.kernel.cards import RANK_LIST

    n = state.n
    parts = [np.zeros(13)]
    if state.exposed >= 0:
        parts[0][RANK_LIST[state.exposed] - 1] = 1
    commons = np.zeros((4, 14))
    for k, pile in enumerate(state.commons):
        commons[k, 0] = 1
        commons[k, RANK_LIST[pile[-1]]] = 1
    parts.append(commons.ravel())
    for r in range(n):
        seat = (player + r) % n
        piece = np.zeros(15)
        if state.discards[seat]:
            piece[RANK_LIST[state.discards[seat][-1]] - 1] = 1
        piece[13], piece[14] = len(state.stocks[seat]) / 52, len(state.discards[seat]) / 52
        parts.append(piece)
    turn = np.zeros(2 * n + 3)
    if state.phase != OVER:
        turn[(state.current_player() - player) % n] = 1
        turn[n + state.phase] = 1
        turn[n + 3 + (state.player - player) % n] = 1
    parts.append(turn)
    review = np.zeros(11)
    if state.phase == REVIEW:
        placer, placed = state.review[:2]
        review[state._relative_destination(player, placer, placed)] = 1
    parts.append(review)
    ranks = np.zeros(13)
    for pile in state.commons + state.discards:
        for c in pile:
            ranks[RANK_LIST[c] - 1] += 1
    parts.append(ranks / 4)
    parts.append([state.turns / state.game.max_turns])
    for r in range(n):
        piece = np.zeros(13)
        card = state.known_next((player + r) % n)
        if card >= 0:
            piece[RANK_LIST[card] - 1] = 1
        parts.append(piece)
    return np.concatenate(parts).astype(np.float32)


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("mistakes", [False, True])
def test_muggins_cards_rotated_table_equals_a_fresh_build(num_players, mistakes):
    env = muggins_env.make("muggins_cards_v0", raw=True, num_players=num_players, mistakes=mistakes,
                           max_turns=300)
    rng = random.Random(num_players)

    def check(env):
        state = env.kernel_state
        for p in range(state.n):
            obs = state.observation(p)
            np.testing.assert_array_equal(obs, fresh_observation(state, p))
            np.testing.assert_array_equal(obs, reference_cards_observation(state, p))

    for seed in range(2):
        env.reset(seed=seed)
        _random_play(env, rng, check)


@pytest.mark.parametrize("options", [{"muggins": False}, {"muggins": False, "num_players": 3},
                                     {"lowball": True}, {"num_players": 4, "muggins": False, "target": 61},
                                     {"target": 61}])
def test_cribbage_views_kept_through_the_end_equal_the_reference(options):
    env = muggins_env.make("cribbage_v0", raw=True, **options)
    rng = random.Random(1)
    ends_in_play = 0
    for seed in range(12):
        env.reset(seed=seed)
        state = env.kernel_state
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            for p in range(state.n):  # every player watched: every view is kept to the end
                np.testing.assert_array_equal(state.observation(p), reference_cribbage_observation(state, p))
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
        ends_in_play += state.seen is not None  # the end kept it (an end in the play)
    assert ends_in_play > 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_slotted_cribbage_state_copies_play_on_identically(num_players):
    from muggins_env.games.cribbage import CribbageGame

    game = CribbageGame(num_players=num_players)
    rng = random.Random(num_players)
    state = game.new_initial_state(seed=9)
    for _ in range(25):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        state.observation(0)  # with kept views
    copies = [state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]
    assert not vars(state)  # every attribute is a slot
    while not state.is_terminal():
        legal = state.legal_actions()
        a = legal[rng.randrange(len(legal))]
        for s in [state, *copies]:
            s.apply(a)
        for c in copies:
            assert c.full_state() == state.full_state()
            np.testing.assert_array_equal(c.rewards(), state.rewards())
            for p in range(num_players):
                np.testing.assert_array_equal(c.observation(p), state.observation(p))


@pytest.mark.parametrize("num_players", [3, 4, 8])
def test_michigan_every_seat_built_at_once_equals_each_seat_alone(num_players):
    from muggins_env.games.michigan import MichiganGame

    game = MichiganGame(num_players=num_players, num_hands=2)
    rng = random.Random(num_players)
    checked = with_plays = with_widow = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if rng.random() < 0.3:  # now and then: views dropped, then two seats observed, then all
                probe = state.clone()
                first, second = rng.sample(range(num_players), 2)
                probe.observation(first)  # that seat's view alone
                probe.observation(second)  # every seat's at once
                assert probe.seen.table is not None and len(probe.seen.table) == num_players
                for p in range(num_players):
                    np.testing.assert_array_equal(probe.observation(p), state.clone().observation(p))
                checked += 1
                with_plays += bool(state.played)
                with_widow += bool(state.known_widow)
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert checked > 30 and with_plays > 20 and with_widow > 5


@pytest.mark.parametrize("num_players", [3, 8])
def test_michigan_pickles_and_deep_copies_of_an_observed_state_observe_as_it_does(num_players):
    """The observer keeps every seat's view as rows of one table written through a flat vector
    of the same memory; a pickle or deep copy of the state must play on and observe exactly as
    the state does (a copy that split the table from its rows would miss every later card)."""
    from muggins_env.games.michigan import MichiganGame

    game = MichiganGame(num_players=num_players, num_hands=2)
    rng = random.Random(11)
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        for p in range(num_players):
            state.observation(p)  # every seat's view kept
        copies = [pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]
        while not state.is_terminal():
            legal = state.legal_actions()
            a = legal[rng.randrange(len(legal))]
            for s in (state, *copies):
                s.apply(a)
            for c in copies:
                for p in range(num_players):
                    np.testing.assert_array_equal(c.observation(p), state.observation(p))
                    checked += 1
        assert all(c.full_state() == state.full_state() for c in copies)
    assert checked > 1000
