from forgetui.cli import main

raise SystemExit(main())
