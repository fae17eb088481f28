"""Cross-process file locks (portalocker: fcntl on POSIX, LockFileEx on Windows).

Chroma's persistent client is not safe for concurrent writers in several processes, and a reader
could load an index file while another process rewrites it. So every Chroma operation holds
``chroma.lock``: shared for reads, exclusive for writes. A separate ``writer.lock`` elects the one
process (the app, or a CLI run when the app is closed) that drains the index queue.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import portalocker


@contextmanager
def file_lock(path: Path, *, shared: bool) -> Iterator[None]:
    """Hold a blocking shared or exclusive lock on ``path`` (created if missing) for the ``with`` body."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        portalocker.lock(handle, portalocker.LockFlags.SHARED if shared else portalocker.LockFlags.EXCLUSIVE)
        try:
            yield
        finally:
            portalocker.unlock(handle)


class WriterLock:
    """A non-blocking, long-held exclusive lock naming the process that drains the index queue."""

    lease_seconds = 0.0
    """The lease of its holder's claims on the queue (``index.job_claims``): none, the holder drains alone, so a claim
    it finds is a dead writer's, taken over at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None

    def try_acquire(self) -> bool:
        """Take the lock if free; True on success (also when this object already holds it)."""
        if self._handle is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+b")
        try:
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.LockException:
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()).encode())
        handle.flush()
        self._handle = handle
        return True

    def holder_pid(self) -> int | None:
        """The pid of the process holding the lock now, or None when nobody holds it (for messages only)."""
        if self._handle is not None:
            return os.getpid()
        if self.try_acquire():  # free: the pid in the file belongs to a process that has gone
            self.release()
            return None
        try:
            return int(self.path.read_text().strip() or 0) or None
        except (OSError, ValueError):
            return None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._handle is not None

    def release(self) -> None:
        """Give the lock up (no-op when not held)."""
        if self._handle is not None:
            portalocker.unlock(self._handle)
            self._handle.close()
            self._handle = None
