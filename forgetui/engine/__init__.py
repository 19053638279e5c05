"""The UI-free core: task folder, context compiler, step executor. Never imports textual."""
