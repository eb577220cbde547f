"""Playing the games: one game session of humans and agents and its two faces.

``session.py`` (``GameSession``, the engine of every face), ``tui/`` (the terminal:
``muggins-play``, ``muggins-replay``), ``web/`` (the browser: ``muggins-serve``) and ``demo.py``
(``muggins-demo`` / ``make play``). Installed as ``muggins_env.play`` (setup.py ``ROOTS``): it
sits above the agents (a session seats them) and below nothing but eval (``muggins-eval
--save-games`` replays games through a session); the core never imports it.
"""
