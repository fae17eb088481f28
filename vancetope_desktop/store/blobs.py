"""The file store: every imported original, kept by SHA-256 under ``files/ab/abcdef….ext``.

Content addressing preserves the source exactly, makes duplicates free, and makes writes atomic:
a blob is written to a temporary name, flushed to disk, then renamed into place, so a crash never
leaves a half-written file under a real name.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .atomic import replace_atomically

_READ_BLOCK = 1 << 20


def hash_file(path: Path) -> str:
    """SHA-256 of a file's bytes as 64 hex digits (streamed, constant memory)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def hash_text(value: str) -> str:
    """SHA-256 of a text's UTF-8 bytes as 64 hex digits."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


class BlobStore:
    """Content-addressed files under ``root`` (the library's ``files/`` folder)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def path_for(self, digest: str, suffix: str = "") -> Path:
        """Where the blob with this SHA-256 (and original suffix, e.g. ``.pdf``) lives."""
        return self.root / digest[:2] / f"{digest}{suffix.lower()}"

    def put(self, source: Path, digest: str | None = None) -> tuple[str, Path]:
        """Copy ``source`` into the store unless an identical blob is there.

        Returns:
            ``(sha256 hex, stored path)``.
        Raises:
            OSError: when the source cannot be read or the library is not writable.
        """
        digest = digest or hash_file(source)
        target = self.path_for(digest, source.suffix)
        if target.exists():
            return digest, target
        target.parent.mkdir(parents=True, exist_ok=True)
        with source.open("rb") as src:
            replace_atomically(target, lambda out: shutil.copyfileobj(src, out, _READ_BLOCK), prefix=".incoming-")
        return digest, target
