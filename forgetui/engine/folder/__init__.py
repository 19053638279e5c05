"""The task folder's files and the rules that keep them whole: task.yaml, state.yaml, working
memory, the action log, checkpoints, the seal, the lock."""
