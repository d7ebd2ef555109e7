"""The page in a real browser: headless Chromium (Debian's ``chromium``) over DevTools.

Checks that the page logs no console error, that every section is there, that every image and
video loaded, and saves a screenshot; that the checker does catch a broken page; and that the
tour's page answers every question (yes or no, never "not resolved"), the fly's video playing in
its card.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.clirun import wirelab
from tests.report.conftest import make_runs
from tests.report.stories import make_story_runs
from tests.report.wording import page_internal_names
from wirelab.report.browser import check_page, find_chromium
from wirelab.report.html import write_report
from wirelab.report.runs import load_runs

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium not found: apt-get install chromium (or set WIRELAB_CHROMIUM)",
)


def _mp4(path: Path) -> bool:
    """Write a short real H.264 clip with imageio-ffmpeg (the fly extra); False if missing."""
    try:
        import imageio.v2 as imageio
        import numpy as np
    except ImportError:
        return False
    frames = [np.full((48, 64, 3), 10 * i, np.uint8) for i in range(12)]
    try:
        imageio.mimwrite(path, frames, fps=12)  # type: ignore[arg-type]
    except Exception:  # no ffmpeg backend
        return False
    return path.stat().st_size > 0


def test_report_page_in_chromium(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    has_video = _mp4(tmp_path / "runs" / "logic" / "train" / "clip.mp4")
    page = write_report([tmp_path / "runs"], tmp_path / "report.html")
    shot = tmp_path / "report.png"
    check = check_page(page, screenshot=shot, width=1280, height=900)
    assert check.console_errors == []
    assert check.title == "wirelab report"
    runs = load_runs([tmp_path / "runs"])
    expected = {"summary"} | {f"system-{r.system}" for r in runs} | {r.anchor for r in runs}
    assert set(check.sections) == expected
    assert len(check.images) == 3
    assert all(im["naturalWidth"] > 0 and im["complete"] for im in check.images)
    if has_video:
        (video,) = check.videos
        assert video["readyState"] >= 1 and video["videoWidth"] == 64
        assert video["duration"] > 0
    assert check.ok, check.problems()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    assert Image.open(shot).size == (1280, 900)


def test_story_page_plays_the_fly_video_in_its_section(tmp_path: Path) -> None:
    """The answer-first page: every run type's story, the fly's left and right videos playing in
    the fly's story (metadata loaded, nonzero duration), plots loaded, no console error."""
    d = make_story_runs(tmp_path / "runs")
    if not (d["fly-left"] / "video.mp4").is_file():
        pytest.skip("imageio-ffmpeg cannot write an mp4 here (the fly extra)")
    page = write_report([tmp_path / "runs"], tmp_path / "report.html")
    check = check_page(page, screenshot=tmp_path / "story.png", width=1280, height=1600)
    assert check.console_errors == []
    assert check.ok, check.problems()
    assert {"answers", "summary", "system-fly", "run-fly-stimulate-left"} <= set(check.sections)
    assert len(check.videos) == 2
    for v in check.videos:
        assert v["story"] == "answer-fly-stimulate-left"  # the pair's story
        assert v["readyState"] >= 1 and v["videoWidth"] == 64
        assert v["duration"] == pytest.approx(1.0, abs=0.1)  # 12 frames at 12 fps
    assert len(check.images) == len(list((tmp_path / "runs").rglob("*.png")))
    assert all(im["naturalWidth"] > 0 for im in check.images)


def test_checker_catches_errors_and_broken_images(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body>'
        '<section id="s"></section><img alt="gone" src="gone.png">'
        '<script>console.error("boom"); notDefined();</script></body></html>'
    )
    check = check_page(page)
    assert not check.ok
    text = " | ".join(check.console_errors)
    assert "console.error: boom" in text
    assert "notDefined is not defined" in text
    assert "gone.png" in text  # the failed load is logged by the browser
    assert [im["alt"] for im in check.broken_images] == ["gone"]
    assert check.sections == ["s"]


def test_content_security_policy_blocks_what_the_page_does_not_need(tmp_path: Path) -> None:
    """The page itself loads cleanly under its policy; anything injected into it is blocked."""
    make_runs(tmp_path / "runs")
    page = write_report([tmp_path / "runs"], tmp_path / "report.html")
    injected = (
        '<script>console.error("script ran")</script>'
        '<img alt="remote" src="http://127.0.0.1:9/x.png"><p style="color: red">styled</p>'
    )
    bad = tmp_path / "injected.html"
    bad.write_text(page.read_text().replace("<main>", "<main>" + injected, 1))
    check = check_page(bad)
    errors = " | ".join(check.console_errors)
    assert "script ran" not in errors
    assert "Executing inline script violates the following Content Security Policy" in errors
    assert "Applying inline style violates" in errors
    assert "Loading the image 'http://127.0.0.1:9/x.png' violates" in errors
    assert [im["alt"] for im in check.broken_images] == ["remote"]


def test_report_cli_screenshot(tmp_path: Path) -> None:
    make_runs(tmp_path / "runs")
    out, shot = tmp_path / "page.html", tmp_path / "shot.png"
    r = wirelab("report", tmp_path / "runs", "--out", out, "--screenshot", shot)
    assert r.returncode == 0, r.stderr
    assert f"screenshot -> {shot}" in r.stdout
    assert shot.read_bytes()[:4] == b"\x89PNG"


ANSWER_CARD = re.compile(r'<div class="answer (\w+)">')


def answered_cards(page: Path) -> list[str]:
    """The outcome of every answer card on ``page`` (``yes``, ``no``, ``unresolved``, ``info``)."""
    html = page.read_text(encoding="utf-8")
    assert "not resolved</span>" not in html.lower()
    return ANSWER_CARD.findall(html)


def test_a_tour_shaped_page_resolves_every_card(tmp_path: Path) -> None:
    """The tour's run types, one of them too small to decide (a 3-seed flygym turn study whose CI
    includes 0): every card says yes or no, the small one with the command that resolves it."""
    from tests.report.stories import _run, logic_metrics, mp4, pooling_metrics, reservoir_metrics
    from tests.report.test_tour import PNR, null_turns
    from wirelab.results import write_json

    root = tmp_path / "runs"
    cfg = {"connectome": "larva", "null_models": ["degree"]}
    _run(root / "reservoir", "wirelab reservoir run", cfg, ("score_vs_alpha",)).finish(
        reservoir_metrics(p=0.05, n=19)
    )
    rd = _run(root / "fly" / "turns", "wirelab fly turns", {}, ("turns", "headings"))
    has_video = mp4(rd.path / "video.mp4")
    rd.finish(null_turns(-30.0, [], half=40.0))
    _run(root / "fly" / "turns-nulls", "wirelab fly turns", {}, ("turns",)).finish(
        null_turns(-42.2, [-32.7, 8.5] + [1.0] * 17)
    )
    rd = _run(root / "logic", "wirelab logic train", {}, ("training",))
    write_json(rd.path / "synth.json", PNR)
    rd.finish(logic_metrics(acc=0.9991, gates=500))
    pool = {"seeds": [0], "test_bags": 500}
    _run(root / "attention", "wirelab attention pooling", pool, ("weight_maps",)).finish(
        pooling_metrics()
    )
    page = write_report([root], tmp_path / "report.html")
    assert answered_cards(page) == ["yes"] * 5
    html = page.read_text(encoding="utf-8")
    assert "resolved by <code>wirelab fly turns --body flygym1 --seeds 8" in html
    assert page_internal_names(html) == []
    check = check_page(page, screenshot=tmp_path / "tour.png", width=1280, height=1000)
    assert check.ok, check.problems()
    if has_video:
        (video,) = check.videos
        assert video["story"] == "answer-fly-turns" and video["duration"] > 0


@pytest.mark.slow
def test_the_tour_page_answers_every_question(tmp_path: Path) -> None:
    """``wirelab tour --quick`` (or the finished tour in ``$WIRELAB_TOUR_OUT``, e.g. the default
    tour's, whose page is then saved as ``report.png`` beside it for the README): every answer
    card says yes or no, none "not resolved"; the fly's video plays in the flygym turn card;
    the committed ten-class UP5K run has its card beside the tour's."""
    given = os.environ.get("WIRELAB_TOUR_OUT")
    out = Path(given) if given else tmp_path / "tour"
    if not given:
        r = wirelab("tour", "--quick", "--out", out)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    page = out / "report.html"
    cards = answered_cards(page)
    assert len(cards) >= 4 and set(cards) <= {"yes", "no"}, cards
    assert page_internal_names(page.read_text(encoding="utf-8")) == []  # said in words
    shot = out / "report.png" if given else tmp_path / "report.png"
    check = check_page(page, screenshot=shot, width=1280, height=900)
    assert check.ok, check.problems()
    if (out / "fly" / "turns" / "video.mp4").is_file():
        from wirelab.report.committed import committed_runs
        from wirelab.report.headlines import committed

        assert len(cards) == 5 + len(committed_runs(committed())[0])  # + the ten-class UP5K
        (video,) = check.videos
        assert video["story"] == "answer-fly-turns" and video["readyState"] >= 1
        assert video["duration"] > 0 and video["videoWidth"] >= 240
