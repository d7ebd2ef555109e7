"""A strict well-formedness check for the generated page (stdlib `html.parser`)."""

from __future__ import annotations

from html.parser import HTMLParser

# elements without an end tag
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
VOID |= {"track", "wbr"}


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()


def parse(page: str) -> _Checker:
    c = _Checker()
    c.feed(page)
    c.close()
    return c


def well_formed_errors(page: str) -> list[str]:
    """Mismatched or unclosed tags, duplicate ids, a missing doctype; empty when valid."""
    c = parse(page)
    errors = list(c.errors)
    if c.stack:
        errors.append(f"unclosed: {c.stack}")
    if c.doctype.lower() != "doctype html":
        errors.append(f"doctype is {c.doctype!r}")
    dup = {i for i in c.ids if c.ids.count(i) > 1}
    if dup:
        errors.append(f"duplicate ids: {sorted(dup)}")
    return errors
