"""The study that answers a question a run was too small to answer.

A run sized for a budget (a tour, a smoke test) can leave its question open: a CI over three
seeds that includes 0, a circuit not synthesised because yosys is missing. Its card then says
which command resolves the question and what that command found, from the project's committed
figures, instead of only "not resolved": `Resolution.settle` turns such a headline into the
study's answer, with this run's own numbers kept as they are and the reason it alone did not
decide in the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from wirelab.report.headlines.base import Comparison, Headline

WORDS = {"yes": "Yes", "no": "No"}


@dataclass(frozen=True)
class Resolution:
    """A committed study's answer to a question: ``command`` (what to type), ``found`` (its
    figure, in words), ``outcome`` (``yes`` or ``no``) and ``source`` (where the figure is
    committed: a file under docs/figures or a README section; a path quoted in backticks, which
    the page shows as code)."""

    command: str
    found: str
    outcome: str
    source: str

    def __post_init__(self) -> None:
        if self.outcome not in WORDS:
            raise ValueError(f"a resolution answers yes or no, not {self.outcome!r}")

    def settle(self, h: Headline, why: str) -> Headline:
        """``h`` (left open by its run, because ``why``) answered by this study."""
        verdict = (
            f"{WORDS[self.outcome]}, resolved by `{self.command}`, which found {self.found} "
            f"({self.source}). This run alone does not decide it: {why}"
        )
        beside = Comparison("the resolving study", self.found, f"`{self.command}`; {self.source}")
        return replace(
            h, verdict=verdict, outcome=self.outcome, comparisons=[*h.comparisons, beside]
        )
