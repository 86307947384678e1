from ramp.cli import main

raise SystemExit(main())
