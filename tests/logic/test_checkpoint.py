"""Issue #33: what a damaged run file's error says is cut between words, never inside one; a
damaged ``discrete.json`` and dense widths beyond memory are one line each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from tests.clirun import one_line_error, wirelab
from tests.logic.killed import Interrupt
from wirelab.errors import CorruptDataError, UsageError
from wirelab.logic.checkpoint import first_words, load_file
from wirelab.logic.discrete import DiscreteLogicNet


def test_first_words_cuts_between_words_or_not_at_all() -> None:
    assert first_words("short reason\nsecond line") == "short reason"
    assert first_words("alpha beta gamma", limit=10) == "alpha beta ..."
    assert first_words("alpha beta gamma", limit=11) == "alpha beta ..."
    assert first_words("alpha beta gamma", limit=8) == "alpha ..."
    assert first_words("x" * 300, limit=100) == "x" * 300  # no space: kept whole
    assert first_words("  a   b  ") == "a b"
    assert first_words("") == ""
    assert first_words("two \x1b[1moptions\x1b[0m here") == "two options here"


@pytest.mark.parametrize("how", ["pickle", "garbage", "truncated"])
def test_unreadable_run_file_message_ends_on_a_whole_word(tmp_path: Path, how: str) -> None:
    path = tmp_path / "checkpoint.pt"
    if how == "pickle":  # refused by weights_only=True with a long explanation
        torch.save(Interrupt("x"), path)
    elif how == "garbage":
        path.write_bytes(b"not a torch file at all " * 20)
    else:
        torch.save({"w": torch.zeros(1000)}, path)
        path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(UsageError) as info:
        load_file(path, "wirelab logic checkpoint")
    msg = str(info.value)
    reason = re.fullmatch(r".* is not a readable wirelab logic checkpoint \((\w+): (.*)\)", msg)
    assert reason is not None, msg
    try:
        torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
        full = " ".join(plain.strip().splitlines()[0].split())
    text = reason.group(2)
    assert "\x1b" not in msg, msg
    assert text == full or (text.endswith(" ...") and full.startswith(text[:-4] + " ")), msg


DAMAGED = {
    "empty": b"",
    "truncated": b'{"format": "wirelab.discrete_logic_net/1", "thresholds": [[0.5',
    "garbage": b"\xff\xfe\x00\x81 binary garbage",
    "a-list": b"[1, 2, 3]",
    "no-layers": b'{"format": "wirelab.discrete_logic_net/1"}',
    "bad-types": b'{"format": "wirelab.discrete_logic_net/1", "thresholds": 5, '
    b'"layers": [{"a": "x", "b": [1], "gate": [1]}], "num_classes": "z", "tau": 1}',
    "bad-index": b'{"format": "wirelab.discrete_logic_net/1", "thresholds": [[0.5]], '
    b'"layers": [{"a": [7], "b": [0], "gate": [1]}], "num_classes": 1, "tau": 1}',
}


@pytest.mark.parametrize("how", sorted(DAMAGED))
def test_damaged_discrete_json_is_one_line(tmp_path: Path, how: str) -> None:
    path = tmp_path / "discrete.json"
    path.write_bytes(DAMAGED[how])
    with pytest.raises(CorruptDataError, match=r"discrete\.json is not a"):
        DiscreteLogicNet.load(path)


def test_dense_widths_beyond_memory_are_refused_before_anything(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = wirelab("logic", "train", "--dense", "99999999999,99999999999", "--out", out)
    assert one_line_error(r) and r.returncode == 2, r.stderr
    assert "dense 99999999999,99999999999 (batch size 128) needs at least" in r.stderr
    assert "over the limit of" in r.stderr and not out.exists()
