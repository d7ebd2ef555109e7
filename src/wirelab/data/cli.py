"""``wirelab data``: fetch, verify, info, list."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wirelab.data.connectomes import CONNECTOMES, check_connectome_source, load_connectome
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.data.download import fetch, verify
from wirelab.data.mnist import mnist_info
from wirelab.data.registry import DATASETS, get_dataset
from wirelab.data.user import is_connectome_file
from wirelab.errors import UsageError

_NAMES = [*sorted(DATASETS), "all"]


class _Described(click.ParamType):
    """``mnist``, a registered connectome (read at parse time, `CONNECTOMES`) or a connectome
    file."""

    name = "dataset"

    def names(self) -> list[str]:
        return ["mnist", *CONNECTOMES.names()]

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.names()) + "|PATH]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "mnist":
            return value
        try:
            return check_connectome_source(str(value))
        except UsageError as exc:
            if is_connectome_file(str(value)):
                self.fail(str(exc))
            self.fail(
                f"unknown dataset {value!r}; choose one of: {', '.join(self.names())}, "
                "or a connectome file (.csv, .parquet, .npz)"
            )


def _selected(name: str | None) -> list[str]:
    return sorted(DATASETS) if name in (None, "all") else [get_dataset(name).name]


@click.group(name="data")
def group() -> None:
    """Fetch, verify and describe datasets.

    Offline copies are read from $WIRELAB_DATA_DIR; downloads go to $WIRELAB_CACHE.
    """


@group.command("list")
def list_cmd() -> None:
    """List known datasets and where their files are looked for."""
    table = Table("dataset", "files", "description")
    for d in DATASETS.values():
        table.add_row(d.name, "\n".join(f.path for f in d.files), d.description)
    console = Console()
    console.print(table)
    conn = Table("connectome", "description", title="connectomes (wirelab data info NAME)")
    for name, help_text in CONNECTOMES.describe():
        conn.add_row(name, escape(help_text))
    console.print(conn)
    console.print(f"data dir: {data_dir() or '(WIRELAB_DATA_DIR not set)'}   cache: {cache_dir()}")


@group.command("fetch")
@click.argument("name", type=click.Choice(_NAMES))
def fetch_cmd(name: str) -> None:
    """Download NAME into the cache (or find it in $WIRELAB_DATA_DIR) and verify it."""
    for ds in _selected(name):
        for f in DATASETS[ds].files:
            path = fetch(f)
            click.echo(f"ok  {f.path}  {path}")


@group.command("verify")
@click.argument("name", type=click.Choice(_NAMES), required=False)
def verify_cmd(name: str | None) -> None:
    """Check SHA-256 of every local copy; corrupt cached copies are deleted. Exit 1 on failure."""
    failed = 0
    for ds in _selected(name):
        for f in DATASETS[ds].files:
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

    NAME is mnist, a registered connectome (`wirelab data list`) or a connectome file; for a
    connectome: neurons, edges and synapses in all and per edge type, and the populations.
    """
    if name == "mnist":
        info: dict[str, object] = mnist_info()
    else:
        info = load_connectome(name).summary()
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
