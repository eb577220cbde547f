"""Deprecated alias: ``muggins_env.web.thinkers`` moved to ``muggins_env.play.web.thinkers`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.thinkers", "muggins_env.play.web.thinkers", __name__)
