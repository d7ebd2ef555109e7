"""Tour step: small real runs of the pooling study, date translation and complexity table, each
with its progress bar.

Each calls the experiment's own ``run(config, out, overwrite=True)`` (a tour is meant to be rerun).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wirelab.attention.experiments import complexity, pooling, translate
from wirelab.errors import MissingDataError, SkipStep


def run(out: Path, quick: bool = False) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    pooling_cfg = pooling.PoolingConfig(
        distractors=(16,),
        seeds=(0,),
        methods=("mean", "attn1") if quick else pooling.METHODS,
        steps=150 if quick else 400,
        test_bags=500,
        train_images=10000 if quick else 60000,
        progress=True,
    )
    try:
        pm = pooling.run(pooling_cfg, out / "pooling", overwrite=True)
    except MissingDataError as exc:
        raise SkipStep(f"MNIST is needed for the pooling study: {exc}") from exc
    for method, per in pm["summary"].items():
        summary[f"pool_{method}_acc"] = round(per["16"]["accuracy_mean"], 3)
    translate_cfg = translate.TranslateConfig(
        steps=200 if quick else 1000,
        test_size=500,
        eval_every=100 if quick else 250,
        progress=True,
    )
    tm = translate.run(translate_cfg, out / "translate", overwrite=True)
    summary["translate_exact_match"] = round(tm["exact_match"], 3)
    summary["alignment"] = round(tm["alignment_score"], 3)
    complexity_cfg = complexity.ComplexityConfig(
        ns=(64, 128, 256, 512) if quick else (64, 128, 256, 512, 1024),
        ds=(32, 64, 128, 256),
        n_fixed=256,
        d_fixed=128,
        path_ns=(16, 32),
        repeats=2 if quick else 3,
        progress=True,
    )
    cm = complexity.run(complexity_cfg, out / "complexity", overwrite=True)
    summary["attn_cheaper_than_rnn_up_to_n"] = _crossover_summary(cm)
    summary["flops_predict_n"] = cm["crossover"]["flops_predicted_n"]
    return summary


def _crossover_summary(cm: dict[str, Any]) -> int | str:
    c = cm["crossover"]
    cross = c["measured_n_at_d_fixed"]
    if cross is not None:
        return round(cross)
    if c["attention_cheaper_at_smallest_n"]:
        return f">{cm['ns'][-1]}"
    return "never"
