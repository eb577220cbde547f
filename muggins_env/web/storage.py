"""Deprecated alias: ``muggins_env.web.storage`` moved to ``muggins_env.play.web.storage`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.web.storage", "muggins_env.play.web.storage", __name__)
