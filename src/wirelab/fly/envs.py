"""Two Python environments, one set of commands: fly experiments run where their body lives.

NeuroMechFly (flygym 2) needs Python >= 3.12; the CPU build of torch that the logic and attention
packages use is a Python 3.11 file. So the main environment (``.venv``) holds everything but
flygym 2, and the fly environment (``.venv-fly``, Python 3.12, no torch) holds the fly. A body
registered with ``environment="fly"`` (`wirelab.fly.bodies.BODIES`) runs in the fly environment:
an experiment's ``run(config, out)`` decorated with `in_fly_env` checks, before any work, whether
this interpreter can import flygym 2; if not, it runs the *whole* experiment (one subprocess per
run or per study, never per physics step) with the fly environment's Python::

    main env: run(config, out) --pickle(target, config, out, kwargs)--> fly env: run(config, out)
              <-- metrics.json (read back), or the child's one-line error raised here --

The child lives within the lifetime of the process that started it (`wirelab.fly.child`): it
dies with it (even by SIGKILL), SIGTERM and Ctrl-C here stop it and record the failure in the
run's directory, and this process ends only after the child. The child writes to the terminal,
so its progress lines show as if it ran here. Its errors come back
through a small JSON file and are raised here as the same class with the same one-line message.

A script that opens the flygym body itself (not an experiment) calls `rerun_in_fly_env` first:
from the main environment it runs again, whole, with the fly environment's Python.

The fly environment's Python is, in order: ``$WIRELAB_FLY_PYTHON``; ``.venv-fly/bin/python`` beside
the main environment (``make`` creates it); ``.venv-fly`` in the repository of this source tree.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from wirelab import errors
from wirelab.errors import UsageError, WirelabError
from wirelab.fly.bodies.base import flygym2_here
from wirelab.fly.child import run_child

FLY_ENV = ".venv-fly"
PYTHON_VAR = "WIRELAB_FLY_PYTHON"
CHILD_VAR = "WIRELAB_IN_FLY_ENV"
ERROR_VAR = "WIRELAB_FLY_ERROR_FILE"
SETUP_HINT = "run `make fly-env` (needs Python 3.12) or set WIRELAB_FLY_PYTHON"

F = TypeVar("F", bound=Callable[..., dict[str, Any]])


def body_environment(body: str | None) -> str | None:
    """The environment a registered body runs in (``"fly"``), or None for the main one."""
    if body is None:
        return None
    from wirelab.fly.bodies import BODIES

    env = BODIES.fact(body, "environment")
    return env if isinstance(env, str) else None


def needs_fly_env(body: str | None) -> bool:
    """Whether a run with ``body`` must be handed to the fly environment from this interpreter."""
    return body_environment(body) == "fly" and not flygym2_here()


def fly_python() -> Path | None:
    """The fly environment's interpreter, or None when there is none (see the module docstring)."""
    given = os.environ.get(PYTHON_VAR)
    if given:
        return Path(given)
    here = Path(__file__).resolve()
    candidates = [Path(sys.prefix).parent / FLY_ENV, here.parents[3] / FLY_ENV]
    for env in candidates:
        python = env / "bin" / "python"
        if python.exists():
            return python
    return None


def _startable_fly_python() -> Path:
    """`fly_python`, or a one-line `WirelabError` when there is none or it cannot be started
    (checked here: the tethered start would only report it as the child's exit status 127)."""
    python = fly_python()
    if python is None:
        raise WirelabError(f"the flygym body runs in the fly environment, not set up; {SETUP_HINT}")
    if not (python.is_file() and os.access(python, os.X_OK)):
        raise WirelabError(
            f"cannot start the fly environment ({python}): not an executable file; {SETUP_HINT}"
        )
    return python


def in_fly_env(run: F) -> F:
    """Decorate an experiment's ``run(config, out, **kwargs)``: hand it to the fly environment
    when ``config.body`` lives there and this interpreter cannot import it (after
    ``config.validate()``, where the config has one, so bad settings fail here)."""

    @functools.wraps(run)
    def wrapper(config: Any, out: Path, **kwargs: Any) -> dict[str, Any]:
        if not needs_fly_env(getattr(config, "body", None)):
            return run(config, out, **kwargs)
        validate = getattr(config, "validate", None)
        if callable(validate):
            validate()  # bad settings fail here, before a process is started
        return run_in_fly_env(f"{run.__module__}:{run.__qualname__}", config, out, **kwargs)

    return wrapper  # type: ignore[return-value]


def run_in_fly_env(target: str, config: Any, out: Path, **kwargs: Any) -> dict[str, Any]:
    """Run ``target`` (``"module:function"``) on ``(config, out, **kwargs)`` in the fly
    environment; return the metrics it wrote, or raise its one-line error here."""
    if os.environ.get(CHILD_VAR):
        raise WirelabError(f"the fly environment cannot import flygym 2; {SETUP_HINT}")
    python = _startable_fly_python()
    payload = pickle.dumps((target, config, Path(out).resolve(), kwargs, list(sys.argv)))
    with tempfile.TemporaryDirectory(prefix="wirelab-fly-") as tmp:
        error_file = Path(tmp) / "error.json"
        env = {**os.environ, CHILD_VAR: "1", ERROR_VAR: str(error_file)}
        try:
            code = run_child(
                [str(python), "-m", "wirelab.fly.envs"],
                env=env,
                payload=payload,
                out=Path(out).resolve(),
            )
        except OSError as exc:
            raise WirelabError(f"cannot start the fly environment ({python}): {exc}") from None
        if code != 0:
            raise child_error(error_file, code)
    metrics = Path(out) / "metrics.json"
    result: dict[str, Any] = json.loads(metrics.read_text())
    return result


def rerun_in_fly_env(argv: list[str] | None = None) -> None:
    """For a script that opens the flygym body itself: return when this interpreter imports
    flygym 2; otherwise run the script again with the fly environment's Python (same arguments,
    same terminal) and exit with its status. One-line `WirelabError` when there is none.

    Example (at the start of a script's main)::

        envs.rerun_in_fly_env()   # from here on, open_body("flygym") works
    """
    if flygym2_here():
        return
    if os.environ.get(CHILD_VAR):
        raise WirelabError(f"the fly environment cannot import flygym 2; {SETUP_HINT}")
    python = _startable_fly_python()
    args = list(sys.argv if argv is None else argv)
    try:
        code = run_child([str(python), *args], env={**os.environ, CHILD_VAR: "1"})
    except OSError as exc:
        raise WirelabError(f"cannot start the fly environment ({python}): {exc}") from None
    raise SystemExit(code)


def child_error(error_file: Path, code: int) -> WirelabError:
    """The fly environment's error as raised there (same class, same line), or a generic one."""
    if code == 130:
        return WirelabError("interrupted in the fly environment")
    try:
        info = json.loads(error_file.read_text())
        cls = getattr(errors, str(info["class"]), WirelabError)
        if isinstance(cls, type) and issubclass(cls, WirelabError):
            return cls(str(info["message"]))
    except (OSError, ValueError, KeyError):
        pass
    return WirelabError(f"the fly environment's run failed (exit {code}); its output is above")


def child_main() -> int:
    """Entry point in the fly environment: unpickle the run from stdin, run it, report errors."""
    try:
        target, config, out, kwargs, argv = pickle.loads(sys.stdin.buffer.read())
        sys.argv = argv  # config.json records the command the user typed
        module, name = target.split(":")
        run = getattr(importlib.import_module(module), name)
        run(config, out, **kwargs)
    except WirelabError as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        Path(os.environ[ERROR_VAR]).write_text(
            json.dumps({"class": type(exc).__name__, "message": message})
        )
        return 2 if isinstance(exc, UsageError) else 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
