"""``python -m muggins_env.train``: see ``muggins_env.train.cli``."""

from muggins_env.train.cli import main

raise SystemExit(main())
