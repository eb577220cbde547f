"""Deprecated alias: ``muggins_env.web.tables`` moved to ``muggins_env.play.web.tables`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.tables", "muggins_env.play.web.tables", __name__)
