"""Issue 47: one bad file makes its run "broken" on the page, never the page's failure; names are
shown whatever their bytes; hard-linked files are refused like symbolic links.

One folder holds every hostile file at once: a metrics.json with a 10,000-digit integer, one with
200,000 nested arrays, one nested past the report's depth, one that is not UTF-8, JSON text with
lone surrogates, a run and files whose names are not UTF-8, hard links to files outside the runs
(a plot, a CSV, a metrics.json, a side record), a deep ``.in-progress`` and a deep ``failed.json``.
``wirelab report`` (a real process, whose stdout and stderr are strict UTF-8 pipes) renders it.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

import pytest

from tests.clirun import wirelab_process
from tests.report.htmlcheck import well_formed_errors
from tests.report.test_links import PNG, SECRETS, _leaks
from wirelab.report.html import write_report
from wirelab.report.reading import HARD_LINK, MAX_JSON_DEPTH, Refused, read_bytes, refusal, shown
from wirelab.report.runs import load_run, load_runs

BAD_NAME = os.fsdecode(b"caf\xe9-\xff")  # Latin-1 bytes: not UTF-8


def _run(root: Path, name: str, metrics: str | bytes, config: str | None = None) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "config.json").write_text(config or json.dumps({"command": "wirelab reservoir run"}))
    if isinstance(metrics, bytes):
        (d / "metrics.json").write_bytes(metrics)
    else:
        (d / "metrics.json").write_text(metrics)
    return d


GOOD = json.dumps({"summary": {"score": 0.75}})
BROKEN = {
    "bigint": ('{"x": ' + "9" * 10_000 + "}", "digits"),
    "deep-arrays": ("[" * 200_000 + "]" * 200_000, "nests deeper"),
    "deep-objects": ('{"a": ' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (MAX_JSON_DEPTH + 1), "nests"),
    "latin1": (b'{"name": "caf\xe9"}', "is not UTF-8"),
    "not-json": ("{'python': 'dict'}", "is not valid JSON"),
}


def hostile_folder(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(PNG)
    (outside / "secret.csv").write_text(f"user,hash\nroot,{SECRETS[1]}\n")
    (outside / "secret.json").write_text(json.dumps({"answer": SECRETS[0]}))
    (outside / "synth.json").write_text(json.dumps({"ice40-up5k": {"luts": SECRETS[7]}}))
    runs = tmp_path / "runs"
    _run(runs, "good", GOOD)
    for name, (text, _) in BROKEN.items():
        _run(runs, name, text)
    _run(runs, "surrogates", '{"\\ud800key": "\\udfff"}', '{"command": "wirelab x \\ud800"}')
    _run(runs, "huge-numbers", '{"big": ' + "9" * 4000 + ', "inf": 1e400, "nan": NaN}')
    odd = _run(runs, BAD_NAME, GOOD)
    (odd / os.fsdecode(b"plot-\xff.png")).write_bytes(PNG.replace(SECRETS[2].encode(), b""))
    (odd / os.fsdecode(b"notes-\xfe.txt")).write_text("notes")
    (odd / os.fsdecode(b"t\xff.csv")).write_bytes(b"a,\xff\n1,2\n")
    linked = _run(runs, "hard-links", GOOD, json.dumps({"command": "wirelab logic train"}))
    os.link(outside / "secret.png", linked / "stolen.png")
    os.link(outside / "secret.csv", linked / "results.csv")
    os.link(outside / "synth.json", linked / "synth.json")
    (linked / "notes.txt").write_text("mine")
    metrics_link = _run(runs, "hard-linked-metrics", GOOD)
    (metrics_link / "metrics.json").unlink()
    os.link(outside / "secret.json", metrics_link / "metrics.json")
    odd_shape = json.dumps({"command": "wirelab fly lateralization"})
    _run(runs, "odd-shape", json.dumps({"summary": 5, "rows": "x"}), odd_shape)
    deep = _run(runs, "deep-markers", GOOD)
    (deep / "metrics.json").unlink()
    (deep / ".in-progress").write_text("[" * 200_000)
    huge_pid = _run(runs, "huge-pid", GOOD)
    (huge_pid / "metrics.json").unlink()
    marker = {"pid": 10**30, "host": platform.node(), "started": "x" * 10_000}
    (huge_pid / ".in-progress").write_text(json.dumps(marker))
    failed = _run(runs, "deep-failed", GOOD)
    (failed / "metrics.json").unlink()
    (failed / "failed.json").write_text('{"error": ' * 100_000)
    return runs


def test_every_hostile_file_at_once_renders_each_bad_run_broken(tmp_path: Path) -> None:
    runs = hostile_folder(tmp_path)
    by_name = {r.name: r for r in load_runs([runs])}
    assert by_name["good"].status == "complete"
    for name, (_, why) in BROKEN.items():
        run = by_name[name]
        assert run.status == "broken" and why in run.reason, (name, run.reason)
        assert run.metrics is None
    assert by_name["hard-linked-metrics"].status == "broken"
    assert by_name["hard-linked-metrics"].reason == f"metrics.json {HARD_LINK}"
    assert by_name["odd-shape"].status == "complete"
    assert by_name["deep-markers"].status == "in progress"
    assert by_name["huge-pid"].status == "in progress"
    assert by_name["huge-pid"].reason.startswith("killed: started xxx")
    assert len(by_name["huge-pid"].reason) < 300
    assert by_name["deep-failed"].status == "failed"
    assert "failed.json" in by_name["deep-failed"].reason
    assert shown(BAD_NAME) in by_name and by_name[shown(BAD_NAME)].status == "complete"
    hard = by_name["hard-links"]
    assert sorted(p.name for p in hard.links) == ["results.csv", "stolen.png", "synth.json"]
    assert [p.name for p in hard.files] == ["notes.txt"] and hard.images == []

    page_path = write_report([runs], tmp_path / "page.html")
    page = page_path.read_text(encoding="utf-8")  # valid UTF-8 whatever the names' bytes
    assert well_formed_errors(page) == []
    assert _leaks(page) == []
    assert "not shown: results.csv, stolen.png, synth.json (symbolic links, or hard links" in page
    assert "caf\\xe9-\\xff" in page and "plot-\\xff.png" in page and "notes-\\xfe.txt" in page
    assert "./runs/caf%E9-%FF/notes-%FE.txt" in page  # the link names the file's own bytes
    for name in BROKEN:
        assert f"run-{name}" in page
    # metrics a headline cannot read: the run is shown as its tables, with a note
    assert "no headline: metrics.json does not have the shape wirelab fly lateralization" in page


def test_the_report_command_renders_it_with_one_summary_line(tmp_path: Path) -> None:
    runs = hostile_folder(tmp_path)
    r = wirelab_process("report", runs, "--out", tmp_path / "page.html", timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and _leaks(r.stdout + r.stderr) == []
    assert "runs ->" in r.stdout
    broken = next(ln for ln in r.stderr.splitlines() if ln.startswith("not complete"))
    assert all(f"{name} (broken)" in broken for name in BROKEN), broken
    links = next(ln for ln in r.stderr.splitlines() if ln.startswith("not read:"))
    assert "4 links, symbolic or hard" in links and "stolen.png" in links, links
    assert _leaks((tmp_path / "page.html").read_text(encoding="utf-8")) == []


def test_a_hard_link_is_refused_like_a_symbolic_link(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (tmp_path / "secret").write_text("s")
    os.link(tmp_path / "secret", root / "linked")
    (root / "mine").write_text("m")
    assert refusal(root / "linked", root) == HARD_LINK and refusal(root / "mine", root) is None
    with pytest.raises(Refused, match="hard link"):
        read_bytes(root / "linked", root)
    run = load_run(_run(tmp_path, "r", GOOD))
    assert run.status == "complete"


@pytest.mark.skipif(sys.platform != "linux", reason="file names of any bytes: Linux")
def test_names_are_shown_safely() -> None:
    assert shown(os.fsdecode(b"a\xffb")) == "a\\xffb"
    assert shown("a\ud800b") == "a\\ud800b"
    assert shown("caf\u00e9") == "caf\u00e9"
    assert shown(Path("/x") / os.fsdecode(b"\xfe")) == "/x/\\xfe"
