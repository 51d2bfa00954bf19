from mcpdelta.cli import main

raise SystemExit(main())
