"""Deprecated: ``muggins_env.tui`` moved to ``muggins_env.play.tui`` (issue 30); its modules are aliases."""

from muggins_env._moved import forward

__getattr__, __dir__ = forward("muggins_env.tui", "muggins_env.play.tui")
