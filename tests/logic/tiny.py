"""A logic recipe small enough for study tests: 10 steps on the digits dataset (sklearn)."""

from wirelab.logic.config import TrainConfig, from_dict


def tiny_digits() -> TrainConfig:
    """2 x 50 gates, 10 steps of 32 images, validated every 5 steps, one thread."""
    doc = {
        "dataset": "digits",
        "classes": "all",
        "steps": 10,
        "eval_every": 5,
        "batch_size": 32,
        "threads": 1,
        "model": {"dense": [50, 50], "init": "gaussian", "tau": 3.0},
    }
    return from_dict(doc, "test")
