"""Videos on the page within a stated size: embedded while the page stays under its budget, else
a poster frame (the video's first frame, a small PNG) with a link to the file.

`EmbedBudget` counts the bytes of the videos embedded so far; `MAX_PAGE_BYTES` (50 MB, the
``--max-page-mb`` of ``wirelab report``) is the default. A video that would take the page past
it is shown as its poster frame, read with imageio (its ffmpeg plugin, as the fly's videos are
written); without imageio, or for a file it cannot decode, the video is linked only.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from html import escape
from pathlib import Path

MAX_PAGE_BYTES = 50 * 1024 * 1024


@dataclass
class EmbedBudget:
    """Bytes of video that may still be embedded in the page."""

    limit: int = MAX_PAGE_BYTES
    used: int = 0

    def take(self, size: int) -> bool:
        """Reserve ``size`` bytes; False (and nothing reserved) if that exceeds the limit."""
        if self.used + size > self.limit:
            return False
        self.used += size
        return True


def poster_png(video: Path, max_width: int = 640) -> bytes | None:
    """The first frame of ``video`` as PNG bytes (at most ``max_width`` wide), or None."""
    try:
        import imageio.v3 as iio
        from PIL import Image

        frame = iio.imread(video, index=0)
        img = Image.fromarray(frame)
        if img.width > max_width:
            img = img.resize((max_width, max(1, img.height * max_width // img.width)))
        buf = io.BytesIO()
        img.convert("RGB").save(buf, format="PNG", optimize=True)
        return buf.getvalue()
    except Exception:  # no imageio/ffmpeg, or a file it cannot decode: link only
        return None


def poster_figure(caption: str, video: Path, link: str, why: str) -> str:
    """A ``<figure>`` with the poster frame (if one can be read) and a link to the video.

    ``caption`` is already escaped; ``link`` is the raw relative href.
    """
    png = poster_png(video)
    img = ""
    if png is not None:
        uri = "data:image/png;base64," + base64.b64encode(png).decode()
        img = f'<img src="{uri}" alt="{caption}: first frame" class="poster">'
    return (
        f'<figure class="poster">{img}<figcaption>{caption}: first frame only ({escape(why)}) · '
        f'<a href="{escape(link)}">play the video</a></figcaption></figure>'
    )
