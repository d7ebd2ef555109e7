"""Fixtures of the fly tests: skip reasons for flygym."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def flygym_ok() -> None:
    from wirelab.fly.flygym_body import flygym_available

    reason = flygym_available()
    if reason:
        pytest.skip(reason)
