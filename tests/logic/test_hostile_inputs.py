"""Issue #47, the logic side: hostile invocations refused in one line before any work.

``logic up5k`` and ``logic narrow`` take ``--out`` through the shared guard (`OUT_DIR`,
`check_out`) and check it, ``--per-class`` and the head before scoring or building anything;
``--pnr-timeout``, seeds and counts are bounded; a damaged seeds study's ``config.json`` on
``--resume`` is one line (exit 1); an empty or table-less recipe is refused; arguments that
are not UTF-8 are one line on a real process's stderr. Every other case runs in-process with the
work monkeypatched away (`tests.test_cli_fuzz._invoke`): one line, the right exit code, nothing
written. Also issue #33's damaged ``discrete.json`` and checkpoint.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.logic.circuit.runs import make_run
from tests.test_cli_fuzz import Accepted, _invoke
from tests.test_cli_fuzz import _refused as _refused_in
from wirelab import results
from wirelab.logic import datasets

BIG = "12345678901234567890123"  # 23 digits


def _refused(argv: list[str], tmp: Path, monkeypatch: pytest.MonkeyPatch, code: int = 2) -> str:
    """Run ``argv`` in ``tmp``: one line, exit ``code``, no traceback, nothing under ``tmp``
    written or removed. Returns the line."""
    monkeypatch.chdir(tmp)
    before = sorted((str(p), p.stat().st_mtime_ns) for p in tmp.rglob("*"))
    outcome, got, err = _invoke(argv, monkeypatch)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert outcome == "error" and got == code, (argv, outcome, got, err)
    assert "Traceback" not in err and len(lines) == 1, (argv, err)
    assert sorted((str(p), p.stat().st_mtime_ns) for p in tmp.rglob("*")) == before, argv
    return lines[0]


def _no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    def scored(*a: Any, **k: Any) -> None:
        raise AssertionError("the outputs were scored before the options were checked")

    monkeypatch.setattr(datasets, "load_task", scored)


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0", "1e300"])
def test_up5k_pnr_timeout_is_bounded(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")
    argv = ["logic", "up5k", str(run), "--out", str(tmp_path / "o"), "--pnr-timeout", value]
    line = _refused(argv, tmp_path, monkeypatch)
    assert "--pnr-timeout" in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args",
    [["--seed", BIG], ["--seed", "-1"], ["--clock", "nan"], ["--slices", "100000000000000000000"]],
    ids=" ".join,
)
def test_up5k_numbers_are_bounded(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")
    argv = ["logic", "up5k", str(run), "--out", str(tmp_path / "o"), *args]
    line = _refused(argv, tmp_path, monkeypatch)
    assert args[0] in line, line


@pytest.mark.parametrize(
    "args", [["--slices", "13"], ["--shift-bits", "999"], ["--classes-per-step", "3"]], ids=" ".join
)
def test_up5k_head_larger_than_the_model_is_refused_before_any_work(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")  # 2 classes, 12 outputs each
    argv = ["logic", "up5k", str(run), "--out", str(tmp_path / "o"), *args]
    line = _refused(argv, tmp_path, monkeypatch)
    assert args[0] in line and "the model's" in line, line


def _outs(tmp: Path, run: Path) -> dict[str, tuple[list[str], str]]:
    a_file = tmp / "a-file"
    a_file.write_text("x")
    done = make_run(tmp / "done")
    return {
        "empty": (["--out", ""], "'' is empty"),
        "a file": (["--out", str(a_file)], "is a file"),
        "under a file": (["--out", str(a_file / "o")], "a-file"),
        "a finished run": (["--out", str(done)], "--overwrite"),
        "the run itself": (["--out", str(run), "--overwrite"], "RUN_DIR itself"),
    }


OUT_CASES = ["empty", "a file", "under a file", "a finished run", "the run itself"]


@pytest.mark.parametrize("case", OUT_CASES)
@pytest.mark.parametrize("command", ["narrow", "up5k"])
def test_bad_out_is_refused_before_any_work(
    command: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")
    out, said = _outs(tmp_path, run)[case]
    _no_scoring(monkeypatch)
    extra = ["--per-class", "2"] if command == "narrow" else []
    line = _refused(["logic", command, str(run), *extra, *out], tmp_path, monkeypatch)
    assert said in line, line


@pytest.mark.parametrize("per_class", ["13", "0", "-1", "100000000000000000000", "nan"])
def test_narrow_checks_per_class_before_scoring(
    per_class: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")
    _no_scoring(monkeypatch)
    argv = ["logic", "narrow", str(run), "--per-class", per_class, "--out", str(tmp_path / "o")]
    line = _refused(argv, tmp_path, monkeypatch)
    assert "--per-class" in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--seeds", "99999999999"],
        ["--seeds", "10001"],
        ["--seeds", f"0,{BIG}"],
        ["--seeds", "0,4294967296"],
        ["--seed", BIG],
        ["--epochs", "100000000000000000000"],
        ["--max-train", "100000000000000000000"],
    ],
    ids=" ".join,
)
def test_train_seeds_and_counts_are_bounded(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _refused(["logic", "train", *args, "--out", str(tmp_path / "o")], tmp_path, monkeypatch)
    assert args[0] in line, line
    assert not (tmp_path / "o").exists()


def test_a_recipe_seed_beyond_2_32_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text(f"[train]\nseed = {BIG}\n[model]\ndense = [8]\n")
    argv = ["logic", "train", "--recipe", str(recipe), "--out", str(tmp_path / "o")]
    line = _refused(argv, tmp_path, monkeypatch)
    assert "seed" in line and "2**32" in line, line


DAMAGED_STUDY = {
    "truncated": b'{"command": "wirelab logic train --seeds", "config": {"train": {"epo',
    "not utf-8": b'{"config": {"train": {"\xff\xfe": 1}}}',
    "a list": b"[1, 2]",
    "no train": b'{"config": {"seeds": [0, 1]}}',
    "deep": b"[" * 200_000 + b"]" * 200_000,
}


@pytest.mark.parametrize("recipe", [[], ["--recipe", "mnist01"]], ids=["no recipe", "a recipe"])
@pytest.mark.parametrize("how", sorted(DAMAGED_STUDY))
def test_resume_of_a_damaged_seeds_study_is_one_line(
    how: str, recipe: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "study"
    out.mkdir()
    (out / "config.json").write_bytes(DAMAGED_STUDY[how])
    argv = ["logic", "train", *recipe, "--seeds", "2", "--resume", "--out", str(out)]
    line = _refused(argv, tmp_path, monkeypatch, code=1)
    assert "config.json" in line, line
    assert (out / "config.json").read_bytes() == DAMAGED_STUDY[how]


@pytest.mark.parametrize(
    "text",
    ["", "\n# nothing\n", 'description = "typo"\n', "[train]\n[model]\n", "train = 5\n"],
    ids=["empty", "a comment", "no tables", "empty tables", "not a table"],
)
def test_an_empty_recipe_is_refused(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(text)
    argv = ["logic", "train", "--recipe", str(recipe), "--out", str(tmp_path / "o")]
    line = _refused(argv, tmp_path, monkeypatch)
    assert "recipe" in line, line
    assert not (tmp_path / "o").exists()


# ---- issue #33: a damaged discrete.json or checkpoint (moved from tests/test_cli_fuzz.py)
DAMAGED_DISCRETE = {
    "empty": b"",
    "truncated": b'{"format": "wirelab.discrete_logic_net/1", "layers": [{"a": [0, 1',
    "garbage": b"\x89\xff\xfe\x00 not text at all \x81",
    "not-a-net": b'{"format": "wirelab.discrete_logic_net/1", "layers": 5}',
}


@pytest.mark.parametrize("how", sorted(DAMAGED_DISCRETE))
def test_compile_on_a_damaged_discrete_json_is_one_line(
    how: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch
) -> None:
    run = results.ResultDir.create(
        tmp_path_factory.mktemp("damaged") / "run", command="wirelab logic train", config={}
    )
    (run.path / "discrete.json").write_bytes(DAMAGED_DISCRETE[how])
    run.write_metrics({"test_accuracy": 0.5})
    before = sorted(p.name for p in run.path.rglob("*"))
    argv = ["logic", "compile", str(run.path), "--backend", "c"]
    line = _refused_in(argv, tmp_path, monkeypatch)
    assert "discrete.json is not a" in line, line
    assert sorted(p.name for p in run.path.rglob("*")) == before  # nothing written into it


@pytest.mark.parametrize("damage", ["pickle", "garbage"])
def test_resume_from_a_damaged_checkpoint_ends_on_a_whole_word(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    out = tmp_path / "out"
    out.mkdir()
    if damage == "pickle":  # refused by weights_only=True, with torch's long explanation
        torch.save(Accepted(), out / "checkpoint.pt")
    else:
        (out / "checkpoint.pt").write_bytes(b"\x80\x02 not a checkpoint " * 40)
    line = _refused_in(["logic", "train", "--resume", "--out", str(out)], tmp_path, monkeypatch)
    assert "checkpoint.pt is not a readable" in line and "\x1b" not in line, line
    try:
        torch.load(out / "checkpoint.pt", weights_only=True)
    except Exception as exc:  # what torch says, plain: the line quotes it whole or cut at a space
        full = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()[0].split())
    quoted = line[line.index(": ", line.index("(")) + 2 : -1]
    assert quoted == full or (quoted.endswith(" ...") and full.startswith(quoted[:-3])), line


@pytest.mark.parametrize(
    "args",
    [[b"--seeds", b"\xff\xfe"], [b"--recipe", b"\xff.toml"], [b"--classes", b"\xff"]],
    ids=["seeds", "recipe", "classes"],
)
def test_non_utf8_arguments_are_one_line_in_a_real_process(
    args: list[bytes], tmp_path: Path
) -> None:
    """Bytes that are not UTF-8, as a shell passes them: one line on the real stderr (its
    encoding, not a StringIO), exit 2, nothing written."""
    import os
    import subprocess
    import sys

    argv = [sys.executable.encode(), b"-m", b"wirelab", b"logic", b"train", *args, b"--out", b"o"]
    p = subprocess.run(argv, cwd=tmp_path, capture_output=True, env=os.environ, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []
