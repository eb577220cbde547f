"""New options leave the default games byte-identical (issue 17: cribbage ``lowball=False``;
issue 16: card Muggins' review view): whole games digested step by step (observations,
masks, rewards, readable infos, derived features, agents' moves) equal the digests recorded
on the code before those changes (``tests/equivalence/trajectories.py`` says what is hashed)."""

import json

import pytest

from tests.equivalence.trajectories import RECORDING, digests

RECORDED = json.loads(RECORDING.read_text())


@pytest.fixture(scope="module")
def now():
    return digests()


@pytest.mark.parametrize("config", sorted(RECORDED))
def test_default_games_are_byte_identical_to_the_recording(config, now):
    assert set(now) == set(RECORDED)
    assert now[config] == RECORDED[config]
