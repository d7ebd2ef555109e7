"""What a reader sees on the answer cards, and the internal names it must not contain.

The rule: the text of every answer card (``<div class="answer ...">``: question, answer,
uncertainty, verdict, what the run lacks, the figures beside it) and of the overview at the top
of the page says things in words. A name from the code (a method ``attn1``, a metrics key
``fmax_mhz``, a run's directory ``fly/taxis``, a recipe ``mnist10-8k``, a command) may appear
only quoted, inside a ``<code>`` element, where it is what to type or where to look. `INTERNAL`
are the patterns of such names outside ``<code>``; `internal_names` lists each one found.

The patterns catch the shapes of code names, not every plain word a program uses as a name
(a fly model ``row``, a sweep's metric ``mc``): those are checked by the headline tests.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

INTERNAL = {
    "snake_case key": re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"),
    "pooling method name": re.compile(r"\battn\d+\b"),
    "bare ratio": re.compile(r"\b\d+(?:\.\d+)?x\b"),
    "task or recipe id": re.compile(r"\bmnist\d+\b"),
    "numbered run or model name": re.compile(r"(?<![\w-])[a-z]+(?:-[a-z0-9]+)*-\d+\b"),
    "file name": re.compile(r"\b[\w-]+\.(?:json|csv|png|mp4|npz|toml|md|v|py)\b"),
    "path": re.compile(r"\b[\w.-]+/[\w.-]+"),
    "dotted key": re.compile(r"\b[a-z][\w-]+\.[a-z_]\w+"),
    "command-line option": re.compile(r"(?<![\w-])--[a-z][\w-]+"),
    "id with digits": re.compile(r"\b[a-z]+\d[a-z0-9]*(?:-[a-z0-9]+)+\b"),
    "Python repr": re.compile(r"\b(?:None|True|False)\b|[\[{]'|<\w+ object"),
    "unrendered backtick": re.compile(r"`"),
}


class _Cards(HTMLParser):
    """The visible text of the answer cards and the overview, without ``<code>`` elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open elements inside a card (0: outside every card)
        self.code = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self.depth:
            self.depth += tag not in VOID
        elif (tag == "div" and "answer" in classes) or (tag == "ul" and "overview" in classes):
            self.depth = 1
            self.texts.append("")
        if self.depth and tag == "code":
            self.code += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "code":
            self.code -= 1
        if self.depth and tag not in VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.code:
            self.texts[-1] += data + " "


VOID = {"br", "img", "hr", "meta", "link", "input", "source", "col", "wbr"}


def card_texts(html: str) -> list[str]:
    """The words of each card and of the overview, ``<code>`` left out."""
    parser = _Cards()
    parser.feed(html)
    return [" ".join(t.split()) for t in parser.texts]


def internal_names(text: str) -> list[tuple[str, str]]:
    """(rule, name) for every internal name in ``text`` (card text, ``<code>`` left out)."""
    return [(rule, m.group(0)) for rule, rx in INTERNAL.items() for m in rx.finditer(text)]


def page_internal_names(html: str) -> list[tuple[str, str, str]]:
    """(rule, name, the card's text) for every internal name on the cards of a page."""
    return [(rule, name, t) for t in card_texts(html) for rule, name in internal_names(t)]
