"""Deprecated alias: ``muggins_env.web.guard`` moved to ``muggins_env.play.web.guard`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.guard", "muggins_env.play.web.guard", __name__)
