"""The turn study: does one-sided stimulation turn the fly, and does the turn come from the wiring?

- `wirelab.fly.turns.study`: the study (``TurnsConfig``, ``run``): seeds x models x conditions,
  95% CIs and paired differences to the control;
- `wirelab.fly.turns.runs`: one stimulated walk per process (``RunSpec``, ``run_one``) and how a
  finished run is kept in the study store;
- `wirelab.fly.turns.video`: the figures and the side-by-side video;
- `wirelab.fly.turns.cli`: ``wirelab fly turns``.
"""
