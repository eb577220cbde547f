"""Deprecated alias: ``muggins_env.tui.replay`` moved to ``muggins_env.play.tui.replay`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.tui.replay", "muggins_env.play.tui.replay", __name__)
