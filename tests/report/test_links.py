"""Issue #33: a report built from someone else's runs copies nothing from outside them.

A hostile runs folder links, from inside its runs, to files elsewhere on this machine (a
metrics.json, a failed.json, a .csv, a PNG, a video, a side JSON record, whole directories and a
whole run); the page and the command's output must contain none of their contents, and name the
links instead. A CSV row longer than its header is left out with a note, never fatal.
"""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import pytest

from tests.clirun import wirelab
from tests.report.conftest import make_runs
from tests.report.htmlcheck import well_formed_errors
from wirelab.report.html import write_report
from wirelab.report.reading import LINK, OUTSIDE, Refused, read_bytes, refusal
from wirelab.report.runs import load_run
from wirelab.results import ResultDir

SECRETS = [f"SECRET-{i}-do-not-leak" for i in range(8)]
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    + SECRETS[2].encode()
)


def _outside(root: Path) -> Path:
    """Files outside the runs folder, each holding a secret."""
    out = root / "outside"
    (out / "dir").mkdir(parents=True)
    (out / "secret.json").write_text(f'{{"answer": "{SECRETS[0]}"}}')
    (out / "secret.csv").write_text(f"user,hash\nroot,{SECRETS[1]}\n")
    (out / "secret.png").write_bytes(PNG)
    (out / "secret.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + SECRETS[3].encode())
    (out / "failed.json").write_text(f'{{"error": "{SECRETS[4]}"}}')
    (out / "dir" / "notes.txt").write_text(SECRETS[5])
    (out / "dir" / "verify.json").write_text(f'{{"verified": "{SECRETS[5]}"}}')
    run = ResultDir.create(out / "run", command="wirelab logic train", config={"s": SECRETS[6]})
    run.write_metrics({"test_accuracy": 0.5, "label": SECRETS[6]})
    (out / "synth.json").write_text(f'{{"ice40-up5k": {{"luts": "{SECRETS[7]}"}}}}')
    return out


def hostile_runs(root: Path) -> Path:
    """A runs folder whose runs link to the secrets of `_outside`."""
    out, runs = _outside(root), root / "runs"
    d = make_runs(runs)
    logic = d["logic"]
    (logic / "table.csv").symlink_to(out / "secret.csv")
    (logic / "plot.png").symlink_to(out / "secret.png")
    (logic / "film.mp4").symlink_to(out / "secret.mp4")
    (logic / "notes.txt").symlink_to(out / "dir" / "notes.txt")
    (logic / "synth.json").symlink_to(out / "synth.json")
    (logic / "verify").symlink_to(out / "dir", target_is_directory=True)
    (logic / "linked-run").symlink_to(out / "run", target_is_directory=True)
    (runs / "linked-run").symlink_to(out / "run", target_is_directory=True)
    linked = ResultDir.create(runs / "linked-metrics", command="wirelab logic train", config={})
    linked.write_metrics({"test_accuracy": 0.5})
    (linked.path / "metrics.json").unlink()
    (linked.path / "metrics.json").symlink_to(out / "secret.json")
    (d["failed"] / "failed.json").unlink()
    (d["failed"] / "failed.json").symlink_to(out / "failed.json")
    only_link = runs / "only-a-linked-metrics"
    only_link.mkdir()
    (only_link / "metrics.json").symlink_to(out / "secret.json")
    return runs


def _leaks(text: str) -> list[str]:
    """The secrets found in ``text``, also inside any base64 ``data:`` URI."""
    found = [s for s in SECRETS if s in text]
    for b64 in re.findall(r"base64,([A-Za-z0-9+/=]+)", text):
        data = base64.b64decode(b64)
        found += [s for s in SECRETS if s.encode() in data]
    return found


def test_hostile_folder_leaks_nothing_and_names_the_links(tmp_path: Path) -> None:
    runs = hostile_runs(tmp_path)
    page = write_report([runs], tmp_path / "r.html").read_text()
    assert _leaks(page) == []
    assert well_formed_errors(page) == []
    names = "film.mp4, linked-run, notes.txt, plot.png, synth.json, table.csv, verify"
    assert f"not shown: {names} (symbolic links" in page
    assert f"metrics.json {LINK}" in page  # the linked metrics.json: a broken run, not read
    assert f"failed (failed.json {LINK})" in page
    assert "run-linked-metrics" in page and "run-only-a-linked-metrics" in page


def test_report_command_leaks_nothing_and_names_links_on_stderr(tmp_path: Path) -> None:
    runs = hostile_runs(tmp_path)
    r = wirelab("report", runs, "--out", tmp_path / "r.html")
    assert r.returncode == 0, r.stderr
    assert _leaks(r.stdout + r.stderr + (tmp_path / "r.html").read_text()) == []
    line = next(ln for ln in r.stderr.splitlines() if ln.startswith("not read:"))
    assert "11 links, symbolic or hard" in line and str(runs / "linked-run") in line, line


def test_a_linked_run_or_metrics_named_on_the_command_line_is_not_read(tmp_path: Path) -> None:
    runs = hostile_runs(tmp_path)
    page = write_report([runs / "linked-metrics" / "metrics.json"], tmp_path / "r.html")
    assert _leaks(page.read_text()) == []
    run = load_run(runs / "only-a-linked-metrics")
    assert run.status == "broken" and run.metrics is None and run.reason == f"metrics.json {LINK}"


def test_reader_refuses_links_fifos_and_paths_outside(tmp_path: Path) -> None:
    (tmp_path / "run" / "sub").mkdir(parents=True)
    (tmp_path / "secret").write_text("s")
    (tmp_path / "run" / "ok").write_text("ok")
    (tmp_path / "run" / "link").symlink_to(tmp_path / "secret")
    (tmp_path / "run" / "sub2").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(tmp_path / "run" / "fifo")
    root = tmp_path / "run"
    assert read_bytes(root / "ok", root) == b"ok"
    assert refusal(root / "link", root) == LINK
    assert refusal(root / "sub2" / "secret", root) == OUTSIDE  # through a linked directory
    for name in ("link", "fifo", "sub2/secret"):
        with pytest.raises(Refused):  # a FIFO would block a plain open(); never read
            read_bytes(root / name, root)


def test_csv_row_longer_than_its_header_is_left_out_with_a_note(tmp_path: Path) -> None:
    d = make_runs(tmp_path / "runs")
    (d["logic"] / "rows.csv").write_text("a,b\n1,2\n3,4,5,6\n7,8\n")
    (d["logic"] / "all-bad.csv").write_text("a\n1,2\n")
    page = write_report([tmp_path / "runs"], tmp_path / "r.html").read_text()
    assert "rows.csv: 1 row is longer than the header; left out" in page
    assert "all-bad.csv: 1 row is longer than the header; left out" in page
    assert "<h4>rows.csv</h4>" in page and "<h4>all-bad.csv</h4>" not in page
    assert well_formed_errors(page) == []
