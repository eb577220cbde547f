"""Deprecated alias: ``muggins_env.web.limits`` moved to ``muggins_env.play.web.limits`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.limits", "muggins_env.play.web.limits", __name__)
