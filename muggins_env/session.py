"""Deprecated alias: ``muggins_env.session`` moved to ``muggins_env.play.session`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.session", "muggins_env.play.session", __name__)
