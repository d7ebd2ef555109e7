"""Which options differ between a saved configuration and a given one (for ``--resume``).

A resumed run must use the settings it was started with. `changed_options` compares the two
configurations as nested mappings: every nested mapping is flattened to dotted names
(``{"model": {"tau": 5}}`` -> ``model.tau``; lists and other values compare whole), and it lists

    name: saved -> given        (values as ``repr``; a name missing on one side is ``None``)

for every name whose values differ, sorted by name, except the names in ``ignore`` (settings a
resume may change because they change no result, such as a worker or thread count); an ignored
name also ignores everything under it. The callers refuse a resume when the list is not empty:
`wirelab.logic.config.changed_options` (a checkpoint's configuration) and
`wirelab.fly.store.saved_config_differences` (a study's ``config.json``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    """``d`` with its nested mappings flattened to dotted names (else ``{prefix: d}``)."""
    if not isinstance(d, Mapping):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def _ignored(name: str, ignore: Iterable[str]) -> bool:
    return any(name == i or name.startswith(f"{i}.") for i in ignore)


def changed_options(
    saved: Mapping[str, Any], given: Mapping[str, Any], ignore: Iterable[str] = ()
) -> list[str]:
    """``name: saved -> given`` for every (flattened) option that differs (module docstring)."""
    a, b = flatten(saved), flatten(given)
    keys = sorted(k for k in set(a) | set(b) if not _ignored(k, tuple(ignore)))
    return [f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]
