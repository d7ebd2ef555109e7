"""The report's headlines: one entry per run type that the report answers first (question,
answer with its uncertainty, a verdict computed from the numbers; see `base.Headline`).

Each entry is a `base.HeadlineEntry` in its own module, named for the command it answers: the run
type (the command a result directory records), the function computing the headline of one run
and, where several runs answer one question together, the function for the group. The report
(`wirelab.report.story`) loops over `entries()` and never names a run type.

A new headline is one module holding its `HeadlineEntry` plus one line here::

    HEADLINES.add("my-run", "wirelab.report.headlines.my_run:MY_RUN", "what it answers")
"""

from __future__ import annotations

from wirelab.registry import Registry
from wirelab.report.committed import CommittedRun
from wirelab.report.headlines.base import HeadlineEntry

HEADLINES = Registry[HeadlineEntry]("headline")

_H = "wirelab.report.headlines"
HEADLINES.add("reservoir-run", f"{_H}.reservoir_run:RESERVOIR", "a reservoir task against nulls")
HEADLINES.add("fly-stimulate", f"{_H}.fly_stimulate:STIMULATE", "one-sided stimulation of the fly")
HEADLINES.add("fly-taxis", f"{_H}.fly_taxis:TAXIS", "closed-loop odour taxis against baselines")
HEADLINES.add("fly-lateralization", f"{_H}.fly_lateralization:LATERAL", "DN response by side")
HEADLINES.add("fly-turns", f"{_H}.fly_turns:TURNS", "left, right and control flies over seeds")
HEADLINES.add("fly-choice", f"{_H}.fly_choice:CHOICE", "two cues of opposite value vs nulls")
HEADLINES.add("logic-train", f"{_H}.logic_train:LOGIC", "logic gate network: accuracy, FPGA fit")
HEADLINES.add("logic-up5k", f"{_H}.logic_up5k:UP5K", "the whole classifier on one iCE40 UP5K")
HEADLINES.add("attention-pooling", f"{_H}.attention_pooling:POOLING", "attention vs mean pooling")
HEADLINES.add("sweep", f"{_H}.sweep:SWEEP", "a sweep: its results table and summary plot")


def entries() -> list[HeadlineEntry]:
    """Every registered entry, in registration order (lazy entries imported now)."""
    return [HEADLINES.get(name) for name in HEADLINES.names()]


def committed() -> list[CommittedRun]:
    """The committed runs every entry lists (`HeadlineEntry.committed`), in registration order."""
    return [c for e in entries() for c in e.committed]
