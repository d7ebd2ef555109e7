"""``wirelab data``: fetch, verify, info, list; every command loops over the registries
(`DATASETS` for files, `CONNECTOMES` for connectomes)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wirelab.data.connectomes import (
    CONNECTOMES,
    check_connectome_source,
    is_connectome_file,
    load_connectome,
)
from wirelab.data.datasets import DATASETS, Dataset
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.data.download import fetch, verify
from wirelab.errors import UsageError


class _DatasetName(click.Choice):
    """A registered dataset or ``all``; the names are read at parse time (`DATASETS`), so a
    dataset registered after the CLI was built is accepted too."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> Sequence[str]:
        return (*sorted(DATASETS.names()), "all")

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        """Ignored: the choices are the registry's."""


class _Described(click.ParamType):
    """A registered connectome (read at parse time, `CONNECTOMES`), a connectome file, or a
    registered dataset (`DATASETS`)."""

    name = "dataset"

    def names(self) -> list[str]:
        return list(dict.fromkeys([*DATASETS.names(), *CONNECTOMES.names()]))

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.names()) + "|PATH]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return check_connectome_source(str(value))
        except UsageError as exc:
            if value in DATASETS:
                return value
            if is_connectome_file(str(value)):
                self.fail(str(exc))
            self.fail(
                f"unknown dataset {value!r}; choose one of: {', '.join(self.names())}, "
                "or a connectome file (.csv, .parquet, .npz)"
            )


def _selected(name: str | None) -> list[str]:
    return sorted(DATASETS.names()) if name in (None, "all") else [name]


def _files_info(name: str, ds: Dataset) -> dict[str, object]:
    """A dataset without its own ``info``: its files, each fetched and verified."""
    return {
        "name": name,
        "description": ds.description,
        "citation": ds.citation,
        "files": {f.path: str(fetch(f)) for f in ds.files},
        "bytes": sum(f.size for f in ds.files),
    }


def _info(name: str) -> dict[str, object]:
    """What ``wirelab data info NAME`` prints: a connectome's summary (a name that is both a
    connectome and a dataset, such as ``larva``, is the connectome read from its files), else
    the dataset's ``info``."""
    if name in CONNECTOMES or name not in DATASETS:
        return load_connectome(name).summary()
    ds = DATASETS.get(name)
    return ds.info() if ds.info is not None else _files_info(name, ds)


@click.group(name="data")
def group() -> None:
    """Fetch, verify and describe datasets.

    Offline copies are read from $WIRELAB_DATA_DIR; downloads go to $WIRELAB_CACHE.
    """


@group.command("list")
def list_cmd() -> None:
    """List known datasets and where their files are looked for."""
    table = Table("dataset", "files", "description")
    for name in DATASETS:
        d = DATASETS.get(name)
        table.add_row(name, "\n".join(f.path for f in d.files), d.description)
    console = Console()
    console.print(table)
    conn = Table("connectome", "description", title="connectomes (wirelab data info NAME)")
    for name, help_text in CONNECTOMES.describe():
        conn.add_row(name, escape(help_text))
    console.print(conn)
    console.print(f"data dir: {data_dir() or '(WIRELAB_DATA_DIR not set)'}   cache: {cache_dir()}")


@group.command("fetch")
@click.argument("name", type=_DatasetName())
def fetch_cmd(name: str) -> None:
    """Download NAME into the cache (or find it in $WIRELAB_DATA_DIR) and verify it."""
    for ds in _selected(name):
        for f in DATASETS.get(ds).files:
            path = fetch(f)
            click.echo(f"ok  {f.path}  {path}")


@group.command("verify")
@click.argument("name", type=_DatasetName(), required=False)
def verify_cmd(name: str | None) -> None:
    """Check SHA-256 of every local copy; corrupt cached copies are deleted. Exit 1 on failure."""
    failed = 0
    for ds in _selected(name):
        for f in DATASETS.get(ds).files:
            for st in verify(f):
                if st.ok:
                    click.echo(f"ok      {f.path}  {st.location}")
                else:
                    failed += 1
                    click.echo(f"FAILED  {f.path}  {st.message}", err=True)
    if failed:
        raise click.exceptions.Exit(1)


@group.command("info")
@click.argument("name", type=_Described())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def info_cmd(name: str, as_json: bool) -> None:
    """Describe dataset NAME from its real files (counts, shapes, populations).

    NAME is a registered connectome (`wirelab data list`), a connectome file or a registered
    dataset; for a connectome: neurons, edges and synapses in all and per edge type, and the
    populations; for a dataset: its counts (mnist), or its verified files.
    """
    info = _info(name)
    if as_json:
        click.echo(json.dumps(info))
        return
    console = Console()
    table = Table("field", "value", title=f"dataset {name}")
    for key, value in info.items():
        if key == "populations" and isinstance(value, dict):
            continue
        text = json.dumps(value) if isinstance(value, (dict, list)) else str(value)
        table.add_row(key, escape(text))
    console.print(table)
    pops = info.get("populations")
    if isinstance(pops, dict):
        pt = Table("cell type", "left", "right", "unpaired", title="populations")
        for ct, sides in pops.items():
            pt.add_row(ct, *(str(sides.get(k, 0)) for k in ("left", "right", "unpaired")))
        console.print(pt)
