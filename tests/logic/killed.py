"""A training run stopped just after a checkpoint, as a kill leaves it (for the resume tests)."""

from pathlib import Path

import pytest

from wirelab.logic import training as train_mod
from wirelab.logic.training import TrainConfig


class Interrupt(Exception):
    pass


def run_until_checkpoint(
    monkeypatch: pytest.MonkeyPatch, cfg: TrainConfig, out: Path, after: int = 1
) -> None:
    """Train ``cfg`` into ``out`` and stop it right after its ``after``-th checkpoint is saved."""
    real_save = train_mod._save_checkpoint
    calls: list[int] = []

    def save_then_stop(*args, **kw):  # type: ignore[no-untyped-def]
        real_save(*args, **kw)
        calls.append(1)
        if len(calls) == after:
            raise Interrupt

    monkeypatch.setattr(train_mod, "_save_checkpoint", save_then_stop)
    with pytest.raises(Interrupt):
        train_mod.run(cfg, out, quiet=True)
    monkeypatch.setattr(train_mod, "_save_checkpoint", real_save)
