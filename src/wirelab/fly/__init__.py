"""The connectome drives a fly: bodies, connectome controller, stimulation, turns and taxis.

Quickstart: the larval connectome turns a simulated fly when its left olfactory neurons are
stimulated (the kinematic body, a few seconds in the main environment):

```python
import numpy as np
from wirelab.fly import ConnectomeController, open_body

controller = ConnectomeController.from_connectome("larva")  # olfactory neurons -> DN-VNC
with open_body("kinematic") as body:  # a planar fly calibrated against flygym; dt = 1 ms
    obs = body.reset()
    start = float(obs.heading)
    for _ in range(500):  # 1 s: one controller update every 2 body steps
        drive = controller.step([1.0, 0.0])  # stimulate the left side -> [left, right] drive
        for _ in range(controller.steps_per_update(body.dt)):
            obs = body.act(drive)

turn = np.degrees(float(obs.heading) - start)
print(f"left stimulation: heading {turn:+.1f} deg ({'left' if turn > 0 else 'right'} turn)")
```

The same objects run the experiments (``wirelab fly stimulate`` calls
`wirelab.fly.stimulation.stimulate.run`, which builds a `ConnectomeController`, opens the body
with `open_body` and steps it in `run_loop`), so the loop above gives the command's numbers.

Two environments: the ``"kinematic"`` body runs anywhere; the ``"flygym"`` body (NeuroMechFly on
flygym 2, MuJoCo, video) runs in the fly environment, ``.venv-fly`` (Python 3.12; ``make
fly-env``). There, ``open_body("flygym", video="walk.mp4")`` is used exactly as above (run the
script with ``.venv-fly/bin/python``); from the main environment it is a one-line error saying
so. An experiment's ``run(config, out)`` (e.g. ``stimulate.run(StimulateConfig(side="left",
body="flygym"), out)``) instead hands itself to the fly environment (`wirelab.fly.envs`) and
returns its metrics here.

Public API:

- `open_body` / `make_body`: a registered body (`BODIES`: ``kinematic``, ``flygym``, ...);
  `Body` is its protocol: ``reset() -> Observation``, ``act(drive) -> Observation``,
  ``close()``; the drive is ``[left, right]`` in `DRIVE_RANGE`;
- `Observation`: ``time``, ``position`` (mm), ``heading`` (rad, CCW), ``odor``;
- `ConnectomeController` (settings `ControllerConfig`): sensory ``[left, right]`` ->
  connectome reservoir -> DN-VNC; ``step(sensory) -> drive`` through a `FixedMapping`
  (`default_mapping`);
- `run_loop` -> `Trace`: the experiments' sensorimotor loop; `OdorSource`: an odor for
  ``open_body(..., odor=...)``;
- `rerun_in_fly_env`: a script that opens the flygym body calls it first; from the main
  environment the script runs again, whole, in the fly environment.

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

from wirelab.fly.bodies import BODIES, make_body, open_body
from wirelab.fly.bodies.base import DRIVE_RANGE, Body, Observation
from wirelab.fly.controller import ConnectomeController, ControllerConfig
from wirelab.fly.envs import rerun_in_fly_env
from wirelab.fly.loop import Trace, run_loop
from wirelab.fly.mapping import FixedMapping, default_mapping
from wirelab.fly.odor import OdorSource

__all__ = [
    "BODIES",
    "DRIVE_RANGE",
    "Body",
    "ConnectomeController",
    "ControllerConfig",
    "FixedMapping",
    "Observation",
    "OdorSource",
    "Trace",
    "default_mapping",
    "make_body",
    "open_body",
    "rerun_in_fly_env",
    "run_loop",
]
