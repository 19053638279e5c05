"""Screens pushed over the workbench; each dismisses with its result."""
