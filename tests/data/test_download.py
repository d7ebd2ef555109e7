"""The real download path against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from wirelab.data import download as dl
from wirelab.data.datasets import RemoteFile
from wirelab.errors import ChecksumError, DownloadError, MissingDataError

PAYLOAD = bytes(range(256)) * 4096  # 1 MiB
GZ = gzip.compress(PAYLOAD)


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        routes = {"/good.bin": PAYLOAD, "/altered.bin": PAYLOAD[:-1] + b"\x00", "/good.gz": GZ}
        if self.path in routes:
            body = routes[self.path]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/truncated.bin":
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD[: len(PAYLOAD) // 3])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_error(404, "Not Found")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WIRELAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("WIRELAB_DATA_DIR", raising=False)
    return tmp_path / "cache"


def _remote(url: str, content: Literal["file", "gunzip"] = "file") -> RemoteFile:
    sha = hashlib.sha256(PAYLOAD).hexdigest()
    name = url.rsplit("/", 1)[-1]
    return RemoteFile(
        path=f"test/{name}", urls=(url,), sha256=sha, size=len(PAYLOAD), content=content
    )


def _leftovers(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []


def test_success_downloads_verifies_and_is_reused(server: str, cache: Path) -> None:
    remote = _remote(f"{server}/good.bin")
    path = dl.fetch(remote, progress=False)
    assert path == cache / "test" / "good.bin"
    assert path.read_bytes() == PAYLOAD
    assert _leftovers(cache) == [path]
    # second call finds the cached copy without the network
    offline = RemoteFile(remote.path, ("http://127.0.0.1:9/none",), remote.sha256, remote.size)
    assert dl.fetch(offline, progress=False) == path


def test_gzip_content_checksum(server: str, cache: Path) -> None:
    remote = _remote(f"{server}/good.gz", content="gunzip")
    path = dl.fetch(remote, progress=False)
    assert gzip.decompress(path.read_bytes()) == PAYLOAD


def test_wrong_checksum_leaves_nothing_and_says_everything(server: str, cache: Path) -> None:
    url = f"{server}/altered.bin"
    remote = _remote(url)
    with pytest.raises(ChecksumError) as err:
        dl.fetch(remote, progress=False)
    msg = str(err.value)
    actual = hashlib.sha256(PAYLOAD[:-1] + b"\x00").hexdigest()
    assert remote.path in msg and url in msg and remote.sha256 in msg and actual in msg
    assert _leftovers(cache) == []


def test_truncated_body_leaves_nothing(server: str, cache: Path) -> None:
    url = f"{server}/truncated.bin"
    with pytest.raises(MissingDataError) as err:
        dl.fetch(_remote(url), progress=False)
    assert "truncated" in str(err.value) and url in str(err.value)
    assert _leftovers(cache) == []
    with pytest.raises(DownloadError, match="truncated"):
        dl.download(url, _remote(url), cache / "x.bin", progress=False)
    assert _leftovers(cache) == []


def test_404_says_where_to_put_the_file(server: str, cache: Path) -> None:
    remote = _remote(f"{server}/missing.bin")
    with pytest.raises(MissingDataError) as err:
        dl.fetch(remote, progress=False)
    msg = str(err.value)
    assert "HTTP 404" in msg
    assert str(cache / "test" / "missing.bin") in msg and "WIRELAB_DATA_DIR" in msg


def test_no_network_no_copy(cache: Path) -> None:
    remote = _remote("http://127.0.0.1:9/closed.bin")  # discard port: connection refused
    with pytest.raises(MissingDataError, match="cannot connect"):
        dl.fetch(remote, progress=False)


def test_plain_http_to_a_remote_host_is_refused(cache: Path) -> None:
    with pytest.raises(DownloadError, match="HTTPS"):
        dl.download("http://example.org/x", _remote("http://example.org/x"), cache / "x")


def test_corrupt_cached_copy_is_replaced(server: str, cache: Path) -> None:
    remote = _remote(f"{server}/good.bin")
    target = cache / "test" / "good.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(PAYLOAD[:1000])
    assert dl.fetch(remote, progress=False).read_bytes() == PAYLOAD


def test_data_dir_is_searched_first_and_never_modified(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ddir = tmp_path / "offline"
    (ddir / "test").mkdir(parents=True)
    (ddir / "test" / "good.bin").write_bytes(PAYLOAD)
    monkeypatch.setenv("WIRELAB_DATA_DIR", str(ddir))
    remote = _remote("http://127.0.0.1:9/good.bin")
    assert dl.fetch(remote, progress=False) == ddir / "test" / "good.bin"
    (ddir / "test" / "good.bin").write_bytes(PAYLOAD[:10])
    statuses = dl.verify(remote)
    assert [s.ok for s in statuses] == [False]
    assert (ddir / "test" / "good.bin").exists()  # the user's copy is reported, not deleted


def test_downloaded_file_is_0644_under_umask_022(server: str, cache: Path) -> None:
    old = os.umask(0o022)
    try:
        path = dl.fetch(_remote(f"{server}/good.bin"), progress=False)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
