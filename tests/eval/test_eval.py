"""The evaluation harness: statistics against textbook values, the duplicate schedule,
determinism by seed, outputs and the CLI's errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from muggins_env.eval import run_tournament, save_results, schedule, summarise, wilson_interval
from muggins_env.eval.cli import main as cli_main
from muggins_env.eval.cli import parse_opt
from muggins_env.eval.stats import bootstrap_ci
from muggins_env.eval.tournament import game_seed_of, seat_sides, win_shares


# -- statistics -------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, n, lo, hi", [
    (50, 100, 0.4038, 0.5962),  # the textbook example
    (0, 10, 0.0, 0.2775),  # Wilson for 0/10: z^2/(n+z^2) = 3.8415/13.8415
    (10, 10, 0.7225, 1.0),
    (81, 263, 0.2553, 0.3662),  # Newcombe (1998), example: 81/263
])
def test_wilson_interval_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-4)
    assert b == pytest.approx(hi, abs=1e-4)


def test_wilson_interval_edge_cases():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_bootstrap_two_point_sample_is_exact():
    # resampling [0, 1]: the mean is 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4,
    # so the 2.5% and 97.5% percentiles are 0 and 1
    assert bootstrap_ci([0.0, 1.0], n_boot=4000) == (0.0, 1.0)


def test_bootstrap_constant_and_normal_agreement():
    assert bootstrap_ci([3.0] * 50) == (3.0, 3.0)
    # a 0/1 sample of 400 with 200 ones: the percentile interval is close to the normal
    # one, 0.5 +- 1.96 * sqrt(0.25 / 400) = [0.451, 0.549]
    x = [1.0] * 200 + [0.0] * 200
    lo, hi = bootstrap_ci(x, n_boot=4000, seed=3)
    assert lo == pytest.approx(0.451, abs=0.01)
    assert hi == pytest.approx(0.549, abs=0.01)


def test_bootstrap_clusters_resample_whole_groups():
    # two clusters with means 0 and 1 (sizes 1 and 3): a resample holds {A,A}, {A,B}, {B,B}:
    # means 0, 3/4 and 1, so the interval is [0, 1] and never 0.5 (which unit resampling gives)
    lo, hi = bootstrap_ci([0.0, 1.0, 1.0, 1.0], clusters=[0, 1, 1, 1], n_boot=4000)
    assert (lo, hi) == (0.0, 1.0)
    lo, hi = bootstrap_ci([0.0, 1.0, 1.0, 1.0], n_boot=4000)
    assert lo > 0.0


# -- schedule ---------------------------------------------------------------------------------------
def test_schedule_two_players_alternate_seats():
    assert schedule(2, 2) == [(0, 1), (1, 0)]


def test_schedule_field_rotates_round_the_table():
    assert schedule(3, 3) == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    s = schedule(2, 4)
    assert s == [(0, 1, 0, 1), (1, 0, 1, 0)]  # partners opposite: each agent a team
    assert schedule(2, 4, "single") == [(0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1), (1, 1, 1, 0)]
    field = schedule(2, 3, "field")
    # every seat is held by each agent alone once: A B B rotated, then B A A rotated
    assert sorted(field) == sorted([(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])


def test_schedule_errors():
    with pytest.raises(ValueError, match="lineup"):
        schedule(2, 2, "round")
    with pytest.raises(ValueError, match="do not fit"):
        schedule(3, 2)


def test_win_shares_ties_and_sides():
    assert win_shares([1, -0.5, -0.5], [0, 1, 2]) == [1.0, 0.0, 0.0]
    assert win_shares([0, 0, 0], [0, 1, 2]) == [1 / 3] * 3
    assert win_shares([1, -1, 1, -1], [0, 1, 0, 1]) == [1.0, 0.0, 1.0, 0.0]
    assert win_shares([2.0, 2.0, -4.0], [0, 1, 2]) == [0.5, 0.5, 0.0]


def test_every_deal_played_by_every_seating_with_identical_cards():
    import muggins_env

    res = run_tournament("michigan_v0", {"num_players": 3, "num_hands": 1},
                         ["heuristic", "random", "random"], deals=4, seed=7, workers=1, progress=False)
    seatings = [tuple(s) for s in res.seatings]
    assert len(seatings) == 3
    by_deal: dict[int, list] = {}
    for r in res.records:
        by_deal.setdefault(r.deal, []).append(r)
    assert sorted(by_deal) == [0, 1, 2, 3]
    for recs in by_deal.values():
        assert sorted(tuple(r.seating) for r in recs) == sorted(seatings)
        assert len({r.deal_seed for r in recs}) == 1  # one deal seed per deal
    assert len({recs[0].deal_seed for recs in by_deal.values()}) == 4
    # identical cards: the env reset with the recorded deal seed deals the same hands, and so
    # does the kernel game the harness plays with that seed, whatever the seating
    seed = res.records[0].deal_seed
    env = muggins_env.make("michigan_v0", raw=True, num_players=3, num_hands=1)
    env.reset(seed=seed)
    dealt = env.full_state()["hands"]
    game = env.game
    st = game.new_initial_state(seed=game_seed_of(seed))
    assert st.full_state()["hands"] == dealt


def test_determinism_by_seed_and_worker_count():
    kw = {"game_id": "michigan_v0", "options": {"num_players": 3, "num_hands": 1},
              "agents": ["heuristic", "random"], "deals": 6, "progress": False}
    a = run_tournament(seed=3, workers=1, **kw)
    b = run_tournament(seed=3, workers=2, **kw)
    c = run_tournament(seed=4, workers=1, **kw)
    key = [(r.deal, r.seating, r.returns, r.scores) for r in a.records]
    assert key == [(r.deal, r.seating, r.returns, r.scores) for r in b.records]
    assert key != [(r.deal, r.seating, r.returns, r.scores) for r in c.records]
    sa, sb = summarise(a), summarise(b)
    for x, y in zip(sa["agents"], sb["agents"]):
        assert x["win_rate"] == y["win_rate"] and x["mean_return_ci95"] == y["mean_return_ci95"]
        assert x["rating_mu"] == y["rating_mu"]


def test_summary_counts_and_outputs(tmp_path):
    res = run_tournament("michigan_v0", {"num_players": 4, "num_hands": 1}, ["heuristic", "random"],
                         deals=5, seed=1, workers=1, progress=False)
    s = summarise(res, n_boot=200)
    assert s["games"] == 5 * 2  # A B A B and B A B A
    for a in s["agents"]:
        assert a["seat_games"] == 5 * 2 * 2
        lo, hi = a["win_rate_ci95"]
        assert lo <= a["win_rate"] <= hi
        assert a["parity"] == 0.25
    # win shares of one game sum to 1 over the seats
    assert all(abs(sum(r.win_share) - 1) < 1e-9 for r in res.records)
    # returns are the chip balances (zero-sum)
    assert abs(s["agents"][0]["mean_return"] + s["agents"][1]["mean_return"]) < 1e-9
    h = s["head_to_head"]["matrix"]
    assert h[0][0] is None and abs(h[0][1] + h[1][0] - 1) < 1e-9
    paths = save_results(res, s, tmp_path)
    names = {p.name for p in paths}
    assert {"results.json", "summary.csv", "games.csv", "h2h.csv", "win_rates.png"} <= names
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["games"]) == 10 and data["summary"]["agents"][1]["agent"] == "random"
    assert (tmp_path / "win_rates.png").read_bytes()[:4] == b"\x89PNG"


def test_seat_sides_partnerships():
    from muggins_env.agents import make_game

    assert seat_sides(make_game("michigan_v0", {"num_players": 4})) == [0, 1, 2, 3]


# -- CLI ------------------------------------------------------------------------------------------------
def test_cli_runs_and_writes(tmp_path, capsys):
    rc = cli_main(["--game", "michigan_v0", "--opt", "num_players=3", "--opt", "num_hands=1",
                   "--agents", "heuristic", "random", "--deals", "3", "--seed", "2", "--workers", "1",
                   "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    assert (tmp_path / "summary.csv").exists()
    assert "heuristic" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--game", "chess_v0", "--agents", "random"], "unknown env 'chess_v0'"),
    (["--game", "michigan_v0", "--agents", "heuristik"], "unknown agent spec 'heuristik'"),
    (["--game", "michigan_v0", "--opt", "num_players=12", "--agents", "random"], "num_players=12"),
    (["--game", "michigan_v0", "--opt", "colour=red", "--agents", "random"], "unknown option(s) 'colour'"),
    (["--game", "michigan_v0", "--agents", "search:zero"], "search:N"),
])
def test_cli_clear_errors(argv, message, capsys):
    assert cli_main(argv + ["--deals", "1", "--no-progress"]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("flag, value, message", [
    ("--deals", "0", "deals=0 must be an int >= 1"),
    ("--deals", "-3", "deals=-3 must be an int >= 1"),
    ("--workers", "0", "workers=0 must be an int >= 1"),
])
def test_cli_zero_is_an_error_not_the_default(flag, value, message, capsys):
    """An explicit 0 must not silently fall back to the default (100 deals, all cores)."""
    argv = ["--game", "michigan_v0", "--agents", "random", "--no-progress", "--deals", "1", flag, value]
    assert cli_main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    (None, "cannot read config"),
    ("[1, 2", "is not valid YAML"),
    ("just a string", "must be a mapping with keys game, options"),
    ("game: michigan_v0\ncolour: red\n", "unknown key(s) colour"),
    ("game: michigan_v0\nagents: random\n", "agents must be a list of agent specs"),
    ("game: michigan_v0\nagents: [random]\noptions: [3]\n", "options must be a mapping"),
])
def test_cli_bad_preset_file_is_a_clear_error(tmp_path, text, message, capsys):
    path = tmp_path / "preset.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["--config", str(path), "--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_parse_opt_values():
    assert parse_opt("num_players=3") == ("num_players", 3)
    assert parse_opt("muggins=off") == ("muggins", "off")
    assert parse_opt("mistakes=true") == ("mistakes", True)
    with pytest.raises(ValueError):
        parse_opt("num_players")


def test_numpy_interval_types():
    lo, hi = wilson_interval(np.float64(3), 10)
    assert isinstance(lo, float) and 0 < lo < 0.3 < hi


def test_duplicate_interval_uses_the_deal_structure():
    """Agent A wins exactly one of the two seatings of every deal: each deal's mean is 1/2, so
    the deal-resampling interval is exactly [0.5, 0.5], while Wilson (games as independent)
    for 100 of 200 is [0.4314, 0.5686]."""
    from muggins_env.eval.tournament import GameRecord, TournamentResult

    res = TournamentResult(game_id="toy", options={}, agents=["A", "B"], specs=["A", "B"], deals=100, seed=0,
                           lineup="cycle", seatings=[[0, 1], [1, 0]], num_players=2, sides=[0, 1])
    for d in range(100):
        winner_seat = d % 2  # the same seat wins both seatings: A wins one of them
        for si, seating in enumerate(([0, 1], [1, 0])):
            ret = [1.0, -1.0] if winner_seat == 0 else [-1.0, 1.0]
            res.records.append(GameRecord(deal=d, deal_seed=d, seating_index=si, seating=seating, returns=ret,
                                          scores=ret, win_share=[max(r, 0.0) for r in ret], decisions=1,
                                          plies=1, truncated=False, seconds=0.0))
    a = summarise(res, n_boot=300)["agents"][0]
    assert a["win_rate"] == 0.5
    assert a["win_rate_dup_ci95"] == [0.5, 0.5]
    assert a["win_rate_ci95"] == pytest.approx([0.4314, 0.5686], abs=1e-4)


def _toy_partnership_result(a_wins: int, deals: int = 50):
    """Two agents as teams of two (A B A B and B A B A), A's team winning ``a_wins`` games."""
    from muggins_env.eval.tournament import GameRecord, TournamentResult

    res = TournamentResult(game_id="toy", options={}, agents=["A", "B"], specs=["A", "B"], deals=deals, seed=0,
                           lineup="cycle", seatings=[[0, 1, 0, 1], [1, 0, 1, 0]], num_players=4,
                           sides=[0, 1, 0, 1])
    g = 0
    for d in range(deals):
        for si, seating in enumerate(res.seatings):
            a_won = g < a_wins
            ret = [1.0 if (seating[s] == 0) == a_won else -1.0 for s in range(4)]
            res.records.append(GameRecord(deal=d, deal_seed=d, seating_index=si, seating=seating, returns=ret,
                                          scores=ret, win_share=[max(r, 0.0) for r in ret], decisions=1,
                                          plies=1, truncated=False, seconds=0.0))
            g += 1
    return res


def test_partners_are_one_sample_a_game_not_two():
    """A team of two shares one result: Wilson counts games (30 of 100: the textbook
    [0.2189, 0.3958]), not seats (60 of 200 would give the narrower [0.2407, 0.3668])."""
    a = summarise(_toy_partnership_result(30), n_boot=200)["agents"][0]
    assert a["seat_games"] == 200 and a["samples"] == 100
    assert a["win_rate"] == pytest.approx(0.30)
    assert a["win_rate_ci95"] == pytest.approx([0.2189, 0.3958], abs=1e-4)


def test_partnership_tournament_counts_games():
    res = run_tournament("cribbage_v0", {"num_players": 4}, ["random", "random"], deals=2, seed=3, workers=1,
                         progress=False)
    for a in summarise(res, n_boot=50)["agents"]:
        assert a["samples"] == len(res.records) == 4 and a["seat_games"] == 8


# -- pooling runs ---------------------------------------------------------------------------------------
def _saved_run(tmp_path, name, seed, agents=("heuristic", "random")):
    out = tmp_path / name
    rc = cli_main(["--game", "michigan_v0", "--opt", "num_players=3", "--opt", "num_hands=1", "--agents", *agents,
                   "--deals", "3", "--seed", str(seed), "--workers", "1", "--out", str(out), "--no-progress",
                   "--no-plot"])
    assert rc == 0
    return out


def test_merge_pools_runs_into_one_report(tmp_path, capsys):
    a, b = _saved_run(tmp_path, "a", 1), _saved_run(tmp_path, "b", 2)
    capsys.readouterr()
    assert cli_main(["--merge", str(a), str(b), "--out", str(tmp_path / "pooled"), "--no-plot"]) == 0
    assert "pooled 2 runs: 6 deals" in capsys.readouterr().out
    runs = [json.loads((d / "results.json").read_text()) for d in (a, b)]
    pooled = json.loads((tmp_path / "pooled" / "results.json").read_text())
    # every game of both runs, once, deals renumbered so the two runs' deals stay apart
    assert len(pooled["games"]) == sum(len(r["games"]) for r in runs)
    assert sorted({g["deal"] for g in pooled["games"]}) == list(range(6))
    assert sorted(g["deal_seed"] for g in pooled["games"]) == sorted(g["deal_seed"] for r in runs
                                                                     for g in r["games"])
    for i in range(2):  # wins and samples add up over the runs
        assert pooled["summary"]["agents"][i]["wins"] == pytest.approx(sum(r["summary"]["agents"][i]["wins"]
                                                                           for r in runs))
        assert pooled["summary"]["agents"][i]["samples"] == sum(r["summary"]["agents"][i]["samples"] for r in runs)
    assert [m["seed"] for m in pooled["summary"]["merged_from"]] == [1, 2]


def test_merge_clear_errors(tmp_path, capsys):
    a = _saved_run(tmp_path, "a", 1)
    other = _saved_run(tmp_path, "other", 2, agents=("random", "heuristic"))
    capsys.readouterr()
    assert cli_main(["--merge", str(a), str(a)]) == 2
    assert "both have seed 1" in capsys.readouterr().err
    assert cli_main(["--merge", str(a), str(other)]) == 2
    assert "different agent specs" in capsys.readouterr().err
    assert cli_main(["--merge", str(a), str(tmp_path / "missing")]) == 2
    assert "cannot read tournament results" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("{}")
    assert cli_main(["--merge", str(tmp_path / "junk.json")]) == 2
    assert "not a results.json written by muggins-eval" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["--merge", str(a), "--game", "michigan_v0"])
    assert "plays nothing; drop --game" in capsys.readouterr().err
