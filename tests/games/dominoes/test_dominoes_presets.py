"""The six original ``variant`` names are presets of the orthogonal options (docs/rules/dominoes.md §2.8):
their games must stay byte-identical to the code before the options existed.

The digests below were recorded with the code on main before the change (commit fdc9fab),
by ``record()`` in this file. ``states`` hashes, per configuration and seed, the action
names, full states and rewards of a seeded game; ``wire`` hashes what an agent exchanges
with the env: action indices, every player's observation and the mask. The policy chooses
announcements by value (the true score or a value 0..8) so the same game is played whatever
the announcement range; where issue 16's exact announcement range changed ``M`` (listed in
``M_CHANGED``) the action and observation sizes differ by design, and only ``states`` must hold.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from muggins_env.games.dominoes import DominoesGame

CONFIGS = {
    "muggins-2p": {"variant": "muggins"},
    "all_threes-2p": {"variant": "all_threes"},
    "fives_and_threes-3p": {"variant": "fives_and_threes", "num_players": 3, "muggins": "claim"},
    "all_fives-4pp": {"variant": "all_fives", "num_players": 4, "partnerships": True},
    "sniff-2p-off": {"variant": "sniff", "muggins": "off"},
    "five_up-4p": {"variant": "five_up", "num_players": 4},
    "muggins-d12-3p": {"variant": "muggins", "set_max": 12, "num_players": 3},
    "all_threes-d9-2p-claim": {"variant": "all_threes", "set_max": 9, "muggins": "claim"},
    "five_up-d9-2p": {"variant": "five_up", "set_max": 9},
    "all_fives-d15-2p": {"variant": "all_fives", "set_max": 15, "muggins": "claim"},
    "sniff-d9-3p": {"variant": "sniff", "set_max": 9, "num_players": 3},
    "fives_and_threes-d12-2p": {"variant": "fives_and_threes", "set_max": 12},
}
SEEDS = (1, 2)
MAX_DECISIONS = 1500
#: the keys of ``full_state()`` before the change (new options add keys of their own)
STATE_KEYS = ("hand_number", "phase", "player", "to_act", "hands", "boneyard", "drawn", "lead", "plays", "arms",
              "count", "true_score", "scores", "review", "last_review", "last_hand", "winner_side", "truncated")


def full(state) -> str:
    f = state.full_state()
    return repr([f[k] for k in STATE_KEYS])


def play(opts: dict, seed: int) -> tuple[str, str]:
    game = DominoesGame(max_hands=3, **opts)
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    states, wire = hashlib.sha256(), hashlib.sha256()
    wire.update(f"{game.num_actions} {game.observation_size}".encode())
    for _ in range(MAX_DECISIONS):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        for p in range(game.num_players):
            wire.update(state.observation(p).tobytes())
        wire.update(state.legal_actions_mask().tobytes())
        if state.phase_name() == "announce":
            v = state.true_score if rng.random() < 0.5 else int(rng.integers(0, 9))
            a = game.announce_action(v)
        else:
            a = int(rng.choice(legal))
        states.update(f"{game.action_name(a)}|{full(state)}".encode())
        wire.update(str(a).encode())
        state.apply(a)
        states.update(state.rewards().tobytes())
    states.update(full(state).encode())
    return states.hexdigest()[:16], wire.hexdigest()[:16]


def record() -> dict:
    return {(name, seed): play(opts, seed) for name, opts in CONFIGS.items() for seed in SEEDS}


RECORDED = {
    ('muggins-2p', 1): ('a2dee5ece5599359', 'd6284c7b6ca2ccc3'),
    ('muggins-2p', 2): ('a7c47a4c57531ac5', 'b18b1f86747b0dd2'),
    ('all_threes-2p', 1): ('9459e60bf93a7eb1', 'a6fcbabdf2ce164b'),
    ('all_threes-2p', 2): ('3550731b1e34daa1', '348910ff334fb79e'),
    ('fives_and_threes-3p', 1): ('01a3ae24e162b801', '00dc949614aa772d'),
    ('fives_and_threes-3p', 2): ('e5c6df0dbd77798f', '09d248c7841174f3'),
    ('all_fives-4pp', 1): ('b072351801ca8ffb', '0bf28ef17a1f88e7'),
    ('all_fives-4pp', 2): ('a29a9ac0a2786481', '292aaf9af4f64691'),
    ('sniff-2p-off', 1): ('2290a6cf6733f382', 'cdf5b20f43ef15b3'),
    ('sniff-2p-off', 2): ('1837b635ee5b2a9b', '1e9029b0a480e7fe'),
    ('five_up-4p', 1): ('8be6331504ef709b', '81544f728d9a751f'),
    ('five_up-4p', 2): ('8f26c186d2c3829f', 'd30459004ea07c51'),
    ('muggins-d12-3p', 1): ('eda3aae683033488', 'd8a4f5508390bb9e'),
    ('muggins-d12-3p', 2): ('1b2e3827b422ccb3', 'ce88a7edb6c91e4b'),
    ('all_threes-d9-2p-claim', 1): ('31035a43baf10fff', 'ad84c5ae475fffd0'),
    ('all_threes-d9-2p-claim', 2): ('f15bfb9fcf78a0e3', 'dabf4148510bd1a9'),
    ('five_up-d9-2p', 1): ('19d2eaadfee5a495', 'da8272f24d258a6f'),
    ('five_up-d9-2p', 2): ('6450feb2d1296e4f', 'b5fe8ecd90e911cb'),
    ('all_fives-d15-2p', 1): ('33e25e3852de050f', 'd32d74b6f8692971'),
    ('all_fives-d15-2p', 2): ('a680913939287de4', 'c1a71a0f21a8d4ad'),
    ('sniff-d9-3p', 1): ('ce94474a017e4746', 'b30256de3d2379d0'),
    ('sniff-d9-3p', 2): ('d0721651324048ac', 'aea9e8405a4bf240'),
    ('fives_and_threes-d12-2p', 1): ('71090622ffcc25bf', '50a390b1b33e7a75'),
    ('fives_and_threes-d12-2p', 2): ('d6e89f40316433f0', '7361a7da42d6164b'),
}
#: configurations whose announcement range issue 16.7 made exact: (old M, exact M); only the
#: announcement block (and the one-hot of the announcement under review) shrinks
M_CHANGED = {
    "all_threes-2p": (21, 18),
    "muggins-d12-3p": (45, 40),
    "all_threes-d9-2p-claim": (33, 30),
    "all_fives-d15-2p": (105, 100),
    "fives_and_threes-d12-2p": (24, 16),
    # every double a spinner: the largest count is 75 (double-6) and 171 (double-9), not the
    # count bound's 108 and 223, so per_five M is 15 and 34, not 21 and 44
    "five_up-4p": (21, 15),
    "five_up-d9-2p": (44, 34),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_original_variants_replay_byte_identical(name):
    for seed in SEEDS:
        states, wire = play(CONFIGS[name], seed)
        want_states, want_wire = RECORDED[(name, seed)]
        assert states == want_states, f"{name} seed {seed}: the game changed"
        if name not in M_CHANGED:
            assert wire == want_wire, f"{name} seed {seed}: actions or observations changed"



@pytest.mark.parametrize("name", list(CONFIGS))
def test_only_the_announcement_range_changed_where_it_was_not_exact(name):
    game = DominoesGame(**CONFIGS[name])
    old_m, new_m = M_CHANGED.get(name, (game.max_announcement, game.max_announcement))
    assert game.max_announcement == new_m <= old_m
    assert game.PASS == game.num_tiles * game.num_slots and game.ANNOUNCE == game.PASS + 1
    assert game.ACCEPT == game.ANNOUNCE + new_m + 1 and game.MUGGINS == game.ACCEPT + 1 == game.num_actions - 1
    assert game.observation_layout["announcement"] == new_m + 1
    assert set(game.observation_layout) == set(STATE_OBSERVATION_PIECES)


STATE_OBSERVATION_PIECES = ("hand", "played", "lead_needed", "arms", "count", "scores", "tiles", "drawn",
                            "boneyard", "phase", "mover", "to_act", "announcement")


if __name__ == "__main__":
    for k, v in record().items():
        print(f"    {k!r}: {v!r},")
