"""Registries: the single list of the things of one kind (connectomes, positional encodings,
circuit back ends, sweep backends, fly bodies, ...).

The CLI's choices, the docs and the validation all read the registry, so adding an entry is one new
module plus one registry line::

    POSITIONAL = Registry[type[nn.Module]]("positional encoding")
    POSITIONAL.add("sinusoidal", SinusoidalPositionalEncoding, "fixed sines and cosines")

    POSITIONAL.get("rope")          # the entry, or a one-line UsageError naming the choices
    POSITIONAL.names()              # ("sinusoidal", ...) in registration order
    click.option("--encoding", type=POSITIONAL.choice())

Entries may also be registered lazily as ``"module:attribute"`` strings, imported on first use, so
that a registry of heavy back ends (flygym, MuJoCo) costs nothing until one is chosen.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import click

from wirelab.errors import UsageError

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered thing: its name, the object (or lazy ``"module:attribute"``), a help line, and
    facts about it that the code needs before importing it (e.g. the environment a body runs in)."""

    name: str
    target: T | str
    help: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)


class Registry(Generic[T]):
    """Names -> entries of one kind, in registration order."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry[T]] = {}

    def add(
        self, name: str, target: T | str, help: str = "", *, replace: bool = False, **facts: Any
    ) -> None:
        """Register ``target`` (an object or a lazy ``"module:attribute"``) under ``name``; keyword
        ``facts`` are kept with the entry and read without importing it (`fact`)."""
        if not name or name != name.strip():
            raise ValueError(f"bad {self.kind} name {name!r}")
        if name in self._entries and not replace:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = Entry(name, target, help, dict(facts))

    def register(self, name: str, help: str = "") -> Callable[[T], T]:
        """Decorator form of `add`."""

        def deco(obj: T) -> T:
            self.add(name, obj, help)
            return obj

        return deco

    def remove(self, name: str) -> None:
        self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The entry for ``name`` (lazy entries imported now), or a one-line `UsageError`."""
        entry = self._entries.get(name)
        if entry is None:
            raise UsageError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())}"
            )
        target = entry.target
        if isinstance(target, str) and ":" in target:
            return lazy(target)
        return target  # type: ignore[return-value]

    def help(self, name: str) -> str:
        return self._entries[name].help

    def fact(self, name: str, key: str, default: Any = None) -> Any:
        """A fact registered with entry ``name`` (no import), or ``default``."""
        entry = self._entries.get(name)
        return default if entry is None else entry.facts.get(key, default)

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def choice(self) -> RegistryChoice:
        """A click type accepting the registered names, read when a value is parsed (so an entry
        registered after the CLI was built is accepted too)."""
        return RegistryChoice(self)

    def describe(self) -> list[tuple[str, str]]:
        """(name, help) rows for ``--help`` texts and the docs."""
        return [(e.name, e.help) for e in self._entries.values()]


class RegistryChoice(click.ParamType):
    """A click parameter type whose choices are a registry's names at parse time."""

    def __init__(self, registry: Registry[Any]) -> None:
        self.registry = registry
        self.name = registry.kind

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.registry.names()) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.registry:
            return value
        self.fail(
            f"unknown {self.registry.kind} {value!r}; choose one of: "
            + ", ".join(self.registry.names()),
            param,
            ctx,
        )


def lazy(target: str) -> Any:
    """Import ``"module:attribute"`` now."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
