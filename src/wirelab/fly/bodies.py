"""The fly bodies: one registry, read by the CLI's ``--body`` choices, the docs and validation.

Adding a body is one new module with a class following `wirelab.fly.body.Body` plus one line
here (or ``BODIES.add(...)`` from anywhere, e.g. a test). Entries are lazy ``"module:attr"``
strings, so MuJoCo and flygym are imported only when the flygym body is chosen.
"""

from __future__ import annotations

from wirelab.fly.body import Body
from wirelab.registry import Registry

BODIES: Registry[type[Body]] = Registry("fly body")
BODIES.add(
    "kinematic",
    "wirelab.fly.kinematic:KinematicBody",
    "fast planar differential drive calibrated against flygym (batched)",
)
BODIES.add(
    "flygym",
    "wirelab.fly.flygym_body:FlygymBody",
    "NeuroMechFly in MuJoCo (flygym HybridTurningController); video and live viewer",
)


def body_class(name: str) -> type[Body]:
    """The registered body class ``name``, or a one-line `UsageError` naming the choices."""
    return BODIES.get(name)


def make_body(name: str, **kwargs: object) -> Body:
    """A body of the registered kind ``name``; keyword arguments go to its constructor."""
    return body_class(name)(**kwargs)


def renderers() -> list[str]:
    """Names of the bodies that can record a video or open a viewer."""
    return [n for n in BODIES.names() if body_class(n).renders_video]
