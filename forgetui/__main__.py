import os
import sys

if __name__ == "__main__":
    # `python -m forgetui` put the directory it was typed in first on the import path: in a
    # workspace, the agent's files. Off it goes before anything else is imported. (A forgetui.py
    # there, or a module runpy imports first, already ran: the `forgetui` command has neither.)
    here = os.path.realpath(os.getcwd())
    if not sys.flags.safe_path and sys.path and os.path.realpath(sys.path[0] or ".") == here:
        del sys.path[0]
    from forgetui.entry import main

    raise SystemExit(main())
