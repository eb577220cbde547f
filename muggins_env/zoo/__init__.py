"""Deprecated alias: ``muggins_env.zoo`` moved to ``muggins_env.agents.zoo`` (issue 30)."""

from muggins_env._moved import alias

alias("muggins_env.zoo", "muggins_env.agents.zoo", __name__)
