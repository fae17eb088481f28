"""Whole-file writes that never leave a half-written file behind.

Every file the product writes for a person (exports, settings, preferences) goes through
:func:`write_text_atomic`: the text lands in a temporary file in the same folder, is flushed to disk,
then ``os.replace`` swaps it in. A crash, a full disk or a reader looking at the same moment sees either
the old file or the whole new one, never an empty or truncated one (a window test that waited for the
file to exist read it empty before this).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | Path, text: str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` in one step.

    Args:
        path: the file to write; its folder must exist. An existing file is replaced only once the new
            text is wholly on disk.
        text: the content, encoded with ``encoding``.

    Raises:
        OSError: the folder is not writable or the disk is full; ``path`` is then as it was and no
            temporary file is left.
    """
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding=encoding, newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
