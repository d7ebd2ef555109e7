"""Find result directories and read each into a `Run` without ever crashing on a bad one.

A result directory (see `wirelab.results`) holds ``config.json`` from the start, ``.in-progress``
while it runs, and then ``metrics.json`` (finished) or ``failed.json`` (the one-line reason), plus
plots and artifacts. A directory given on the command line may be a result directory itself, its
``metrics.json``/``config.json``, or any parent: result directories below it are found
recursively (a result directory may contain further result directories).

A run's status is `wirelab.results.ResultDir.status`, shown as

- ``complete``: ``metrics.json`` and no ``.in-progress`` marker;
- ``in progress``: the marker is there: still running, or killed (said when its process is gone);
- ``failed``: ``failed.json``, whose reason is shown;
- ``incomplete``: ``config.json`` but none of the above (a run from before the marker existed);
- ``broken``: ``config.json`` or ``metrics.json`` cannot be shown: not valid JSON (a number
  past Python's digit limit, nesting past `wirelab.report.reading.MAX_JSON_DEPTH`, not UTF-8,
  too large: `wirelab.report.reading.read_json`), or a symbolic or hard link (whatever the marker
  says). One bad file makes its run broken, never the page's failure.

Only regular files inside a run's folder are read (`wirelab.report.reading`): symbolic links, to
files or directories, are never followed, and files with more than one name (hard links) are
not read either; a run's links of both kinds are listed in ``Run.links`` and named among its
problems, and linked directories met while searching are collected by `find_result_dirs` for
the command to name. Names are shown whatever their bytes (`wirelab.report.reading.shown`).
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirelab.errors import UsageError
from wirelab.report.reading import HARD_LINK, Refused, Unreadable, read_json, refusal, shown
from wirelab.results import CONFIG, FAILED, IN_PROGRESS, METRICS, ResultDir

MARKERS = (CONFIG, METRICS)  # a directory holding either is a result directory
OWN = (CONFIG, METRICS, FAILED)  # read by the report, so not listed among a run's files
IMAGE_SUFFIXES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
}
VIDEO_SUFFIXES = {".mp4": "video/mp4", ".webm": "video/webm"}
# systems in page order; ``connectome`` commands belong to the reservoir system
SYSTEMS = ("data", "reservoir", "fly", "logic", "attention", "sweep", "other")
ALIASES = {"connectome": "reservoir"}


def is_result_dir(path: Path) -> bool:
    return any((path / m).is_file() for m in MARKERS)


def find_result_dirs(paths: Iterable[str | Path], links: list[Path] | None = None) -> list[Path]:
    """Result directories named by, or found below, ``paths`` (sorted, without duplicates).

    A path given is taken as named (even through a link); below it, linked directories are not
    searched but appended to ``links`` when given. Raises `UsageError` for a path that does not
    exist or when no result directory is found.
    """
    found: set[Path] = set()
    given = [Path(p) for p in paths]
    for p in given:
        if not p.exists():
            raise UsageError(f"{p} does not exist")
        if p.is_file():
            if p.name not in MARKERS:
                raise UsageError(f"{p} is neither a result directory nor its metrics.json")
            found.add(p.parent.resolve())
            continue
        if is_result_dir(p):
            found.add(p.resolve())
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if links is not None:
                links += [Path(root).resolve() / d for d in dirs if os.path.islink(Path(root, d))]
            if any(m in files for m in MARKERS):
                found.add(Path(root).resolve())
    if not found:
        names = ", ".join(str(p) for p in given) or "(none given)"
        raise UsageError(f"no result directories (with config.json or metrics.json) in {names}")
    return sorted(found)


def infer_system(command: str, path: Path) -> str:
    """The system a run belongs to, from its command (``wirelab fly run``) or else its path."""
    for word in re.findall(r"[a-z]+", command.lower()):
        word = ALIASES.get(word, word)
        if word in SYSTEMS and word != "other":
            return word
    for part in reversed(path.parts):
        part = ALIASES.get(part.lower(), part.lower())
        if part in SYSTEMS:
            return part
    return "other"


@dataclass
class Run:
    """One result directory as read from disk; ``problems`` says what could not be read."""

    path: Path
    name: str = ""
    system: str = "other"
    status: str = "complete"  # complete | in progress | failed | incomplete | broken
    reason: str = ""  # why a run is not complete, in one line
    config: dict[str, Any] = field(default_factory=dict)
    metrics: Any = None
    problems: list[str] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)
    videos: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    links: list[Path] = field(default_factory=list)  # symbolic links in its folder, not followed
    parent: Run | None = field(default=None, repr=False)  # the run whose directory holds this one
    children: list[Run] = field(default_factory=list, repr=False)

    @property
    def command(self) -> str:
        return str(self.config.get("command", ""))

    @property
    def anchor(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")
        return f"run-{slug or 'root'}"

    @property
    def status_class(self) -> str:
        """The status as a CSS class name (``in progress`` -> ``in-progress``)."""
        return self.status.replace(" ", "-")


def _read_json(path: Path) -> tuple[Any, str | None]:
    """A JSON file at the top of a run's folder (never through a link), or the reason why not
    (one line, the name shown safely); whatever the file holds, this never raises."""
    try:
        return read_json(path, path.parent), None
    except Refused as exc:
        return None, f"{path.name} {exc.strerror}"
    except Unreadable as exc:
        return None, f"{path.name} {exc}"
    except OSError as exc:
        return None, f"{path.name} could not be read: {exc.strerror or type(exc).__name__}"
    except (ValueError, RecursionError, MemoryError) as exc:  # a parser's limit not foreseen
        return None, f"{path.name} could not be read: {type(exc).__name__}"


def _own_files(path: Path) -> tuple[list[Path], list[Path]]:
    """Files of this run (below ``path`` but not inside a nested result directory), and the
    links among them and its directories, symbolic or hard (set aside, never read)."""
    out: list[Path] = []
    links: list[Path] = []
    for root, dirs, files in os.walk(path):
        here = Path(root)
        names = sorted(n for n in [*dirs, *files] if not n.startswith("."))
        links += [here / n for n in names if (here / n).is_symlink()]
        links += [here / n for n in sorted(files) if refusal(here / n, path) == HARD_LINK]
        dirs[:] = [d for d in sorted(dirs) if not d.startswith(".") and here / d not in links]
        dirs[:] = [d for d in dirs if not is_result_dir(here / d)]
        out += [here / f for f in sorted(files) if not f.startswith(".") and here / f not in links]
    return out, links


def _in_progress_reason(path: Path) -> str:
    """What the ``.in-progress`` marker says: when and by which process; killed if it is gone."""
    marker, _ = _read_json(path / IN_PROGRESS)
    if not isinstance(marker, dict):
        return "in progress (no metrics.json yet): still running, or killed"
    pid, host, started = marker.get("pid"), marker.get("host"), marker.get("started", "?")
    who = f"process {_short(pid)} on {_short(host)}"
    if host == platform.node() and isinstance(pid, int) and pid > 0 and not _alive(pid):
        return (
            f"killed: started {_short(started)} by {who}, which no longer exists; no metrics.json"
        )
    return f"in progress: started {_short(started)} by {who}; still running, or killed"


def _short(value: object, limit: int = 60) -> str:
    """A value from a run's file as at most ``limit`` characters of one line."""
    text = " ".join(str(value)[: limit * 4].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or no process could have that number
        return False
    except OSError:  # exists but belongs to someone else
        return True
    return True


def _failed_reason(path: Path) -> str:
    failed, err = _read_json(path / FAILED)
    if err:
        return f"failed ({err})"
    error = failed.get("error") if isinstance(failed, dict) else None
    return f"failed: {' '.join(str(error).split())}" if error else "failed (no reason recorded)"


def _read_status(run: Run) -> None:
    """Set ``run.status`` and ``run.reason`` from the result directory's lifecycle files."""
    status = ResultDir(run.path).status
    if status == "in progress":
        run.reason = _in_progress_reason(run.path)
    elif status == "failed":
        run.reason = _failed_reason(run.path)
    elif status == "empty":
        status, run.reason = "incomplete", "no metrics.json: the run did not finish"
    run.status = status
    if run.reason:
        run.problems.append(run.reason)


def _read_files(run: Run) -> None:
    """Sort the run's own files into images, videos and other files; set its links aside."""
    own, run.links = _own_files(run.path)
    if run.links:
        names = ", ".join(shown(f.relative_to(run.path).as_posix()) for f in run.links)
        run.problems.append(
            f"not shown: {names} (symbolic links, or hard links: files with another name that "
            "may be outside the run; the report reads only regular files inside the run's "
            "folder that have no other name)"
        )
    for f in own:
        if f.name in OWN and f.parent == run.path:
            continue
        suffix = f.suffix.lower()
        if suffix in IMAGE_SUFFIXES:
            run.images.append(f)
        elif suffix in VIDEO_SUFFIXES:
            run.videos.append(f)
        else:
            run.files.append(f)


def load_run(path: Path, name: str = "") -> Run:
    """Read one result directory; malformed JSON marks the run broken instead of raising."""
    run = Run(path=path, name=shown(name or path.name))
    unreadable: list[str] = []
    config_path, metrics_path = path / CONFIG, path / METRICS
    if config_path.is_file() or config_path.is_symlink():
        config, err = _read_json(config_path)
        if err or not isinstance(config, dict):
            unreadable.append(err or "config.json is not a JSON object")
        else:
            run.config = config
    else:
        run.problems.append("no config.json: the command that made this run is unknown")
    if metrics_path.is_file() or metrics_path.is_symlink():
        run.metrics, err = _read_json(metrics_path)
        unreadable += [err] if err else []
    run.problems += unreadable
    _read_status(run)
    if unreadable:
        run.status, run.reason = "broken", unreadable[0]
    _read_files(run)
    run.system = infer_system(run.command, path)
    return run


def _common_root(paths: list[Path]) -> Path:
    """The deepest directory above all runs that is not itself a run (names runs by path)."""
    root = Path(os.path.commonpath([str(p) for p in paths]))
    return root.parent if root in paths else root


def load_runs(paths: Iterable[str | Path], links: list[Path] | None = None) -> list[Run]:
    """`find_result_dirs` then `load_run` each, named by their path below the common root.

    Returns every run; a run inside another run's directory (a sweep's points) also appears in
    that run's ``children`` and has it as ``parent``. ``links`` (when given) receives the linked
    directories met outside any run (each run's own are in ``Run.links``).
    """
    found: list[Path] = []
    dirs = find_result_dirs(paths, found)
    if links is not None:
        in_runs = set(dirs)
        links += [p for p in found if in_runs.isdisjoint([p.parent, *p.parent.parents])]
    root = _common_root(dirs)
    by_path = {d: load_run(d, name=d.relative_to(root).as_posix()) for d in dirs}
    for d, run in by_path.items():  # nest each run under the nearest run above it (a sweep)
        parent = next((by_path[a] for a in d.parents if a in by_path), None)
        if parent is not None:
            run.parent = parent
            parent.children.append(run)
    runs = list(by_path.values())
    order = {s: i for i, s in enumerate(SYSTEMS)}
    runs.sort(key=lambda r: (order.get(r.system, len(SYSTEMS)), r.name))
    for run in runs:
        run.children.sort(key=lambda r: r.name)
    # anchors must be unique even if two names differ only in punctuation
    seen: dict[str, int] = {}
    for r in runs:
        n = seen.get(r.anchor, 0)
        seen[r.anchor] = n + 1
        if n:
            r.name = f"{r.name} ({n + 1})"
    return runs
