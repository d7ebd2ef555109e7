"""The figures of docs/results/ and of the README's results table are the committed metrics'.

Each check reads a committed ``metrics.json`` (or summary) under docs/figures/, formats the
figures as the page writes them, and asserts that the page holds that text: editing a number on
the page, or committing new metrics without updating the page, fails. One or more rows per
system that has committed metrics: the reservoir's cross-species and larval studies, the fly's
turn and taxis studies on flygym 2, the logic recipes' 3-seed means and single runs, the
ten-class classifier on one UP5K, and the time-to-accuracy benchmark. (The attention figures
have no committed metrics.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIGURES = REPO / "docs" / "figures"
RESULTS = REPO / "docs" / "results"
XSPECIES = FIGURES / "reservoir" / "xspecies"
TASKS = ["memory-capacity", "narma10", "mackey-glass", "mackey-glass-84", "lorenz", "decision"]


def load(rel: str) -> Any:
    return json.loads((FIGURES / rel).read_text())


def page(name: str) -> str:
    """A page's text without Markdown emphasis (so a bold figure reads as the figure)."""
    return (RESULTS / name).read_text().replace("**", "")


def readme() -> str:
    return (REPO / "README.md").read_text().replace("**", "")


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


def g3(x: float) -> str:
    return f"{x:.3g}"


def seeds_text(m: dict[str, Any]) -> str:
    """``97.75 +- 0.03% (3 seeds: 97.79, 97.73, 97.73)`` from a seeds study's metrics."""
    runs = ", ".join(pct(r["accuracy_discrete"]) for r in m["runs"])
    mean, sd = m["accuracy_discrete_mean"], m["accuracy_discrete_sd"]
    return f"{pct(mean)} +- {pct(sd)}% ({len(m['runs'])} seeds: {runs})"


# --- logic ---------------------------------------------------------------------------------------

SEED_STUDIES = [
    "mnist10-8k-learned/seeds.json",
    "mnist10-32k-learned/seeds.json",
    "mnist10-48k/metrics.json",
    "mnist10-48k-30k/metrics.json",
    "mnist10-conv/metrics.json",
    "mnist10-conv-64/metrics.json",
    "mnist10-8k-learned-40k/seeds.json",  # the recipe before (results page only)
    "mnist10-32k-learned-30k/metrics.json",  # the recipe before (results page only)
]
SINGLE_RUNS = [
    "mnist10-48k-paper",
    "mnist10-12k-learned",
    "mnist10-12k",
    "mnist10-8k-learned-noaug",
    "mnist10-8k-learned-binary",
    "mnist10-conv-fixed-head",
]


@pytest.mark.parametrize("rel", SEED_STUDIES)
def test_logic_seed_studies(rel: str) -> None:
    assert seeds_text(load(f"logic/{rel}")) in page("logic.md")


@pytest.mark.parametrize("name", SINGLE_RUNS)
def test_logic_single_runs(name: str) -> None:
    """``| 48,000 | 97.38% | 0.48 |``: gates, discrete accuracy and the gap in pp."""
    m = load(f"logic/{name}/metrics.json")
    gap = f"{100 * m['discretization_gap']:.2f}"
    row = f"| {m['gates']:,} | {pct(m['accuracy_discrete'])}% | {gap} |"
    assert row in page("logic.md")


def test_logic_mnist01() -> None:
    m = load("logic/mnist01/metrics.json")
    assert f"| {m['gates']} | {pct(m['accuracy_discrete'])}% |" in page("logic.md")
    assert f"{m['gates']} gates: {pct(m['accuracy_discrete'])}%" in readme()


def test_logic_readme_means() -> None:
    for rel in SEED_STUDIES[:3]:
        m = load(f"logic/{rel}")
        mean, sd = m["accuracy_discrete_mean"], m["accuracy_discrete_sd"]
        assert f"{pct(mean)} +- {pct(sd)}% (3 seeds" in readme(), rel


def test_up5k_recipe_seeds() -> None:
    assert seeds_text(load("fpga/mnist10-up5k-seeds/seeds.json")) in page("logic.md")


def test_up5k_ten_classes() -> None:
    m = load("fpga/up5k-b256-shift/metrics.json")
    text = page("logic.md")
    acc = f"{100 * m['accuracy_c']:.2f}"
    assert m["accuracy_c"] == m["accuracy_discrete"] and m["timing_met"] and m["fits"]
    assert f"{acc} %" in text
    share = round(100 * m["logic_cells"] / m["logic_cells_available"])
    assert f"{m['logic_cells']:,} placed and routed ({share} %)" in text
    assert f"{m['fmax_mhz']:.2f} MHz, {m['clock_mhz']:.0f} MHz met" in text
    assert f"{m['cycles_per_image']}; {m['images_per_s_at_fmax']:,} images/s" in text
    assert f"{m['postsim_equal_to_c']} / {m['postsim_images']}" in text
    readme_row = (
        f"{acc}%, {m['logic_cells']:,} of {m['logic_cells_available']:,} cells, "
        f"{m['fmax_mhz']:.2f} MHz"
    )
    assert readme_row in readme()


def tta_text(entry: dict[str, Any]) -> str:
    """One target's figure as the benchmarks page writes it: the ratio against the fastest
    torchlogix configuration (or, where none reached the target, the bound from the shortest)."""
    t = f"{100 * entry['target_val_discrete']:.0f}% validation"
    ours = f"wirelab {entry['wirelab_seconds']:,.1f} s (step {entry['wirelab_step']:,})"
    vs = entry["torchlogix"][entry["vs"]]
    if "speedup" in entry:
        return (
            f"{t}: {entry['speedup']:.1f}x against the fastest ({entry['vs']}): {ours} "
            f"vs {vs['seconds']:,.1f} s (step {vs['step']:,})"
        )
    return (
        f"{t}: at least {entry['speedup_at_least']:.1f}x: {ours}; no torchlogix configuration "
        f"reached it, the shortest run {vs['seconds']:,.0f} s"
    )


def test_time_to_accuracy_benchmark() -> None:
    m = json.loads((FIGURES / "benchmarks" / "logic_time_to_accuracy.json").read_text())
    assert not m["tiny"] and m["threads"] == 1
    text, top = page("benchmarks.md"), readme()
    for entry in m["targets"]:
        peers = entry["torchlogix"]
        assert entry["wirelab_reached"], entry["target_val_discrete"]
        reached = [p for p in peers if peers[p]["reached"]]
        if reached:  # the ratio is against the fastest that reached the target
            assert entry["vs"] == min(reached, key=lambda p: peers[p]["seconds"])
        else:  # none reached it: the bound is the shortest run's
            assert entry["vs"] == min(peers, key=lambda p: peers[p]["seconds"])
        assert tta_text(entry) in text
        for name, peer in peers.items():
            if not peer["reached"]:  # a configuration stopped short is named with its seconds
                assert f"{name} {peer['seconds']:,.0f} s ({peer['val_discrete']:.4f})" in text
        ratio = entry.get("speedup", entry.get("speedup_at_least"))
        assert f"{ratio:.1f}x" in top, entry["target_val_discrete"]
    assert f"load {m['load_before']:.2f} before and {m['load_after']:.2f} after" in text


# --- reservoir -----------------------------------------------------------------------------------


def xspecies_rows(name: str) -> list[str]:
    """The cross-species table's cells for one network: task (metric), best alpha, connectome,
    degree nulls, p, random-ESN nulls, p, CPU-s."""
    s = json.loads((XSPECIES / f"{name}.summary.json").read_text())
    deg, esn = s["summary_by_null_model"]["degree"], s["summary_by_null_model"]["random-esn"]
    rows = []
    for task in TASKS:
        d, e = deg[task], esn[task]
        metric = d["metric"].replace("NRMSE_84", "NRMSE")  # the table names the free run's NRMSE
        rows.append(
            f"| {task} ({metric}) | {d['best_alpha']:.1f} | {g3(d['connectome'])} "
            f"| {g3(d['null_mean'])} +- {g3(d['null_std'])} | {d['p_value']:.2f} "
            f"| {g3(e['null_mean'])} +- {g3(e['null_std'])} | {e['p_value']:.2f} "
            f"| {s['cpu_seconds']:.0f} |"
        )
    return rows


@pytest.mark.parametrize(
    "name",
    [
        "larva-dnvnc",
        "celegans-cook2019-herm",
        "celegans-cook2019-male",
        "celegans-witvliet2021-1",
        "celegans-witvliet2021-8",
    ],
)
def test_reservoir_cross_species_table(name: str) -> None:
    text = page("reservoir.md")
    missing = [row for row in xspecies_rows(name) if row not in text]
    assert missing == [], f"{name}: rows not in docs/results/reservoir.md"


def test_reservoir_larva_99_nulls_of_each_family() -> None:
    """The larva against 99 plain, 99 boundary-preserving and 99 random-ESN nulls: its table and
    the README's figures from it."""
    m = load("reservoir/larva-mc-99/metrics.json")["summary_by_null_model"]
    text = page("reservoir.md")
    words = {"degree": "degree-preserving", "degree-boundary": "boundary-preserving"}
    for kind, name in {**words, "random-esn": "random ESN"}.items():
        f = m[kind]["memory-capacity"]
        assert f["n_nulls"] == 99
        row = (
            f"| {name} | {g3(f['connectome'])} ({f['best_alpha']:.1f}) | {g3(f['null_mean'])} "
            f"+- {g3(f['null_std'])} | {f['p_value']:.2f} | {f['z']:+.1f} "
            f"| {f['p_value_own_best_alpha']:.2f} |"
        )
        assert row in text, kind
    d, b = m["degree"]["memory-capacity"], m["degree-boundary"]["memory-capacity"]
    e = m["random-esn"]["memory-capacity"]
    assert f"memory capacity {g3(d['connectome'])} against 99 degree-preserving" in readme()
    for f in (d, b):
        assert f"{g3(f['null_mean'])} +- {g3(f['null_std'])} (p = {f['p_value']:.2f})" in readme()
    assert f"{g3(e['null_mean'])} +- {g3(e['null_std'])}" in readme()


def test_reservoir_default_study_time() -> None:
    s = load("reservoir/xspecies/larva-all-degree20.summary.json")
    assert f"{s['wall_seconds']:.1f} s" in page("reservoir.md")
    assert f"| {s['cpu_seconds']:,.0f} |" in page("reservoir.md")


# --- fly -----------------------------------------------------------------------------------------


def ci(x: dict[str, Any]) -> str:
    lo, hi = x["ci"]
    return f"{x['mean']:+.1f} [{lo:+.1f}, {hi:+.1f}]"


def test_fly_turns_flygym2() -> None:
    table = load("fly/turns-flygym2/metrics.json")["table"]
    cells = {(r["model"], r["condition"]): r for r in table}
    text = page("fly.md")
    models = sorted({m for m, _ in cells if m != "(all)"})
    assert models, "no models in the committed turns study"
    for model in models:
        left, right = cells[(model, "left")], cells[(model, "right")]
        diff = cells[(model, "left-right")]["turn"]
        sides = f"{ci(left['minus_control'])} | {ci(right['minus_control'])}"
        row = f"| {sides} | {ci(diff)} | {diff['n']} |"
        assert row in text, model
    control = cells[("(all)", "control")]["turn"]
    assert f"turned {control['mean']:+.1f}" in text
    row_diff = cells[("row", "left-right")]["turn"]
    assert ci(row_diff).replace("+", "", 0) in readme()


def test_fly_taxis_flygym2() -> None:
    m = load("fly/taxis-flygym2/metrics.json")
    text = page("fly.md")
    for c in m["conditions"]:
        lo, hi = c["success_ci"]
        cell = f"{c['success_rate']:.2f} ({c['successes']}/{c['trials']}) [{lo:.2f}, {hi:.2f}]"
        assert cell in text, c["condition"]
    best = m["success_rate"]
    assert re.search(rf"\b{best:.2f} \(19/20\)", readme())


def test_celegans_both_null_families_in_the_readme() -> None:
    m = load("reservoir/herm-families/metrics.json")["summary_by_null_model"]
    d, b = m["degree"]["mackey-glass"], m["degree-boundary"]["mackey-glass"]
    assert f"NRMSE: {d['connectome']:.3g} against 10 degree-preserving" in readme()
    for f in (d, b):
        assert f"{f['null_mean']:.3g} +- {f['null_std']:.3g} (p = {f['p_value']:.2f})" in readme()
