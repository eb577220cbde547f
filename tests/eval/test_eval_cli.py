"""``muggins-eval`` as a newcomer meets it: whole agent names in its tables, help on every flag
and the zoo specs, the game and options taken from a zoo agent."""

import pytest


def test_eval_tables_show_whole_agent_names(capsys):
    from muggins_env.eval import run_tournament, summarise
    from muggins_env.eval.report import print_table

    result = run_tournament("muggins_cards_v0", {}, ["heuristic", "random"], deals=1, seed=0, workers=1,
                            progress=False)
    summary = summarise(result, n_boot=50)
    names = [f"ppo:runs/quick-michigan_v0/checkpoints/step_{k}00000.zip" for k in (1, 2, 3)]
    a, b = summary["agents"]
    summary["agents"] = [dict(a, agent=names[0]), dict(b, agent=names[1]), dict(b, agent=names[2])]
    m = summary["head_to_head"]["matrix"]
    summary["head_to_head"] = {"agents": names, "matrix": [[None, m[0][1], m[0][1]], [m[1][0], None, 0.5],
                                                           [m[1][0], 0.5, None]]}
    print_table(summary)
    out = capsys.readouterr().out
    for i, name in enumerate(names):
        assert out.count(name) == 2, (name, out)  # its row of the table and of the head-to-head
        assert f"#{i + 1} {name}" in out
    assert "…" not in out


def test_eval_help_names_zoo_specs_and_every_flag_has_help():
    from muggins_env.eval.cli import build_parser

    parser = build_parser()
    for action in parser._actions:
        assert action.help, action.option_strings
    agents = next(a for a in parser._actions if "--agents" in a.option_strings)
    assert "zoo:" in agents.help


def test_eval_takes_the_game_and_options_of_a_zoo_agent(capsys):
    from muggins_env.eval.cli import main

    assert main(["--agents", "zoo:cribbage_v0/4p", "heuristic", "--deals", "1", "--workers", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cribbage_v0 {'num_players': 4,")
    assert "zoo:cribbage_v0/4p" in out and "cribbage_v0" in out
    with pytest.raises(SystemExit) as e:
        main(["--agents", "zoo:cribbage_v0/4p", "zoo:michigan_v0", "--deals", "1"])
    assert e.value.code == 2
    assert "play different games or options" in capsys.readouterr().err
