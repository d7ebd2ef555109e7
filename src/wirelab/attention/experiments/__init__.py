"""The experiments behind ``wirelab attention pooling|translate|complexity|positional``.

Each module has a frozen config dataclass and ``run(config, out, *, overwrite=False) -> metrics``,
which validates the config, then writes its result directory through `wirelab.results.experiment`
(config.json, PNG plots, metrics.json last) and returns the metrics as written.
"""
