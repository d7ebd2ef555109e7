"""The sources of the ``c`` back end: a header and C files, bit-parallel, no dynamic memory.

The generated code evaluates one *word* of samples at a time: ``wl_word`` is an unsigned integer
of ``word_bits`` bits (``uint64_t`` by default; 8/16/32 for small microcontrollers), or with
``lanes > 1`` a GCC/Clang vector of ``lanes`` such integers (e.g. 4 x 64 = 256 samples per
AVX2 operation). Every gate is one C statement on words::

    w[17] = in[3] & ~w[5];            /* gate 2: A_AND_NOT_B */

Node values live in a work array whose slots are reused once a value is no longer read (a
linear-scan allocation), so ``WL_WORK_WORDS`` is the peak number of live values, not the gate
count. The gates are split into blocks of at most ``block`` statements, one function each, so
compile time grows linearly with circuit size. The GroupSum heads are part of the same straight
line code: the bit-sliced carry-save adders of `wirelab.logic.circuit.groupsum`, which produce
each class count in binary (``WL_COUNT_BITS`` words per class, LSB first).

Public API of the generated code (prefix ``wl`` by default; all buffers caller-provided or
static):

- ``void wl_eval(const wl_word in[WL_NUM_INPUTS], wl_word out[WL_NUM_OUTPUTS],
  wl_word counts[WL_NUM_CLASSES * WL_COUNT_BITS], wl_word work[WL_WORK_WORDS])``;
- ``void wl_binarize(const double *x, long n, wl_word in[WL_NUM_INPUTS])``: ``n`` samples
  (``n <= WL_SAMPLES_PER_WORD``) of ``WL_NUM_FEATURES`` doubles, bit ``f*T+t = x[f] > thr[f][t]``;
- ``long wl_eval_batch(const wl_word *in, long nwords, wl_word *out, wl_word *counts)``: arrays
  laid out signal-major, ``in[i * nwords + w]`` (static work buffer: not reentrant);
- ``long wl_classify(const double *x, long n, int32_t *pred, int32_t *counts)``: features to
  argmax class (ties to the lowest index) and integer counts (``counts`` may be NULL).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wirelab.errors import UsageError
from wirelab.logic.circuit import truth_tables as tt
from wirelab.logic.circuit.backends._c_templates import DRIVERS, POPCOUNT
from wirelab.logic.circuit.groupsum import count_bits, with_groupsum
from wirelab.logic.circuit.ir import CONST0, CONST1, Circuit

# C expression of each gate on operands a, b (wl_word values).
C_EXPR = tt.expressions("WL_ZERO", "WL_ONES")


@dataclass(frozen=True)
class CSources:
    files: dict[str, str]  # file name -> text: the header, the driver source, the block sources
    prefix: str
    word_bits: int
    lanes: int
    heads: str
    work_words: int
    count_bits: int
    statements: int
    blocks: int

    @property
    def header(self) -> str:
        return self.files[f"{self.prefix}_model.h"]

    @property
    def c_files(self) -> list[str]:
        return [name for name in self.files if name.endswith(".c")]


def pixel_thresholds(thresholds: np.ndarray, scale: float) -> np.ndarray:
    """``(F * T,)`` smallest 8-bit pixel ``p`` with ``float32(p) / float32(scale) > thr``
    (256 if none): ``pixel >= p`` is then exactly the float comparison for all 256 pixels."""
    vals = (np.arange(256, dtype=np.float32) / np.float32(scale)).astype(np.float64)  # (256,)
    above = vals[None, :] > np.asarray(thresholds, np.float64).reshape(-1)[:, None]  # (FT, 256)
    return np.where(above.any(axis=1), np.argmax(above, axis=1), 256).astype(np.int64)


def allocate_slots(c: Circuit) -> tuple[np.ndarray, int]:
    """Linear-scan register allocation: ``(slot per gate (G,), number of slots)``.

    A gate's slot is freed after its last reader; outputs are never freed. Operands are
    released before the gate's own slot is taken, so ``w[s] = f(w[s], w[t])`` can happen.
    """
    g_count, first = c.num_gates, c.first_gate
    last = [-1] * g_count
    for i, (g, a, b) in enumerate(zip(c.op.tolist(), c.a.tolist(), c.b.tolist(), strict=True)):
        if tt.DEPENDS_A[g] and a >= first:
            last[a - first] = i
        if tt.DEPENDS_B[g] and b >= first:
            last[b - first] = i
    for o in c.outputs.tolist():
        if o >= first:
            last[o - first] = g_count
    frees: dict[int, list[int]] = {}
    for j, lu in enumerate(last):
        frees.setdefault(max(lu, j), []).append(j)
    slot = [0] * g_count
    free: list[int] = []
    n_slots = 0
    for i in range(g_count):
        # Operands whose last reader is gate i (i > their index) free before i allocates.
        for j in frees.get(i, ()):
            if j < i:
                free.append(slot[j])
        if free:
            slot[i] = free.pop()
        else:
            slot[i] = n_slots
            n_slots += 1
        if last[i] <= i:  # never read afterwards (dead, or read by nothing)
            free.append(slot[i])
    return np.asarray(slot, dtype=np.int64), n_slots


def _operand(node: int, first: int, slot: np.ndarray) -> str:
    if node == CONST0:
        return "WL_ZERO"
    if node == CONST1:
        return "WL_ONES"
    if node < first:
        return f"in[{node - 2}]"
    return f"w[{int(slot[node - first])}]"


def generate_c(
    c: Circuit,
    *,
    prefix: str = "wl",
    word_bits: int = 64,
    lanes: int = 1,
    block: int = 64,
    parts: int = 1,
    heads: str = "loop",
    pixel_scale: float | None = None,
) -> CSources:
    """C sources for circuit ``c``.

    ``block``: gate statements per function (GCC's optimisation time grows faster than
    linearly with function size, so small blocks keep compile time linear in the gate count);
    ``parts``: number of ``.c`` files the blocks are spread over, so that they can be compiled
    in parallel; ``heads``: ``"loop"`` computes the GroupSum with a carry-save loop of
    bit-sliced full adders (``wl_popcount``), ``"inline"`` emits the same adders as straight-line
    gates (`wirelab.logic.circuit.groupsum.with_groupsum`); ``pixel_scale``: also emit
    ``wl_classify_u8`` for 8-bit pixels preprocessed as ``float32(p) / float32(pixel_scale)``
    (`pixel_thresholds`).

    The steps: validate the options, add the inline heads, allocate work slots
    (`allocate_slots`), then write the header (`_header`), the gate blocks (`_gate_blocks`) and
    the main source: `_eval_function` followed by the thresholds and drivers (`_drivers`).
    """
    _check_options(prefix, word_bits, lanes, block, parts, heads)
    nb = count_bits(c.group_size)
    ext = with_groupsum(c)[0] if heads == "inline" else c
    slot, n_slots = allocate_slots(ext)
    names = _Names(prefix)
    # A circuit without a binarisation stage reads features that are already bits (x > 0.5).
    thresholds = c.thresholds if c.thresholds.size else np.full((c.num_inputs, 1), 0.5)
    files = {
        f"{prefix}_model.h": _header(
            c,
            names,
            word_bits,
            lanes,
            thresholds.shape,
            nb,
            max(n_slots, 1),
            pixel_scale is not None,
        )
    }
    part_files, n_blocks = _gate_blocks(ext, slot, names, block, parts)
    files.update(part_files)
    main = _prelude(names)
    main += _eval_function(ext, slot, names, n_blocks, heads)
    main += _drivers(thresholds, names, pixel_scale, c.used_inputs())
    files[f"{prefix}_model.c"] = "\n".join(main) + "\n"
    return CSources(
        files=files,
        prefix=prefix,
        word_bits=word_bits,
        lanes=lanes,
        heads=heads,
        work_words=max(n_slots, 1),
        count_bits=nb,
        statements=ext.num_gates,
        blocks=n_blocks,
    )


@dataclass(frozen=True)
class _Names:
    """The symbol prefix ``P`` (``wl``) and its upper-case form ``U`` for macros."""

    P: str

    @property
    def U(self) -> str:
        return self.P.upper()


def _check_options(
    prefix: str, word_bits: int, lanes: int, block: int, parts: int, heads: str
) -> None:
    if word_bits not in (8, 16, 32, 64):
        raise UsageError(f"word_bits must be 8, 16, 32 or 64, got {word_bits}")
    if lanes < 1 or lanes & (lanes - 1):
        raise UsageError(f"lanes must be a power of two, got {lanes}")
    if not prefix.isidentifier():
        raise UsageError(f"prefix {prefix!r} is not a C identifier")
    if block < 1 or parts < 1:
        raise UsageError("block and parts must be at least 1")
    if heads not in ("loop", "inline"):
        raise UsageError(f"heads must be 'loop' or 'inline', got {heads!r}")


def _header(
    c: Circuit,
    n: _Names,
    word_bits: int,
    lanes: int,
    thr_shape: tuple[int, ...],
    nb: int,
    work_words: int,
    pixels: bool,
) -> str:
    """``<prefix>_model.h``: sizes as macros, the word type, the public functions (the 8-bit
    pixel ones, and ``<U>_HAVE_PIXELS``, only when ``pixels``)."""
    P, U = n.P, n.U
    feats, thermo = thr_shape
    base_t = f"uint{word_bits}_t"
    pixel_api = (
        f"#define {U}_HAVE_PIXELS 1\n"
        f"void {P}_binarize_u8(const uint8_t *px, long n, {P}_word *in);\n"
        f"long {P}_classify_u8(const uint8_t *px, long n, int32_t *pred, int32_t *counts);\n"
        if pixels
        else ""
    )
    return f"""/* Generated by wirelab.logic.circuit.backends.c: {c.num_gates} gates,
 * depth {c.depth}, {c.num_inputs} inputs, {c.num_outputs} outputs,
 * {c.num_classes} classes (tau {c.tau!r}). */
#ifndef {U}_MODEL_H
#define {U}_MODEL_H
#include <stdint.h>

#define {U}_WORD_BITS {word_bits}
#define {U}_LANES {lanes}
#define {U}_SAMPLES_PER_WORD ({word_bits} * {lanes})
#define {U}_NUM_FEATURES {feats}
#define {U}_THERMOMETER {thermo}
#define {U}_NUM_INPUTS {c.num_inputs}
#define {U}_NUM_GATES {c.num_gates}
#define {U}_NUM_OUTPUTS {c.num_outputs}
#define {U}_NUM_CLASSES {c.num_classes}
#define {U}_GROUP_SIZE {c.group_size}
#define {U}_COUNT_BITS {nb}
#define {U}_WORK_WORDS {work_words}

typedef {base_t} {P}_lane;
#if {U}_LANES == 1
typedef {base_t} {P}_word;
#else
/* aligned(): callers' arrays (numpy buffers) need only the lane type's alignment. */
typedef {base_t} {P}_word
    __attribute__((vector_size({word_bits // 8} * {U}_LANES), aligned({word_bits // 8})));
#endif

void {P}_eval(const {P}_word *in, {P}_word *out, {P}_word *counts, {P}_word *work);
void {P}_binarize(const double *x, long n, {P}_word *in);
long {P}_eval_batch(const {P}_word *in, long nwords, {P}_word *out, {P}_word *counts);
long {P}_classify(const double *x, long n, int32_t *pred, int32_t *counts);
{pixel_api}
#endif
"""


def _prelude(n: _Names) -> list[str]:
    """First lines of every ``.c`` file (the header defines ``<U>_HAVE_PIXELS`` when the
    library has the 8-bit pixel entry points)."""
    return [
        "/* Generated by wirelab.logic.circuit.backends.c. No dynamic memory. */",
        f'#include "{n.P}_model.h"',
        "#include <string.h>",
        "",
        f"#define WL_ZERO (({n.P}_word){{0}})",
        f"#define WL_ONES (~({n.P}_word){{0}})",
        "",
    ]


def _gate_blocks(
    ext: Circuit, slot: np.ndarray, n: _Names, block: int, parts: int
) -> tuple[dict[str, str], int]:
    """``({file name: text}, number of blocks)``: one function ``<P>_block<k>`` per ``block``
    gates, one C statement per gate, the blocks spread over ``parts`` files."""
    P, first = n.P, ext.first_gate
    ops, as_, bs = ext.op.tolist(), ext.a.tolist(), ext.b.tolist()
    starts = list(range(0, ext.num_gates, block))
    per_part = -(-len(starts) // parts) if starts else 1
    part_files: list[list[str]] = []
    for k, start in enumerate(starts):
        if k % per_part == 0:
            part_files.append(_prelude(n))
        body = part_files[-1]
        body.append(f"void {P}_block{k}(const {P}_word *restrict in, {P}_word *restrict w) {{")
        body.append("    (void)in;")
        for i in range(start, min(start + block, ext.num_gates)):
            g = ops[i]
            expr = C_EXPR[g].format(a=_operand(as_[i], first, slot), b=_operand(bs[i], first, slot))
            body.append(f"    w[{int(slot[i])}] = {expr};")
        body.append("}")
    files = {f"{P}_model_part{p}.c": "\n".join(body) + "\n" for p, body in enumerate(part_files)}
    return files, len(starts)


def _eval_function(
    ext: Circuit, slot: np.ndarray, n: _Names, n_blocks: int, heads: str
) -> list[str]:
    """``<P>_eval``: the blocks in order, then the outputs (and with ``heads="loop"`` the
    popcount of each class group) copied out through a source table."""
    P, U, first = n.P, n.U, ext.first_gate
    lines = [
        f"void {P}_block{k}(const {P}_word *restrict in, {P}_word *restrict w);"
        for k in range(n_blocks)
    ]
    if heads == "loop":
        lines.append(POPCOUNT.replace("PFX", P).replace("UPF", U))

    # Where each output (and inline count bit) comes from, as a table read by a loop so that the
    # compiler never sees one statement per output: >= 0 work slot, -1 FALSE, -2 TRUE,
    # <= -3 input -(v + 3).
    def source(node: int) -> int:
        if node == CONST0:
            return -1
        if node == CONST1:
            return -2
        return -(node - 2) - 3 if node < first else int(slot[node - first])

    outs = [source(o) for o in ext.outputs.tolist()] or [-1]
    lines.append(f"static const int32_t {P}_out_src[{len(outs)}] = {{")
    lines.extend(f"    {', '.join(map(str, outs[i : i + 16]))}," for i in range(0, len(outs), 16))
    lines.append("};")
    lines.append(
        f"static {P}_word {P}_fetch(const {P}_word *in, const {P}_word *w, int32_t v) {{\n"
        f"    return v >= 0 ? w[v] : v == -1 ? WL_ZERO : v == -2 ? WL_ONES : in[-(v + 3)];\n}}"
    )
    lines.append(
        f"void {P}_eval(const {P}_word *in, {P}_word *out, {P}_word *counts, {P}_word *w) {{"
    )
    lines.append("    (void)in; (void)w;")
    lines.extend(f"    {P}_block{k}(in, w);" for k in range(n_blocks))
    lines.append(f"    for (long k = 0; k < {U}_NUM_OUTPUTS; k++)")
    lines.append(f"        out[k] = {P}_fetch(in, w, {P}_out_src[k]);")
    if heads == "loop":
        lines.append(f"    for (long k = 0; k < {U}_NUM_CLASSES; k++)")
        lines.append(
            f"        {P}_popcount(out + k * {U}_GROUP_SIZE, {U}_GROUP_SIZE, "
            f"counts + k * {U}_COUNT_BITS);"
        )
    else:
        lines.append(f"    for (long k = 0; k < {U}_NUM_CLASSES * {U}_COUNT_BITS; k++)")
        lines.append(f"        counts[k] = {P}_fetch(in, w, {P}_out_src[{U}_NUM_OUTPUTS + k]);")
    lines.append("}")
    return lines


def _drivers(
    thresholds: np.ndarray, n: _Names, pixel_scale: float | None, used: np.ndarray
) -> list[str]:
    """The threshold tables (float, and 8-bit pixel minima with ``pixel_scale``) and the
    binarisation, batch and classification drivers (`_c_templates.DRIVERS`)."""
    P = n.P
    thr = thresholds.reshape(-1).tolist() or [0.0]
    lines = [f"static const double {P}_thr[{len(thr)}] = {{"]
    lines.extend(f"    {float(t)!r}," for t in thr)
    lines.append("};")
    if pixel_scale is not None:
        pmin_all = pixel_thresholds(thresholds, pixel_scale)
        unused = np.ones(pmin_all.size, dtype=bool)
        unused[used] = False
        pmin = np.where(unused, 256, pmin_all).tolist()  # 256: never (bit 0, not read)
        lines.append(f"static const uint16_t {P}_pmin[{len(pmin)}] = {{")
        lines.extend(f"    {p}," for p in pmin)
        lines.append("};")
    lines.append(DRIVERS.replace("PFX", P).replace("UPF", n.U))
    return lines
