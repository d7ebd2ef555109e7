"""The fly bodies: one registry, read by the CLI's ``--body`` choices, the docs and validation.

Adding a body is one new module in this package with a class following
`wirelab.fly.bodies.base.Body` (``reset``, ``act(signal) -> Observation``, ``close`` and the class
attributes ``name``, ``renders_video``, ``supports_batch``) plus one ``BODIES.add`` line here (or
``BODIES.add(...)`` from anywhere, e.g. a test). Entries are lazy ``"module:attr"`` strings, so
MuJoCo and flygym are imported only when a flygym body is chosen. A body whose runs are large
registers ``job_bytes`` (memory per worker process), read by `executor`, and every body its
``wall_per_sim`` (measured pace), read by `wirelab.fly.limits`. A body registered with
``environment="fly"`` runs in the fly environment (Python 3.12, flygym 2): an experiment typed in
the main environment hands itself there (`wirelab.fly.envs`).

Besides the bodies, this package holds what belongs to them: `calibration` (the kinematic body's
constants fitted to flygym runs, ``calibration.json``) and `timestep` (is a larger flygym
physics step good enough?), with their commands in `cli`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from wirelab.errors import UsageError
from wirelab.fly.bodies.base import Body, flygym2_here
from wirelab.parallel import ExecOptions
from wirelab.parallel.options import check_workers_memory
from wirelab.registry import Registry

# Memory of one worker process simulating a flygym fly (MuJoCo model, renderer, Python): the
# ``job_bytes`` fact that `executor` checks ``--workers`` against (docs/scale.md).
JOB_BYTES = 1.0e9

# Wall seconds per simulated second of one fly on one core (``wirelab fly stimulate``, larva
# connectome, update every 20 steps; flygym at its 1e-4 s physics step): the ``wall_per_sim``
# fact that `wirelab.fly.limits` bounds simulated durations with (a day's worth at most). A
# body with a fixed step registers it as ``dt``.
KINEMATIC_WALL_PER_SIM = 0.15
FLYGYM_WALL_PER_SIM = 50.0
BODIES: Registry[type[Body]] = Registry("fly body")
BODIES.add(
    "kinematic",
    "wirelab.fly.bodies.kinematic:KinematicBody",
    "fast planar differential drive calibrated against flygym (batched)",
    dt=1e-3,
    wall_per_sim=KINEMATIC_WALL_PER_SIM,
)
BODIES.add(
    "flygym",
    "wirelab.fly.bodies.flygym2:Flygym2Body",
    "NeuroMechFly on flygym 2 (MuJoCo 3.16, lean hybrid turning controller); video and viewer",
    environment="fly",
    job_bytes=JOB_BYTES,
    wall_per_sim=FLYGYM_WALL_PER_SIM,
)
BODIES.add(
    "flygym1",
    "wirelab.fly.bodies.flygym1:FlygymBody",
    "NeuroMechFly on flygym 1.2.1 (legacy, kept one release to compare; the fly-legacy extra)",
    job_bytes=JOB_BYTES,
    wall_per_sim=FLYGYM_WALL_PER_SIM,
)


def body_class(name: str) -> type[Body]:
    """The registered body class ``name``, or a one-line `UsageError` naming the choices."""
    return BODIES.get(name)


def check_environment(name: str) -> None:
    """A one-line `UsageError` when body ``name`` lives in the fly environment (Python 3.12,
    flygym 2) and this interpreter is not it (`flygym2_here`)."""
    if BODIES.fact(name, "environment") == "fly" and not flygym2_here():
        raise UsageError(
            f"the {name!r} body needs flygym 2, which lives in the fly environment: run this "
            "code with .venv-fly/bin/python (`make fly-env` creates it), or call an "
            "experiment's run(config, out), which hands itself there (wirelab.fly.envs)"
        )


def make_body(name: str = "kinematic", **kwargs: object) -> Body:
    """A body of the registered kind ``name``; keyword arguments go to its constructor
    (e.g. ``batch``, ``dt``, ``seed`` for ``kinematic``; ``video``, ``timestep`` for ``flygym``).

    Raises a one-line `UsageError` for an unknown name, or for ``"flygym"`` outside the fly
    environment (`check_environment`). Close the body when done, or use `open_body`.
    """
    body_class(name)  # unknown name: the registry's error, naming the choices
    check_environment(name)
    return body_class(name)(**kwargs)


@contextmanager
def open_body(name: str = "kinematic", **kwargs: object) -> Iterator[Body]:
    """`make_body` as a context manager: the body is closed on exit (a flygym body writes its
    video then).

    Example:
        ```python
        with open_body("kinematic") as body:
            obs = body.reset()                 # Observation(time, position (2,), heading, odor)
            for _ in range(500):               # 0.5 s at dt = 1 ms
                obs = body.act([1.2, 0.6])     # [left, right] drive: turns right (clockwise)
        print(obs.position, obs.heading)
        ```
    """
    body = make_body(name, **kwargs)
    try:
        yield body
    finally:
        body.close()


def renderers() -> list[str]:
    """Names of the bodies that can record a video or open a viewer."""
    return [n for n in BODIES.names() if body_class(n).renders_video]


def executor(body: str, workers: int | None, backend: str, address: str | None) -> ExecOptions:
    """Where a study's jobs run; with a body that registers ``job_bytes``, ``--workers`` is
    checked against the memory available (`wirelab.parallel.options.check_workers_memory`)."""
    job_bytes = BODIES.fact(body, "job_bytes")
    options = ExecOptions(backend, workers, address)
    options.validate()
    if job_bytes and backend == "local":
        workers = check_workers_memory(workers, float(job_bytes), body)
    return ExecOptions(backend, workers, address)
