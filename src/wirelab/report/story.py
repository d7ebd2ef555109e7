"""The answer first: a headline card per run (or group of runs), its evidence, then the raw view.

A *story* is one `Headline` with the runs that answer it. On the page it is

1. the card: the question in plain words, the answer with its uncertainty, the verdict (computed
   by the run type's entry in `wirelab.report.headlines.HEADLINES`), what the run lacks,
   and beside it the anchors: this run's figure next to the seed's and the papers'
   (`wirelab.anchors`) or next to the run's own baselines and nulls;
2. the evidence: each run's videos (playing in place, or a poster frame past the page's budget),
   its key plots, the small evidence table (gate counts, LUTs, Fmax) and CSV tables;
3. folded below, each run's generic article (metrics, config, the other plots, files).

Runs without a headline (an unknown type, a failed run, metrics a function needs but the run
lacks) keep the generic article alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from wirelab.report.article import PageContext, render_run
from wirelab.report.files import csv_table, figure, video
from wirelab.report.headlines import entries
from wirelab.report.headlines.base import Headline, HeadlineEntry
from wirelab.report.runs import Run
from wirelab.report.tables import kv_table

OUTCOME_LABELS = {"yes": "yes", "no": "no", "unresolved": "not resolved", "info": "result"}
_CODE = re.compile(r"`([^`]+)`")


def inline(text: str) -> str:
    """``text`` escaped for HTML, each ```quoted``` name or command (`wirelab.report.words.code`)
    shown as a ``<code>`` element."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


@dataclass
class Story:
    """A headline and the runs that answer it (one run, or several for a group)."""

    headline: Headline
    runs: list[Run]

    @property
    def system(self) -> str:
        return self.runs[0].system

    @property
    def anchor(self) -> str:
        return "answer-" + self.runs[0].anchor.removeprefix("run-")


def entry_of(run: Run) -> HeadlineEntry | None:
    """The headline entry whose run type ``run`` is, or None."""
    return next((e for e in entries() if e.answers(run)), None)


def headline_of(run: Run) -> Headline | None:
    """The run's headline, or None (not complete, an unknown type, or metrics it lacks). Metrics
    whose shape the headline cannot read (hand-edited, another version's) are noted among the
    run's problems and the run is shown as its tables: one odd file never stops the page."""
    entry = entry_of(run)
    if run.status != "complete" or entry is None or not isinstance(run.metrics, dict):
        return None
    try:
        return entry.answer(run)
    except Exception as exc:  # any shape a headline did not foresee
        _unreadable(run, exc)
        return None


def _unreadable(run: Run, exc: Exception) -> None:
    note = (
        f"no headline: metrics.json does not have the shape {run.command or 'its command'} "
        f"writes ({type(exc).__name__}); shown as tables"
    )
    if note not in run.problems:
        run.problems.append(note)


def groups_of(runs: Sequence[Run]) -> list[Story]:
    """Headlines answered by several complete runs of one type together (an entry's ``group``)."""
    out: list[Story] = []
    for entry in entries():
        if entry.group is None:
            continue
        same = [r for r in runs if entry.answers(r) and r.status == "complete"]
        if len(same) > 1 and all(isinstance(r.metrics, dict) for r in same):
            try:
                out += [Story(h, members) for h, members in entry.group(same)]
            except Exception:  # a shape the group did not foresee: each run on its own
                continue
    return out


def plan_stories(runs: Sequence[Run]) -> tuple[list[Story], list[Run]]:
    """The stories of ``runs`` (groups first, each run in at most one) and the runs left to the
    generic view, both in the order of ``runs``."""
    stories = groups_of(runs)
    taken = {id(r) for s in stories for r in s.runs}
    rest: list[Run] = []
    for r in runs:
        if id(r) in taken:
            continue
        h = headline_of(r)
        if h is None:
            rest.append(r)
        else:
            stories.append(Story(h, [r]))
    order = {id(r): i for i, r in enumerate(runs)}
    stories.sort(key=lambda s: order[id(s.runs[0])])
    return stories, rest


def verdict_html(h: Headline) -> str:
    label = OUTCOME_LABELS[h.outcome]
    return (
        f'<p class="verdict {h.outcome}"><span class="outcome {h.outcome}">{label}</span> '
        f"{inline(h.verdict)}</p>"
    )


def _comparisons(h: Headline) -> str:
    if not h.comparisons:
        return ""
    rows = "".join(
        f"<tr{' class=this' if c.this_run else ''}><th scope=row>{inline(c.who)}</th>"
        f"<td class=num>{inline(c.figure)}</td><td class=cite>{inline(c.note)}</td></tr>"
        for c in h.comparisons
    )
    return (
        '<table class="anchors"><caption>beside the result</caption><thead><tr><th></th>'
        f"<th>figure</th><th>source</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def render_card(story: Story) -> str:
    """The headline card: question, answer, uncertainty, verdict, then the anchors beside it."""
    h = story.headline
    names = ", ".join(f"<code>{escape(r.name)}</code>" for r in story.runs)
    where = "result directory" if len(story.runs) == 1 else "result directories"
    missing = ""
    if h.missing:
        missing = f'<p class="dim missing">not in this run: {inline("; ".join(h.missing))}</p>'
    return (
        f'<div class="answer {h.outcome}"><div class="qa">'
        f'<p class="question">{inline(h.question)}</p>'
        f'<p class="answer-line">{inline(h.answer)}</p>'
        f'<p class="uncertainty">{inline(h.uncertainty)}</p>'
        f"{verdict_html(h)}{missing}"
        f'<p class="dim from">read from the {where} {names}</p></div>'
        f'<div class="beside">{_comparisons(h)}</div></div>'
    )


def key_plots(run: Run, stems: Sequence[str]) -> list[Path]:
    """The run's plots named in ``stems`` (in that order), or its first plot if none match."""
    top = [i for i in run.images if i.parent == run.path]
    chosen = [i for s in stems for i in top if i.stem == s]
    return chosen or top[:1]


def render_evidence(story: Story, ctx: PageContext) -> tuple[str, set[Path]]:
    """Each run's videos and key plots, the evidence table and CSV tables; and the files shown."""
    h = story.headline
    shown: set[Path] = set()
    parts = []
    for run in story.runs:
        vids = [v for v in run.videos if v.parent == run.path]
        imgs = key_plots(run, h.plots)
        shown.update(vids, imgs)
        figs = [video(run, v, ctx.page_dir, ctx.max_bytes, ctx.budget) for v in vids]
        figs += [figure(run, i, ctx.page_dir, ctx.max_bytes) for i in imgs]
        if figs:
            label = f"<h4>{escape(run.name)}</h4>" if len(story.runs) > 1 else ""
            parts.append(f'{label}<div class="figures">{"".join(figs)}</div>')
        for name in h.tables:
            path = run.path / name
            if path in run.files:
                shown.add(path)
                parts.append(csv_table(run, path, ctx.max_rows))
    if h.table:
        parts.append(kv_table(h.table, h.table_caption or None))
    if not parts:
        return "", shown
    return '<div class="evidence"><h4>evidence</h4>' + "".join(parts) + "</div>", shown


def render_story(story: Story, ctx: PageContext) -> str:
    """Card, evidence, and each run's generic article folded below."""
    evidence, shown = render_evidence(story, ctx)
    raw = "".join(render_run(r, ctx, shown) for r in story.runs)
    what = "run" if len(story.runs) == 1 else f"{len(story.runs)} runs"
    return (
        f'<div class="story" id="{story.anchor}">{render_card(story)}{evidence}'
        f'<details class="raw"><summary>metrics, config and files of the {what}</summary>'
        f"{raw}</details></div>"
    )


def render_overview(stories: Sequence[Story]) -> str:
    """One line per story for the top of the page: system, question, answer, verdict."""
    if not stories:
        return ""
    items = "".join(
        f'<li class="{s.headline.outcome}"><span class="sys">{escape(s.system)}</span> '
        f'<a href="#{s.anchor}">{inline(s.headline.question)}</a>'
        f'<span class="answer-line">{inline(s.headline.answer)}</span>'
        f"{verdict_html(s.headline)}</li>"
        for s in stories
    )
    return f'<ul class="overview">{items}</ul>'
