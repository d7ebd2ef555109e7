"""Fixtures of the fly tests: skip reasons for flygym."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def flygym_ok() -> None:
    from wirelab.fly.bodies.flygym1 import flygym_available

    reason = flygym_available()
    if reason:
        pytest.skip(reason)
