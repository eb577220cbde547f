"""Deprecated alias: ``muggins_env.web.players`` moved to ``muggins_env.play.web.players`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.players", "muggins_env.play.web.players", __name__)
