"""Truth-table algebra on gate ids (used by the passes), and each gate as a bitwise expression.

A gate id ``g`` (`wirelab.logic.gates` numbering) *is* its truth table: bits, most significant
first, ``f(0,0) f(0,1) f(1,0) f(1,1)``, i.e. ``t[2a + b] = (g >> (3 - (2a + b))) & 1``. Swapping the
operands, inverting one of them, or fixing one to a constant permutes or selects table entries, so
every such rewrite of a 2-input gate is again one of the 16 gates (or a function of one variable).

One-variable functions are written ``(f(0), f(1))``: ``(0, 0)`` FALSE, ``(1, 1)`` TRUE, ``(0, 1)``
identity, ``(1, 0)`` NOT.
"""

from __future__ import annotations

from wirelab.logic.gates import NUM_GATES, TRUTH

FALSE, AND, XOR, OR, NOT_A, TRUE = 0, 1, 6, 7, 12, 15


def table(g: int) -> tuple[int, int, int, int]:
    t = TRUTH[g]
    return int(t[0]), int(t[1]), int(t[2]), int(t[3])


def from_table(t: tuple[int, int, int, int]) -> int:
    return (t[0] << 3) | (t[1] << 2) | (t[2] << 1) | t[3]


def _permute(g: int, perm: tuple[int, int, int, int]) -> int:
    t = table(g)
    return from_table((t[perm[0]], t[perm[1]], t[perm[2]], t[perm[3]]))


def swap(g: int) -> int:
    """Gate ``g'`` with ``g'(a, b) = g(b, a)``."""
    return _permute(g, (0, 2, 1, 3))


def negate_a(g: int) -> int:
    """Gate ``g'`` with ``g'(a, b) = g(~a, b)``."""
    return _permute(g, (2, 3, 0, 1))


def negate_b(g: int) -> int:
    """Gate ``g'`` with ``g'(a, b) = g(a, ~b)``."""
    return _permute(g, (1, 0, 3, 2))


def restrict_a(g: int, v: int) -> tuple[int, int]:
    """``b -> g(v, b)`` as a one-variable function."""
    t = table(g)
    return t[2 * v], t[2 * v + 1]


def restrict_b(g: int, v: int) -> tuple[int, int]:
    """``a -> g(a, v)`` as a one-variable function."""
    t = table(g)
    return t[v], t[2 + v]


def diagonal(g: int) -> tuple[int, int]:
    """``x -> g(x, x)`` as a one-variable function."""
    t = table(g)
    return t[0], t[3]


def depends_a(g: int) -> bool:
    t = table(g)
    return t[0] != t[2] or t[1] != t[3]


def depends_b(g: int) -> bool:
    t = table(g)
    return t[0] != t[1] or t[2] != t[3]


def symmetric(g: int) -> bool:
    return swap(g) == g


DEPENDS_A = tuple(depends_a(g) for g in range(NUM_GATES))
DEPENDS_B = tuple(depends_b(g) for g in range(NUM_GATES))


# Each gate as a bitwise expression (``~ & | ^``, the same in C and Verilog) of its operands
# ``{a}`` and ``{b}``; ``{zero}`` and ``{one}`` stand for the language's all-zeros and all-ones.
EXPRESSIONS = (
    "{zero}",
    "{a} & {b}",
    "{a} & ~{b}",
    "{a}",
    "~{a} & {b}",
    "{b}",
    "{a} ^ {b}",
    "{a} | {b}",
    "~({a} | {b})",
    "~({a} ^ {b})",
    "~{b}",
    "{a} | ~{b}",
    "~{a}",
    "~{a} | {b}",
    "~({a} & {b})",
    "{one}",
)


def expressions(zero: str, one: str) -> tuple[str, ...]:
    """`EXPRESSIONS` with the constants written ``zero`` and ``one``; ``{a}`` and ``{b}`` are left
    for `str.format`."""
    return tuple(e.replace("{zero}", zero).replace("{one}", one) for e in EXPRESSIONS)
