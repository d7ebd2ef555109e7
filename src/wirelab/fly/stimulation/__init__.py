"""Open-loop stimulation: one-sided sensory input -> connectome -> DN-VNC (-> walking fly).

- `wirelab.fly.stimulation.stimulate`: one side stimulated, the fly walks with the DN-VNC output
  (``wirelab fly stimulate``);
- `wirelab.fly.stimulation.lateralization`: is the DN-VNC response ipsi- or contralateral, per
  modality and gain, against nulls and the mirrored connectome (``wirelab fly lateralization``);
- `wirelab.fly.stimulation.cli`: both commands.
"""
