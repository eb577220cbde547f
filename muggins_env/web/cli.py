"""Deprecated alias: ``muggins_env.web.cli`` moved to ``muggins_env.play.web.cli`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.cli", "muggins_env.play.web.cli", __name__)
