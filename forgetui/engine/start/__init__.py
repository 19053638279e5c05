"""Laying a task out: `forgetui new` in a workspace, bundled samples and their run copies, the
checks run as step 0."""
