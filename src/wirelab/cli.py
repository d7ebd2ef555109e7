"""The ``wirelab`` command: one entry point, one group per system.

Groups are imported lazily from ``wirelab.<group>.cli`` (attribute ``group``) so that
``wirelab --help`` stays fast.
Errors that users cause print one line and exit non-zero: 2 for bad arguments, 1 otherwise.
"""

from __future__ import annotations

import importlib
import sys

import click

from wirelab import __version__
from wirelab.errors import WirelabError

# name -> (module, attribute, one-line help)
GROUPS: dict[str, tuple[str, str, str]] = {
    "data": ("wirelab.data.cli", "group", "Fetch, verify and describe datasets."),
    "reservoir": ("wirelab.reservoir.cli", "group", "Connectome reservoir computing."),
    "connectome": ("wirelab.data.connectome_cli", "group", "Connectome diagnostics."),
    "fly": ("wirelab.fly.cli", "group", "The connectome drives a simulated fly."),
    "logic": ("wirelab.logic.cli", "group", "Differentiable logic gate networks and circuits."),
    "attention": ("wirelab.attention.cli", "group", "Attention building blocks and experiments."),
    "report": ("wirelab.report.cli", "command", "Build one HTML page from result directories."),
    "tour": ("wirelab.tour", "command", "Run a small real version of every system."),
    "sweep": ("wirelab.sweep.cli", "command", "Run a grid of experiments locally or on Ray."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GROUPS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in GROUPS:
            return None
        module_name, attr, _ = GROUPS[cmd_name]
        cmd: click.Command = getattr(importlib.import_module(module_name), attr)
        cmd.name = cmd_name
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text) for name, (_, _, help_text) in GROUPS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wirelab")
def cli() -> None:
    """wirelab: connectome reservoirs, logic gate networks and attention, measured."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point with one-line errors: exit 2 for usage errors, 1 for others."""
    try:
        rv = cli.main(args=argv, prog_name="wirelab", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("wirelab: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        message = " ".join(exc.format_message().split())
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        click.echo(f"wirelab: error: {message}{hint}", err=True)
        sys.exit(exc.exit_code)
    except WirelabError as exc:
        click.echo(f"wirelab: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("wirelab: interrupted", err=True)
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
