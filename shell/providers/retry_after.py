"""How long to wait before asking a provider again: the server's own ask
(``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP date), else exponential
backoff with jitter. A value that is garbage (``nan``, ``-3``, ``soon``) is ignored,
never read as "at once": a hostile or broken server cannot make us hammer it."""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Mapping


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds asked for by ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    ms = _seconds(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None  # garbage: our own backoff decides, never "at once"
    return max(0.0, when.timestamp() - time.time())


def _seconds(value: str | None) -> float | None:
    """A finite, non-negative number of seconds, or None (``nan``, ``inf``, ``-3``, ``soon``)."""
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def retry_delay(headers: Mapping[str, str], attempt: int, backoff: float) -> float | None:
    """The wait before retry ``attempt`` (0-based): the server's ask, else exponential with jitter."""
    asked = retry_after_seconds(headers)
    if asked is not None:
        return asked
    return float(backoff * 2.0**attempt * (0.75 + random.random() / 2))
