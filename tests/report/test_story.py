"""Headlines: verdicts computed from the metrics (flip a metric, the verdict flips), the anchors
beside them, graceful fallback, and the page built answer first."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest

from tests.report.htmlcheck import parse, well_formed_errors
from tests.report.stories import (
    edited,
    logic_metrics,
    make_story_runs,
    pooling_metrics,
    reservoir_metrics,
    stimulate_metrics,
    taxis_metrics,
)
from wirelab.anchors import ANCHORS, anchors_for, markdown_table
from wirelab.report.headlines import entries
from wirelab.report.headlines.base import Headline
from wirelab.report.headlines.values import wilson
from wirelab.report.html import write_report
from wirelab.report.runs import Run, load_runs
from wirelab.report.story import groups_of, headline_of, plan_stories


def command_config(command: str, config: Any) -> dict[str, Any]:
    return {"command": command, "config": config or {}}


def run_of(tmp_path: Path, command: str, metrics: Any, config: Any = None) -> Run:
    return Run(path=tmp_path, name="r", config=command_config(command, config), metrics=metrics)


def answer(tmp_path: Path, command: str, metrics: Any, config: Any = None) -> Headline:
    h = headline_of(run_of(tmp_path, command, metrics, config))
    assert h is not None
    return h


def test_reservoir_verdict_follows_p_and_the_score(tmp_path: Path) -> None:
    cmd = "wirelab reservoir run"
    h = answer(tmp_path, cmd, reservoir_metrics(p=0.01, n=99), {"null_models": ["degree"]})
    assert h.outcome == "yes" and h.verdict.startswith("Yes")
    assert (
        h.question == "Does the larval connectome remember more than its degree-preserving nulls?"
    )
    assert "p = 0.01" in h.uncertainty and "99 nulls" in h.uncertainty
    assert h.answer == "memory capacity 11.5 at gain 1"  # the score MC and alpha in words
    h = answer(tmp_path, cmd, reservoir_metrics(p=0.33, n=2))
    assert h.outcome == "unresolved" and "p = 0.33 > 0.05 with 2 nulls" in h.verdict
    assert "the smallest p 2 nulls can give is 0.33" in h.uncertainty
    h = answer(tmp_path, cmd, reservoir_metrics(connectome=5.0, p=0.9))
    assert h.outcome == "no" and h.verdict.startswith("No")
    lacking = edited(reservoir_metrics(), "summary", "memory-capacity", "p_value", value=None)
    h = answer(tmp_path, cmd, lacking)
    assert h.outcome == "info"
    assert h.missing == [
        "the p-value against the nulls (`summary.memory-capacity.p_value` in `metrics.json`)"
    ]


def test_reservoir_headline_shows_every_null_family(tmp_path: Path) -> None:
    cmd = "wirelab reservoir run"
    metrics = reservoir_metrics(p=0.01, n=99)
    plain = metrics["summary"]["memory-capacity"]
    boundary = {**plain, "connectome": 11.5, "null_mean": 11.9, "null_std": 0.3, "p_value": 0.9}
    metrics["summary_by_null_model"] = {
        "degree": {"memory-capacity": plain},
        "degree-boundary": {"memory-capacity": boundary},
    }
    config = {"null_models": ["degree", "degree-boundary"]}
    h = answer(tmp_path, cmd, metrics, config)
    assert h.question == (
        "Does the larval connectome remember more than its degree-preserving and "
        "boundary-preserving degree nulls?"
    )
    who = [c.who for c in h.comparisons]
    assert "degree-preserving nulls" in who and "boundary-preserving degree nulls" in who
    assert h.outcome == "unresolved"  # yes against one family, no against the other
    assert "Against the degree-preserving nulls: Yes" in h.verdict
    assert "Against the boundary-preserving degree nulls: No" in h.verdict
    assert h.uncertainty.count("p = ") == 4  # each family at its best gain and at every own best
    boundary["p_value"] = 0.01
    boundary["null_mean"] = 9.0
    h = answer(tmp_path, cmd, metrics, config)
    assert h.outcome == "yes"


def test_logic_verdict_against_the_seed_and_the_fpga(tmp_path: Path) -> None:
    cmd = "wirelab logic train"
    (tmp_path / "synth.json").write_text('{"ice40-up5k": {"luts": 525, "fits": true}}')
    h = answer(tmp_path, cmd, logic_metrics(acc=0.9967))
    assert h.outcome == "yes"
    assert (
        h.verdict == "Above the seed's 99.27% with 973 gates, using 400 gates (0.41 times as "
        "many); fits the UP5K: 525 of 5,280 LUT4."
    )
    assert ("iCE40 UP5K LUT4 (with GroupSum and argmax)", 525) in h.table
    assert h.missing == [
        "its placed-and-routed clock, Fmax (`ice40-up5k.fmax_mhz` in `synth.json`)"
    ]
    assert [c.figure for c in h.comparisons][1] == "99.27% with 973 gates"
    h = answer(tmp_path, cmd, logic_metrics(acc=0.98))
    assert h.outcome == "no" and h.verdict.startswith("Below the seed's 99.27%")
    (tmp_path / "synth.json").write_text('{"ice40-up5k": {"luts": 6000, "fits": false}}')
    h = answer(tmp_path, cmd, logic_metrics())
    assert h.outcome == "no" and "does not fit the UP5K: 6,000 of 5,280 LUT4" in h.verdict
    (tmp_path / "synth.json").unlink()
    h = answer(tmp_path, cmd, logic_metrics())  # not synthesised: the committed study answers
    assert h.outcome == "yes" and "not synthesised" in h.verdict
    assert h.verdict.startswith("Yes, resolved by `wirelab logic synth RUN --pnr")
    pnr = {
        "ice40-up5k": {
            "luts": 525,
            "fits": True,
            "pnr": {
                "fmax_mhz": 61.2,
                "timing_met": True,
                "clock_mhz": 48,
                "logic_cells": {"used": 700, "available": 5280},
            },
        }
    }
    (tmp_path / "synth.json").write_text(__import__("json").dumps(pnr))
    h = answer(tmp_path, cmd, logic_metrics())
    assert ("Fmax (MHz, nextpnr)", 61.2) in h.table and (
        "placed logic cells (nextpnr)",
        700,
    ) in h.table
    assert h.missing == []


def test_logic_ten_classes_compares_at_the_nearest_gate_count(tmp_path: Path) -> None:
    m = edited(logic_metrics(acc=0.9606, gates=48000), "classes", value=list(range(10)))
    h = answer(tmp_path, "wirelab logic train", m)
    assert h.verdict == (
        "Below Petersen et al. 2022's 97.69% with 48,000 gates (6 x 8,000), using 48,000 gates "
        "(as many)."
    )
    assert h.missing == []  # the question is the accuracy, not the chip
    m = edited(m, "gates", value=112032)
    assert (
        "using 112,032 gates (2.3 times as many)"
        in answer(tmp_path, "wirelab logic train", m).verdict
    )
    assert {c.who for c in h.comparisons} >= {"seed", "Petersen et al. 2022", "LILogicNet 2025"}


def test_pooling_verdict_flips_with_the_accuracies(tmp_path: Path) -> None:
    cfg = {"seeds": [0], "test_bags": 500}
    h = answer(tmp_path, "wirelab attention pooling", pooling_metrics(), cfg)
    assert h.outcome == "yes" and "42.4 points more accurate" in h.verdict
    assert (
        h.answer == "attention pooling (one head) 65.2% vs mean pooling 22.8% with 16 distractors"
    )
    assert [c.who for c in h.comparisons] == [
        "mean pooling, 16 distractors",
        "attention pooling (one head), 16 distractors",
    ]
    assert "1 seed x 500 test bags" in h.uncertainty
    h = answer(tmp_path, "wirelab attention pooling", pooling_metrics(attn=0.2, mean=0.6), cfg)
    assert h.outcome == "no"
    h = answer(tmp_path, "wirelab attention pooling", pooling_metrics(attn=0.23, mean=0.228), cfg)
    assert h.outcome == "unresolved"


def test_taxis_against_its_own_baselines(tmp_path: Path) -> None:
    h = answer(tmp_path, "wirelab fly taxis", taxis_metrics(connectome=18))
    assert h.outcome == "yes" and "above 1 of 1 degree-preserving null" in h.verdict
    assert [c.who for c in h.comparisons][:4] == [
        "connectome reservoir",
        "teacher (the policy the readout imitates)",
        "constant drive",
        "random drive",
    ]
    assert [c.who for c in h.comparisons][-1] == "degree-preserving null 1"  # degree-null-0
    assert (
        answer(tmp_path, "wirelab fly taxis", taxis_metrics(connectome=3)).outcome == "unresolved"
    )
    assert answer(tmp_path, "wirelab fly taxis", taxis_metrics(0, random=15)).outcome == "no"


def test_fly_pair_verdict_follows_the_turns(tmp_path: Path) -> None:
    def pair(left: float, right: float, ci: float | None = None) -> Headline:
        runs = []
        for side, turn in (("left", left), ("right", right)):
            m = stimulate_metrics(side, turn)
            if ci is not None:
                m.update(heading_change_deg_ci=[turn - ci, turn + ci], seeds=8)
            runs.append(run_of(tmp_path / side, "wirelab fly stimulate", m))
        (story,) = groups_of(runs)
        return story.headline

    h = pair(25.0, -22.0)
    assert h.outcome == "unresolved" and "one seed per side" in h.verdict
    assert h.answer == "left +25.0°, right -22.0°: difference L − R +47.0°"
    h = pair(8.6, 8.6)  # one seed per side cannot say no either
    assert h.outcome == "unresolved" and "Both turned left" in h.verdict
    h = pair(8.6, 8.6, ci=5.0)
    assert h.outcome == "no" and "both stimuli turn the fly left" in h.verdict
    h = pair(25.0, -22.0, ci=5.0)
    assert h.outcome == "yes" and "8 seeds" in h.uncertainty
    one = answer(tmp_path, "wirelab fly stimulate", stimulate_metrics("left", 12.0))
    assert "toward the stimulated side" in one.verdict
    assert one.missing == [
        "the 95% CI of the heading change over seeds (`heading_change_deg_ci` in `metrics.json`)"
    ]


def test_lacking_metrics_fall_back_to_the_generic_view(tmp_path: Path) -> None:
    for entry in entries():
        cmd = entry.run_type
        assert headline_of(run_of(tmp_path, cmd, {"unrelated": 1})) is None, cmd
    assert headline_of(run_of(tmp_path, "wirelab something new", reservoir_metrics())) is None
    failed = run_of(tmp_path, "wirelab reservoir run", reservoir_metrics())
    failed.status = "failed"
    assert headline_of(failed) is None


def test_anchors_table() -> None:
    assert all(a.citation and a.who for a in ANCHORS)
    (seed,) = anchors_for("mnist01", "seed")
    assert seed.text() == "99.27% with 973 gates (seed)"
    table = markdown_table()
    for text in ("99.27%", "94.85%", "97.69%", "98.45%", "Jaeger", "12,207 gates"):
        assert text in table
    assert "http" not in table  # the page quotes it and stays offline
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_page_answers_first_with_evidence_and_raw_folded(tmp_path: Path) -> None:
    d = make_story_runs(tmp_path / "runs")
    page = write_report([tmp_path / "runs"], tmp_path / "report.html").read_text()
    assert well_formed_errors(page) == []
    assert page.index('id="answers"') < page.index('id="summary"') < page.index('id="system-')
    stories, rest = plan_stories([r for r in load_runs([tmp_path / "runs"]) if r.parent is None])
    assert {tuple(r.name for r in s.runs) for s in stories} == {
        ("reservoir/mc",),
        ("fly/stimulate-left", "fly/stimulate-right"),
        ("fly/taxis",),
        ("logic/mnist01",),
        ("attention/pooling",),
        ("sweep",),
    }
    assert rest == []
    for s in stories:
        assert f'id="{s.anchor}"' in page and f'href="#{s.anchor}"' in page
    # each plot is embedded once: key plots in the evidence, the others in the folded article
    pngs = sorted(p.read_bytes() for p in (tmp_path / "runs").rglob("*.png"))
    embedded = [
        base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    ]
    assert sorted(embedded) == pngs
    story = page[page.index('id="answer-reservoir-mc"') :]
    assert story.index("score_vs_alpha.png") < story.index('<details class="raw">')
    assert story.index('<details class="raw">') < story.index("other.png")
    # the sweep's table and plot are its evidence
    sweep = page[page.index('id="answer-sweep"') :]
    raw = sweep.index('<details class="raw">')
    assert sweep.index("summary.png") < raw and sweep.index("<h4>results.csv</h4>") < raw
    assert "<code>mc</code> from 8.25 to 9.5 over 2 points" in page  # the grid's own names
    assert (
        "Highest at <code>alpha=1.0</code> (9.5), lowest at <code>alpha=0.5</code> (8.25)." in page
    )
    # the anchors and the evidence table
    assert "wirelab seed: the prototype this project grew from" in page
    assert "iCE40 UP5K LUT4 (with GroupSum and argmax)" in page
    assert "http://" not in page and "https://" not in page
    assert d["logic"].is_dir()


def test_strings_from_run_directories_are_escaped_in_headlines(tmp_path: Path) -> None:
    m = pooling_metrics()
    m["summary"]["<img src=x onerror=alert(1)>"] = m["summary"].pop("attn1")
    from wirelab.results import ResultDir

    rd = ResultDir.create(
        tmp_path / "runs" / "p",
        command="wirelab attention pooling",
        config={"seeds": [0], "test_bags": 500},
    )
    rd.finish(m)
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert not any(tag == "img" and "onerror" in attrs for tag, attrs in parse(page).tags)


def test_videos_past_the_page_budget_show_a_poster_frame(tmp_path: Path) -> None:
    pytest.importorskip("imageio")
    d = make_story_runs(tmp_path / "runs")
    if not (d["fly-left"] / "video.mp4").is_file():
        pytest.skip("imageio-ffmpeg cannot write mp4 here")
    size = (d["fly-left"] / "video.mp4").stat().st_size
    page = write_report(
        [tmp_path / "runs"], tmp_path / "r.html", max_page_bytes=size + 1
    ).read_text()
    assert page.count("data:video/mp4") == 1
    assert page.count('<figure class="poster"><img src="data:image/png;base64,') == 1
    assert "first frame only" in page
    assert 'href="./runs/fly/stimulate-right/video.mp4"' in page


def turns_metrics(left: float, right: float, lo: float, hi: float) -> dict[str, Any]:
    def stat(mean: float, ci: tuple[float, float]) -> dict[str, Any]:
        return {"n": 8, "mean": mean, "ci": list(ci), "excludes_zero": ci[0] > 0 or ci[1] < 0}

    return {
        "table": [
            {"model": "(all)", "condition": "control", "turn": stat(1.0, (-5.0, 7.0))},
            {
                "model": "row",
                "condition": "left",
                "turn": stat(left + 1, (-9.0, 9.0)),
                "minus_control": stat(left, (left - 5, left + 5)),
            },
            {
                "model": "row",
                "condition": "right",
                "turn": stat(right + 1, (-9.0, 9.0)),
                "minus_control": stat(right, (right - 5, right + 5)),
            },
            {"model": "row", "condition": "left-right", "turn": stat(left - right, (lo, hi))},
        ]
    }


def test_turns_verdict_follows_the_paired_difference(tmp_path: Path) -> None:
    cmd = "wirelab fly turns"
    h = answer(tmp_path, cmd, turns_metrics(-15.0, 12.0, -40.0, -14.0))
    assert h.outcome == "yes" and "CI excludes 0" in h.verdict and "8 seeds" in h.uncertainty
    h = answer(tmp_path, cmd, turns_metrics(-15.0, 12.0, -40.0, 5.0))  # the 8-seed study answers
    assert h.outcome == "yes" and "includes 0" in h.verdict
    assert h.verdict.startswith("Yes, resolved by `wirelab fly turns --body flygym1 --seeds 8")
    h = answer(tmp_path, cmd, turns_metrics(-15.0, -12.0, -10.0, 4.0))
    assert h.outcome == "no" and h.verdict.startswith("No")
    assert headline_of(run_of(tmp_path, cmd, {"table": []})) is None
