"""Checksummed downloads into the cache, and lookup of local copies.

Order of search for a registry file (`fetch`):

1. ``$WIRELAB_DATA_DIR/<path>`` (or the uncompressed variant of a ``.gz`` file), verified, never
   modified;
2. ``<cache>/<path>``, verified; a corrupt cached copy is deleted and fetched again;
3. each URL of the file in turn, streamed to a temporary file beside the destination while being
   hashed, then verified and atomically renamed into place. A truncated transfer or a checksum
   mismatch deletes the temporary file and reports the file, URL, expected and actual checksum.
"""

from __future__ import annotations

import gzip
import hashlib
import ipaddress
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from http.client import HTTPException, IncompleteRead
from pathlib import Path
from typing import BinaryIO

from wirelab.data.datasets.base import RemoteFile
from wirelab.data.dirs import cache_dir, data_dir
from wirelab.errors import (
    ChecksumError,
    CorruptDataError,
    DataError,
    DownloadError,
    MissingDataError,
)
from wirelab.progress import progress_bar

CHUNK = 1 << 20
_verified: dict[tuple[str, int, int], str] = {}


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _chunks(path: Path, content: str) -> Iterator[bytes]:
    if content == "gunzip" and _is_gzip(path):
        try:
            with gzip.open(path, "rb") as fh:
                while block := fh.read(CHUNK):
                    yield block
        except (EOFError, OSError, zlib.error) as exc:
            raise CorruptDataError(f"{path} is not a complete gzip file ({exc})") from exc
    else:
        with open(path, "rb") as fh:
            while block := fh.read(CHUNK):
                yield block


def content_sha256(path: Path, content: str = "file") -> tuple[str, int]:
    """SHA-256 and byte count of a file, or of its decompressed bytes when ``content="gunzip"``.

    A truncated or corrupt gzip stream raises `CorruptDataError`.
    """
    h = hashlib.sha256()
    n = 0
    for block in _chunks(path, content):
        h.update(block)
        n += len(block)
    return h.hexdigest(), n


def check_file(path: Path, remote: RemoteFile, source: str | None = None) -> None:
    """Raise `ChecksumError` (or `CorruptDataError`) unless ``path`` holds ``remote``'s bytes.

    A file that cannot be read (permissions, a directory) raises `DataError` naming it.
    """
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
        if _verified.get(key) == remote.sha256:
            return
        actual, _ = content_sha256(path, remote.content)
    except CorruptDataError as exc:
        where = f" (from {source})" if source else ""
        raise CorruptDataError(
            f"{remote.path}{where}: {exc}; expected sha256 {remote.sha256}"
        ) from exc
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if actual != remote.sha256:
        what = "decompressed content of " if remote.content == "gunzip" else ""
        where = f" from {source}" if source else f" at {path}"
        raise ChecksumError(
            f"checksum mismatch for {what}{remote.path}{where}: "
            f"expected sha256 {remote.sha256}, got {actual}"
        )
    _verified[key] = remote.sha256


def _local_candidates(root: Path, remote: RemoteFile) -> list[Path]:
    paths = [root / remote.path]
    if remote.raw_path:
        paths.append(root / remote.raw_path)
    return [p for p in paths if p.is_file()]


def cache_path(remote: RemoteFile) -> Path:
    return cache_dir() / remote.path


def _check_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not (parts.scheme == "http" and loopback):
        raise DownloadError(f"refusing to download {url}: only HTTPS (or http on loopback) is used")


def download(
    url: str, remote: RemoteFile, dest: Path, *, progress: bool = True, timeout: float = 30.0
) -> Path:
    """Download ``url`` to ``dest`` atomically, verifying ``remote.sha256``.

    Nothing is left at ``dest`` (nor any temporary file beside it) unless the whole transfer
    arrived and matched its checksum.
    """
    _check_url(url)
    if dest.is_dir():
        raise DataError(f"cannot download {remote.path}: {dest} is a directory; remove it")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    except OSError as exc:
        raise DataError(
            f"cannot write to the cache at {dest.parent}: {exc.strerror or exc}; "
            "set WIRELAB_CACHE to a writable directory"
        ) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            _stream(url, out, remote.name, progress=progress, timeout=timeout)
        check_file(tmp, remote, source=url)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DataError(f"cannot write {dest}: {exc.strerror or exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stream(url: str, out: BinaryIO, label: str, *, progress: bool, timeout: float) -> None:
    req = urllib.request.Request(url, headers={"User-Agent": "wirelab"})
    try:
        resp = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(f"{url}: cannot connect ({reason})") from exc
    with resp:
        length = resp.headers.get("Content-Length")
        expected = int(length) if length is not None and length.isdigit() else None
        got = 0
        # a bar over the bytes when the size is known (none for a stream of unknown length)
        show = progress and expected is not None
        with progress_bar(f"download {label}", total=expected or 1, show=show) as bar:
            try:
                while block := resp.read(CHUNK):
                    out.write(block)
                    got += len(block)
                    bar.advance(len(block))
            except (IncompleteRead, HTTPException, OSError) as exc:
                raise DownloadError(
                    f"{url}: truncated transfer after {got} bytes"
                    + (f" of {expected}" if expected is not None else "")
                    + f" ({exc.__class__.__name__})"
                ) from exc
        if expected is not None and got != expected:
            raise DownloadError(f"{url}: truncated transfer, got {got} of {expected} bytes")


@dataclass(frozen=True)
class FileStatus:
    path: str
    location: Path | None
    ok: bool
    message: str


def fetch(remote: RemoteFile, *, allow_download: bool = True, progress: bool = True) -> Path:
    """Path to a verified copy of ``remote``, downloading it into the cache if needed."""
    problems: list[str] = []
    ddir = data_dir()
    if ddir is not None:
        for candidate in _local_candidates(ddir, remote):
            try:
                check_file(candidate, remote)
                return candidate
            except (ChecksumError, CorruptDataError) as exc:
                problems.append(f"ignored {candidate}: {exc}")
    cached = cache_path(remote)
    for candidate in _local_candidates(cache_dir(), remote):
        try:
            check_file(candidate, remote)
            return candidate
        except (ChecksumError, CorruptDataError) as exc:
            _remove_cached(candidate)
            problems.append(f"deleted corrupt cached copy: {exc}")
    if allow_download:
        for url in remote.urls:
            try:
                return download(url, remote, cached, progress=progress)
            except (ChecksumError, CorruptDataError):
                raise
            except DownloadError as exc:
                problems.append(str(exc))
    where = f"put {remote.name} at {cached}"
    if ddir is not None:
        where += f" or at {ddir / remote.path}"
    else:
        where += f" (or in DIR/{remote.path} and set WIRELAB_DATA_DIR=DIR)"
    detail = "; ".join(problems) if problems else "downloads disabled"
    raise MissingDataError(f"{remote.path} is not available ({detail}); {where}")


def _remove_cached(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise DataError(
            f"cannot delete the corrupt cached copy {path}: {exc.strerror or exc}"
        ) from exc


def verify(remote: RemoteFile) -> list[FileStatus]:
    """Check every local copy of ``remote``; delete corrupt cached copies (never the data dir).

    Returns one `FileStatus` per copy found, or a single not-ok status when there is none.
    """
    statuses: list[FileStatus] = []
    roots = [(r, r == cache_dir()) for r in (data_dir(), cache_dir()) if r is not None]
    for root, is_cache in roots:
        for candidate in _local_candidates(root, remote):
            try:
                check_file(candidate, remote)
                statuses.append(FileStatus(remote.path, candidate, True, "ok"))
            except (ChecksumError, CorruptDataError) as exc:
                msg = str(exc)
                if is_cache:
                    _remove_cached(candidate)
                    msg += "; the cached copy was deleted, run `wirelab data fetch` again"
                statuses.append(FileStatus(remote.path, candidate, False, msg))
    if not statuses:
        statuses.append(
            FileStatus(remote.path, None, False, f"missing: no copy in {cache_path(remote)}")
        )
    return statuses
