"""The connectome drives a fly: bodies, connectome controller, stimulation, turns and taxis.

Layout, by role:

- shared core: `wirelab.fly.controller` (sensory input -> connectome reservoir -> DN readout),
  `wirelab.fly.mapping` (DN activity -> descending signal), `wirelab.fly.loop` (the
  sensorimotor loop and its `Trace`), `wirelab.fly.populations` (sensory and DN neurons),
  `wirelab.fly.odor` (odor source, antennae), `wirelab.fly.options` (the commands' shared
  options), `wirelab.fly.plots` (figures), `wirelab.fly.store` (the one resumable study store);
- `wirelab.fly.bodies`: ``BODIES``, the registry of bodies (``make_body(name)``); `base` (the
  `Body` protocol ``reset``, ``act(signal) -> Observation``, ``close``), `kinematic` (a fast
  planar body), `flygym1` and `flygym1_obs` (NeuroMechFly, flygym 1.2.1
  ``HybridTurningController``), `calibration` (``calibration.json``: the kinematic body fitted
  to flygym; ``wirelab fly calibrate``), `timestep` (``wirelab fly timestep``), `cli`;
- `wirelab.fly.stimulation`: open-loop one-sided stimulation (`stimulate`, ``wirelab fly
  stimulate``) and the DN-VNC lateralisation study (`lateralization`), `cli`;
- `wirelab.fly.turns`: the turn study (`study`, ``wirelab fly turns``), one run per process
  (`runs`), its figures and side-by-side video (`video`), `cli`;
- `wirelab.fly.taxis`: closed-loop odor taxis (`task`: arena, sensing, teacher, training,
  deployment), one-fly test trials (`trials`), the study (`study`, ``wirelab fly taxis``), `cli`;
- `wirelab.fly.cli`: the ``wirelab fly`` group (each role's commands); `wirelab.fly.tour`: the
  tour step.
"""

from wirelab.fly.bodies import BODIES, make_body
from wirelab.fly.bodies.base import DRIVE_RANGE, Body, Observation
from wirelab.fly.odor import OdorSource

__all__ = ["BODIES", "DRIVE_RANGE", "Body", "Observation", "OdorSource", "make_body"]
