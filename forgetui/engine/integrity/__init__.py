"""A task left behind by a crash or by hand edits: recovering on open, and `forgetui repair`."""
