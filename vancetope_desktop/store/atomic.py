"""Whole-file writes that never leave a half-written file behind.

Every file the product writes whole (exports, settings, preferences, the blobs of imported files) goes through
:func:`replace_atomically`: the bytes land in a temporary file in the same folder, are flushed to disk, then
``os.replace`` swaps it in. A crash, a full disk or a reader looking at the same moment sees either the old file
(or none) or the whole new one, never an empty or truncated one (a window test that waited for an exported file
to exist read it empty before this).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def replace_atomically(path: str | Path, write: Callable[[BinaryIO], None], *, prefix: str | None = None) -> None:
    """Make ``path`` hold what ``write`` writes, in one step.

    Args:
        path: the file; its folder must exist. An existing file is replaced only once the new bytes are on disk.
        write: called with the temporary file open for binary writing.
        prefix: the temporary file's name prefix (default ``.<name>.``): how a leftover is recognised.

    Raises:
        OSError: the folder is not writable or the disk is full; whatever ``write`` raises. ``path`` is then as it
            was and no temporary file is left.
    """
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=prefix or f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` encoded with ``encoding`` (newlines as given), in one step.

    Raises:
        OSError, as :func:`replace_atomically`; UnicodeEncodeError: ``text`` does not fit ``encoding`` (before
            anything is written).
    """
    data = text.encode(encoding)
    replace_atomically(path, lambda file: file.write(data))
