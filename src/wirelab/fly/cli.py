"""``wirelab fly ...``: calibrate, stimulate, lateralization, taxis."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from wirelab.data.connectome import Connectome
from wirelab.errors import UsageError

MODALITY_HELP = (
    "Sensory modality (annotation of the sensory neurons): all, olfactory, gustatory-external, "
    "gustatory-pharyngeal, gut, respiratory, thermo-cold, thermo-warm, visual."
)


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[[float], None]]:
    """A rich progress bar driven by a callback taking the completed fraction in [0, 1].

    When stderr is not a terminal (a log file), one line is printed per 10% instead.
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        t0 = time.perf_counter()
        last = [-1]

        def log(frac: float) -> None:
            tenth = int(frac * 10)
            if tenth > last[0]:
                last[0] = tenth
                click.echo(
                    f"{description}: {frac:.0%} ({time.perf_counter() - t0:.0f} s)", err=True
                )

        yield log
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=console,
    ) as bar:
        task = bar.add_task(description, total=1.0)
        yield lambda frac: bar.update(task, completed=frac)


def _load_connectome() -> Connectome:
    from wirelab.data import load_larva

    return load_larva()


def controller_options(f: Callable[..., object]) -> Callable[..., object]:
    opts = [
        click.option("--modality", default="olfactory", show_default=True, help=MODALITY_HELP),
        click.option(
            "--alpha",
            type=float,
            default=1.0,
            show_default=True,
            help="Recurrent gain on the normalised connectome.",
        ),
        click.option("--leak", type=float, default=1.0, show_default=True, help="Leak rate a."),
        click.option("--input-gain", type=float, default=1.0, show_default=True),
        click.option(
            "--readout",
            type=click.Choice(["DN-VNC", "DN-VNC+DN-SEZ"]),
            default="DN-VNC",
            show_default=True,
        ),
        click.option(
            "--update-steps",
            type=int,
            default=20,
            show_default=True,
            help="K: reservoir update every K flygym physics steps (1e-4 s each).",
        ),
        click.option("--seed", type=int, default=0, show_default=True),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


@click.group("fly")
def group() -> None:
    """The connectome drives a simulated fly (flygym NeuroMechFly or a fast kinematic body)."""


@group.command("calibrate")
@click.option("--duration", type=float, default=0.8, show_default=True, help="Seconds per run.")
@click.option("--settle", type=float, default=0.2, show_default=True, help="Seconds dropped.")
@click.option("--grid", default=None, help="Signals 'L,R;L,R;...' (default: 6 pairs).")
@click.option(
    "--write",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the calibration JSON here (the package's calibration.json to update it).",
)
def calibrate_cmd(duration: float, settle: float, grid: str | None, write: Path | None) -> None:
    """Fit the kinematic body's gains to flygym runs (slow: minutes per run on 2 cores)."""
    from wirelab.fly.calibration import DEFAULT_GRID, calibrate
    from wirelab.results import write_json

    if duration <= settle or settle < 0:
        raise UsageError("--duration must exceed --settle >= 0")
    pairs = DEFAULT_GRID
    if grid:
        try:
            pairs = tuple(
                (float(p.split(",")[0]), float(p.split(",")[1])) for p in grid.split(";") if p
            )
        except (ValueError, IndexError):
            raise UsageError(f"--grid must look like '1,1;1.2,0.4', got {grid!r}") from None
    result = calibrate(pairs, duration=duration, settle=settle, progress=click.echo)
    if write is not None:
        write_json(write, result)
    click.echo(json.dumps(result["kinematic"]))


@group.command("stimulate")
@click.option("--side", type=click.Choice(["left", "right", "both"]), required=True)
@click.option(
    "--normalize",
    type=click.Choice(["row", "spectral"]),
    default="row",
    show_default=True,
    help="Primary normalisation (the other one is run too).",
)
@click.option("--duration", type=float, default=1.0, show_default=True, help="Simulated s.")
@click.option(
    "--body", type=click.Choice(["flygym", "kinematic"]), default="kinematic", show_default=True
)
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="MP4 of the primary run (flygym; default OUT/video.mp4).",
)
@click.option("--viewer", is_flag=True, help="Live MuJoCo viewer (flygym; needs a display).")
@click.option(
    "--mapping",
    type=click.Choice(["ipsilateral", "contralateral"]),
    default="ipsilateral",
    show_default=True,
    help="DN side -> leg side.",
)
@click.option("--gain", type=float, default=1.0, show_default=True, help="Drive per DN activity.")
@click.option("--offset", type=float, default=1.0, show_default=True, help="Drive at rest.")
@click.option(
    "--compare/--no-compare",
    default=True,
    show_default=True,
    help="Also run the other normalisation.",
)
@controller_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
def stimulate_cmd(
    side: str,
    normalize: str,
    duration: float,
    body: str,
    video: Path | None,
    viewer: bool,
    mapping: str,
    gain: float,
    offset: float,
    compare: bool,
    modality: str,
    alpha: float,
    leak: float,
    input_gain: float,
    readout: str,
    update_steps: int,
    seed: int,
    out: Path,
) -> None:
    """Stimulate sensory neurons on one side; walk the fly with the DN-VNC output."""
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.mapping import FixedMapping
    from wirelab.fly.stimulate import run_experiment

    if body != "flygym" and (video or viewer):
        raise UsageError("--video and --viewer need --body flygym")
    cfg = ControllerConfig(modality, normalize, alpha, leak, input_gain, readout, update_steps)
    m = run_experiment(
        out,
        side,
        cfg,
        FixedMapping(mapping, gain, offset),
        body,
        duration,
        video=video,
        viewer=viewer,
        compare=compare,
        seed=seed,
        con=_load_connectome(),
        progress_factory=progress_bar,
    )
    click.echo(
        f"{out}: dn_left={m['dn_left']:.4g} dn_right={m['dn_right']:.4g} "
        f"LI={m['lateralization_index']:+.3f} heading={m['heading_change_deg']:+.1f} deg "
        f"displacement={m['displacement_mm']:.2f} mm"
    )


@group.command("lateralization")
@click.option(
    "--modalities",
    default="all-known",
    show_default=True,
    help="Comma list, or 'all-known' for every modality plus 'all'.",
)
@click.option("--gains", default="0.5,1,2", show_default=True, help="Input gains.")
@click.option(
    "--normalize", type=click.Choice(["row", "spectral", "both"]), default="both", show_default=True
)
@click.option(
    "--nulls",
    "n_nulls",
    type=int,
    default=5,
    show_default=True,
    help="Degree-preserving null connectomes.",
)
@click.option(
    "--boot",
    type=int,
    default=100,
    show_default=True,
    help="Bootstrap resamples of the input neurons.",
)
@click.option("--steps", type=int, default=20, show_default=True, help="Reservoir updates.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
def lateralization_cmd(
    modalities: str,
    gains: str,
    normalize: str,
    n_nulls: int,
    boot: int,
    steps: int,
    seed: int,
    out: Path,
) -> None:
    """Ipsi- or contralateral DN-VNC response per modality and gain, with nulls and mirror."""
    from wirelab.fly import lateralization as lat
    from wirelab.fly.plots import lateralization as lat_plot
    from wirelab.fly.populations import modalities as known_modalities
    from wirelab.results import ResultDir

    try:
        gain_list = [float(g) for g in gains.split(",") if g.strip()]
    except ValueError:
        raise UsageError(f"--gains must be a comma list of numbers, got {gains!r}") from None
    if not gain_list or n_nulls < 0 or boot < 0 or steps < 1:
        raise UsageError("need at least one gain, --nulls >= 0, --boot >= 0, --steps >= 1")
    norms = ["row", "spectral"] if normalize == "both" else [normalize]
    con = _load_connectome()
    mods = (
        ["all", *known_modalities(con)]
        if modalities == "all-known"
        else [m.strip() for m in modalities.split(",") if m.strip()]
    )
    rd = ResultDir.create(
        out,
        command="wirelab fly lateralization",
        config={
            "modalities": mods,
            "gains": gain_list,
            "normalizations": norms,
            "nulls": n_nulls,
            "boot": boot,
            "steps": steps,
            "seed": seed,
            "alpha": 1.0,
            "leak": 1.0,
        },
    )
    t0 = time.perf_counter()
    models = lat.build_models(con, norms, n_nulls, seed=seed)
    with progress_bar("lateralisation") as prog:
        done = [0]

        def tick(mod: str) -> None:
            done[0] += 1
            prog(done[0] / len(mods))

        rows = lat.study(
            con, models, mods, gain_list, n_boot=boot, steps=steps, seed=seed, progress=tick
        )
    summary = lat.summarize(rows)
    rd.write_metrics({"summary": summary, "results": rows, "wall_s": time.perf_counter() - t0})
    for n in norms:
        rd.save_figure(lat_plot(summary, n), f"lateralization_{n}")
    for r in summary:
        click.echo(
            f"{r['normalize']:8s} {r['modality']:22s} gain={r['gain']:<4g} "
            f"C={r['contrast']:+.4f} [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}] "
            f"{r['verdict']:13s} nulls={r.get('null_mean', float('nan')):+.4f}"
            f"±{r.get('null_std', float('nan')):.4f} p={r.get('p_null', float('nan')):.3f}"
        )


@group.command("taxis")
@click.option("--trials", type=int, default=100, show_default=True, help="Test trials.")
@click.option("--train-trials", type=int, default=40, show_default=True)
@click.option(
    "--body",
    type=click.Choice(["kinematic", "flygym"]),
    default="kinematic",
    show_default=True,
    help="Test body (training always runs on the kinematic one).",
)
@click.option("--time-limit", type=float, default=10.0, show_default=True, help="Seconds.")
@click.option(
    "--nulls",
    "n_nulls",
    type=int,
    default=3,
    show_default=True,
    help="Degree-preserving null reservoirs trained and tested the same way.",
)
@click.option(
    "--mirror/--no-mirror",
    default=True,
    show_default=True,
    help="Also test the left-right mirrored connectome.",
)
@click.option(
    "--normalize", type=click.Choice(["row", "spectral"]), default="row", show_default=True
)
@click.option(
    "--encoding",
    type=click.Choice(["adapted", "log"]),
    default="log",
    show_default=True,
    help="Antenna intensity -> sensory input (see wirelab.fly.taxis).",
)
@click.option("--input-gain", type=float, default=0.3, show_default=True)
@click.option(
    "--readout", type=click.Choice(["DN-VNC", "DN-VNC+DN-SEZ"]), default="DN-VNC", show_default=True
)
@click.option(
    "--update-steps",
    type=int,
    default=50,
    show_default=True,
    help="K: reservoir update every K flygym physics steps (1e-4 s each).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--video",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="MP4 of the first flygym test trial.",
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
def taxis_cmd(
    trials: int,
    train_trials: int,
    body: str,
    time_limit: float,
    n_nulls: int,
    mirror: bool,
    normalize: str,
    encoding: str,
    input_gain: float,
    readout: str,
    update_steps: int,
    seed: int,
    video: Path | None,
    out: Path,
) -> None:
    """Closed-loop odor taxis with a ridge readout trained to imitate a teacher."""
    from wirelab.fly.controller import ControllerConfig
    from wirelab.fly.plots import taxis_bars, taxis_paths
    from wirelab.fly.taxis import TaxisConfig, run_study
    from wirelab.results import ResultDir

    cfg = TaxisConfig(
        trials=trials,
        train_trials=train_trials,
        time_limit=time_limit,
        encoding=encoding,
        input_gain=input_gain,
        seed=seed,
    )
    ctrl = ControllerConfig(
        modality="olfactory", normalize=normalize, readout=readout, update_steps=update_steps
    )
    rd = ResultDir.create(
        out,
        command="wirelab fly taxis",
        config={
            "taxis": cfg.to_dict(),
            "controller": ctrl.to_dict(),
            "body": body,
            "nulls": n_nulls,
            "mirror": mirror,
            "video": video,
        },
    )
    con = _load_connectome()
    t0 = time.perf_counter()
    with progress_bar(f"taxis ({body})") as prog:
        rows, traces = run_study(
            con, ctrl, cfg, n_nulls=n_nulls, mirror=mirror, body=body, video=video, progress=prog
        )
    main = next(r for r in rows if r["condition"] == "connectome")
    rd.write_metrics(
        {
            "success_rate": main["success_rate"],
            "path_efficiency": main["path_efficiency"],
            "time_to_source_s": main["time_to_source_s"],
            "conditions": rows,
            "wall_s": time.perf_counter() - t0,
        }
    )
    rd.save_figure(taxis_bars(rows), "success_rate")
    rd.save_figure(taxis_paths(traces, cfg.radius), "trajectories")
    for r in rows:
        eff = r["path_efficiency"]
        tts = r["time_to_source_s"]
        click.echo(
            f"{r['condition']:14s} success={r['success_rate']:.2f} "
            f"[{r['success_ci'][0]:.2f}, {r['success_ci'][1]:.2f}] "
            f"efficiency={'-' if eff is None else f'{eff:.2f}'} "
            f"time={'-' if tts is None else f'{tts:.1f}s'}"
        )
