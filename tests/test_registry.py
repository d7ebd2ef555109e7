from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from wirelab.errors import UsageError
from wirelab.registry import Registry


def test_add_get_names_and_lazy_entries() -> None:
    reg = Registry[object]("widget")
    reg.add("a", 1, "first")
    reg.add("path", "pathlib:Path", "lazy")
    assert reg.names() == ("a", "path") and "a" in reg and len(reg) == 2
    assert reg.get("a") == 1
    from pathlib import Path

    assert reg.get("path") is Path
    assert reg.describe() == [("a", "first"), ("path", "lazy")]
    with pytest.raises(ValueError):
        reg.add("a", 2)
    with pytest.raises(UsageError, match="choose one of: a, path"):
        reg.get("nope")


def test_choice_reads_the_registry_at_parse_time() -> None:
    reg = Registry[int]("colour")
    reg.add("red", 1)

    @click.command()
    @click.option("--colour", type=reg.choice(), default="red")
    def cmd(colour: str) -> None:
        click.echo(reg.get(colour))

    runner = CliRunner()
    assert runner.invoke(cmd, ["--colour", "blue"]).exit_code == 2
    reg.add("blue", 2)  # registered after the command was built
    r = runner.invoke(cmd, ["--colour", "blue"])
    assert r.exit_code == 0 and r.output.strip() == "2"
