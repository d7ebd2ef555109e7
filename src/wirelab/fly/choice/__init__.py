"""Two-odor choice on the fly body: does the wiring route two cues of opposite value?

An attractive and an aversive source lie on random sides of each start; each cue reaches the
larval connectome through its own sensory class (olfactory for the attractive one, visual for
the aversive one by default: the larva approaches odors and avoids light), left and right kept; a
small readout on the DN-VNC neurons drives the kinematic body (docs/fly-choice.md).

- `wirelab.fly.choice.task`: the arena, starts, cues, encodings, teacher and per-trial scores;
- `wirelab.fly.choice.network`: the four-channel input, the controller at G gains, the readouts;
- `wirelab.fly.choice.episode`: closed-loop episodes, training and testing;
- `wirelab.fly.choice.stats`: rank p, z, effect sizes, per-start paired comparisons;
- `wirelab.fly.choice.jobs`, `wirelab.fly.choice.study`: the study (``run(config, out)``);
- `wirelab.fly.choice.plots`, `wirelab.fly.choice.cli`: the trajectories and ``wirelab fly choice``.
"""
