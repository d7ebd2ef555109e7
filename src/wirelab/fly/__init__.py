"""The connectome drives a fly: bodies, connectome controller, stimulation and taxis experiments.

- `wirelab.fly.body`: the ``act(descending_signal) -> Observation`` interface;
- `wirelab.fly.bodies`: ``BODIES``, the registry of bodies (``make_body(name)``);
- `wirelab.fly.flygym_body`: NeuroMechFly (flygym ``HybridTurningController``);
- `wirelab.fly.kinematic`: a fast planar body calibrated against flygym.
"""

from wirelab.fly.bodies import BODIES, make_body
from wirelab.fly.body import DRIVE_RANGE, Body, Observation
from wirelab.fly.odor import OdorSource

__all__ = ["BODIES", "DRIVE_RANGE", "Body", "Observation", "OdorSource", "make_body"]
