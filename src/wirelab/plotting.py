"""The one matplotlib set-up: figures are drawn off screen (the Agg backend) and saved as files.

Every module that draws calls `pyplot()` where it needs pyplot, so matplotlib is imported only when
a figure is drawn and the backend is chosen once, before pyplot's first import, in one place.
"""

from __future__ import annotations

from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
