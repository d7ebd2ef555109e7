"""``wirelab logic ...``: train logic gate networks (and, when present, compile their circuits)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import click

from wirelab.errors import UsageError


def _ints(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"expected comma-separated integers, got {text!r}") from None


def load_recipe(path: str | Path) -> dict[str, Any]:
    """A recipe: TOML with a ``[train]`` table (TrainConfig fields) and a ``[model]`` table."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"recipe {p} does not exist")
    try:
        doc = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"recipe {p}: {exc}") from None
    unknown = set(doc) - {"train", "model", "description", "targets"}
    if unknown:
        raise UsageError(f"recipe {p}: unknown tables {', '.join(sorted(unknown))}")
    cfg = dict(doc.get("train", {}))
    cfg["model"] = dict(doc.get("model", {}))
    return cfg


@click.group(name="logic")
def group() -> None:
    """Differentiable logic gate networks and their circuits."""


@group.command()
@click.option(
    "--recipe", type=click.Path(dir_okay=False), help="TOML recipe (recipes/logic/*.toml)."
)
@click.option("--dataset", type=click.Choice(["mnist", "digits"]), default=None)
@click.option("--classes", default=None, help="'all' or a comma list such as 0,1.")
@click.option("--arch", type=click.Choice(["dense", "conv"]), default=None)
@click.option("--dense", "dense", default=None, help="Dense widths, e.g. 8000,8000,8000.")
@click.option("--conv-channels", default=None, help="Conv blocks' kernel counts, e.g. 16,32.")
@click.option("--kernel", type=int, default=None, help="Conv receptive field k (k x k).")
@click.option("--depth", type=int, default=None, help="Conv tree depth.")
@click.option("--binarize", type=click.Choice(["fixed", "thermometer"]), default=None)
@click.option("--levels", type=int, default=None, help="Thermometer levels.")
@click.option("--connections", type=click.Choice(["random", "unique"]), default=None)
@click.option("--init", type=click.Choice(["gaussian", "residual"]), default=None)
@click.option("--tau", type=float, default=None, help="GroupSum temperature.")
@click.option(
    "--forward", type=click.Choice(["soft", "st"]), default=None, help="st: straight-through."
)
@click.option("--epochs", type=int, default=None)
@click.option("--batch-size", type=int, default=None)
@click.option("--lr", type=float, default=None)
@click.option("--weight-decay", type=float, default=None)
@click.option("--patience", type=int, default=None, help="Early stopping on validation accuracy.")
@click.option("--val-fraction", type=float, default=None)
@click.option("--max-train", type=int, default=None, help="Use only this many training images.")
@click.option("--seed", type=int, default=None)
@click.option("--threads", type=int, default=None)
@click.option("--max-minutes", type=float, default=None, help="Training time budget.")
@click.option("--init-from", default=None, help="Start from a run's weights (its directory).")
@click.option("--out", required=True, type=click.Path(file_okay=False))
@click.option(
    "--resume", is_flag=True, help="Continue the killed run in --out from its checkpoint."
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def train(**kw: Any) -> None:
    """Train a logic gate network; writes a result directory with discrete.json and metrics.json."""
    if kw["resume"]:
        from wirelab.logic.train import TrainConfig
        from wirelab.logic.train import train as run_train

        metrics = run_train(TrainConfig(), kw["out"], resume=True, quiet=kw["quiet"])
    else:
        cfg: dict[str, Any] = load_recipe(kw["recipe"]) if kw["recipe"] else {"model": {}}
        model = cfg["model"]
        for key in ("dataset", "classes", "forward", "epochs", "batch_size", "lr", "weight_decay",
                    "patience", "val_fraction", "max_train", "seed", "threads",
                    "max_minutes", "init_from"):  # fmt: skip
            if kw[key] is not None:
                cfg[key] = kw[key]
        for key in ("binarize", "levels", "connections", "init", "tau"):
            if kw[key] is not None:
                model[key] = kw[key]
        if kw["dense"] is not None:
            model["dense"] = _ints(kw["dense"])
        arch = kw["arch"] or ("conv" if model.get("conv") else "dense")
        if arch == "conv":
            chans = _ints(kw["conv_channels"])
            if chans is not None:
                model["conv"] = [{"channels": c, "pool": True} for c in chans]
            if not model.get("conv"):
                raise UsageError("--arch conv needs --conv-channels (e.g. 16,32)")
            for block in model["conv"]:
                if kw["kernel"] is not None:
                    block["kernel"] = kw["kernel"]
                if kw["depth"] is not None:
                    block["depth"] = kw["depth"]
        else:
            model["conv"] = []
        from wirelab.logic.data import parse_classes

        parse_classes(str(cfg.get("classes", "all")), str(cfg.get("dataset", "mnist")))  # fail fast
        from wirelab.logic.train import TrainConfig
        from wirelab.logic.train import train as run_train

        try:
            config = TrainConfig(**cfg)
        except TypeError as exc:
            raise UsageError(f"bad recipe: {exc}") from None
        metrics = run_train(config, kw["out"], quiet=kw["quiet"])
    click.echo(
        f"test accuracy: soft {metrics['accuracy_soft']:.4f}, discrete "
        f"{metrics['accuracy_discrete']:.4f} ({metrics['gates']} gates, "
        f"{metrics['train_seconds']:.0f} s training) -> {kw['out']}"
    )


try:  # the circuit compiler's commands (compile, verify, synth), when present
    from wirelab.logic.circuit.cli import register

    register(group)
except ModuleNotFoundError:
    pass
