"""Verification: running a task's checks against the workspace, shared by the step, the
actions that run tests and the checks a new task runs as step 0."""
