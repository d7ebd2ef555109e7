"""The Python API of `wirelab.reservoir`: one set of defaults with the CLI, the CLI's numbers, and
`build` + `run` + `fit_readout` giving a task's own score."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import click
import numpy as np
import pytest

import wirelab.reservoir as wr
from tests.clirun import wirelab
from tests.conftest import requires_larva
from tests.reservoir.test_cli import toy  # noqa: F401  (fixture)
from wirelab.errors import UsageError
from wirelab.reservoir.cli import run_cmd
from wirelab.reservoir.config import resolve_experiment
from wirelab.reservoir.units import INPUT_SCALING, LIFUnits, Units, parse_bias

# CLI parameter name -> ExperimentConfig field; parameters that are not settings map to None
CLI_TO_FIELD = {"norm": "normalize", "out": None, "overwrite": None}


def _cli_value(param: click.Parameter) -> Any:
    """The value an option's default becomes (parsed by its type, as on a command line)."""
    default = param.default
    if param.name == "null_models":
        return [m for m in str(default).split(",") if m]
    if param.name == "tasks":  # required: no default (click's sentinel), no tasks
        return list(default) if isinstance(default, (list, tuple)) else []
    if default is None or isinstance(param.type, click.types.BoolParamType):
        return default
    return param.type.convert(default, param, None)


def test_every_cli_default_is_the_python_default() -> None:
    settings = {f.name for f in fields(wr.ExperimentConfig)}
    seen = set()
    for param in run_cmd.params:
        assert param.name is not None
        field = CLI_TO_FIELD.get(param.name, param.name)
        if field is None:
            continue
        assert field in settings, f"--{param.name} is not an ExperimentConfig field"
        seen.add(field)
        want = getattr(wr.DEFAULTS, field)
        assert _cli_value(param) == want, field
    assert seen == settings - {"task_params"}  # task sizes are Python-only (--quick sets them)


def test_the_defaults_are_the_ones_that_work() -> None:
    """Input scaling 0.3 and a random per-neuron bias, for the CLI, `build` and bare units."""
    assert wr.DEFAULTS.input_scaling == INPUT_SCALING == Units().input_scaling
    assert LIFUnits().input_scaling == INPUT_SCALING
    assert parse_bias(wr.DEFAULTS.bias) == parse_bias("random:0.2")
    assert wr.DEFAULTS.alphas == [float(a) for a in np.linspace(0.2, 1.6, 8)]
    assert wr.DEFAULTS.null_models == ["degree", "degree-boundary"] and wr.DEFAULTS.nulls == 20


def test_build_reads_the_defaults(toy: str) -> None:  # noqa: F811
    res = wr.build(toy, 0.9)
    cfg = wr.ExperimentConfig(connectome=toy, alphas=[0.9])
    assert asdict(res.config) == asdict(resolve_experiment(cfg, study=False).config)
    units = res.units
    assert isinstance(units, Units) and units.input_scaling == 0.3
    bias = np.asarray(units.bias)
    assert bias.shape == (48,) and np.all(np.abs(bias) <= 0.2) and np.ptp(bias) > 0
    assert res.w_in.shape == (1, 48) and set(np.flatnonzero(res.w_in[0])) <= set(res.inputs)
    assert res.outputs.size == 48 and res.n == 48


def test_run_shapes_and_errors(toy: str) -> None:  # noqa: F811
    res = wr.build(toy, 1.0, outputs="DN-VNC", channels=2)
    u = np.random.default_rng(0).uniform(-1, 1, (30, 2))
    x = res.run(u, washout=5)
    assert x.shape == (25, 8) and x.dtype == np.float64
    assert res.run(np.stack([u, -u], 1)).shape == (30, 2, 8)  # (T, B, K) -> (T, B, P)
    assert np.array_equal(res.run(np.stack([u, -u], 1))[:, 0], res.run(u))
    assert res.run(u, record="all").shape == (30, 48)
    with pytest.raises(UsageError, match="K=2"):
        res.run(np.zeros(30))
    with pytest.raises(UsageError, match="unknown setting"):
        wr.build(toy, 1.0, input_scale=0.5)
    with pytest.raises(UsageError, match="unknown cell type"):
        wr.build(toy, 1.0, outputs="KC")
    with pytest.raises(UsageError, match="one gain"):
        wr.build(toy, 1.0, alphas=[1.0])


def test_build_run_and_fit_readout_give_the_tasks_memory_capacity(toy: str) -> None:  # noqa: F811
    """The memory-capacity task rebuilt from the public pieces equals `score`'s number."""
    k_max, train, test, washout = 30, 600, 300, 50  # the task's --quick sizes
    res = wr.build(toy, 0.9, outputs="DN-VNC", seed=3)
    u = np.random.default_rng(3).uniform(-0.8, 0.8, washout + k_max + train + test)
    x = res.run(u)
    t0 = washout + k_max
    delays = np.stack([np.roll(u, k) for k in range(1, k_max + 1)], 1)
    readout = wr.fit_readout(x[t0 : t0 + train], delays[t0 : t0 + train], per_output=True)
    pred = readout.predict(x[t0 + train :])
    mc = sum(np.corrcoef(pred[:, k], delays[t0 + train :, k])[0, 1] ** 2 for k in range(k_max))
    got = wr.score(toy, "memory-capacity", alphas=[0.9], outputs="DN-VNC", seed=3, quick=True)
    assert got.metric == "MC" and got.higher_is_better and got.alphas.tolist() == [0.9]
    assert got.values[0] == pytest.approx(mc, abs=1e-12)


def _cli_metrics(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "run"
    r = wirelab("reservoir", "run", *args, "--workers", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    metrics: dict[str, Any] = json.loads((out / "metrics.json").read_text())
    return metrics


def _same_numbers(cli: dict[str, Any], py: dict[str, Any]) -> None:
    for key in ("results", "summary", "summary_by_null_model", "definitions", "population_sizes"):
        assert json.loads(json.dumps(py[key])) == cli[key], key


def test_compare_gives_the_clis_numbers(toy: str, tmp_path: Path) -> None:  # noqa: F811
    cli = _cli_metrics(
        tmp_path,
        *("--connectome", toy, "--task", "narma10", "--task", "decision", "--alpha", "0.6,1.1"),
        *("--nulls", "3", "--null-model", "degree,random-esn", "--outputs", "DN-VNC", "--quick"),
    )
    cmp = wr.compare(
        toy,
        ["narma10", "decision"],
        alphas="0.6,1.1",
        nulls=3,
        null_models="degree,random-esn",
        outputs="DN-VNC",
        quick=True,
        workers=1,
    )
    _same_numbers(cli, cmp.metrics)
    assert cmp.tasks == ("decision", "narma10")
    c = cmp["narma10"]
    s = cli["summary"]["narma10"]
    assert (c.null_model, c.score, c.p_value, c.z) == (
        "degree",
        s["connectome"],
        s["p_value"],
        s["z"],
    )
    assert c.nulls.shape == (3, 2) and c.connectome.shape == (2,)
    esn = cmp.against("decision", "random-esn")
    s = cli["summary_by_null_model"]["random-esn"]["decision"]
    assert (esn.p_value, esn.best_alpha) == (s["p_value"], s["best_alpha"])
    rows = [r for r in cli["results"] if r["model"] == "random-esn" and r["task"] == "decision"]
    assert sorted(esn.nulls.ravel().tolist()) == sorted(r["value"] for r in rows)
    assert cmp.score("narma10").values.tolist() == c.connectome.tolist()
    with pytest.raises(UsageError, match="no comparison"):
        cmp.against("narma10", "mirror")


QUICKSTART = re.search(r"```python\n(.*?)```", wr.__doc__ or "", re.S)


@requires_larva
def test_the_quickstarts_numbers_are_the_clis(tmp_path: Path) -> None:
    """The `compare` call of the package quickstart, and the CLI with the same settings."""
    assert QUICKSTART is not None
    call = re.search(r"compare\((.*?)\)\n", QUICKSTART.group(1), re.S)
    assert call is not None and "nulls=9" in call.group(1) and "quick=True" in call.group(1)
    cli = _cli_metrics(  # the command without --null-model: the default families
        tmp_path,
        *("--task", "memory-capacity", "--alpha", "1.0", "--outputs", "DN-VNC"),
        *("--nulls", "9", "--quick"),
    )
    cmp = eval(f"wr.compare({call.group(1)}, workers=1)")  # the quickstart's own arguments
    families = cmp.config.null_models
    assert families == ["degree", "degree-boundary"]  # both null families, as the brief asks
    _same_numbers(cli, cmp.metrics)
    for family in families:
        c = cmp.against("memory-capacity", family)
        s = cli["summary_by_null_model"][family]["memory-capacity"]
        assert (c.score, c.null_mean, c.p_value, c.z) == (
            s["connectome"],
            s["null_mean"],
            s["p_value"],
            s["z"],
        )
