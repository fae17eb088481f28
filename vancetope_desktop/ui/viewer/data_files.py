"""Reading data files for the table and tree views (pure, no Qt): CSV/TSV rows and JSON/YAML values."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.errors import DamagedFile
from ...core.units import format_size
from ...ingest.structured import detect_delimiter, parse_json, parse_yaml
from .text_files import read_text_file

# The importer's own delimiter rule (csv.Sniffer, then the most frequent candidate in the header line),
# so the table shows the columns that were indexed.
sniff_delimiter = detect_delimiter

MAX_ROWS = 5_000
"""Rows shown in a table; a note says when more exist."""
MAX_DATA_BYTES = 16 * 1024 * 1024
"""JSON/YAML bigger than this is not parsed for the tree (the text view still shows its start)."""


@dataclass(frozen=True)
class Table:
    """Rows of a delimited file.

    Attributes:
        header: column names; as many as the widest row (missing names become "column N").
        rows: data rows, each padded to ``len(header)``.
        delimiter: the delimiter used.
        complete: False when rows were left out (``max_rows`` reached or the file was cut).
        notes: remarks for a banner.
    """

    header: list[str]
    rows: list[list[str]]
    delimiter: str
    complete: bool = True
    notes: list[str] = field(default_factory=list)


def parse_table(text: str, *, preferred_delimiter: str | None = None, max_rows: int = MAX_ROWS,
                cut: bool = False) -> Table:
    """Parse delimited text: the first non-empty row is the header, blank rows are skipped.

    Args:
        text: decoded file content.
        preferred_delimiter: ``"\\t"`` for .tsv; otherwise sniffed.
        max_rows: rows kept at most.
        cut: the text is only the start of the file (its last row may be partial and is dropped).

    Returns:
        A :class:`Table`.
    """
    delimiter = sniff_delimiter(text, preferred_delimiter)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[list[str]] = []
    more = False
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = row
        elif len(rows) < max_rows:
            rows.append(row)
        else:
            more = True
            break
    if cut and rows and not more:
        rows.pop()
    header = header or []
    width = max([len(header), *(len(row) for row in rows)])
    names = [name.strip() or f"column {i + 1}" for i, name in enumerate(header)]
    names += [f"column {i + 1}" for i in range(len(names), width)]
    rows = [row + [""] * (width - len(row)) for row in rows]
    notes = []
    if more or cut:
        notes.append(f"Showing the first {len(rows):,} rows; the file has more.")
    return Table(header=names, rows=rows, delimiter=delimiter, complete=not (more or cut), notes=notes)


def read_table(path: str | Path, *, max_rows: int = MAX_ROWS) -> Table:
    """Read a CSV/TSV file (tolerant decoding, first 2 MB) into a :class:`Table`.

    Raises:
        OSError: missing or unreadable file. UnsupportedFile: binary content.
    """
    path = Path(path)
    source = read_text_file(path)
    preferred = "\t" if path.suffix.lower() in {".tsv", ".tab"} else None
    table = parse_table(source.text, preferred_delimiter=preferred, max_rows=max_rows, cut=source.truncated)
    return Table(header=table.header, rows=table.rows, delimiter=table.delimiter, complete=table.complete,
                 notes=source.encoding_notes + table.notes)


def read_structured(path: str | Path) -> tuple[Any, list[str]]:
    """Parse a JSON or YAML file (by suffix; ``.json``/``.geojson`` are JSON, the rest YAML).

    Returns:
        ``(value, notes)``: the parsed value (dicts, lists, scalars) and decoding remarks.

    Raises:
        OSError: missing or unreadable file.
        UnsupportedFile: binary content.
        DamagedFile: too large to parse here, or not valid JSON/YAML (message names the parser's complaint).
    """
    path = Path(path)
    source = read_text_file(path, max_bytes=MAX_DATA_BYTES)
    if source.truncated:
        raise DamagedFile(f"{path.name} is larger than {format_size(MAX_DATA_BYTES)}: shown as text")
    is_json = path.suffix.lower() in {".json", ".geojson"}
    try:
        value = parse_json(source.text.lstrip("\ufeff")) if is_json else parse_yaml(source.text)
    except ValueError as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        kind = "JSON" if is_json else "YAML"
        raise DamagedFile(f"Not valid {kind} ({first_line}): shown as text") from exc
    return value, source.notes
