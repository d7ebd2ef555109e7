"""benchmarks/logic_time_to_accuracy.py at its tiny size: every torchlogix configuration it names
(its `PEERS`) is in its JSON line with a figure, and the headline ratio is against the fastest
configuration or refused with a reason, never against a weaker one."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmarks import run_benchmark
from tests.conftest import requires_mnist

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
# torchlogix 0.2.2 does not import plainly on Python 3.11 (its circuit.py needs 3.12): look it up.
needs_torchlogix = pytest.mark.skipif(
    importlib.util.find_spec("torchlogix") is None, reason="torchlogix not installed: make bench"
)


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "logic_tta", REPO / "benchmarks/logic_time_to_accuracy.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def result() -> dict:
    return run_benchmark("logic_time_to_accuracy.py", "--tiny", timeout=300)


@requires_mnist
@needs_torchlogix
def test_every_peer_configuration_has_a_figure_at_every_target(result: dict) -> None:
    names = list(bench().PEERS)
    assert sorted(result["torchlogix"]) == sorted(names)
    for name in names:
        run = result["torchlogix"][name]
        assert run["model"] == bench().PEERS[name].description
        assert run["seconds"] > 0 and run["steps"] > 0, (name, run)
    assert [e["target_val_discrete"] for e in result["targets"]] == [0.5, 0.6]
    for entry in result["targets"]:
        assert sorted(entry["torchlogix"]) == sorted(names)
        for name, row in entry["torchlogix"].items():
            assert isinstance(row["reached"], bool), (name, row)
            assert isinstance(row["seconds"], (int, float)) and row["seconds"] > 0, (name, row)
            assert row["step"] > 0 and 0.0 <= row["val_discrete"] <= 1.0, (name, row)
            if row["reached"]:  # the first validation at or above the target
                assert row["val_discrete"] >= entry["target_val_discrete"], (name, row)
        assert entry["wirelab_seconds"] > 0 and isinstance(entry["wirelab_reached"], bool)
    assert "load_before" in result and "load_after" in result


@requires_mnist
@needs_torchlogix
def test_tiny_size_reports_no_ratio(result: dict) -> None:
    assert result["tiny"] is True
    for entry in result["targets"]:
        assert entry["vs"] is None
        assert "speedup" not in entry and "speedup_at_least" not in entry
        assert "--tiny" in entry["ratio_refused"]


def test_targets_name_a_recipe_each_in_ascending_order() -> None:
    parsed = bench().targets_of("0.98=mnist10-32k-learned,0.97=mnist10-8k-learned")
    assert list(parsed) == [0.97, 0.98]
    assert parsed[0.97].name == "mnist10-8k-learned.toml" and parsed[0.97].is_file()
    for bad in ("0.97", "1.5=mnist10-8k-learned", "0.97=no-such-recipe", "x=mnist01"):
        with pytest.raises(SystemExit, match="--targets"):
            bench().targets_of(bad)


def test_ratio_is_against_the_fastest_configuration() -> None:
    headline = bench().headline
    ours = {"seconds": 10.0}
    peers = {"a": {"reached": True, "seconds": 80.0}, "b": {"reached": True, "seconds": 40.0},
             "c": {"reached": False, "seconds": 90.0}}  # fmt: skip
    assert headline(ours, peers, []) == {"vs": "b", "speedup": 4.0}


def test_no_ratio_when_the_fastest_is_unknown_or_a_peer_did_not_run() -> None:
    headline = bench().headline
    ours = {"seconds": 10.0}
    short = {"a": {"reached": True, "seconds": 80.0}, "c": {"reached": False, "seconds": 30.0}}
    row = headline(ours, short, [])
    assert row["vs"] is None and "speedup" not in row and "c stopped" in row["ratio_refused"]
    ran = {"a": {"reached": True, "seconds": 80.0}}
    row = headline(ours, ran, ["configurations not run: learned_8k"])
    assert row == {"vs": None, "ratio_refused": "configurations not run: learned_8k"}


def test_no_configuration_reached_gives_a_lower_bound() -> None:
    headline = bench().headline
    peers = {"a": {"reached": False, "seconds": 60.0}, "b": {"reached": False, "seconds": 50.0}}
    assert headline({"seconds": 10.0}, peers, []) == {"vs": "b", "speedup_at_least": 5.0}


def test_an_unknown_configuration_is_a_one_line_error() -> None:
    proc = subprocess.run(
        [sys.executable, "benchmarks/logic_time_to_accuracy.py", "--peers", "nosuch"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode != 0 and "unknown ['nosuch']" in proc.stderr
