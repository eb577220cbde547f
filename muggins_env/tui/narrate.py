"""Deprecated alias: ``muggins_env.tui.narrate`` moved to ``muggins_env.play.tui.narrate`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.tui.narrate", "muggins_env.play.tui.narrate", __name__)
