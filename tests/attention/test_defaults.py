"""One set of defaults for `wirelab.attention`: every option default of every ``wirelab
attention`` command is its experiment config's field default, every config field with an option
is covered, and a command given no options makes the config a Python user gets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from wirelab.attention.cli import group
from wirelab.attention.experiments import complexity, pooling, positional, translate
from wirelab.attention.experiments.complexity import ComplexityConfig
from wirelab.attention.experiments.pooling import PoolingConfig
from wirelab.attention.experiments.positional import PositionalConfig
from wirelab.attention.experiments.translate import TranslateConfig

NOT_SETTINGS = {"out", "overwrite"}


def _same(config: type, *python_only: str) -> dict[str, str]:
    """Option name = field name for every field but ``python_only``."""
    return {f.name: f.name for f in fields(config) if f.name not in python_only}


# command -> (config class, option -> field, option -> how the command turns the option's value
# into the field's, the fields with no option: Python-only settings)
COMMANDS: dict[str, tuple[type, dict[str, str], dict[str, Callable[[Any], Any]], set[str]]] = {
    "pooling": (
        PoolingConfig,
        {**_same(PoolingConfig, "methods", "hidden", "lr", "progress"), "quiet": "progress"},
        {"seeds": lambda n: tuple(range(n)), "quiet": lambda q: not q},
        {"methods", "hidden", "lr"},
    ),
    "translate": (
        TranslateConfig,
        {**_same(TranslateConfig, "lr", "progress"), "quiet": "progress"},
        {"quiet": lambda q: not q},
        {"lr"},
    ),
    "complexity": (
        ComplexityConfig,
        {**_same(ComplexityConfig, "seed", "progress"), "quiet": "progress"},
        {"quiet": lambda q: not q},
        {"seed"},
    ),
    "positional": (
        PositionalConfig,
        _same(PositionalConfig, "offsets", "rope_head_dim", "rope_trials", "seed", "threads"),
        {},
        # offsets: the config's, those shorter than --length
        {"offsets", "rope_head_dim", "rope_trials", "seed", "threads"},
    ),
}


def _cli_defaults(cmd: click.Command) -> dict[str, Any]:
    """Each parameter's default as the command receives it (type and callback applied)."""
    ctx = click.Context(cmd)
    return {str(p.name): p.process_value(ctx, p.get_default(ctx)) for p in cmd.params}


def test_every_attention_command_is_checked() -> None:
    assert set(group.commands) == set(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_default_is_the_config_field_default(name: str) -> None:
    config, paths, convert, python_only = COMMANDS[name]
    cmd = group.commands[name]
    cli = _cli_defaults(cmd)
    given = set()
    for param in cmd.params:
        assert param.name is not None
        if param.name in NOT_SETTINGS:
            continue
        assert param.name in paths, f"{name} --{param.name}: which {config.__name__} field?"
        value = convert.get(param.name, lambda v: v)(cli[param.name])
        assert value == getattr(config(), paths[param.name]), f"{name} --{param.name}"
        given.add(paths[param.name])
    assert given == set(paths.values())
    assert given | python_only == {f.name for f in fields(config)}
    assert not given & python_only


@pytest.mark.parametrize(
    ("name", "module", "want"),
    [
        ("pooling", pooling, PoolingConfig()),
        ("translate", translate, TranslateConfig()),
        ("complexity", complexity, ComplexityConfig()),
        ("positional", positional, PositionalConfig()),
    ],
)
def test_a_command_without_options_runs_the_python_default_config(
    name: str, module: Any, want: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = []

    def fake_run(config: Any, out: Path, **kw: Any) -> None:
        seen.append(config)
        raise SystemExit(0)  # stop before the summary (no metrics to print)

    monkeypatch.setattr(module, "run", fake_run)
    result = CliRunner().invoke(group.commands[name], ["--out", str(tmp_path / name)])
    assert seen, result.output
    assert seen[0] == want
