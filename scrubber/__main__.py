from scrubber.cli import main

raise SystemExit(main())
