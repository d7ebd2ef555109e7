"""``wirelab logic ...``: train logic gate networks; compile, verify, synthesise their circuits.

``train`` only parses: a recipe (or a run's ``config.json``) and the options become a
`TrainConfig`, and `wirelab.logic.train.run` does the rest.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from wirelab.cli_options import COUNT, SEED, finite_float, out_option
from wirelab.errors import UsageError
from wirelab.logic.circuit.cli import register
from wirelab.logic.forwards import TRAINING_FORWARDS
from wirelab.parallel.options import executor_options

POSITIVE = finite_float(0.0, min_open=True)
THREAD_COUNT = click.IntRange(1, 1024)
# option name -> TrainConfig field (train options) or model spec key (model options)
TRAIN_OPTIONS = (
    "dataset",
    "classes",
    "forward",
    "epochs",
    "steps",
    "eval_every",
    "batch_size",
    "lr",
    "lr_schedule",
    "weight_decay",
    "patience",
    "val_fraction",
    "max_train",
    "seed",
    "threads",
    "max_minutes",
    "stop_at",
    "init_from",
    "connection_tau_end",
    "input_ramp_end",
    "augment_shift",
)
MODEL_OPTIONS = (
    "binarize",
    "levels",
    "threshold",
    "crop",
    "prune",
    "inputs",
    "connections",
    "candidates",
    "connection_tau",
    "rewire_every",
    "gate_param",
    "init",
    "tau",
)


def _ints(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"expected comma-separated integers, got {text!r}") from None


def _config(kw: dict[str, Any]) -> Any:
    """The `TrainConfig` of the options: recipe (or, for ``--resume`` without one, the
    checkpoint's configuration, or the seeds study's) overridden by every option given."""
    from wirelab.logic.config import from_dict, load_recipe
    from wirelab.logic.train import checkpoint_config

    if kw["recipe"]:
        cfg = load_recipe(kw["recipe"])
    elif kw["resume"] and kw["seeds"] is not None:
        from wirelab.logic.seeds import study_config

        cfg = study_config(kw["out"])
    elif kw["resume"]:
        cfg = asdict(checkpoint_config(kw["out"]))
    else:
        cfg = {}
    model = dict(cfg.get("model") or {})
    cfg.update({k: kw[k] for k in TRAIN_OPTIONS if kw[k] is not None})
    model.update({k: kw[k] for k in MODEL_OPTIONS if kw[k] is not None})
    if kw["dense"] is not None:
        model["dense"] = _ints(kw["dense"])
    arch = kw["arch"] or ("conv" if model.get("conv") else "dense")
    if arch == "conv":
        chans = _ints(kw["conv_channels"])
        if chans is not None:
            model["conv"] = [{"channels": c, "pool": True} for c in chans]
        if not model.get("conv"):
            raise UsageError("--arch conv needs --conv-channels (e.g. 16,32)")
        model["conv"] = [dict(block) for block in model["conv"]]
        for block in model["conv"]:
            if kw["kernel"] is not None:
                block["kernel"] = kw["kernel"]
            if kw["depth"] is not None:
                block["depth"] = kw["depth"]
    else:
        model["conv"] = []
    cfg["model"] = model
    return from_dict(cfg, kw["recipe"] or "options")


@click.group(name="logic")
def group() -> None:
    """Differentiable logic gate networks and their circuits."""


@group.command()
@click.option(
    "--recipe",
    type=click.Path(),
    help="TOML recipe (recipes/logic/*.toml), or a run's config.json (or its directory).",
)
@click.option("--dataset", type=click.Choice(["mnist", "digits"]), default=None)
@click.option("--classes", default=None, help="'all' or a comma list such as 0,1.")
@click.option("--arch", type=click.Choice(["dense", "conv"]), default=None)
@click.option("--dense", "dense", default=None, help="Dense widths, e.g. 8000,8000,8000.")
@click.option("--conv-channels", default=None, help="Conv blocks' kernel counts, e.g. 16,32.")
@click.option("--kernel", type=COUNT, default=None, help="Conv receptive field k (k x k).")
@click.option("--depth", type=COUNT, default=None, help="Conv tree depth.")
@click.option("--binarize", type=click.Choice(["fixed", "thermometer"]), default=None)
@click.option("--levels", type=COUNT, default=None, help="Thermometer levels.")
@click.option(
    "--threshold",
    type=finite_float(0.0, 1.0, min_open=True, max_open=True),
    default=None,
    help="Fixed binarisation threshold.",
)
@click.option("--crop", type=COUNT, default=None, help="Train on the centre CROP x CROP pixels.")
@click.option(
    "--prune",
    type=finite_float(0.0, 0.5, max_open=True),
    default=None,
    help="Drop input bits that are 1 in fewer than this fraction (or more than 1 - it) of the "
    "training images.",
)
@click.option(
    "--inputs",
    type=click.Choice(["binary", "real"]),
    default=None,
    help="real: train on real-valued pixels, threshold only in the discrete network.",
)
@click.option(
    "--connections",
    type=click.Choice(["random", "unique", "learned", "topk"]),
    default=None,
    help="learned: each gate input learns its wire among --candidates wires; topk: among all "
    "wires of the layer input, reading the top --candidates.",
)
@click.option(
    "--rewire-every",
    type=COUNT,
    default=None,
    help="topk connections: re-select each gate input's top wires every this many steps.",
)
@click.option("--candidates", type=COUNT, default=None, help="Candidate wires per gate input.")
@click.option(
    "--connection-tau", type=POSITIVE, default=None, help="Softmax temperature over candidates."
)
@click.option(
    "--gate-param",
    type=click.Choice(["softmax", "light"]),
    default=None,
    help="Gate parameters: 16 softmax logits, or light: 4 truth-table logits.",
)
@click.option(
    "--connection-tau-end",
    type=POSITIVE,
    default=None,
    help="Anneal the connection temperature geometrically to this value at the last step.",
)
@click.option(
    "--input-ramp-end",
    type=finite_float(0.0, 1.0, min_open=True),
    default=None,
    help="Anneal real-valued inputs toward their thresholded bits: ramp width 1 -> this.",
)
@click.option(
    "--augment-shift",
    type=click.IntRange(0, 8),
    default=None,
    help="Shift each training image by a random 0..N pixels each way (validation, test unchanged).",
)
@click.option("--init", type=click.Choice(["gaussian", "residual"]), default=None)
@click.option("--tau", type=POSITIVE, default=None, help="GroupSum temperature.")
@click.option(
    "--forward",
    type=click.Choice(list(TRAINING_FORWARDS)),
    default=None,
    help="st: straight-through; gumbel: Gumbel noise + straight-through; cage: "
    "straight-through with a confidence-adaptive backward temperature.",
)
@click.option("--epochs", type=COUNT, default=None)
@click.option("--steps", type=COUNT, default=None, help="Train this many steps (not epochs).")
@click.option("--eval-every", type=COUNT, default=None, help="Steps between validations.")
@click.option("--batch-size", type=COUNT, default=None)
@click.option("--lr", type=POSITIVE, default=None)
@click.option("--lr-schedule", type=click.Choice(["constant", "cosine"]), default=None)
@click.option("--weight-decay", type=finite_float(0.0), default=None)
@click.option(
    "--patience",
    type=click.IntRange(min=0),
    default=None,
    help="Stop after this many validations without improvement (0: never).",
)
@click.option(
    "--val-fraction", type=finite_float(0.0, 1.0, min_open=True, max_open=True), default=None
)
@click.option(
    "--max-train", type=click.IntRange(min=2), default=None, help="Use only this many images."
)
@click.option("--seed", type=SEED, default=None)
@click.option("--threads", type=THREAD_COUNT, default=None)
@click.option("--max-minutes", type=POSITIVE, default=None, help="Training time budget.")
@click.option(
    "--stop-at",
    type=finite_float(0.0, 1.0, min_open=True),
    default=None,
    help="Stop at the first validation whose discrete accuracy reaches this (time to accuracy).",
)
@click.option("--init-from", default=None, help="Start from a run's weights (its directory).")
@out_option()
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the killed run in --out from its checkpoint (with --seeds: every seed's).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--seeds",
    default=None,
    help="Train once per seed, one job each: a count (3: seeds 0,1,2) or a list (0,4,7); "
    "--out then holds seeds/seed-<s>/ and their mean and sd.",
)
@executor_options
def train(**kw: Any) -> None:
    """Train a logic gate network; writes a result directory with discrete.json and metrics.json."""
    from wirelab.logic.train import run

    config = _config(kw)
    out: Path = kw["out"]
    if kw["seeds"] is not None:
        _train_seeds(config, kw)
        return
    if kw["workers"] or kw["backend"] != "local" or kw["address"]:
        raise UsageError("--workers, --backend and --address apply to --seeds runs")
    m = run(config, out, overwrite=kw["overwrite"], resume=kw["resume"], quiet=kw["quiet"])
    click.echo(
        f"test accuracy: soft {m['accuracy_soft']:.4f}, discrete "
        f"{m['accuracy_discrete']:.4f} ({m['gates']} gates, "
        f"{m['train_seconds']:.0f} s training) -> {out}"
    )
    if m.get("gap_warning"):
        click.echo(f"warning: {m['gap_warning']}", err=True)


def _train_seeds(config: Any, kw: dict[str, Any]) -> None:
    from wirelab.logic.seeds import parse_seeds, run
    from wirelab.parallel import ExecOptions

    seeds = parse_seeds(kw["seeds"])
    options = ExecOptions(kw["backend"], kw["workers"], kw["address"])
    flags = {k: kw[k] for k in ("overwrite", "resume", "quiet")}
    m = run(config, seeds, kw["out"], options=options, **flags)
    for r in m["runs"]:
        hit = r.get("val_97")
        when = f"after {hit['train_seconds']:.0f} s" if hit else "never"
        click.echo(
            f"seed {r['seed']}: soft {r['accuracy_soft']:.4f}, discrete "
            f"{r['accuracy_discrete']:.4f}; 97% validation {when}"
        )
    click.echo(
        f"discrete accuracy {m['accuracy_discrete_mean']:.4f} +- {m['accuracy_discrete_sd']:.4f} "
        f"(sd over {len(seeds)} seeds) -> {kw['out']}"
    )


register(group)
