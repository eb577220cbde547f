"""Deprecated alias: ``muggins_env.web.app`` moved to ``muggins_env.play.web.app`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.app", "muggins_env.play.web.app", __name__)
