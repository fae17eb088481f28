"""Structured data (CSV/TSV, JSON, YAML): one key-value chunk per record.

A record is a CSV row ("col: value; col: value", empty cells skipped), an item of a list of
mappings ("features[3]" of a GeoJSON file), or a top-level key of a mapping ("authors"). Nested
keys are flattened to dotted paths ("properties.mag: 2.3") so a search for a field name and its
value finds the record. ``ChunkDraft.section`` is the record's locator.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import yaml

from ..core.documents import DocumentType
from ..core.json_values import to_jsonable
from .base import ChunkDraft, Extraction
from .normalize import normalize_text
from .values import flatten

MAX_RECORDS = 20_000
"""Chunks per file; beyond this a data file is an export, not something to search row by row."""
MAX_LISTED_KEYS = 200
_DELIMITERS = ",;\t|"
_SNIFF_BYTES = 64 * 1024


def detect_delimiter(text: str, preferred: str | None) -> str:
    """csv.Sniffer on the first 64 KB; when it gives up (ragged rows), the candidate that occurs most
    often in the header line; ``preferred`` (tab for .tsv) wins when it occurs there at all."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    if preferred and preferred in header:
        return preferred
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_BYTES], delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: header.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] else preferred or ","


def extract_delimited(
    text: str, *, title: str | None, preferred_delimiter: str | None = None, mime_type: str = "text/csv"
) -> Extraction:
    """CSV/TSV: the first non-empty row is the header, every later row one chunk.

    Rows longer than the header get columns named "column N"; blank rows are skipped.

    Args:
        text: decoded file content.
        title: document title (the registry passes the file stem).
        preferred_delimiter: ``"\\t"`` for .tsv; otherwise the delimiter is sniffed.
        mime_type: ``text/csv`` or ``text/tab-separated-values``.

    Returns:
        An :class:`Extraction` (doc_type STRUCTURED) with metadata columns, row_count, delimiter;
        sections are "row N" (1-based, header excluded).
    """
    delimiter = detect_delimiter(text, preferred_delimiter)
    rows = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] | None = None
    chunks: list[ChunkDraft] = []
    warnings: list[str] = []
    row_count = 0
    for row in rows:
        cells = [normalize_text(cell) for cell in row]
        if not any(cells):
            continue
        if header is None:
            header = [c or f"column {i + 1}" for i, c in enumerate(cells)]
            continue
        row_count += 1
        if len(chunks) >= MAX_RECORDS:
            continue
        names = header + [f"column {i + 1}" for i in range(len(header), len(cells))]
        pairs = [f"{name}: {value}" for name, value in zip(names, cells, strict=False) if value]
        chunks.append(ChunkDraft("; ".join(pairs), section=f"row {row_count}"))
    if row_count > MAX_RECORDS:
        warnings.append(f"only the first {MAX_RECORDS:,} of {row_count:,} rows were indexed")
    return Extraction(
        doc_type=DocumentType.STRUCTURED,
        mime_type=mime_type,
        title=title,
        text=normalize_text(text),
        chunks=chunks,
        metadata={"columns": header or [], "row_count": row_count, "delimiter": delimiter},
        warnings=warnings,
    )


def parse_json(text: str) -> Any:
    """``json.loads``; raises ValueError (json.JSONDecodeError) on invalid JSON."""
    return json.loads(text)


def parse_yaml(text: str) -> Any:
    """YAML with the safe loader; a stream of several documents becomes a list of them.

    Raises:
        ValueError: invalid YAML (the parser's message, with its line).
    """
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc
    return documents[0] if len(documents) == 1 else documents


def _is_record_list(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(item, dict | list) for item in value)


def _lines(value: Any, prefix: str = "") -> str:
    return "\n".join(f"{path}: {text}" if path else text for path, text in flatten(value, prefix))


def _records(data: Any) -> Iterator[tuple[str, str]]:
    """``(locator, text)`` per record; see the module docstring."""
    if isinstance(data, dict):
        # Short top-level values (a title, a version) share one chunk, first.
        scalars = {str(k): v for k, v in data.items() if not isinstance(v, dict | list)}
        if scalars:
            names = list(scalars)
            yield ", ".join(names[:5]) + (" …" if len(names) > 5 else ""), _lines(scalars)
        for key, value in data.items():
            if _is_record_list(value):
                for index, item in enumerate(value):
                    yield f"{key}[{index}]", _lines(item)
            elif isinstance(value, dict | list):
                yield str(key), _lines(value, str(key))
    elif _is_record_list(data):
        for index, item in enumerate(data):
            yield f"[{index}]", _lines(item)
    else:
        yield "value", _lines(data)


def extract_data(data: Any, *, title: str | None, mime_type: str, source_text: str = "") -> Extraction:
    """Records of parsed JSON/YAML data as chunks.

    Args:
        data: the parsed value (mapping, list or scalar).
        title: document title (the registry passes the file stem).
        mime_type: ``application/json`` or ``application/yaml``.
        source_text: the file text, kept as ``Extraction.text``.

    Returns:
        An :class:`Extraction` (doc_type STRUCTURED); metadata ``keys`` (top-level keys, first 200)
        or ``item_count`` (top-level list), and ``record_count``. At most :data:`MAX_RECORDS`
        chunks, with a warning when more records exist.
    """
    chunks: list[ChunkDraft] = []
    record_count = 0
    for locator, text in _records(data):
        record_count += 1
        text = normalize_text(text)
        if text and len(chunks) < MAX_RECORDS:
            chunks.append(ChunkDraft(text, section=locator))
    metadata: dict[str, Any] = {"record_count": record_count}
    if isinstance(data, dict):
        metadata["keys"] = [str(k) for k in list(data)[:MAX_LISTED_KEYS]]
    elif isinstance(data, list):
        metadata["item_count"] = len(data)
    warnings = []
    if record_count > MAX_RECORDS:
        warnings.append(f"only the first {MAX_RECORDS:,} of {record_count:,} records were indexed")
    return Extraction(
        doc_type=DocumentType.STRUCTURED,
        mime_type=mime_type,
        title=title,
        text=normalize_text(source_text),
        chunks=chunks,
        metadata=to_jsonable(metadata),
        warnings=warnings,
    )
