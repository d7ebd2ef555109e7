"""Sweeps: one grid of experiments (a TOML file), run here or on a Ray cluster, one tidy table.

`wirelab.sweep.grid` reads and expands grids, `wirelab.sweep.runner` runs one point,
`wirelab.sweep.backends` runs many (local threads or Ray tasks), `wirelab.sweep.sweep` drives a
sweep with resume, and `wirelab.sweep.table` writes the table and summary plot.
"""
