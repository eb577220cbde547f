from muggins_env.eval.cli import main

raise SystemExit(main())
