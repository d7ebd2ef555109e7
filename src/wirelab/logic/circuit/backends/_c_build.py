"""The ``c`` back end's build: the generated C compiled by the system compiler, called from
Python through ctypes.

`build` generates, compiles and loads; `write_build_info` records a build in ``build.json``
(written after the library) and `load_compiled` loads it again from there.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit.backends._c_source import CSources, generate_c
from wirelab.logic.circuit.groupsum import decode_counts
from wirelab.logic.circuit.ir import Circuit
from wirelab.logic.circuit.pack import num_words, pack_bits, unpack_bits, word_dtype
from wirelab.logic.circuit.tools import ToolError, require, write_text
from wirelab.parallel.tether import tethered
from wirelab.results import write_json


def find_cc() -> str:
    return require("cc")


def write_sources(src: CSources, out_dir: Path) -> list[Path]:
    """Write every file of ``src`` into ``out_dir``, each atomically."""
    return [write_text(out_dir / name, text) for name, text in src.files.items()]


@dataclass
class CompiledC:
    library: Path
    seconds: float  # wall time of the compiler and linker
    flags: tuple[str, ...]
    jobs: int
    cpu_seconds: float = 0.0  # user + system time of the compiler processes


def compile_shared(
    src: CSources,
    out_dir: Path,
    *,
    opt: str = "-O2",
    extra_flags: tuple[str, ...] = (),
    jobs: int | None = None,
) -> CompiledC:
    """Write the sources to ``out_dir`` and build ``lib<prefix>_model_<hash>.so``, compiling the
    ``.c`` files in parallel (``jobs`` at a time, default: the CPU count); time it."""
    write_sources(src, out_dir)
    cc = find_cc()
    flags = (opt, "-std=gnu99", "-fPIC", *extra_flags)
    # The library name carries a hash of sources and flags: the dynamic loader caches libraries
    # by path, so a rebuilt circuit must never reuse the path of one already loaded.
    digest = hashlib.sha256(repr((sorted(src.files.items()), flags)).encode()).hexdigest()[:12]
    lib = out_dir / f"lib{src.prefix}_model_{digest}.so"
    for stale in out_dir.glob(f"lib{src.prefix}_model_*.so"):
        if stale != lib:
            stale.unlink()
    jobs = max(1, jobs or os.cpu_count() or 1)
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    pending = [out_dir / name for name in src.c_files]
    objects: list[Path] = []
    running: list[tuple[subprocess.Popen[str], Path]] = []

    def reap(proc: subprocess.Popen[str], c_file: Path) -> None:
        _, err = proc.communicate()
        if proc.returncode != 0:
            first = (err.strip().splitlines() or ["(no output)"])[0]
            raise ToolError(f"C compiler failed on {c_file.name}: {first}")

    while pending or running:
        while pending and len(running) < jobs:
            c_file = pending.pop(0)
            obj = c_file.with_suffix(".o")
            cmd = [cc, *flags, "-c", "-o", str(obj), str(c_file)]
            running.append(
                (subprocess.Popen(tethered(cmd), stderr=subprocess.PIPE, text=True), c_file)
            )
            objects.append(obj)
        proc, c_file = running.pop(0)
        reap(proc, c_file)
    # Linked under a temporary name and renamed: the library path never holds a partial file.
    tmp = lib.with_name(f".{lib.name}.tmp")
    link = subprocess.run(
        tethered([cc, "-shared", *flags, "-o", str(tmp), *map(str, objects)]),
        capture_output=True,
        text=True,
    )
    if link.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ToolError(f"linking {lib.name} failed: {link.stderr.strip()[:200]}")
    os.replace(tmp, lib)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return CompiledC(lib, time.perf_counter() - t0, flags, jobs, cpu)


class CLibrary:
    """A compiled circuit loaded with ctypes."""

    def __init__(
        self,
        library: Path,
        src: CSources,
        *,
        num_inputs: int,
        num_outputs: int,
        num_classes: int,
        num_features: int,
    ) -> None:
        self.src = src
        self.num_inputs, self.num_outputs = num_inputs, num_outputs
        self.num_classes, self.num_features = num_classes, num_features
        self._lib = ctypes.CDLL(str(Path(library).resolve()))
        p = src.prefix
        u64p = np.ctypeslib.ndpointer(dtype=self._lane_dtype, flags="C_CONTIGUOUS")
        f64p = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
        i32p = np.ctypeslib.ndpointer(dtype=np.int32, flags="C_CONTIGUOUS")
        self._eval_batch = getattr(self._lib, f"{p}_eval_batch")
        self._eval_batch.argtypes = [u64p, ctypes.c_long, u64p, u64p]
        self._eval_batch.restype = ctypes.c_long
        self._classify = getattr(self._lib, f"{p}_classify")
        self._classify.argtypes = [f64p, ctypes.c_long, i32p, i32p]
        self._classify.restype = ctypes.c_long
        self._classify_u8 = getattr(self._lib, f"{p}_classify_u8", None)
        if self._classify_u8 is not None:
            u8p = np.ctypeslib.ndpointer(dtype=np.uint8, flags="C_CONTIGUOUS")
            self._classify_u8.argtypes = [u8p, ctypes.c_long, i32p, i32p]
            self._classify_u8.restype = ctypes.c_long

    @property
    def _lane_dtype(self) -> type[np.unsignedinteger]:
        return word_dtype(self.src.word_bits)

    def forward_bits(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, I)`` bool -> ``(B, O)`` output bits and ``(B, C)`` integer counts."""
        bits = np.asarray(bits, dtype=bool)
        if bits.ndim != 2 or bits.shape[1] != self.num_inputs:
            raise UsageError(f"expected (batch, {self.num_inputs}) input bits, got {bits.shape}")
        batch = len(bits)
        wb, lanes = self.src.word_bits, self.src.lanes
        nwords = max(1, num_words(batch, wb * lanes))
        padded = np.zeros((nwords * wb * lanes, self.num_inputs), dtype=bool)
        padded[:batch] = bits
        inw = np.ascontiguousarray(pack_bits(padded, wb))  # (I, nwords * lanes)
        if self.num_inputs == 0:
            inw = np.zeros((1, nwords * lanes), dtype=self._lane_dtype)
        out = np.zeros((max(self.num_outputs, 1), nwords * lanes), dtype=self._lane_dtype)
        nb = self.src.count_bits
        cnt = np.zeros((self.num_classes * nb, nwords * lanes), dtype=self._lane_dtype)
        self._eval_batch(inw, nwords, out, cnt)
        out_bits = unpack_bits(out[: self.num_outputs], batch)
        counts = decode_counts(unpack_bits(cnt, batch), self.num_classes, nb)
        return out_bits, counts

    def classify_u8(self, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, F)`` uint8 pixels -> ``(B,)`` class and ``(B, C)`` counts (needs ``pixel_scale``
        at build time)."""
        if self._classify_u8 is None:
            raise UsageError("this library was built without pixel_scale (no wl_classify_u8)")
        return self._run_classifier(self._classify_u8, pixels, np.uint8, "pixels")

    def classify(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, F)`` features -> ``(B,)`` predicted class and ``(B, C)`` counts (in C)."""
        return self._run_classifier(self._classify, x, np.float64, "input features")

    def _run_classifier(
        self, fn: Any, x: np.ndarray, dtype: type, what: str
    ) -> tuple[np.ndarray, np.ndarray]:
        data = np.ascontiguousarray(np.asarray(x, dtype=dtype).reshape(len(x), -1))
        if data.shape[1] != self.num_features:
            raise UsageError(f"expected {self.num_features} {what}, got {data.shape[1]}")
        pred = np.zeros(len(data), dtype=np.int32)
        counts = np.zeros((len(data), self.num_classes), dtype=np.int32)
        if len(data):
            fn(data, len(data), pred, counts)
        return pred, counts


def build(
    circuit: Circuit,
    out_dir: Path,
    *,
    prefix: str = "wl",
    word_bits: int = 64,
    lanes: int = 1,
    block: int = 64,
    heads: str = "loop",
    opt: str = "-O2",
    extra_flags: tuple[str, ...] = (),
    jobs: int | None = None,
    pixel_scale: float | None = None,
) -> tuple[CLibrary, CompiledC]:
    """Generate, compile and load ``circuit`` (the C files split into ``jobs`` parts)."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    src = generate_c(
        circuit,
        prefix=prefix,
        word_bits=word_bits,
        lanes=lanes,
        block=block,
        parts=jobs,
        heads=heads,
        pixel_scale=pixel_scale,
    )
    built = compile_shared(src, Path(out_dir), opt=opt, extra_flags=extra_flags, jobs=jobs)
    return load_library(built.library, src, circuit), built


def load_library(library: Path, src: CSources, circuit: Circuit) -> CLibrary:
    """Load ``library``, built from ``src`` (the C of ``circuit``)."""
    feats = circuit.thresholds.shape[0] if circuit.thresholds.size else circuit.num_inputs
    return CLibrary(
        library,
        src,
        num_inputs=circuit.num_inputs,
        num_outputs=circuit.num_outputs,
        num_classes=circuit.num_classes,
        num_features=feats,
    )


BUILD_INFO = "build.json"


def write_build_info(
    out_dir: Path, built: CompiledC, *, word_bits: int, lanes: int, opt: str
) -> Path:
    """``build.json``, written after the library: what `load_compiled` needs to reload it."""
    return write_json(
        out_dir / BUILD_INFO,
        {
            "word_bits": word_bits,
            "lanes": lanes,
            "opt": opt,
            "flags": list(built.flags),
            "seconds": built.seconds,
            "library": built.library.name,
        },
    )


def load_compiled(out_dir: Path, circuit: Circuit) -> CLibrary:
    """The library that ``wirelab logic compile`` built for ``circuit`` in ``out_dir``."""
    info_path = out_dir / BUILD_INFO
    info = json.loads(info_path.read_text()) if info_path.is_file() else {}
    lib_path = out_dir / str(info.get("library", "-"))
    if not lib_path.is_file():
        raise UsageError(
            f"{out_dir.parent} has no compiled C library; run 'wirelab logic compile' first"
        )
    src = generate_c(circuit, word_bits=info["word_bits"], lanes=info["lanes"])
    return load_library(lib_path, src, circuit)
