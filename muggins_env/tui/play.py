"""Deprecated alias: ``muggins_env.tui.play`` moved to ``muggins_env.play.tui.play`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.tui.play", "muggins_env.play.tui.play", __name__)
