"""Every study gives the same metrics (timings aside) with 1 worker, 2 workers and Ray: the
reservoir null study (a toy connectome), the fly taxis and turn studies (kinematic body), seeds of
a logic recipe (a few steps) and a sweep. Ray runs locally on two CPUs, started once."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import requires_larva
from tests.reservoir.test_cli import toy_connectome
from wirelab.data.connectomes import CONNECTOMES
from wirelab.parallel import ExecOptions

TIMING = ("wall", "seconds", "_s_mean", "step_ms", "render_s", "timing", "images_per_s")
PLACES = {"1 worker": ("local", 1), "2 workers": ("local", 2), "ray": ("ray", 2)}


def without_timing(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: without_timing(v) for k, v in x.items() if not any(t in k for t in TIMING)}
    if isinstance(x, list):
        return [without_timing(v) for v in x]
    return x


@pytest.fixture(scope="module")
def ray_here() -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    started = not ray.is_initialized()
    if started:
        ray.init(
            address="local",
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            object_store_memory=128 * 2**20,
        )
    yield
    if started:
        ray.shutdown()


def same_everywhere(run: Callable[[str, int, Path], dict[str, Any]], tmp_path: Path) -> None:
    found = {
        place: without_timing(run(backend, workers, tmp_path / place.replace(" ", "-")))
        for place, (backend, workers) in PLACES.items()
    }
    first = found["1 worker"]
    assert all(m == first for m in found.values()), [k for k, m in found.items() if m != first]


@pytest.fixture
def toy() -> Iterator[str]:
    CONNECTOMES.add("toy", toy_connectome, "a random 48-neuron test connectome")
    try:
        yield "toy"
    finally:
        CONNECTOMES.remove("toy")


def test_reservoir_null_study(tmp_path: Path, toy: str, ray_here: None) -> None:
    from wirelab.reservoir.experiment import ExperimentConfig, run

    cfg = ExperimentConfig(
        tasks=["memory-capacity"], alphas=[0.5, 1.0], connectome=toy, nulls=2, quick=True
    )

    def study(backend: str, workers: int, out: Path) -> dict[str, Any]:
        c = replace(cfg, backend=backend, workers=workers)
        return run(c, out, show_progress=False)

    same_everywhere(study, tmp_path)


@requires_larva
def test_fly_taxis_on_the_kinematic_body(tmp_path: Path, ray_here: None) -> None:
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.taxis.study import TaxisStudyConfig, run
    from wirelab.fly.taxis.task import TaxisConfig

    base = TaxisStudyConfig(
        taxis=TaxisConfig(trials=4, train_trials=2, time_limit=1.0, start_distance=(4.0, 6.0)),
        controller=ControllerConfig(modality="olfactory", update_steps=100),
        nulls=1,
    )

    def study(backend: str, workers: int, out: Path) -> dict[str, Any]:
        return run(replace(base, backend=backend, workers=workers), out, progress=False)

    same_everywhere(study, tmp_path)


@requires_larva
def test_fly_turns_on_the_kinematic_body(tmp_path: Path, ray_here: None) -> None:
    from wirelab.fly.turns.study import TurnsConfig, run

    base = TurnsConfig(seeds=2, nulls=0, settle=0.1, duration=0.3, body="kinematic", video=False)

    def study(backend: str, workers: int, out: Path) -> dict[str, Any]:
        return run(replace(base, backend=backend, workers=workers), out, progress=False)

    same_everywhere(study, tmp_path)


def test_logic_recipe_seeds(tmp_path: Path, ray_here: None) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")  # the digits dataset
    from tests.logic.tiny import tiny_digits
    from wirelab.logic.seeds import run

    config = tiny_digits()

    def study(backend: str, workers: int, out: Path) -> dict[str, Any]:
        m = run(config, [0, 1, 2], out, options=ExecOptions(backend, workers), quiet=True)
        for seed in (0, 1, 2):  # each seed's own result directory came back
            assert json.loads((out / "seeds" / f"seed-{seed}" / "metrics.json").read_text())
        assert (out / "curves.png").stat().st_size > 0  # every seed's validation curve
        return m

    same_everywhere(study, tmp_path)


def test_sweep(tmp_path: Path, ray_here: None) -> None:
    from tests.sweep.conftest import toy_grid
    from wirelab.sweep.grid import load_grid
    from wirelab.sweep.results_table import read_csv, timing_column
    from wirelab.sweep.sweep import run_sweep

    grid = load_grid(toy_grid(tmp_path, vary="n = [30, 60]\nnoise = [0.1]\nseed = [0, 1]\n"))

    def study(backend: str, workers: int, out: Path) -> dict[str, Any]:
        run_sweep(grid, out, backend=backend, workers=workers)
        rows = read_csv(out / "results.csv")
        return {"rows": [{k: v for k, v in r.items() if not timing_column(k)} for r in rows]}

    same_everywhere(study, tmp_path)
