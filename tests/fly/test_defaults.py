"""One set of defaults for `wirelab.fly`: every option default of every ``wirelab fly`` command
is its experiment config's field default, every config field with an option is covered, and a
command given no options makes the config a Python user gets from the dataclass."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from wirelab.fly.bodies import calibration, timestep
from wirelab.fly.bodies.calibration import DEFAULT_GRID, CalibrateConfig, parse_grid
from wirelab.fly.bodies.cli import calibrate_cmd, timestep_cmd
from wirelab.fly.bodies.timestep import TimestepConfig
from wirelab.fly.choice import study as choice_study
from wirelab.fly.choice.cli import choice_cmd
from wirelab.fly.choice.study import ChoiceStudyConfig
from wirelab.fly.cli import group
from wirelab.fly.mapping import EVOKED_GAIN, FixedMapping, default_mapping
from wirelab.fly.options import MAPPING_GAINS, defaults_of
from wirelab.fly.stimulation import lateralization, stimulate
from wirelab.fly.stimulation.cli import lateralization_cmd, stimulate_cmd
from wirelab.fly.stimulation.lateralization import LateralizationConfig
from wirelab.fly.stimulation.stimulate import StimulateConfig
from wirelab.fly.taxis import study as taxis_study
from wirelab.fly.taxis.cli import taxis_cmd
from wirelab.fly.taxis.study import TaxisStudyConfig
from wirelab.fly.turns import study as turns_study
from wirelab.fly.turns.cli import turns_cmd
from wirelab.fly.turns.study import TurnsConfig

NOT_SETTINGS = {"out", "overwrite", "resume"}  # where and how to write, not the experiment
EXECUTOR = {"workers": "workers", "backend": "backend", "address": "address"}
CONTROLLER = {
    "modality": "controller.modality",
    "alpha": "controller.alpha",
    "leak": "controller.leak",
    "input_gain": "controller.input_gain",
    "readout": "controller.readout",
    "update_steps": "controller.update_steps",
}
MAPPING = {
    "mapping": "mapping.response",
    "sides": "mapping.kind",
    "baseline": "mapping.baseline",
    "gain": "mapping.gain",
    "offset": "mapping.offset",
}


def _same(*names: str) -> dict[str, str]:
    return {n: n for n in names}


def _tuple(text: str) -> tuple[str, ...]:
    return tuple(t for t in text.split(",") if t)


# command -> (config class, option -> config field path, option -> how the command turns the
# option's value into the field's, the config fields with no option: Python-only settings)
COMMANDS: dict[str, tuple[type, dict[str, str], dict[str, Callable[..., Any]], set[str]]] = {
    "stimulate": (
        StimulateConfig,
        {
            **_same("side", "duration", "body", "video", "viewer", "compare", "timestep"),
            **_same("seed", "connectome"),
            "normalize": "controller.normalize",
            **CONTROLLER,
            **MAPPING,
        },
        {"gain": lambda v, kw: MAPPING_GAINS[kw["mapping"]] if v is None else v},
        set(),
    ),
    "lateralization": (
        LateralizationConfig,
        {
            **_same("modalities", "gains", "boot", "steps", "seed", "connectome"),
            "normalize": "normalizations",
            "n_nulls": "nulls",
            **EXECUTOR,
        },
        {
            "modalities": lambda v, kw: _tuple(v),
            "gains": lambda v, kw: tuple(float(g) for g in _tuple(v)),
            "normalize": lambda v, kw: ("row", "spectral") if v == "both" else (v,),
        },
        set(),
    ),
    "turns": (
        TurnsConfig,
        {
            **_same("seeds", "models", "nulls", "null_family", "null_seed", "null_seeds"),
            **_same("settle", "duration", "body"),
            **_same("timestep", "video", "frame_every", "frame_size", "connectome"),
            **CONTROLLER,
            **MAPPING,
            **EXECUTOR,
        },
        {
            "models": lambda v, kw: _tuple(v),
            "null_family": lambda v, kw: _tuple(v),
            "frame_size": lambda v, kw: (v, v),
            "gain": lambda v, kw: MAPPING_GAINS[kw["mapping"]] if v is None else v,
        },
        {"controller.normalize"},  # the models (--models row,spectral) choose it
    ),
    "taxis": (
        TaxisStudyConfig,
        {
            **{
                k: f"taxis.{k}"
                for k in ("trials", "train_trials", "time_limit", "arena_radius", "encoding")
            },
            "input_gain": "taxis.input_gain",
            "seed": "taxis.seed",
            **_same("body", "mirror", "video", "timestep", "baseline_trials", "connectome"),
            "n_nulls": "nulls",
            "normalize": "controller.normalize",
            "readout": "controller.readout",
            "update_steps": "controller.update_steps",
            **EXECUTOR,
        },
        {},
        {
            # the olfactory controller and the task's arena, teacher and sensing constants
            "controller.modality",
            "controller.alpha",
            "controller.leak",
            "controller.input_gain",
            *(
                f"taxis.{k}"
                for k in (
                    "radius",
                    "start_distance",
                    "source_height",
                    "log_i0",
                    "teacher_k",
                    "teacher_c",
                    "explore_sigma",
                    "explore_tau",
                    "heading_noise",
                    "body_dt",
                )
            ),
        },
    ),
    "choice": (
        ChoiceStudyConfig,
        {
            **{
                k: f"task.{k}"
                for k in ("trials", "train_trials", "time_limit", "arena_radius", "encoding")
            },
            **{k: f"task.{k}" for k in ("input_gain", "seed")},
            **{
                k: f"network.{k}"
                for k in ("attractive_class", "aversive_class", "readout", "response")
            },
            **{k: f"network.{k}" for k in ("normalize", "gains", "update_steps")},
            **_same("gain", "null_family", "null_seed", "controls", "connectome"),
            **_same("body", "timestep", "video"),
            "n_nulls": "nulls",
            **EXECUTOR,
        },
        {"gains": lambda v, kw: tuple(float(g) for g in _tuple(v))},
        {
            # the units and the task's geometry, teacher and sensing constants
            "network.leak",
            "network.input_scaling",
            *(
                f"task.{k}"
                for k in (
                    "radius",
                    "contact_radius",
                    "start_distance",
                    "half_angle_deg",
                    "heading_jitter_deg",
                    "source_height",
                    "log_i0",
                    "teacher_k",
                    "teacher_c",
                    "explore_sigma",
                    "explore_tau",
                    "heading_noise",
                    "body_dt",
                )
            ),
        },
    ),
    "calibrate": (
        CalibrateConfig,
        _same("duration", "settle", "grid", "write", "body"),
        {"grid": lambda v, kw: parse_grid(v) if v else DEFAULT_GRID},
        set(),
    ),
    "timestep": (
        TimestepConfig,
        {**_same("timestep", "duration", "settle", "tol", "body"), **EXECUTOR},
        {},
        {"seed"},  # the drives' seed
    ),
}


def _leaves(value: Any, prefix: str = "") -> Iterator[str]:
    """The field paths of a config, nested configs (dataclasses) expanded: ``controller.alpha``."""
    for f in fields(value):
        sub = getattr(value, f.name)
        path = f"{prefix}{f.name}"
        if is_dataclass(sub) and not isinstance(sub, type):
            yield from _leaves(sub, f"{path}.")
        else:
            yield path


def _get(defaults: dict[str, Any], path: str) -> Any:
    head, *rest = path.split(".")
    value = defaults[head]
    for name in rest:
        value = getattr(value, name)
    return value


def _cli_defaults(cmd: click.Command) -> dict[str, Any]:
    """Each parameter's default as the command receives it (type conversion and callback run;
    flags as they are)."""
    ctx = click.Context(cmd)
    out = {}
    for p in cmd.params:
        assert p.name is not None
        out[p.name] = None if p.required else p.process_value(ctx, p.get_default(ctx))
    return out


def test_every_fly_command_is_checked() -> None:
    assert set(group.commands) == set(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_default_is_the_config_field_default(name: str) -> None:
    config, paths, convert, python_only = COMMANDS[name]
    cmd = group.commands[name]
    defaults = defaults_of(config)
    cli = _cli_defaults(cmd)
    for param in cmd.params:
        assert param.name is not None
        if param.name in NOT_SETTINGS:
            continue
        assert param.name in paths, f"{name} --{param.name}: which {config.__name__} field?"
        path = paths[param.name]
        if param.required:  # no default on either side: a required field
            assert path.split(".")[0] not in defaults, path
            continue
        value = convert.get(param.name, lambda v, kw: v)(cli[param.name], cli)
        assert value == _get(defaults, path), f"{name} --{param.name} vs {path}"
    # every field is an option's or named Python-only, not both
    sample = {**defaults, "side": "left"} if name == "stimulate" else defaults
    leaves = set(_leaves(config(**sample)))
    covered = set(paths.values())
    assert covered | python_only == leaves, (covered | python_only) ^ leaves
    assert not covered & python_only


@pytest.mark.parametrize(
    ("name", "cmd", "module", "args", "want"),
    [
        ("stimulate", stimulate_cmd, stimulate, ["--side", "left"], StimulateConfig("left")),
        ("lateralization", lateralization_cmd, lateralization, [], LateralizationConfig()),
        ("turns", turns_cmd, turns_study, [], TurnsConfig()),
        ("taxis", taxis_cmd, taxis_study, [], TaxisStudyConfig()),
        ("choice", choice_cmd, choice_study, [], ChoiceStudyConfig()),
        ("calibrate", calibrate_cmd, calibration, [], CalibrateConfig()),
        ("timestep", timestep_cmd, timestep, [], TimestepConfig()),
    ],
)
def test_a_command_without_options_runs_the_python_default_config(
    name: str,
    cmd: click.Command,
    module: Any,
    args: list[str],
    want: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = []

    def fake_run(config: Any, out: Path, **kw: Any) -> None:
        seen.append(config)
        raise SystemExit(0)  # stop before the summary (no metrics to print)

    monkeypatch.setattr(module, "run", fake_run)
    result = CliRunner().invoke(cmd, [*args, "--out", str(tmp_path / name)])
    assert seen, result.output
    assert seen[0] == want


def test_the_mapping_defaults_are_the_default_mapping() -> None:
    """``--gain`` left out: 10 for evoked (the default mapping's), 1 for direct (the class's)."""
    assert {"direct": FixedMapping().gain, "evoked": EVOKED_GAIN} == MAPPING_GAINS
    for config in (StimulateConfig("left"), TurnsConfig()):
        assert config.mapping == default_mapping()
