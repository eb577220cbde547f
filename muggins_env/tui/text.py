"""Deprecated alias: ``muggins_env.tui.text`` moved to ``muggins_env.play.tui.text`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.tui.text", "muggins_env.play.tui.text", __name__)
