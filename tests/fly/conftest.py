"""Fixtures of the fly tests: skip reasons for flygym 1.2.1 and flygym 2."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def flygym_ok() -> None:
    from wirelab.fly.bodies.flygym1 import flygym_available

    reason = flygym_available()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def flygym2_ok() -> None:
    from wirelab.fly.bodies.flygym2 import flygym2_available

    reason = flygym2_available()
    if reason:
        pytest.skip(reason)
