"""A Ray cluster's ``--address``: its form checked where it is read, its port probed before Ray.

`parse_address` accepts ``HOST:PORT`` only (a host name, an IPv4 address or ``[IPv6]``, and a
port 1-65535) and gives a one-line `UsageError` (exit 2) otherwise: Ray's C++ core aborts the
process in glibc on a port out of range (99999, as reported), so a malformed address must never
reach it.

`probe_address` is the bounded check made before ``ray.init`` joins a cluster: a TCP connection
with a deadline, then the HTTP/2 client preface, to which a Ray head's GCS (a gRPC server) answers
with a SETTINGS frame. Nothing listening, a refused or unreachable host, or a server that does not
answer like gRPC within the deadline is a one-line `WirelabError` (exit 1) in at most
``2 * timeout`` seconds (plus the host name's lookup, where a name is given). Without it,
``ray.init`` at a closed port retries inside Ray's C++ GCS client (5 s to connect, 30 s for the
cluster id, again and again; SIGTERM is only handled between attempts), and with Ray 2.40 the
driver then dies of a segmentation fault in a new ``GcsClient`` (``ray/_private/node.py``,
``_init_gcs_client``), seen after about 3 minutes of retries (rc 139); with port 99999 an abort
in glibc (rc 134) was reported (issue 47).
"""

from __future__ import annotations

import re
import socket

from wirelab.errors import UsageError, WirelabError

PROBE_TIMEOUT_S = 5.0
"""Seconds allowed for the TCP connection, and again for the gRPC answer (`probe_address`)."""

_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$")
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_H2_SETTINGS = 0x4


def parse_address(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` -> ``(host, port)``; anything else is a one-line `UsageError`.

    Example:
        `parse_address("10.0.0.1:6379")` is ``("10.0.0.1", 6379)``; ``"10.0.0.1:99999"``,
        ``"ray://h:1"`` and ``"h"`` are refused.
    """
    shown = text.encode("ascii", "backslashreplace").decode()[:80]
    host, sep, port = text.rpartition(":")
    if not sep or not _HOST.match(host) or not port.isascii() or not port.isdigit():
        raise UsageError(f"--address must be HOST:PORT (e.g. 10.0.0.1:6379), got {shown!r}")
    number = int(port) if len(port) <= 5 else 0
    if not 1 <= number <= 65535:
        raise UsageError(f"--address port must be 1-65535, got {shown!r}")
    return host.strip("[]"), number


def probe_address(address: str, timeout: float = PROBE_TIMEOUT_S) -> None:
    """A one-line `WirelabError` unless something at ``address`` answers like a Ray head (gRPC)
    within ``timeout`` seconds, twice (connect, answer); `UsageError` for a malformed address."""
    host, port = parse_address(address)
    hint = "start it with `ray start --head --port PORT` or check --address"
    try:
        conn = socket.create_connection((host, port), timeout=timeout)
    except TimeoutError:
        raise WirelabError(
            f"no Ray cluster at {address}: no answer within {timeout:g} s; {hint}"
        ) from None
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise WirelabError(f"no Ray cluster at {address}: {why.lower()}; {hint}") from None
    with conn:
        try:
            conn.settimeout(timeout)
            conn.sendall(_H2_PREFACE)
            head = conn.recv(9)
        except OSError:
            head = b""
    if len(head) < 4 or head[3] != _H2_SETTINGS:
        raise WirelabError(
            f"no Ray cluster at {address}: the server there does not answer like a Ray head "
            f"(gRPC) within {timeout:g} s; {hint}"
        )
