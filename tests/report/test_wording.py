"""No answer card shows an internal name (`tests.report.wording`): the cards of every run type,
of every committed run under docs/figures and of the tour's page say things in words, names
from the code only quoted as ``<code>``; and the rule catches the cards' old texts."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from tests.report.stories import make_story_runs
from tests.report.wording import card_texts, internal_names, page_internal_names
from wirelab.report.committed import REPO
from wirelab.report.html import render_page, write_report
from wirelab.report.runs import load_runs
from wirelab.tour import write_page

FIGURES = REPO / "docs" / "figures"

# what the cards said before they said it in words (a page of the committed runs, a tour)
OLD_TEXTS = {
    "attn1 65.2% vs mean pooling 22.8% with 16 distractors": "pooling method name",
    "Above the seed's 99.27% with 973 gates (0.51x); fits the UP5K": "bare ratio",
    "Below LILogicNet 2025's 98.45% with 8,000 gates, learned connections (1x).": "bare ratio",
    "not in this run (file, key): (synth.json, ice40-up5k.fmax_mhz)": "snake_case key",
    "not synthesised for the UP5K (wirelab logic synth RUN --target ice40-up5k)": (
        "command-line option"
    ),
    "the 48K recipe mnist10-48k-paper": "id with digits",
    "the taxis study on ice40-up5k": "id with digits",
    "(synth.json, ice40-up5k.luts)": "dotted key",
    "degree-null-0 45% [26, 66] 20 trials, this run": "numbered run or model name",
    "logic/mnist10-8k-learned/seed-0": "path",
    "fpga/recipe-screens/aug1cage20k": "path",
    "Yes, resolved by `wirelab logic synth RUN --pnr --clock 12`, which found": (
        "unrendered backtick"
    ),
    "(README, On a chip; docs/logic-circuits.md)": "file name",
    "no test_bags in config.json: no interval": "snake_case key",
    "How accurate is the logic gate network on mnist10?": "task or recipe id",
    "verified: True": "Python repr",
}
NEW_TEXTS = [  # the same things in words
    "attention pooling (one head) 65.2% vs mean pooling 22.8% with 16 distractors",
    "Above the seed's 99.27% with 973 gates, using 500 gates (0.51 times as many)",
    "Below LILogicNet 2025's 98.45% with 8,000 gates, using 8,000 gates (as many).",
    "degree-preserving null 1 45% [26, 66] 20 trials, this run",
    "Yes: opposite turns, L − R = -42.2°; 0-vs-1 circuit; 6 x 8,000 gates; e.g. 12 MHz; DN-VNC",
    "Petersen et al. 2022, NeurIPS 2022 (arXiv:2210.08277); 97.69% with 48,000 gates",
]


@pytest.mark.parametrize("text, rule", OLD_TEXTS.items())
def test_the_rule_catches_the_old_card_texts(text: str, rule: str) -> None:
    assert rule in [r for r, _ in internal_names(text)]


@pytest.mark.parametrize("text", NEW_TEXTS)
def test_the_rule_lets_words_through(text: str) -> None:
    assert internal_names(text) == []


def test_code_elements_are_left_out_and_every_card_is_read() -> None:
    html = (
        '<div class="answer yes"><div class="qa"><p>Reproduce it with <code>wirelab logic up5k '
        'docs/figures/fpga/mnist10-up5k-2250</code>.</p></div><div class="beside">'
        "<table><tr><th>attn1</th></tr></table></div></div><p>fmax_mhz outside a card</p>"
        '<ul class="overview"><li>mean pooling</li></ul>'
    )
    card = "Reproduce it with . attn1"  # the card's question, answer, ... and its table
    assert card_texts(html) == [card, "mean pooling"]
    assert page_internal_names(html) == [("pooling method name", "attn1", card)]


def test_no_card_of_any_run_type_shows_an_internal_name(tmp_path: Path) -> None:
    make_story_runs(tmp_path / "runs")
    html = write_report([tmp_path / "runs"], tmp_path / "report.html").read_text()
    assert len(card_texts(html)) == 7  # the overview and a card per story
    assert page_internal_names(html) == []


@pytest.mark.skipif(not FIGURES.is_dir(), reason="docs/figures is in a source checkout")
def test_no_card_of_the_committed_runs_shows_an_internal_name() -> None:
    """Every committed result directory under docs/figures: logic studies, the UP5K runs, the
    fly's taxis and turn studies."""
    html = render_page(load_runs([FIGURES]), FIGURES)
    cards = card_texts(html)
    assert len(cards) >= 40
    assert any("on one iCE40 UP5K" in c for c in cards)
    assert page_internal_names(html) == []


@pytest.mark.skipif(not FIGURES.is_dir(), reason="docs/figures is in a source checkout")
def test_no_card_of_the_tour_page_shows_an_internal_name(tmp_path: Path) -> None:
    started = time.time()
    make_story_runs(tmp_path / "tour")
    out = io.StringIO()
    page = write_page(tmp_path / "tour", started, Console(file=out, width=300))
    html = page.read_text(encoding="utf-8")
    assert len(card_texts(html)) == 10  # the overview, 6 stories, the UP5K and 2 choice cards
    assert page_internal_names(html) == []
