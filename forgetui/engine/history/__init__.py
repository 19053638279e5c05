"""A task's past: rewind and fork, restoring workspace files, re-running a step, export to replay,
token stats, context diffs."""
