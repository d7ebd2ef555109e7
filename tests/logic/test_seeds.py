"""A seeds study killed part-way resumes: finished seeds are read back, a seed with a checkpoint
continues from it, and the study ends with the result of one run straight through."""

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import one_line_error, wirelab
from tests.logic.killed import train_mod
from tests.logic.tiny import tiny_digits
from wirelab.logic import seeds as seeds_mod
from wirelab.logic.checkpoint import progress_fraction, write_progress
from wirelab.logic.seeds import first_reach, run, shares_files
from wirelab.parallel import ExecOptions
from wirelab.progress import ProgressBar

pytest.importorskip("sklearn")  # the digits dataset
INLINE = ExecOptions("local", 1)  # in this process, so the kill below reaches the seed's run
SAME = ("seed", "accuracy_soft", "accuracy_discrete", "gates", "best_step", "steps_run")


def kill_at_save(monkeypatch: pytest.MonkeyPatch, nth: int) -> None:
    """The ``nth`` checkpoint saved in this process is written, then the run is killed."""
    real, saves = train_mod._save_checkpoint, []

    def save_then_stop(*args: Any, **kw: Any) -> None:
        real(*args, **kw)
        saves.append(1)
        if len(saves) == nth:
            raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "_save_checkpoint", save_then_stop)


def same(m: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: r[k] for k in SAME} for r in m["runs"]]


def test_a_killed_study_resumes_to_the_result_of_one_run(tmp_path: Path, monkeypatch) -> None:
    whole = run(tiny_digits(), [0, 1], tmp_path / "whole", options=INLINE, quiet=True)
    out = tmp_path / "killed"
    kill_at_save(monkeypatch, 3)  # seed 0 saves at steps 5 and 10; seed 1 at 5, then the kill
    with pytest.raises(KeyboardInterrupt):
        run(tiny_digits(), [0, 1], out, options=INLINE, quiet=True)
    monkeypatch.undo()
    seed0 = out / "seeds" / "seed-0" / "metrics.json"
    assert seed0.exists() and not (out / "metrics.json").exists()
    assert (out / "seeds" / "seed-1" / "checkpoint.pt").exists()
    assert not (out / "seeds" / "seed-1" / "metrics.json").exists()
    before = seed0.stat().st_mtime_ns
    resumed = run(tiny_digits(), [0, 1], out, options=INLINE, resume=True, quiet=True)
    assert seed0.stat().st_mtime_ns == before  # read back, not trained again
    assert same(resumed) == same(whole)
    assert resumed["accuracy_discrete_mean"] == whole["accuracy_discrete_mean"]
    assert (out / "curves.png").stat().st_size > 0


def test_resume_refuses_other_options_and_a_missing_study(tmp_path: Path) -> None:
    out = tmp_path / "study"
    run(tiny_digits(), [0], out, options=INLINE, quiet=True)
    (out / "metrics.json").unlink()  # as a kill leaves the study: unfinished
    r = wirelab("logic", "train", "--resume", "--seeds", "1", "--out", out, "--lr", "0.5")
    assert one_line_error(r) and "train options differ" in r.stderr, r.stderr
    r = wirelab("logic", "train", "--resume", "--seeds", "1", "--out", tmp_path / "none")
    assert one_line_error(r) and "does not exist" in r.stderr, r.stderr
    cfg = json.loads((out / "config.json").read_text())["config"]
    assert cfg["seeds"] == [0]  # the refused resumes left the study as it was


@pytest.mark.parametrize(
    ("backend", "address", "here"),
    [("local", None, True), ("ray", None, True), ("ray", "10.0.0.1:6379", False)],
)
def test_seeds_train_in_place_only_where_the_workers_share_files(backend, address, here) -> None:
    assert shares_files(ExecOptions(backend, None, address)) is here


def test_every_checkpoint_leaves_the_step_in_progress_json(tmp_path: Path, monkeypatch) -> None:
    seen: list[float] = []
    real = train_mod.write_progress

    def record(run_dir: Path, step: int, steps: int) -> None:
        real(run_dir, step, steps)
        seen.append(progress_fraction(run_dir))

    monkeypatch.setattr(train_mod, "write_progress", record)
    train_mod.run(tiny_digits(), tmp_path / "run", quiet=True)
    assert seen == [0.5, 1.0]  # validations at steps 5 and 10 of 10
    assert json.loads((tmp_path / "run" / "progress.json").read_text()) == {"step": 10, "steps": 10}


@pytest.mark.parametrize("text", [None, "", "{", '{"step": 3}', '{"step": 3, "steps": 0}'])
def test_a_missing_or_damaged_progress_file_reads_as_no_progress(tmp_path: Path, text) -> None:
    if text is not None:
        (tmp_path / "progress.json").write_text(text)
    assert progress_fraction(tmp_path) == 0.0


def test_the_study_bar_follows_the_training_left_at_the_start(tmp_path: Path, monkeypatch) -> None:
    bars: list[ProgressBar] = []

    @contextmanager
    def keep(desc: str, total: float = 1.0, *, show: bool = True) -> Iterator[ProgressBar]:
        bars.append(ProgressBar(desc, total))
        yield bars[-1]

    monkeypatch.setattr(seeds_mod, "progress_bar", keep)
    monkeypatch.setattr(seeds_mod, "POLL", 0.01)
    done, half, fresh = (tmp_path / f"seed-{s}" for s in range(3))
    done.mkdir()
    (done / "metrics.json").write_text("{}")  # complete at the start: not in the estimate
    write_progress(half, 5, 10)  # resumed from a checkpoint half-way
    dirs = {0: str(done), 1: str(half), 2: str(fresh)}

    def shown(expected: float) -> bool:
        for _ in range(500):
            if abs(bars[0].completed - expected) < 1e-9:
                return True
            time.sleep(0.01)
        return False

    with seeds_mod.watch(dirs, "study", show=False) as finished:
        assert shown(0.0)  # left: 0.5 + 1.0 seeds' training
        write_progress(fresh, 3, 10)
        assert shown(0.3 / 1.5)
        finished(1)
        assert shown(0.8 / 1.5)
        finished(2)
        assert shown(1.0)


def test_an_overwritten_study_starts_every_seed_afresh(tmp_path: Path) -> None:
    out = tmp_path / "study"
    run(tiny_digits(), [0, 1], out, options=INLINE, quiet=True)
    run(tiny_digits(), [0], out, options=INLINE, quiet=True, overwrite=True)
    assert sorted(p.name for p in (out / "seeds").iterdir()) == ["seed-0"]


def test_first_reach_is_the_first_validation_at_the_level() -> None:
    h = [
        {"step": 5, "val_discrete": 0.95, "train_seconds": 1.0},
        {"step": 10, "val_discrete": 0.97, "train_seconds": 2.5},
        {"step": 15, "val_discrete": 0.99, "train_seconds": 4.0},
    ]
    assert first_reach(h, 0.97) == {"step": 10, "train_seconds": 2.5}
    assert first_reach(h, 0.995) is None
    assert first_reach([], 0.5) is None


def test_resuming_a_finished_study_reads_every_seed_back(tmp_path: Path) -> None:
    out = tmp_path / "study"
    first = run(tiny_digits(), [0, 1], out, options=INLINE, quiet=True)
    before = (out / "seeds" / "seed-1" / "metrics.json").stat().st_mtime_ns
    r = wirelab("logic", "train", "--resume", "--seeds", "2", "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    assert (out / "seeds" / "seed-1" / "metrics.json").stat().st_mtime_ns == before
    lines = r.stdout.splitlines()
    assert lines[0].startswith("seed 0: soft ") and "97% validation never" in lines[0]
    assert json.loads((out / "metrics.json").read_text())["runs"] == json.loads(
        json.dumps(first["runs"])
    )


def test_the_curves_show_a_discrete_network_above_its_relaxed_one() -> None:
    h = [{"step": 1000 * i, "val_discrete": 0.97 + 0.002 * i, "val_soft": 0.975} for i in range(8)]
    fig = seeds_mod.curves_figure({0: h})
    low, high = fig.axes[0].get_ylim()
    assert low <= min(r["val_discrete"] for r in h[2:]) and high >= max(
        r["val_discrete"] for r in h
    )


def test_resume_with_a_recipe_and_no_study_is_one_line(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text('[train]\ndataset = "digits"\nsteps = 10\n[model]\ndense = [50, 50]\n')
    r = wirelab(
        "logic", "train", "--recipe", recipe, "--resume", "--seeds", "2", "--out", tmp_path / "none"
    )
    assert one_line_error(r) and "does not exist" in r.stderr, r.stderr
