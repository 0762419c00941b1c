"""The store clock: transaction times that never tie."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone


class Clock:
    """The store clock: UTC, strictly increasing, so two writes never share a ``recordedAt``."""

    def __init__(self, now: Callable[[], datetime] | None = None) -> None:
        self._now = now or (lambda: datetime.now(timezone.utc))
        self._last: datetime | None = None
        self._lock = threading.Lock()

    def tick(self) -> datetime:
        with self._lock:
            t = self._now().astimezone(timezone.utc)
            if self._last is not None and t <= self._last:
                t = self._last + timedelta(microseconds=1)
            self._last = t
            return t
