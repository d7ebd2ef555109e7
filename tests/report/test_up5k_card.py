"""The ten-class classifier on one iCE40 UP5K has its own answer card, on the tour's page too:
its numbers read from the committed run's metrics.json (they change when the metrics do), with
the command that makes it again."""

from __future__ import annotations

import io
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import wirelab.report.committed as committed
from tests.report.test_story import answer
from wirelab.report.headlines.base import Headline
from wirelab.report.headlines.logic_up5k import TEN_CLASSES
from wirelab.report.runs import load_run
from wirelab.report.story import headline_of
from wirelab.tour import write_page

COMMITTED = committed.REPO / TEN_CLASSES.path
UP5K = "wirelab logic up5k"
pytestmark = pytest.mark.skipif(
    not COMMITTED.is_dir(), reason="docs/figures is in a source checkout"
)


def committed_metrics() -> dict[str, Any]:
    return json.loads((COMMITTED / "metrics.json").read_text())


def card(path: Path) -> Headline:
    h = headline_of(load_run(path))
    assert h is not None
    return h


def test_the_card_reads_the_committed_run() -> None:
    m = committed_metrics()
    assert (m["accuracy_c"], m["logic_cells"], m["postsim_equal_to_c"]) == (0.9737, 4249, 200)
    h = card(COMMITTED)
    assert h.question == (
        "Does a ten-class MNIST classifier run on one iCE40 UP5K, giving the same classes as "
        "its C model after place and route?"
    )
    assert h.outcome == "yes"
    assert h.answer == (
        "97.37% test accuracy on one iCE40 UP5K: 4,249 of 5,280 cells, 12 MHz clock met "
        "(Fmax 23.05 MHz), 45,802 images per second"
    )
    assert h.uncertainty == (
        "Wilson 95% CI [97.04%, 97.67%] on 10,000 test images; the placed and routed netlist "
        "simulated on 200 test images"
    )
    assert h.verdict == (
        "Yes: it uses 4,249 of the chip's 5,280 logic cells and meets its 12 MHz clock (Fmax "
        "23.05 MHz), classifying 45,802 images per second (87,977 at Fmax); its placed and "
        "routed netlist gives the C model's class on 200 of 200 test images. Reproduce it with "
        "`wirelab logic up5k docs/figures/fpga/mnist10-up5k-seeds/seed-1 --out "
        "runs/up5k-ten-classes`."
    )
    assert [(c.who, c.figure) for c in h.comparisons[:2]] == [
        ("this circuit", "97.37%, 4,249 of 5,280 cells"),
        ("iCE40 UP5K", "5,280 LUT4 logic cells"),
    ]
    assert ("of them equal to C", 200) in h.table


def test_the_command_reproduces_it_from_the_committed_model() -> None:
    """The command names the committed model and the options the run used are the defaults."""
    from wirelab.logic.fpga.cli import up5k_cmd

    model = committed.REPO / "docs/figures/fpga/mnist10-up5k-seeds/seed-1"
    assert json.loads((model / "metrics.json").read_text())["accuracy_discrete"] == 0.9737
    assert (model / "discrete.json").is_file()
    used = json.loads((COMMITTED / "config.json").read_text())["config"]
    defaults = {p.name: p.default for p in up5k_cmd.params}
    for option in ("classes_per_step", "slices", "head_pipeline", "bus_bits", "input_ram"):
        assert used[option] == defaults[option], option
    for option in ("clock_mhz", "images", "seed", "router", "pnr_timeout"):
        assert used[option] == defaults[option], option
    assert used["pnr"]  # without --no-pnr
    head = json.loads((COMMITTED / "metrics.json").read_text())["head"]
    assert head == f"{defaults['head_kind']}-b{defaults['shift_bits']}" == "shift-b1"


def test_the_card_changes_with_the_metrics(tmp_path: Path, monkeypatch: Any) -> None:
    copy = tmp_path / TEN_CLASSES.path
    shutil.copytree(COMMITTED, copy)
    monkeypatch.setattr(committed, "REPO", tmp_path)
    m = committed_metrics()
    m.update(accuracy_c=0.9512, logic_cells=4000, images_per_s_at_clock=40000)
    (copy / "metrics.json").write_text(json.dumps(m))
    h = card(copy)
    assert h.answer.startswith("95.12% test accuracy on one iCE40 UP5K: 4,000 of 5,280 cells")
    assert "40,000 images per second" in h.answer and h.outcome == "yes"
    assert "Reproduce it with `wirelab logic up5k" in h.verdict  # still the committed run
    m.update(postsim_equal_to_c=199, postsim_all_equal=False)
    (copy / "metrics.json").write_text(json.dumps(m))
    h = card(copy)
    assert h.outcome == "no" and "class on 199 of 200 test images" in h.verdict
    m.update(postsim_equal_to_c=200, timing_met=False, fmax_mhz=11.2)
    (copy / "metrics.json").write_text(json.dumps(m))
    h = card(copy)
    assert h.outcome == "no" and "12 MHz clock not met (Fmax 11.20 MHz)" in h.answer
    assert "misses its 12 MHz clock" in h.verdict


def test_a_run_that_was_not_routed_says_no(tmp_path: Path) -> None:
    m = {
        **{k: v for k, v in committed_metrics().items() if k not in ("logic_cells", "fmax_mhz")},
        "fits": False,
        "logic_cells_needed": 7099,
        "postsim_netlist": "synthesised",
    }
    h = answer(tmp_path, UP5K, m, {"run_dir": "x"})
    assert h.outcome == "no"
    assert h.verdict.startswith("No: not placed and routed on the chip; nextpnr needed 7,099 of")
    assert "the synthesised netlist simulated on 200 test images" in h.uncertainty


def test_the_tour_page_has_the_card(tmp_path: Path) -> None:
    out = io.StringIO()
    (tmp_path / "tour").mkdir()
    page = write_page(tmp_path / "tour", time.time(), Console(file=out, width=300))
    html = page.read_text(encoding="utf-8")
    assert html.count('<div class="answer yes">') == 1  # no tour runs: the committed card alone
    assert "97.37% test accuracy on one iCE40 UP5K: 4,249 of 5,280 cells" in html
    assert (
        "<code>wirelab logic up5k docs/figures/fpga/mnist10-up5k-seeds/seed-1 --out "
        "runs/up5k-ten-classes</code>" in html
    )
    assert f"read from the result directory <code>{TEN_CLASSES.path}</code>" in html
    assert "Does a ten-class MNIST classifier run on one iCE40 UP5K" in out.getvalue()


def test_without_the_committed_run_the_tour_says_so(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(committed, "REPO", tmp_path / "wheel")
    out = io.StringIO()
    (tmp_path / "tour").mkdir()
    page = write_page(tmp_path / "tour", time.time(), Console(file=out, width=300))
    assert "on one iCE40 UP5K" not in page.read_text(encoding="utf-8")
    assert f"not on the page: {TEN_CLASSES.what}: {TEN_CLASSES.path} is not here" in (
        out.getvalue()
    )
