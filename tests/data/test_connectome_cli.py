"""``wirelab connectome`` lives in the data package; its option defaults are `PathsConfig`'s."""

from __future__ import annotations

from dataclasses import asdict

import click

from wirelab.cli import GROUPS
from wirelab.data.connectome_cli import group, paths_cmd
from wirelab.reservoir.diagnostics import PathsConfig

CLI_TO_FIELD = {"norm": "normalize", "out": None, "overwrite": None}


def test_the_connectome_command_is_registered_from_the_data_package() -> None:
    assert GROUPS["connectome"][:2] == ("wirelab.data.connectome_cli", "group")
    assert isinstance(group, click.Group) and "paths" in group.commands


def test_every_paths_default_is_the_configs() -> None:
    defaults = asdict(PathsConfig())
    seen = set()
    for param in paths_cmd.params:
        assert param.name is not None
        field = CLI_TO_FIELD.get(param.name, param.name)
        if field is None:
            continue
        seen.add(field)
        value = param.default
        if field == "populations":
            value = str(value).split(",")
        assert value == defaults[field], field
    assert seen == set(defaults)
