"""The generic AEC adapter (env.py), exercised through muggins_cards_v0: errors, illegal
actions raw and wrapped, infos, rendering, state(), pickling, seeding, make/ENV_NAMES."""

import copy
import pickle
from typing import ClassVar

import numpy as np
import pytest

import muggins_env
from muggins_env.env import KernelAECEnv
from muggins_env.kernel.game import TERMINAL, Game, GameFacts, IllegalActionError, State
from muggins_env.muggins_cards_v0 import env as wrapped_env
from muggins_env.muggins_cards_v0 import raw_env


def test_unknown_option_and_bad_value_are_clear_errors():
    with pytest.raises(ValueError, match="unknown option.*'colour'.*known options: num_players, mistakes, max_turns"):
        raw_env(colour="red")
    with pytest.raises(ValueError, match="num_players=8.*allowed values: 3, 4, 5, 6, 7"):
        raw_env(num_players=8)
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="skip_forced='yes'"):
        raw_env(skip_forced="yes")


def test_unknown_reset_option_is_refused():
    with pytest.raises(ValueError, match="unknown reset option.*'dael'.*known reset options: deal"):
        raw_env().reset(options={"dael": {}})


def test_illegal_action_raises_from_raw_env_and_changes_nothing():
    e = raw_env(mistakes=False)
    e.reset(seed=2)
    before = e.full_state()
    legal = set(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())
    bad = next(a for a in range(13) if a not in legal)
    with pytest.raises(IllegalActionError, match=rf"illegal action {bad} .*legal actions: "):
        e.step(bad)
    for junk in (13, -1, "0", 1.5, None):
        with pytest.raises(ValueError):
            e.step(junk)
    assert e.full_state() == before


def test_wrapped_env_ends_the_episode_with_a_penalty_for_an_illegal_action():
    e = wrapped_env(mistakes=False)
    e.reset(seed=2)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    e.step(bad)  # no exception: PettingZoo's convention (TerminateIllegalWrapper)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


@pytest.mark.parametrize("junk, message", [
    (13, r"action 13 for player_\d is not in the action space Discrete\(13\); allowed: an int 0..12"),
    (-1, r"action -1 .*allowed: an int 0..12"),
    ("0", r"action '0' .*allowed: an int 0..12"),
    (1.5, r"action 1.5 .*allowed: an int 0..12"),
    (None, r"action None given for player_\d, who is still in the game"),
])
def test_wrapped_env_names_an_out_of_space_action_and_changes_nothing(junk, message):
    """Outside the action space the wrapped env raises (PettingZoo's AssertionError kind), naming
    the value and what is allowed, instead of a bare 'action is not in action space'."""
    from muggins_env.env import ActionOutOfBoundsError

    e = wrapped_env(mistakes=False)
    e.reset(seed=2)
    before = e.unwrapped.full_state()
    with pytest.raises(ActionOutOfBoundsError, match=message) as info:
        e.step(junk)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, ValueError)
    assert e.unwrapped.full_state() == before and not any(e.terminations.values())


def test_default_infos_hold_only_a_writable_mask_of_their_own_for_every_agent():
    e = raw_env(mistakes=True)
    e.reset(seed=1)
    me = e.agent_selection
    info = e.infos[me]
    assert type(info) is dict and set(info) == {"action_mask"}
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].flags.writeable
    assert np.array_equal(info["action_mask"], e.observe(me)["action_mask"]) and info["action_mask"].sum() > 0
    others = [a for a in e.agents if a != me]
    for a in others:
        mask = e.infos[a]["action_mask"]
        assert type(e.infos[a]) is dict and mask.flags.writeable and mask.sum() == 0
        assert e.observe(a)["action_mask"].sum() == 0
    masks = [e.infos[a]["action_mask"] for a in e.agents]
    assert not any(np.shares_memory(x, y) for i, x in enumerate(masks) for y in masks[i + 1:])


def test_readable_infos_opt_in_is_a_plain_dict_with_the_readable_keys():
    e = raw_env(mistakes=True, readable_infos=True)
    e.reset(seed=1)
    me = e.agent_selection
    info = e.infos[me]
    assert type(info) is dict and set(info) == {"action_mask", "phase", "legal_moves", "view"}
    assert info["phase"] == "place"
    assert set(info["legal_moves"]) == set(np.flatnonzero(info["action_mask"]).tolist())
    assert all("→" in text for text in info["legal_moves"].values())
    for a in e.agents:
        if a != me:
            assert set(e.infos[a]) == {"action_mask"} and e.infos[a]["action_mask"].sum() == 0


def test_readable_info_method_gives_the_extras_on_demand():
    e = raw_env(mistakes=True)
    with pytest.raises(RuntimeError, match="before reset"):
        e.readable_info()
    e.reset(seed=1)
    extras = e.readable_info()
    assert extras["phase"] == "place" and set(extras) == {"phase", "legal_moves", "view"}
    assert set(extras["legal_moves"]) == set(np.flatnonzero(e.infos[e.agent_selection]["action_mask"]).tolist())
    assert extras["view"] == e.kernel_state.public_view(e.kernel_state.current_player())


def test_observation_mask_is_a_copy():
    e = raw_env()
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    obs["action_mask"][:] = 0
    assert e.observe(e.agent_selection)["action_mask"].sum() >= 1


@pytest.mark.parametrize("readable", [False, True])
def test_writing_into_what_the_env_handed_out_never_changes_the_env(readable):
    e, twin = raw_env(mistakes=True, readable_infos=readable), raw_env(mistakes=True)
    rng = np.random.default_rng(0)
    for env in (e, twin):
        env.reset(seed=4)
    for _ in range(40):
        if not e.agents:
            break
        obs, _, term, trunc, _ = e.last()
        assert np.array_equal(obs["observation"], twin.last()[0]["observation"])
        assert np.array_equal(obs["action_mask"], twin.last()[0]["action_mask"])
        if term or trunc:
            e.step(None), twin.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for agent in e.agents:  # scribble over everything handed out
            e.infos[agent]["action_mask"][:] = 1
            e.observe(agent)["observation"][:] = 7
        obs["action_mask"][:] = 0
        obs["observation"][:] = 9
        assert np.array_equal(e.observe(e.agent_selection)["action_mask"],
                              twin.observe(twin.agent_selection)["action_mask"])
        e.step(action), twin.step(action)
    assert e.full_state() == twin.full_state() and np.array_equal(e.state(), twin.state())


def test_a_mask_written_into_does_not_turn_the_wrapped_envs_minus_one_into_an_error():
    e = wrapped_env()
    e.reset(seed=1)
    obs, _, _, _, info = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs["action_mask"][bad] = 1  # a caller's edit of its own copies
    info["action_mask"][bad] = 1
    offender = e.agent_selection
    e.step(bad)  # still judged on the env's own mask: the documented -1 ending, no IllegalActionError
    assert e.rewards[offender] == -1
    assert all(e.terminations.values()) or all(e.truncations.values())


def test_nothing_handed_out_makes_torch_warn():
    torch = pytest.importorskip("torch", reason="torch (the [train] extra) is not installed")
    import warnings

    e = raw_env(readable_infos=True)
    e.reset(seed=2)
    arrays = [e.state(), *(e.observe(a)["observation"] for a in e.agents)]
    arrays += [e.infos[a]["action_mask"] for a in e.agents] + [e.last()[0]["action_mask"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "The given NumPy array is not writable" would raise
        for x in arrays:
            assert x.flags.writeable
            torch.as_tensor(x)


def test_render_ansi_and_human(capsys):
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "common piles" in text and any(s in text for s in "♣♦♥♠")
    h = raw_env(render_mode="human")
    h.reset(seed=1)
    assert h.render() is None
    assert "common piles" in capsys.readouterr().out


def test_state_is_the_full_state_apart_from_observations():
    e = raw_env()
    e.reset(seed=1)
    s = e.full_state()
    assert {"stocks", "discards", "commons"} <= set(s)
    assert sum(len(x) for x in s["stocks"]) + sum(len(p) for p in s["commons"]) == 51  # + card in play


def test_pickle_round_trip_continues_identically():
    e = raw_env(mistakes=True)
    e.reset(seed=9)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    c = pickle.loads(pickle.dumps(e))
    for env in (e, c):
        for _ in range(5):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    assert e.full_state() == c.full_state()


def test_same_seed_same_deal_and_unseeded_resets_follow_the_first_seed():
    a, b = raw_env(), raw_env()
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.full_state() == b.full_state()
    a.reset()
    b.reset()
    assert a.full_state() == b.full_state()
    c = raw_env()
    c.reset(seed=6)
    assert c.full_state() != raw_env_state(5)


def raw_env_state(seed):
    e = raw_env()
    e.reset(seed=seed)
    return e.full_state()


def test_make_and_env_names():
    assert "muggins_cards_v0" in muggins_env.ENV_NAMES
    e = muggins_env.make("muggins_cards_v0", num_players=5)
    e.reset(seed=0)
    assert e.num_agents == 5 and e.unwrapped.metadata["name"] == "muggins_cards_v0"
    assert isinstance(muggins_env.make("muggins_cards_v0", raw=True), raw_env)
    with pytest.raises(ValueError, match="unknown env 'chess_v0'; known envs: .*muggins_cards_v0"):
        muggins_env.make("chess_v0")


def test_registered_in_pettingzoo_registry():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "register"):
        pytest.skip("this PettingZoo has no registry")
    e = pettingzoo.make("aec", "muggins_env/muggins_cards_v0", num_players=3)
    e.reset(seed=0)
    assert e.num_agents == 3 and e.unwrapped.metadata["name"] == "muggins_cards_v0"


def test_an_info_kept_across_steps_stays_an_ordinary_dict_of_its_own_position():
    e = raw_env(mistakes=True, readable_infos=True)
    e.reset(seed=1)
    kept = e.last()[4]
    snapshot = copy.deepcopy(kept)
    e.step(int(next(iter(kept["legal_moves"]))))
    for _ in range(5):
        mask = e.last()[4]["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))
    assert kept["phase"] == "place" and len(kept) == 4 and "view" in kept and repr(kept).startswith("{")
    assert dict(kept).keys() == snapshot.keys() and list(kept) == list(snapshot)
    assert np.array_equal(kept["action_mask"], snapshot["action_mask"])
    assert kept["legal_moves"] == snapshot["legal_moves"] and kept["view"] == snapshot["view"]
    back = pickle.loads(pickle.dumps(kept))
    assert type(back) is dict and back["legal_moves"] == kept["legal_moves"]


# -- rewards: a read-only zeros array is taken as zero by identity, nothing else is --------------------
class _PayGame(Game):
    """2 players, 6 moves in turn. Action 1 pays the mover +1 and the other -1. Quiet moves return
    the state's shared read-only zeros, except the 4th move, which returns a writable buffer that
    holds zeros then and is reused in place (filled with points) by the 5th and 6th moves."""

    FACTS = GameFacts(name="pay_v0", long_name="pay", min_players=2, max_players=2, zero_sum=True,
                      min_utility=-6, max_utility=6)
    OPTIONS: ClassVar = {}

    def __init__(self, **options):
        super().__init__(**options)
        self.num_players, self.num_actions, self.observation_size = 2, 2, 1

    def new_initial_state(self, seed=None, deal=None):
        return _PayState(self)


class _PayState(State):
    def __init__(self, game):
        self.game, self.moves = game, 0
        self._zero = np.zeros(2)
        self._zero.flags.writeable = False
        self._buf = np.zeros(2)
        self._rewards = self._returns = self._zero

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.moves % 2

    def legal_actions_mask(self):
        return np.ones(2, np.int8)

    def apply(self, action):
        a = self.check_legal(action)
        p = self.moves % 2
        self.moves += 1
        if a == 1 or self.moves == 4:
            self._buf[:] = 0.0
            if a == 1:
                self._buf[p], self._buf[1 - p] = 1.0, -1.0
            self._rewards = self._buf
        else:
            self._rewards = self._zero

    def is_terminal(self):
        return self.moves >= 6

    def observation(self, player):
        return np.zeros(1, np.float32)


class _PayEnv(KernelAECEnv):
    game_cls = _PayGame
    metadata: ClassVar = {"render_modes": ["ansi"], "name": "pay_v0", "is_parallelizable": False}


def test_step_rewards_with_shared_zeros_and_a_buffer_reused_in_place():
    e = _PayEnv()
    e.reset(seed=0)
    actions = [0, 0, 1, 0, 1, 1]  # moves 1-6 by players 0, 1, 0, 1, 0, 1
    # by hand: move 3 (player 0) +1/-1; move 4 zeros in the buffer; moves 5 and 6 fill it
    expected = [(0, 0), (0, 0), (1, -1), (0, 0), (1, -1), (-1, 1)]
    seen = []
    for a in actions:
        e.step(a)
        seen.append((e.rewards["player_0"], e.rewards["player_1"]))
    assert seen == expected
    assert e._cumulative_rewards == {"player_0": 0.0, "player_1": 1.0}  # the last mover's is cleared
