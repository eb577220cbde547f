"""Deprecated: ``muggins_env.web`` moved to ``muggins_env.play.web`` (issue 30); its modules are aliases."""

from muggins_env._moved import forward

__getattr__, __dir__ = forward("muggins_env.web", "muggins_env.play.web")
