"""Exceptions with one-line, user-facing messages.

Every error that a user can cause (bad input, missing or corrupt data, divergent dynamics) derives
from `WirelabError`; the CLI prints its message on one line and exits non-zero without a traceback.
"""


class WirelabError(Exception):
    """Base class: the message is meant for the user and fits on one line."""

    exit_code = 1


class UsageError(WirelabError, ValueError):
    """Bad arguments or wrongly shaped input; the CLI exits with code 2."""

    exit_code = 2


class DataError(WirelabError):
    """A data file is missing, corrupt, or fails its checksum."""


class MissingDataError(DataError):
    """No local copy and no way to download one."""


class ChecksumError(DataError):
    """A file's SHA-256 does not match the registry."""


class CorruptDataError(DataError):
    """A file is readable but its content is not what its format promises."""


class DownloadError(DataError):
    """A transfer failed (HTTP error, truncated body, no network)."""


class DivergenceError(WirelabError):
    """Dynamics produced NaN or inf."""


class SkipStep(WirelabError):
    """A tour step that cannot run here (missing tool or data); the message says what to install."""
