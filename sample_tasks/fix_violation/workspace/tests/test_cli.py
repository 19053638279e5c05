import cli.commands.spec  # noqa: F401  (registers the commands)
from cli.framework import REGISTRY


def test_commands_registered() -> None:
    assert len(REGISTRY) == 40


def test_every_command_has_help() -> None:
    missing = sorted(name for name, cmd in REGISTRY.items() if not cmd.help)
    assert missing == []
