"""The report's headline: a run's question, its answer with the uncertainty, and a verdict computed
from the numbers (never written by hand); and `HeadlineEntry`, what the report knows about one kind
of headline (the run type it answers and the functions that answer it).

An entry's ``answer`` reads one run's ``metrics.json`` and ``config.json`` (``run.metrics``,
``run.config``; the logic circuit's also ``synth.json`` and ``verify/verify.json``) and returns a
`Headline`, or None when the run lacks what it needs (the page then shows the generic view). An
entry's ``group``, where it has one, answers one question from several complete runs of its type
together (left and right stimulation of the fly): ``(runs) -> [(Headline, runs)]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wirelab.anchors import Anchor
from wirelab.report.committed import CommittedRun
from wirelab.report.runs import Run

OUTCOMES = ("yes", "no", "unresolved", "info")  # the verdict's CSS class


@dataclass
class Comparison:
    """One row of the anchors table beside an answer: who, what figure, and where from."""

    who: str
    figure: str
    note: str = ""
    this_run: bool = False  # the run's own figure (shown first, in bold)

    @classmethod
    def of(cls, anchor: Anchor) -> Comparison:
        return cls(anchor.who, anchor.text().rsplit(" (", 1)[0], anchor.citation)


@dataclass
class Headline:
    """A run's (or a group of runs') answer to its question.

    ``answer`` is the number in words (``MC 8.93``), ``uncertainty`` its interval or p-value with
    the number of seeds, nulls or test images, ``verdict`` one line derived from those numbers
    and ``outcome`` one of `OUTCOMES`. ``plots`` names the key plots (file stems, in order),
    ``table`` a small evidence table (gate counts, LUTs, Fmax), ``tables`` CSV files shown
    with it (a sweep's ``results.csv``), ``missing`` the (file, key) pairs the answer would use
    but the run lacks.
    """

    question: str
    answer: str
    uncertainty: str
    verdict: str
    outcome: str = "info"
    comparisons: list[Comparison] = field(default_factory=list)
    plots: tuple[str, ...] = ()
    table: list[tuple[str, Any]] = field(default_factory=list)
    table_caption: str = ""
    tables: tuple[str, ...] = ()  # CSV files of the run shown with the evidence
    missing: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {self.outcome!r}")


HeadlineFn = Callable[[Run], "Headline | None"]
GroupFn = Callable[[Sequence[Run]], "list[tuple[Headline, list[Run]]]"]


@dataclass(frozen=True)
class HeadlineEntry:
    """One kind of headline, as registered in `wirelab.report.headlines.HEADLINES`.

    ``run_type`` is the command a result directory records in ``config.json`` (``wirelab
    reservoir run``), compared with its whitespace normalised; with ``prefix`` any command that
    starts with it is answered too (a command whose arguments follow, a grid file). ``answer`` is
    ``(run) -> Headline | None`` for one complete run; ``group`` (optional) is ``(runs) ->
    [(Headline, runs)]``, asked first with all complete runs of the type when there are at least
    two, each run it takes then answered by the group alone. ``committed``: result directories
    of this type committed under ``docs/figures`` that the tour's page shows beside its own runs
    (`wirelab.report.committed`).
    """

    run_type: str
    answer: HeadlineFn
    group: GroupFn | None = None
    prefix: bool = False
    committed: tuple[CommittedRun, ...] = ()

    def answers(self, run: Run) -> bool:
        """Whether ``run`` is of this entry's run type (its recorded command)."""
        command = " ".join(run.command.split())
        return command.startswith(self.run_type) if self.prefix else command == self.run_type
