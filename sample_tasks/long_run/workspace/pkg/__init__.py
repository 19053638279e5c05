"""A large package for the long_run sample."""
