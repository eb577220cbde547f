"""SeatEnv and BatchedSeatVecEnv: the learner's reward accounting (every point paid between
its decisions and the final outcome reach its transitions, nothing twice), masks on the env,
seats, opponents, auto-reset and SB3 compatibility."""

from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.kernel.game import TERMINAL, Game, GameFacts, IllegalActionError, State
from muggins_env.kernel.options import Option
from muggins_env.kernel.rewards import win_loss_rewards
from muggins_env.wrappers import BatchedSeatVecEnv, SeatEnv, UniformRandomAgent, fixed_opponents


# -- a toy kernel game whose every step pays points to OTHER players ------------------------------
class ToyGame(Game):
    """3 players, 2 rounds, seat 0 first. Action a in {0, 1, 2}: the mover's left neighbour
    gains a points and, when a == 2, the seat after it loses 1. Seat 1's first move is forced
    (only action 2). After the last move the highest total wins: win_loss_rewards (+1, -0.5)."""

    FACTS = GameFacts(name="toy_v0", long_name="toy", min_players=3, max_players=3, zero_sum=False,
                      min_utility=-10, max_utility=10)
    OPTIONS: ClassVar = {"rounds": Option(2, allowed=(1, 2, 3))}

    def __init__(self, **options):
        super().__init__(**options)
        self.num_players, self.num_actions, self.observation_size = 3, 3, 4

    def new_initial_state(self, seed=None, deal=None):
        return ToyState(self, seed)


class ToyState(State):
    def __init__(self, game, seed):
        self.game, self.rng = game, np.random.default_rng(seed)
        self.moves, self.total = 0, 3 * game.options["rounds"]
        self._r, self._ret = np.zeros(3), np.zeros(3)

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.moves % 3

    def legal_actions_mask(self):
        m = np.zeros(3, np.int8)
        if self.moves == 1:
            m[2] = 1
        elif not self.is_terminal():
            m[:] = 1
        return m

    def apply(self, action):
        a = self.check_legal(action)
        p = self.moves % 3
        r = np.zeros(3)
        r[(p + 1) % 3] += a
        if a == 2:
            r[(p + 2) % 3] -= 1
        self.moves += 1
        if self.is_terminal():
            totals = self._ret + r
            r = r + win_loss_rewards(3, [int(np.argmax(totals))])
        self._r = r
        self._ret = self._ret + r

    def is_terminal(self):
        return self.moves >= self.total

    def rewards(self):
        return self._r.copy()

    def returns(self):
        return self._ret.copy()

    def observation(self, player):
        return np.array([self.moves / self.total, player / 2, 0, 1], np.float32)


class Always:
    needs_info = False

    def __init__(self, a):
        self.a = a

    def act(self, observation, action_mask, rng, info=None):
        return self.a if action_mask[self.a] else int(np.flatnonzero(action_mask)[0])


def toy_env(seat, opp=2, **kw):
    return SeatEnv(ToyGame(), seat=seat, opponents=fixed_opponents(Always(opp)), **kw)


def play(env, action=0):
    rewards = []
    env.reset(seed=0)
    done = False
    while not done:
        _, r, term, trunc, info = env.step(action)
        rewards.append(r)
        done = term or trunc
    return rewards, info


def test_opponent_points_between_turns_and_final_loss_reach_learner_seat0():
    # Hand computation (see ToyGame): opponents play 2, the learner (seat 0) plays 0.
    # Round 1: p0 0: -, p1 2: seat0 -1, p2 2: seat0 +2            -> step 1 = +1
    # Round 2: p0 0: -, p1 2: seat0 -1, p2 2: seat0 +2, end: totals 2, -2, 4: seat 2 wins,
    #          seat 0 gets -0.5                                  -> step 2 = +0.5
    rewards, info = play(toy_env(0))
    assert rewards == [1.0, 0.5]
    assert info["returns"][0] == pytest.approx(1.5)  # nothing lost, nothing counted twice


def test_points_before_first_decision_go_to_first_step_seat2():
    # Learner seat 2. Before its first decision: p0 2: seat2 -1, p1 2: seat2 +2 (pending +1).
    # Step 1: it plays 0, then p0 2: -1, p1 2: +2 -> 1 + 1 = 2.
    # Step 2: it plays 0, the game ends: totals -2, 4, 2: seat 1 wins, seat 2 -0.5 -> -0.5.
    rewards, info = play(toy_env(2))
    assert rewards == [2.0, -0.5]
    assert sum(rewards) == pytest.approx(info["returns"][2])


def test_forced_learner_move_is_skipped_and_its_reward_kept():
    # Learner seat 1; its first move is forced (skip_forced). p0 2: +2; p1 forced 2: 0;
    # p2 2: -1; p0 2: +2; then its only real decision (plays 0); p2 2: -1; end: totals
    # 3, 2, 0: seat 0 wins, seat 1 -0.5. One step worth 2 + 0 - 1 + 2 + 0 - 1 - 0.5 = 1.5.
    env = toy_env(1)
    rewards, info = play(env)
    assert rewards == [1.5]
    assert info["episode_decisions"] == 1
    # without skip_forced the forced move is a decision: same total, split over two steps
    rewards, info = play(toy_env(1, skip_forced=False), action=2)
    assert len(rewards) == 2
    assert sum(rewards) == pytest.approx(info["returns"][1])


def test_mask_lives_on_env_and_is_exactly_legal():
    env = toy_env(1, skip_forced=False, illegal="raise")
    env.reset(seed=0)
    # the learner (seat 1) decides first at move 1, where only action 2 is legal
    assert env.action_masks().tolist() == [False, False, True]
    with pytest.raises(ValueError, match="illegal action 0"):
        env.step(0)


def test_decisionless_episodes_skipped_in_training_kept_in_evaluation():
    # rounds=1 and learner seat 1: its only move is forced, so it never decides
    env = SeatEnv(ToyGame(rounds=1), seat=1, opponents=fixed_opponents(Always(2)))
    with pytest.raises(RuntimeError, match="before the learner"):  # never a decision: no endless loop
        env.reset(seed=0)
    assert env.skipped_episodes == 1000
    env = SeatEnv(ToyGame(rounds=1), seat=1, opponents=fixed_opponents(Always(2)), skip_decisionless=False)
    env.reset(seed=0)
    # p0 2: seat1 +2; p1 forced 2: 0; p2 2: seat1 -1; totals -1, 1, 2 -> seat 2 wins: -0.5
    assert env.state.is_terminal()
    assert env.pending_reward == pytest.approx(0.5)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), seat=st.sampled_from([None, 0, 1, 2, 3]))
def test_muggins_cards_step_rewards_sum_to_learner_return(seed, seat):
    env = SeatEnv("muggins_cards_v0", {"num_players": 4, "max_turns": 60}, seat=seat, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        obs, info = env.reset()
        assert env.observation_space.contains(obs)
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            assert mask.sum() >= 2  # skip_forced: only real choices reach the learner
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += r
            done = term or trunc
        assert total == pytest.approx(env.state.returns()[info["seat"]])
        assert total == pytest.approx(env.episode_return)
        assert env.action_masks().all() and not env.legal_mask().any()  # over: any action (it only resets a vector env)


def test_agents_without_needs_observation_get_none_and_illegal_moves_raise():
    seen = []

    class Blind(UniformRandomAgent):  # needs_observation = False (inherited)
        def act(self, observation, action_mask, rng, info=None):
            seen.append(observation)
            return super().act(observation, action_mask, rng, info)

    env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=0, opponents=Blind(), seed=1)
    env.reset()
    while not seen:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert all(o is None for o in seen)

    class Cheat(UniformRandomAgent):
        def act(self, observation, action_mask, rng, info=None):
            return int(np.flatnonzero(action_mask == 0)[0])  # always an illegal move

    env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=0, opponents=Cheat(), seed=1,
                  skip_forced=False)
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.reset()  # the first opponent's move (before the learner's first decision) raises
        for _ in range(50):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(IllegalActionError, match="illegal action"):
        env2 = SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=0, seed=1, illegal="raise")
        env2.reset()
        env2.step(int(np.flatnonzero(env2.action_masks() == 0)[0]))


def test_seat_random_and_fixed_and_bad_seat():
    env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seed=3)
    seats = {env.reset()[1]["seat"] for _ in range(40)}
    assert seats == {0, 1, 2, 3}
    env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=2, seed=3)
    assert {env.reset()[1]["seat"] for _ in range(10)} == {2}
    with pytest.raises(ValueError, match="seat=4"):
        SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=4)
    with pytest.raises(ValueError, match="opponents"):
        SeatEnv("muggins_cards_v0", {"num_players": 4}, opponents=42)


def test_opponents_act_on_their_own_observation_and_mask():
    seen = []

    class Spy(UniformRandomAgent):
        needs_info = True
        needs_observation = True

        def act(self, observation, action_mask, rng, info=None):
            seen.append((observation.copy(), action_mask.copy(), info))
            return super().act(observation, action_mask, rng, info)

    env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seat=0, opponents=Spy(), seed=1)
    env.reset()
    for _ in range(5):
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            env.reset()
    assert seen, "opponents were asked to act"
    for obs, mask, info in seen:
        assert obs.shape == (env.game.observation_size,) and mask.sum() >= 2 and isinstance(info, dict)


def test_same_seed_same_episode():
    def run():
        env = SeatEnv("muggins_cards_v0", {"num_players": 4}, seed=11)
        out = []
        for _ in range(3):
            obs, _ = env.reset()
            done = False
            while not done:
                obs, r, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
                out.append((obs.tobytes(), r))
                done = term or trunc
        return out

    assert run() == run()


def test_batched_vec_env_autoreset_masks_and_episode_info():
    v = BatchedSeatVecEnv(make_env=lambda i: toy_env(0), num_envs=3)
    obs = v.reset()
    assert obs.shape == (3, 4) and v.action_masks().shape == (3, 3)
    _, r, d, infos = v.step(np.zeros(3, int))
    assert r.tolist() == [1.0, 1.0, 1.0] and not d.any()
    _, r, d, infos = v.step(np.zeros(3, int))
    assert r.tolist() == [0.5, 0.5, 0.5] and d.all()
    for info in infos:
        assert info["episode"] == {"r": 1.5, "l": 2}
        assert info["terminal_observation"][0] == 1.0  # moves/total at the end
    assert v.action_masks().all()  # reset at once: a fresh decision, all legal
    assert v.env_method("action_masks") and len(v.get_attr("learner")) == 3


def test_subproc_vec_env_finds_masks_on_the_env():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def make(i):
        return lambda: SeatEnv("muggins_cards_v0", {"num_players": 4}, seed=i)

    v = SubprocVecEnv([make(0), make(1)], start_method="fork")
    try:
        v.reset()
        masks = np.stack(v.env_method("action_masks"))
        assert masks.shape == (2, 13) and (masks.sum(axis=1) >= 2).all()
    finally:
        v.close()

