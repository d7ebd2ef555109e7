"""Closed-loop odor taxis: antennae -> olfactory sensory neurons -> connectome -> trained readout.

- `wirelab.fly.taxis.task`: the task (``TaxisConfig``): the arena (leaving it ends a trial as a
  failure) and random starts, sensing, the teacher, training the readout (kinematic body),
  closed-loop deployment and its metrics;
- `wirelab.fly.taxis.trials`: test trials one fly per process (flygym), stopped at the source or
  the arena's edge, and how a finished trial is kept in the study store;
- `wirelab.fly.taxis.study`: the study (``TaxisStudyConfig``, ``run``): baselines, the connectome,
  the mirrored connectome and nulls, trained then tested;
- `wirelab.fly.taxis.cli`: ``wirelab fly taxis``.
"""
