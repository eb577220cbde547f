"""muggins_dominoes_v0 as an environment: properties over seeds, variants, sets and player
counts (tile conservation, a legal action in every live state, zero-sum returns, replay
determinism, observation bounds), PettingZoo api_test/seed_test and the information-leak test."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.layout import SCORINGS, SPINNERS, VARIANTS
from muggins_env.kernel.tiles import HALVES, format_tile
from muggins_env.muggins_dominoes_v0 import env as wrapped_env
from muggins_env.muggins_dominoes_v0 import raw_env
from tests.conformance import check_api, check_info_leak, random_play

VARIANT_NAMES = list(VARIANTS)[:6]  # the original six (the §2.8 presets and options below)
SEATINGS = [{"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 4, "partnerships": True}]


def tiles_everywhere(state):
    """Every tile of the hand in progress: hands, boneyard and layout."""
    return sorted([t for h in state.hands for t in h] + list(state.boneyard) + [t for _, t, _ in state.plays])


def check_properties(seed, variant, seating, set_max, muggins, reward, **options):
    game = DominoesGame(variant=variant, set_max=set_max, muggins=muggins, reward=reward, max_hands=20,
                        **seating, **options)
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    actions, states, total = [], [], np.zeros(game.num_players)
    for _ in range(5000):
        if state.is_terminal():
            break
        assert tiles_everywhere(state) == list(range(game.num_tiles))
        mask = state.legal_actions_mask()
        legal = np.flatnonzero(mask).tolist()
        assert legal and legal == state.legal_actions()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        for p in range(game.num_players):
            obs = state.observation(p)
            assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
            assert obs.min() >= game.observation_low and obs.max() <= game.observation_high
        a = int(rng.choice(legal))
        actions.append(a)
        states.append(repr(state.full_state()))
        state.apply(a)
        total += state.rewards()
        assert abs(state.rewards().sum()) < 1e-9
    assert state.is_terminal()
    assert np.allclose(total, state.returns())
    if state.winners():
        assert all(total[s] > 0 for s in state.winners())
        assert state.scores[state.winner_side] >= game.target or game.episode == "hand"
    # replay determinism: the same seed and actions give the same states
    again = game.new_initial_state(seed=seed)
    for a, before in zip(actions, states):
        assert repr(again.full_state()) == before
        again.apply(a)
    assert again.is_terminal() and np.array_equal(again.returns(), state.returns())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), variant=st.sampled_from(VARIANT_NAMES), seating=st.sampled_from(SEATINGS),
       set_max=st.sampled_from([6, 6, 9, 12, 15]), muggins=st.sampled_from(["forfeit", "claim", "off"]),
       reward=st.sampled_from(["win", "points"]))
def test_properties_conservation_masks_zero_sum_and_replay(seed, variant, seating, set_max, muggins, reward):
    check_properties(seed, variant, seating, set_max, muggins, reward)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), variant=st.sampled_from(list(VARIANTS)), seating=st.sampled_from(SEATINGS),
       set_max=st.sampled_from([6, 6, 9, 12]), muggins=st.sampled_from(["forfeit", "claim", "off"]),
       scoring=st.sampled_from([None, *SCORINGS]), spinners=st.sampled_from([None, *SPINNERS]),
       lead=st.sampled_from(["heaviest", "double"]), knocking=st.booleans(), extra_play=st.booleans(),
       win_bonus=st.sampled_from([None, "pips", 1, 5]), reward=st.sampled_from(["win", "points"]))
def test_properties_over_the_family_options(seed, variant, seating, set_max, muggins, scoring, spinners, lead,
                                            knocking, extra_play, win_bonus, reward):
    """docs/rules/dominoes.md §2.8: the same properties (tile conservation, a legal action in every live state,
    zero-sum returns, replay determinism, observation bounds) with every option of the family."""
    knocking = knocking and seating["num_players"] > 2
    check_properties(seed, variant, seating, set_max, muggins, reward, scoring=scoring, spinners=spinners, lead=lead,
                     knocking=knocking, extra_play=extra_play, win_bonus=win_bonus)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
@pytest.mark.parametrize("seating", SEATINGS, ids=["2p", "3p", "4p", "4p-partners"])
def test_properties_every_variant_set_and_player_count(variant, set_max, seating):
    """The same properties, deterministically over the whole grid (the muggins rule alternating)."""
    k = VARIANT_NAMES.index(variant) + set_max + len(seating)
    check_properties(k, variant, seating, set_max, ("forfeit", "claim", "off")[k % 3], "win")


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_hand_ends_and_scores_only_grow_without_muggins(variant):
    game = DominoesGame(variant=variant, muggins="off", episode="hand")
    rng = np.random.default_rng(1)
    for seed in range(30):
        state = game.new_initial_state(seed=seed)
        last = [0] * game.num_sides

        def check(s, last=last):
            assert all(a >= b for a, b in zip(s.scores, last))
            last[:] = s.scores
        random_play(state, rng, on_decision=check)
        assert state.is_terminal() and state.last_hand is not None
        assert state.last_hand["how"] in ("domino", "blocked")


def test_clone_is_independent_and_replays_identically():
    game = DominoesGame(variant="five_up")
    state = game.new_initial_state(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(15):
        state.apply(int(rng.choice(state.legal_actions())))
    snapshot = repr(state.full_state())
    c = state.clone()
    rng2 = np.random.default_rng(3)
    random_play(c, rng2)
    assert repr(state.full_state()) == snapshot
    c2 = state.clone()
    a = np.random.default_rng(4)
    b = np.random.default_rng(4)
    random_play(c2, a)
    c3 = state.clone()
    random_play(c3, b)
    assert repr(c2.full_state()) == repr(c3.full_state())


def test_observation_shows_own_tiles_only():
    game = DominoesGame(num_players=3)
    state = game.new_initial_state(seed=11)
    for p in range(3):
        obs = state.observation(p)
        assert set(np.flatnonzero(obs[:game.num_tiles]).tolist()) == set(state.hands[p])


def test_render_and_views():
    e = raw_env(render_mode="ansi", variant="sniff", num_players=4, partnerships=True, readable_infos=True)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    text = e.render()
    st_ = e.kernel_state
    assert "sniff" in text and f"lead [{format_tile(st_.layout.lead)}]" in text
    assert f"count {st_.layout.count}" in text
    info = e.infos[e.agent_selection]
    view = info["view"]
    p = int(e.agent_selection.split("_")[1])
    assert view["hand"] == sorted(st_.hands[p]) and view["count"] == st_.layout.count
    assert view["boneyard_size"] == len(st_.boneyard) and view["tile_counts"] == [len(h) for h in st_.hands]
    assert all(set(x) == {"slot", "pip", "tiles", "crosswise_double", "spinner", "spinner_counts"}
               for x in view["open_ends"])
    for a, text in info["legal_moves"].items():
        assert text == st_.action_to_string(a)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("seating", SEATINGS, ids=["2p", "3p", "4p", "4p-partners"])
def test_pettingzoo_api_and_seed(variant, seating):
    opts = {"variant": variant, **seating}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=60)


@pytest.mark.parametrize("opts", [
    {"variant": "muggins", "set_max": 9},
    {"variant": "five_up", "set_max": 15, "num_players": 3},
    {"variant": "all_fives", "set_max": 12, "num_players": 4, "partnerships": True, "muggins": "claim"},
    {"variant": "fives_and_threes", "muggins": "off", "skip_forced": True},
    {"variant": "sniff", "episode": "hand", "reward": "points", "boneyard_reserve": 2},
])
def test_pettingzoo_api_and_seed_more_configurations(opts):
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=60)


FAMILY_CONFIGS = [
    {"variant": "fives_1863"},
    {"variant": "primes"},
    {"variant": "fives_1863", "num_players": 3, "win_bonus": 5, "muggins": "claim"},
    {"variant": "primes", "num_players": 4, "partnerships": True, "set_max": 9},
    {"num_players": 3, "knocking": True},
    {"num_players": 4, "knocking": True, "extra_play": True},
    {"num_players": 4, "partnerships": True, "knocking": True, "variant": "all_fives", "muggins": "off"},
    {"extra_play": True, "variant": "sniff", "set_max": 9},
    {"variant": "fives_and_threes", "spinners": "first", "lead": "double", "num_players": 3},
    {"variant": "five_up", "lead": "double", "set_max": 9, "extra_play": True, "num_players": 4},
    {"scoring": "primes", "spinners": "every", "set_max": 6, "num_players": 3, "knocking": True},
]


@pytest.mark.parametrize("opts", FAMILY_CONFIGS, ids=[str(i) for i in range(len(FAMILY_CONFIGS))])
def test_pettingzoo_api_and_seed_family(opts):
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=40)


@pytest.mark.parametrize("opts", [
    {"variant": "fives_1863"}, {"variant": "primes", "num_players": 3},
    {"num_players": 3, "knocking": True, "muggins": "off"}, {"num_players": 4, "partnerships": True, "knocking": True},
    {"extra_play": True}, {"num_players": 4, "knocking": True, "extra_play": True, "lead": "double"}])
def test_information_leak_family(opts):
    game = DominoesGame(**opts)
    changed = check_info_leak(game.new_initial_state(seed=5), seed=5, max_decisions=70)
    assert changed > 0


def test_knock_and_extra_play_decisions_happen_in_random_play():
    """The leak and property tests above reach knocks, forced scoring plays and extra plays."""
    seen = set()
    for opts in ({"num_players": 3, "knocking": True, "extra_play": True, "muggins": "off"},
                 {"num_players": 4, "partnerships": True, "knocking": True, "extra_play": True}):
        game = DominoesGame(**opts)
        rng = np.random.default_rng(0)

        def note(s, game=game):
            legal = s.legal_actions()
            seen.update(x for x, ok in (("knock", game.KNOCK in legal), ("extra", game.STOP in legal),
                                        ("forced", s.knock is not None)) if ok)
        for seed in range(3):
            random_play(game.new_initial_state(seed=seed), rng, on_decision=note)
    assert seen == {"knock", "extra", "forced"}


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("seating", SEATINGS, ids=["2p", "3p", "4p", "4p-partners"])
def test_information_leak(variant, seating):
    game = DominoesGame(variant=variant, **seating)
    changed = check_info_leak(game.new_initial_state(seed=7), seed=7, max_decisions=80)
    assert changed > 0


@pytest.mark.parametrize("opts", [{"variant": "five_up", "set_max": 15}, {"variant": "muggins", "set_max": 9,
                                                                          "num_players": 4}])
def test_information_leak_larger_sets(opts):
    game = DominoesGame(**opts)
    changed = check_info_leak(game.new_initial_state(seed=3), seed=3, max_decisions=60)
    assert changed > 0


def test_skip_forced_leaves_only_real_choices():
    e = raw_env(skip_forced=True, muggins="off")
    e.reset(seed=4)
    steps = 0
    for agent in e.agent_iter(max_iter=2000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 1
        e.step(int(legal[0]))
        steps += 1
    assert steps > 0


@pytest.mark.parametrize("variant", ["muggins", "five_up"])
def test_resampled_states_stay_playable_for_search(variant):
    """A re-deal for an observer who is not to move gives the mover a consistent decision
    (plays of tiles it now holds, or a pass), keeps the tile to lead with its holder, and
    can be played out to the end."""
    game = DominoesGame(variant=variant, num_players=3, episode="hand")
    rng = np.random.default_rng(0)
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        for _ in range(40):
            if state.is_terminal():
                break
            mover = state.current_player()
            observer = (mover + 1) % game.num_players
            other = state.resample_hidden(observer, rng)
            if state.phase_name() == "play":
                for a in other.legal_actions():
                    if a == game.PASS:
                        assert other.legal_actions() == [game.PASS]
                        continue
                    tile, slot = game.decode_play(a)
                    assert tile in other.hands[mover]
                    if slot:
                        assert other.layout.pip[slot] in HALVES[tile]
                    else:
                        assert state.layout.lead < 0 and tile in state.hands[mover]
            assert tiles_everywhere(other) == list(range(game.num_tiles))
            random_play(other.clone(), rng)
            state.apply(int(rng.choice(state.legal_actions())))
