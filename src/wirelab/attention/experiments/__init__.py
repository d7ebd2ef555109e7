"""The experiments behind ``wirelab attention pooling|translate|complexity|positional``.

Each ``run(out, **config) -> dict`` writes a `wirelab.results.ResultDir` (config.json, metrics.json,
PNG plots) and returns its metrics.
"""
