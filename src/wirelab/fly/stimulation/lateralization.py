"""Is the DN-VNC response to one-sided sensory input ipsilateral or contralateral?

For one modality and one side, the ``K`` sensory neurons of that side each get an input channel.
Bootstrap replicate ``b`` resamples the ``K`` neurons with replacement and drives neuron ``i`` with
``gain * count_b(i)`` (replicate 0 is the real set, every count 1). The reservoir (leaky tanh,
`wirelab.fly.controller`) runs ``steps`` updates from rest with the input held on; the DN-VNC
response of a side is its mean activity over the last ``tail`` updates. Per replicate::

    LI_side = (dn_L - dn_R) / (dn_L + dn_R)          after stimulating ``side``
    C       = (LI_left - LI_right) / 2               > 0 ipsilateral, < 0 contralateral

The confidence interval of ``C`` is the 2.5-97.5 percentile over replicates. Every model (the
connectome, degree-preserving nulls, the left-right mirrored connectome; each normalised ``row``
and ``spectral``), every gain and every replicate advance together in one batched reservoir run
(`wirelab.reservoir.Reservoir`: models are its M axis, gains x replicates its B axis); each
modality is one job of the study executor (`wirelab.parallel`: ``--workers``, ``--backend``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from wirelab.data.connectomes import Connectome, load_connectome
from wirelab.errors import UsageError
from wirelab.fly.limits import MAX_BOOT, MAX_STEPS, check_count, check_magnitude, check_seeds
from wirelab.fly.populations import input_neurons, modalities
from wirelab.fly.stimulation.stimulate import lateralization_index
from wirelab.parallel import ExecOptions, Job, map_jobs
from wirelab.reservoir import Reservoir, Units, normalize
from wirelab.results import experiment


@dataclass(frozen=True)
class Model:
    """One recurrent matrix under test: ``name`` (connectome|degree|mirror), null index."""

    name: str
    index: int
    normalize: str
    weights: sp.csr_matrix


def response(
    con: Connectome,
    models: Sequence[Model],
    modality: str,
    side: str,
    gains: Sequence[float],
    n_boot: int,
    steps: int = 20,
    tail: int = 5,
    alpha: float = 1.0,
    leak: float = 1.0,
    seed: int = 0,
) -> np.ndarray:
    """``(M, G, 1 + n_boot, 2)`` DN-VNC ``[left, right]`` responses to stimulating ``side``."""
    inputs = input_neurons(con, modality, side)  # (K,)
    k = len(inputs)
    w_in = np.zeros((k, con.n))
    w_in[np.arange(k), inputs] = 1.0
    rng = np.random.default_rng(seed)
    counts = np.ones((1 + n_boot, k))
    for b in range(1, 1 + n_boot):
        counts[b] = np.bincount(rng.integers(0, k, k), minlength=k)
    g = np.asarray(gains, dtype=np.float64)
    u = (g[:, None, None] * counts[None]).reshape(-1, k)  # (G * R, K)
    dn_l = con.select(celltype="DN-VNC", side="left")
    dn_r = con.select(celltype="DN-VNC", side="right")
    res = Reservoir(
        [m.weights for m in models],
        w_in,
        alphas=alpha,
        units=Units(activation="tanh", leak=leak, input_scaling=1.0),
        batch=u.shape[0],
        dtype=np.float32,
        settings={"modality": modality, "side": side},
    )
    run = res.run(np.broadcast_to(u, (steps, *u.shape)), record=np.concatenate([dn_l, dn_r]))
    x = run.states[-tail:, :, 0].mean(axis=0)  # (M, G*R, P)
    nl = len(dn_l)
    out = np.stack([x[..., :nl].mean(axis=-1), x[..., nl:].mean(axis=-1)], axis=-1)
    return out.reshape(len(models), len(g), 1 + n_boot, 2).astype(np.float64)


def _li(dn: np.ndarray) -> np.ndarray:
    total = dn[..., 0] + dn[..., 1]
    return np.divide(dn[..., 0] - dn[..., 1], total, out=np.zeros_like(total), where=total != 0)


@dataclass(frozen=True)
class Setup:
    """What every modality's job shares: the connectome, the models and the grid."""

    con: Connectome
    models: Sequence[Model]
    gains: Sequence[float]
    n_boot: int = 200
    steps: int = 20
    seed: int = 0


def modality_rows(setup: Setup, mod: str) -> list[dict[str, Any]]:
    """The rows of modality ``mod``: one per gain x model (module docstring for the columns)."""
    con, models, gains, n_boot = setup.con, setup.models, setup.gains, setup.n_boot
    left = response(con, models, mod, "left", gains, n_boot, setup.steps, seed=setup.seed)
    right = response(con, models, mod, "right", gains, n_boot, setup.steps, seed=setup.seed + 1)
    li_l, li_r = _li(left), _li(right)  # (M, G, R)
    c = (li_l - li_r) / 2
    rows: list[dict[str, Any]] = []
    for mi, m in enumerate(models):
        for gi, g in enumerate(gains):
            boot = c[mi, gi, 1:]
            lo, hi = np.percentile(boot, [2.5, 97.5]) if n_boot else (np.nan, np.nan)
            est = float(c[mi, gi, 0])
            verdict = "ipsilateral" if lo > 0 else "contralateral" if hi < 0 else "undetermined"
            rows.append(
                {
                    "modality": mod,
                    "gain": float(g),
                    "normalize": m.normalize,
                    "model": m.name,
                    "null": m.index,
                    "n_inputs_left": int(len(input_neurons(con, mod, "left"))),
                    "n_inputs_right": int(len(input_neurons(con, mod, "right"))),
                    "li_left_stim": lateralization_index(*left[mi, gi, 0]),
                    "li_right_stim": lateralization_index(*right[mi, gi, 0]),
                    "dn_left_stim": [float(v) for v in left[mi, gi, 0]],
                    "dn_right_stim": [float(v) for v in right[mi, gi, 0]],
                    "contrast": est,
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "verdict": verdict,
                }
            )
    return rows


def study(
    con: Connectome,
    models: Sequence[Model],
    modalities: Sequence[str],
    gains: Sequence[float],
    n_boot: int = 200,
    steps: int = 20,
    seed: int = 0,
    options: ExecOptions | None = None,
    show: bool = False,
) -> list[dict[str, Any]]:
    """Tidy rows: one per modality x gain x model, each modality a job of `wirelab.parallel`
    (``options``; default: one worker, in this process)."""
    setup = Setup(con, models, list(gains), n_boot, steps, seed)
    jobs = [Job(mod, modality_rows, (mod,)) for mod in modalities]
    per_mod = map_jobs(
        jobs, options or ExecOptions(workers=1), shared=setup, label="lateralisation", show=show
    )
    return [row for rows in per_mod for row in rows]


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per modality x gain x normalisation: connectome contrast and CI vs nulls and mirror.

    ``p_null`` = (1 + #nulls with |C_null| >= |C_connectome|) / (1 + #nulls), two-sided.
    """
    out: list[dict[str, Any]] = []
    keys = sorted({(r["modality"], r["gain"], r["normalize"]) for r in rows})
    for mod, g, norm in keys:
        sel = [r for r in rows if (r["modality"], r["gain"], r["normalize"]) == (mod, g, norm)]
        conn = next(r for r in sel if r["model"] == "connectome")
        nulls = np.array([r["contrast"] for r in sel if r["model"] == "degree"])
        mirror = next((r for r in sel if r["model"] == "mirror"), None)
        row: dict[str, Any] = {
            "modality": mod,
            "gain": g,
            "normalize": norm,
            "contrast": conn["contrast"],
            "ci_low": conn["ci_low"],
            "ci_high": conn["ci_high"],
            "verdict": conn["verdict"],
            "dn_total": float(sum(conn["dn_left_stim"])),
        }
        if len(nulls):
            row["null_mean"] = float(nulls.mean())
            row["null_std"] = float(nulls.std())
            row["p_null"] = float(
                (1 + np.sum(np.abs(nulls) >= abs(conn["contrast"]))) / (1 + len(nulls))
            )
        if mirror is not None:
            row["mirror_contrast"] = mirror["contrast"]
        out.append(row)
    return out


def build_models(
    con: Connectome,
    normalizations: Sequence[str],
    n_nulls: int,
    seed: int = 0,
    mirror: bool = True,
) -> list[Model]:
    """Connectome, ``n_nulls`` degree-preserving nulls and the mirror, each normalised."""
    from wirelab.reservoir.nulls import degree_preserving, mirrored

    raw: list[tuple[str, int, sp.csr_matrix]] = [("connectome", 0, con.matrix())]
    raw += [("degree", i, degree_preserving(con, seed + i)) for i in range(n_nulls)]
    if mirror:
        raw.append(("mirror", 0, mirrored(con)))
    return [
        Model(name, i, norm, normalize(w, norm).astype(np.float64))
        for norm in normalizations
        for name, i, w in raw
    ]


@dataclass(frozen=True)
class LateralizationConfig:
    """The study's grid: modalities (``("all-known",)``: every modality plus ``all``), input
    gains, normalisations, ``nulls`` degree-preserving nulls, ``boot`` bootstrap replicates and
    ``steps`` reservoir updates (alpha 1, leak 1)."""

    modalities: tuple[str, ...] = ("all-known",)
    gains: tuple[float, ...] = (0.5, 1.0, 2.0)
    normalizations: tuple[str, ...] = ("row", "spectral")
    nulls: int = 5
    boot: int = 100
    steps: int = 20
    seed: int = 0
    connectome: str = "larva"
    workers: int | None = None
    backend: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if not self.gains or self.nulls < 0 or self.boot < 0 or self.steps < 1:
            raise UsageError("need at least one gain, --nulls >= 0, --boot >= 0, --steps >= 1")
        for g in self.gains:
            check_magnitude(g, "--gains")
        check_count(self.nulls, "--nulls")
        check_count(self.boot, "--boot", MAX_BOOT)
        check_count(self.steps, "--steps", MAX_STEPS, low=1)
        check_seeds(self.seed, self.nulls + 2)  # the right side's seed + 1, the nulls' seed + i
        bad = [n for n in self.normalizations if n not in ("row", "spectral")]
        if bad or not self.normalizations:
            raise UsageError(f"normalizations must be row and/or spectral, not {bad}")
        ExecOptions(self.backend, self.workers, self.address).validate()

    def resolve_modalities(self, con: Connectome) -> list[str]:
        """The modalities to test; an unknown one is a one-line `UsageError`."""
        if tuple(self.modalities) == ("all-known",):
            return ["all", *modalities(con)]
        mods = [m.strip() for m in self.modalities if m.strip()]
        if not mods:
            raise UsageError("need at least one modality")
        for m in mods:
            input_neurons(con, m, "left")
        return mods


def run(
    config: LateralizationConfig,
    out: Path,
    *,
    overwrite: bool = False,
    con: Connectome | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """The study into the result directory ``out``: ``metrics.json`` (``summary`` per modality x
    gain x normalisation, every row under ``results``) and one figure per normalisation."""
    from wirelab.fly.plots import lateralization as lat_plot

    if con is None:
        con = load_connectome(config.connectome)
    mods = config.resolve_modalities(con)
    norms = list(config.normalizations)
    run_config = {
        "modalities": mods,
        "gains": list(config.gains),
        "normalizations": norms,
        "nulls": config.nulls,
        "boot": config.boot,
        "steps": config.steps,
        "seed": config.seed,
        "alpha": 1.0,
        "leak": 1.0,
        "connectome": config.connectome,
        "workers": config.workers,
        "backend": config.backend,
        "address": config.address,
    }
    with experiment(
        out, command="wirelab fly lateralization", config=run_config, overwrite=overwrite
    ) as rd:
        t0 = time.perf_counter()
        models = build_models(con, norms, config.nulls, seed=config.seed)
        rows = study(
            con,
            models,
            mods,
            list(config.gains),
            n_boot=config.boot,
            steps=config.steps,
            seed=config.seed,
            options=ExecOptions(config.backend, config.workers, config.address),
            show=progress,
        )
        summary = summarize(rows)
        for n in norms:
            rd.save_figure(lat_plot(summary, n), f"lateralization_{n}")
        return rd.finish({"summary": summary, "results": rows, "wall_s": time.perf_counter() - t0})
