"""Deprecated alias: ``muggins_env.demo`` moved to ``muggins_env.play.demo`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.demo", "muggins_env.play.demo", __name__)
