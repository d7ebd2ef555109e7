from __future__ import annotations

import pytest

from wirelab.progress import progress_bar


def test_log_mode_prints_a_line_per_tenth(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar("work", total=100) as bar:  # stderr is captured: not a terminal
        for _ in range(100):
            bar.advance()
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split()[1] for ln in lines] == [f"{10 * k}%" for k in range(1, 11)]


def test_fraction_callback_and_hidden_bar(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar("cb", total=4) as bar:
        bar(0.0)  # nothing at 0%
        bar(0.5)
        assert bar.completed == 2.0
    with progress_bar("quiet", total=1, show=False) as bar:
        bar.update(1)
    assert capsys.readouterr().err.splitlines() == ["cb: 50% (2/4), 0 s, about 0 s left"]


def test_log_mode_heartbeat_says_done_elapsed_and_time_left(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from wirelab import progress

    monkeypatch.setattr(progress, "HEARTBEAT", 0.5)
    with progress_bar("runs", total=4) as bar:
        bar.update(1)  # 25%: its own line at the next tenth only from 10% steps
        time.sleep(2.3)  # no unit finishes: heartbeats keep the log alive
    lines = capsys.readouterr().err.splitlines()
    beats = [ln for ln in lines if "(1/4)" in ln]
    assert len(beats) >= 2
    assert "left" in beats[0] and beats[0].startswith("runs: 25% (1/4), ")
