from forgetui.cli import main

# Guarded: the engine's child process (multiprocessing "spawn") imports this module again.
if __name__ == "__main__":
    raise SystemExit(main())
