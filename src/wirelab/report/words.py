"""The report's words for the names runs record: what a card shows instead of an internal name.

A result directory names things as the code does: a pooling method ``attn1``, a fly model
``row`` or ``null-3``, a taxis condition ``degree-null-0``, a score ``MC``. A card says them in
words (`POOLING_METHODS`, `FLY_MODELS`, `TAXIS_CONDITIONS`, `SCORES`, `NORMALISATIONS`); a name
the report does not know is quoted as code (`code`: backticks, which the page shows as a
``<code>`` element), never shown bare. A ratio is said with what it compares (`times`).
"""

from __future__ import annotations

import re

POOLING_METHODS = {
    "mean": "mean pooling",
    "attn1": "attention pooling (one head)",
    "attn4": "attention pooling (four heads)",
}
NORMALISATIONS = {"row": "row-normalised", "spectral": "spectrally normalised"}
FLY_MODELS = {
    "row": "row-normalised connectome",
    "spectral": "spectrally normalised connectome",
    "mirror": "mirrored connectome",
}
TAXIS_CONDITIONS = {
    "connectome": "connectome reservoir",
    "teacher": "teacher (the policy the readout imitates)",
    "constant": "constant drive",
    "random": "random drive",
    "input-only": "antenna inputs straight to the drive (no reservoir)",
    "mirror": "mirrored connectome",
}
CHOICE_CONDITIONS = {
    "connectome": "connectome reservoir",
    "input-control": "connectome with each cue fed into the other's sensory class",
    "teacher": "teacher (the policy the readout imitates)",
    "constant": "constant drive",
    "merged": "both cues summed per side, no network",
}
SCORES = {  # a reservoir score's short name -> its name in words
    "MC": "memory capacity",
    "NRMSE": "normalised error (NRMSE)",
}
_NUMBERED = re.compile(r"^(?:degree-)?null-(\d+)$")


def code(name: object) -> str:
    """``name`` quoted as code: ```attn9``` (shown in a ``<code>`` element on the page)."""
    return f"`{name}`"


def _say(name: object, table: dict[str, str]) -> str:
    return table.get(str(name), code(name))


def pooling_method(name: object) -> str:
    """``attn1`` -> ``attention pooling (one head)``; an unknown method quoted as code."""
    return _say(name, POOLING_METHODS)


def normalisation(name: object) -> str:
    """``row`` -> ``row-normalised``; an unknown one quoted as code."""
    return _say(name, NORMALISATIONS)


def fly_model(name: object) -> str:
    """A turn study's model: ``row`` -> ``row-normalised connectome``, ``null-3`` ->
    ``rewiring 4``; an unknown one quoted as code."""
    numbered = _NUMBERED.match(str(name))
    if numbered:
        return f"rewiring {int(numbered.group(1)) + 1}"
    return _say(name, FLY_MODELS)


def taxis_condition(name: object) -> str:
    """A taxis condition: ``degree-null-0`` -> ``degree-preserving null 1``, ``teacher`` ->
    ``teacher (the policy the readout imitates)``; an unknown one quoted as code."""
    numbered = _NUMBERED.match(str(name))
    if numbered:
        return f"degree-preserving null {int(numbered.group(1)) + 1}"
    return _say(name, TAXIS_CONDITIONS)


def choice_condition(name: object) -> str:
    """A choice study's condition: ``input-control`` -> ``connectome with each cue fed into the
    other's sensory class``; an unknown one quoted as code."""
    return _say(name, CHOICE_CONDITIONS)


def plain(name: object) -> str:
    """``name`` as it is where it is a word (``olfactory``, ``accuracy``), else quoted as code
    (``mnist10``, ``p_value``)."""
    text = str(name)
    return text if re.fullmatch(r"[A-Za-z][a-z]*(?: [a-z]+)*", text) else code(text)


def score(name: object) -> str:
    """A reservoir score: ``MC`` -> ``memory capacity``; another name as `plain` says it."""
    return SCORES.get(str(name)) or plain(name)


def times(n: float, ref: float, what: str) -> str:
    """``n`` against ``ref`` in words, with what is counted: ``500 gates (0.51 times as many)``,
    ``8,000 gates (as many)``, ``112,032 gates (2.3 times as many)``."""
    ratio = n / ref if ref else float("nan")
    if 0.995 <= ratio <= 1.005:
        how = "as many"
    elif 0.95 <= ratio <= 1.05:
        how = "about as many"
    else:
        how = f"{ratio:.2g} times as many"
    return f"{n:,.0f} {what} ({how})"
