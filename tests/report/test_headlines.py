"""The HEADLINES registry: every entry resolves and is named only in its own module, and a toy
headline registered in one line answers its run on the page `wirelab report` builds."""

from __future__ import annotations

import inspect
from pathlib import Path

from tests.clirun import wirelab
from wirelab.report.headlines import HEADLINES, entries
from wirelab.report.headlines.base import Headline, HeadlineEntry
from wirelab.report.runs import Run
from wirelab.results import ResultDir

REPORT = Path(__file__).resolve().parents[2] / "src" / "wirelab" / "report"


def toy(run: Run) -> Headline | None:
    """A toy run's headline: its ``score`` against 0.5."""
    score = run.metrics.get("score")
    if not isinstance(score, float):
        return None
    verdict = f"Yes: the toy scores {score:g} > 0.5." if score > 0.5 else "No: 0.5 or less."
    outcome = "yes" if score > 0.5 else "no"
    return Headline("Does the toy score?", f"toy score {score:g}", "one toy run", verdict, outcome)


def test_every_entry_resolves_to_a_distinct_run_type() -> None:
    found = entries()
    assert len(found) == len(HEADLINES) >= 8
    assert all(isinstance(e, HeadlineEntry) for e in found)
    assert len({e.run_type for e in found}) == len(found)


def test_run_types_are_named_only_in_their_own_module() -> None:
    sources = {p: p.read_text() for p in REPORT.rglob("*.py")}
    for entry in entries():
        own = Path(inspect.getfile(entry.answer)).resolve()
        naming = {
            p.relative_to(REPORT).as_posix() for p, t in sources.items() if entry.run_type in t
        }
        assert naming == {own.relative_to(REPORT).as_posix()}, entry.run_type


def test_a_toy_headline_in_one_line_answers_its_run_on_the_page(tmp_path: Path) -> None:
    HEADLINES.add("toy", HeadlineEntry("wirelab toy run", toy), "a toy headline")
    try:
        rd = ResultDir.create(tmp_path / "runs" / "toy", command="wirelab  toy run", config={})
        rd.finish({"score": 0.75})
        other = ResultDir.create(tmp_path / "runs" / "other", command="wirelab toy", config={})
        other.finish({"score": 0.75})
        page = tmp_path / "page.html"
        r = wirelab("report", tmp_path / "runs", "--out", page)
    finally:
        HEADLINES.remove("toy")
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    card = html[html.index('<div class="story" id="answer-toy">') :]
    assert card.index('<p class="question">Does the toy score?</p>') < card.index("</div>")
    assert '<p class="answer-line">toy score 0.75</p>' in card
    assert "Yes: the toy scores 0.75 &gt; 0.5." in card
    assert html.count('<div class="story"') == 1  # the run of another type: generic view
    assert '<article class="run" id="run-other">' in html
    assert "toy" not in HEADLINES
