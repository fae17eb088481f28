"""Reading a text file for display: capped in size, decoded tolerantly, never failing on bad bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import UnsupportedFile
from ...core.units import format_size
from ...ingest.encoding import decode_text_bytes

MAX_TEXT_BYTES = 2 * 1024 * 1024
"""Bytes shown at most: a bigger file is cut so the UI thread never lays out megabytes of text."""


@dataclass(frozen=True)
class TextFile:
    """Decoded text of a file.

    Attributes:
        text: the (possibly cut) text.
        size: the file's size in bytes.
        truncated: True when only the first ``MAX_TEXT_BYTES`` were read.
        encoding_notes: remarks on a fallback encoding (``"not UTF-8: decoded as Windows-1252"``).
    """

    text: str
    size: int
    truncated: bool
    encoding_notes: list[str] = field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        """Every remark for a banner: the encoding notes, then how much of a cut file is shown."""
        if not self.truncated:
            return list(self.encoding_notes)
        shown = format_size(len(self.text.encode("utf-8")))
        return [*self.encoding_notes, f"Showing the first {shown} of {format_size(self.size)}."]


def read_text_file(path: str | Path, *, max_bytes: int = MAX_TEXT_BYTES) -> TextFile:
    """Read at most ``max_bytes`` of ``path`` and decode them.

    Decoding follows :func:`vancetope_desktop.ingest.encoding.decode_text_bytes` (a BOM, UTF-8,
    then the likeliest legacy encoding), as import does, so the viewer shows what was indexed. A cut
    inside a multi-byte character is dropped.

    Raises:
        FileNotFoundError / OSError: the file is missing or unreadable.
        UnsupportedFile: the bytes look binary (a NUL byte near the start, no UTF-16 BOM).
    """
    path = Path(path)
    size = path.stat().st_size
    with path.open("rb") as handle:
        data = handle.read(max_bytes)
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnsupportedFile(f"{path.name} is a binary file and cannot be shown as text")
    truncated = size > len(data)
    if truncated:
        data = _cut_to_utf8_boundary(data)
    text, notes = decode_text_bytes(data)
    return TextFile(text=text, size=size, truncated=truncated, encoding_notes=notes)


def _cut_to_utf8_boundary(data: bytes) -> bytes:
    """Drop a trailing partial UTF-8 sequence (at most 3 bytes) so a cut file still decodes as UTF-8."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:  # a lead byte: keep it only if its whole sequence is present
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data
