"""Sweeps: one grid of experiments (a TOML file), run here or on a Ray cluster, one tidy table.

`wirelab.sweep.grid` reads and expands grids, `wirelab.sweep.runner` runs one point,
`wirelab.sweep.executors` holds `EXECUTORS`, the registry of what runs many (local threads, Ray
tasks in `wirelab.sweep.ray_executor`), `wirelab.sweep.sweep` drives a sweep with resume, and
`wirelab.sweep.results_table` writes the results table and summary plot.
"""
