"""Shared fixtures. Helpers register their fixture modules in pytest_plugins."""

pytest_plugins: list[str] = ["tests.fake_openai"]
