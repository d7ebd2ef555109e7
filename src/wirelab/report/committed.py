"""Committed runs that the tour's page answers from, beside the runs the tour made.

Some answers take longer than a tour has: the ten-class classifier placed and routed on one
iCE40 UP5K took nextpnr 47 minutes. Its result directory is committed under ``docs/figures``
(``config.json`` and ``metrics.json``); the headline entry that answers its run type lists it
(`wirelab.report.headlines.base.HeadlineEntry.committed`, a `CommittedRun` with the command
that makes it again), and `wirelab.tour` puts it on its page, where the headline reads its
numbers from that ``metrics.json``. A checkout without ``docs/figures`` (an installed wheel)
has none of them: `committed_runs` then loads none and says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from wirelab.report.runs import Run, is_result_dir, load_run

REPO = Path(__file__).resolve().parents[3]  # src/wirelab/report/committed.py -> the checkout


@dataclass(frozen=True)
class CommittedRun:
    """A committed result directory ``path`` (relative to the repository), what it answers in
    words, and ``command``: what a user types, from the repository, to make it again."""

    path: str
    what: str
    command: str


def committed_runs(
    items: Iterable[CommittedRun], root: Path | None = None
) -> tuple[list[Run], list[str]]:
    """The result directories of ``items`` under ``root`` (default `REPO`, the repository),
    each loaded as a `Run` named by its path; and one line for each one missing."""
    root = REPO if root is None else root
    runs, missing = [], []
    for c in items:
        path = root / c.path
        if is_result_dir(path):
            runs.append(load_run(path, name=c.path))
        else:
            missing.append(f"{c.what}: {c.path} is not here (a source checkout has it)")
    return runs, missing


def reproduce_command(
    run: Run, items: Iterable[CommittedRun], root: Path | None = None
) -> str | None:
    """The command that makes ``run`` again where it is one of ``items`` (under ``root``,
    default `REPO`), else None."""
    root = REPO if root is None else root
    here = run.path.resolve()
    return next((c.command for c in items if (root / c.path).resolve() == here), None)
