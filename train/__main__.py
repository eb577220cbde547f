"""``python -m muggins_env.train``: see ``muggins_env.train.cli``."""

from .cli import main

raise SystemExit(main())
