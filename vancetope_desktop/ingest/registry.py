"""Choosing the extractor for a file (by content sniffing, then extension) or for typed text.

This is the package's entry point for the services layer: :func:`extract_file` for uploads,
:func:`extract_text` for notes, facts and results typed by a user or an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.documents import DocumentType
from ..core.errors import EmptyFile, FileTooLarge, InvalidInput, UnsupportedFile
from ..core.text import readable
from ..core.units import format_size
from .base import ChunkDraft, Extraction
from .bibliography import is_csl_json, parse_csl_json, parse_reference_text, parse_ris
from .bibtex import parse_bibtex
from .encoding import decode_text_bytes
from .markdown import extract_markdown
from .normalize import normalize_text
from .references import bibliography_extraction, reference_extraction
from .structured import extract_data, extract_delimited, parse_json, parse_yaml
from .text import CODE_LANGUAGES, PLAIN_TEXT_TYPES, extract_code, extract_plain_text

MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdown", ".mkd"})
JSON_EXTENSIONS = frozenset({".json", ".geojson"})
YAML_EXTENSIONS = frozenset({".yaml", ".yml", ".cff"})
DELIMITED_EXTENSIONS = {".csv": None, ".tsv": "\t", ".tab": "\t"}
BIBTEX_EXTENSIONS = frozenset({".bib", ".bibtex"})
RIS_EXTENSIONS = frozenset({".ris"})

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".pdf",
        *MARKDOWN_EXTENSIONS,
        *PLAIN_TEXT_TYPES,
        *CODE_LANGUAGES,
        *JSON_EXTENSIONS,
        *YAML_EXTENSIONS,
        *DELIMITED_EXTENSIONS,
        *BIBTEX_EXTENSIONS,
        *RIS_EXTENSIONS,
    }
)
"""Lowercase suffixes :func:`extract_file` handles (``.csl.json`` is covered by ``.json``)."""

SNIFF_BYTES = 1024
"""Bytes read to sniff the type: PDF readers accept ``%PDF-`` anywhere in the first 1024 bytes."""

# Signatures of common binary formats, for a precise "not supported" message.
_BINARY_SIGNATURES: dict[bytes, str] = {
    b"\x89PNG": "PNG image",
    b"\xff\xd8\xff": "JPEG image",
    b"GIF8": "GIF image",
    b"II*\x00": "TIFF image",
    b"MM\x00*": "TIFF image",
    b"PK\x03\x04": "ZIP archive (or Office document)",
    b"\xd0\xcf\x11\xe0": "legacy Office document",
    b"\x7fELF": "program",
    b"MZ": "program",
}


def _suffix(path: Path) -> str:
    return path.suffix.lower()


def _is_pdf(path: Path, head: bytes) -> bool:
    """A ``.pdf`` name, a ``%PDF-`` start, or ``%PDF-`` later in the head of a file that is not a
    known text type (a markdown note may well mention "%PDF-1.7" near its top)."""
    suffix = _suffix(path)
    if suffix == ".pdf" or head.startswith(b"%PDF-"):
        return True
    return b"%PDF-" in head and suffix not in SUPPORTED_EXTENSIONS


def _read_text(path: Path, data: bytes) -> tuple[str, list[str]]:
    """Decode, refusing binary content and empty text."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnsupportedFile(f"{path.name} is a binary file of an unsupported type")
    text, warnings = decode_text_bytes(data)
    if not text.strip():
        raise EmptyFile(f"{path.name} has no content (only whitespace)")
    return text, warnings


def _parsed_or_text(text: str, parse: Callable[[str], Any], kind: str, title: str | None, mime_type: str) -> Extraction:
    """Structured data, or plain text with a warning when the file does not parse."""
    try:
        data = parse(text)
    except ValueError as exc:
        extraction = extract_plain_text(text, title=title, mime_type="text/plain")
        first_line = str(exc).splitlines()[0] if str(exc) else kind
        extraction.warnings.append(f"not valid {kind} ({first_line}): imported as plain text")
        return extraction
    if kind == "JSON" and is_csl_json(data):
        return bibliography_extraction(parse_csl_json(data), title=title)
    return extract_data(data, title=title, mime_type=mime_type, source_text=text)


def _dispatch_text(path: Path, text: str) -> Extraction:
    suffix, stem = _suffix(path), path.stem
    if suffix in MARKDOWN_EXTENSIONS:
        return extract_markdown(text, default_title=stem)
    if suffix in BIBTEX_EXTENSIONS:
        return bibliography_extraction(parse_bibtex(text), title=stem)
    if suffix in RIS_EXTENSIONS:
        return bibliography_extraction(parse_ris(text), title=stem)
    if suffix in JSON_EXTENSIONS:
        title = stem.removesuffix(".csl").removesuffix(".geojson")
        return _parsed_or_text(text, parse_json, "JSON", title, "application/json")
    if suffix in YAML_EXTENSIONS:
        return _parsed_or_text(text, parse_yaml, "YAML", stem, "application/yaml")
    if suffix in DELIMITED_EXTENSIONS:
        delimiter = DELIMITED_EXTENSIONS[suffix]
        mime = "text/tab-separated-values" if delimiter == "\t" else "text/csv"
        return extract_delimited(text, title=stem, preferred_delimiter=delimiter, mime_type=mime)
    if suffix in CODE_LANGUAGES:
        language, mime = CODE_LANGUAGES[suffix]
        return extract_code(text, title=path.name, language=language, mime_type=mime)
    if suffix in PLAIN_TEXT_TYPES:
        return extract_plain_text(text, title=stem, mime_type=PLAIN_TEXT_TYPES[suffix])
    extraction = extract_plain_text(text, title=path.name)
    if suffix:
        extraction.warnings.append(f"unknown file type {suffix}: imported as plain text")
    return extraction


def extract_file(path: Path, *, password: str | None = None, max_bytes: int | None = None) -> Extraction:
    """Extract one file, choosing the extractor by content first and extension second.

    A PDF is recognised by ``%PDF-`` in its first 1024 bytes whatever its name (junk before the
    header is common), unless the name says it is a text format; other formats go by extension;
    text files of unknown type are imported as plain text with a warning; binary files of unknown
    type are refused.

    Args:
        path: the file to read.
        password: PDF user password (ignored for other files).
        max_bytes: size limit, None for no limit.

    Returns:
        The :class:`Extraction`; decoding fallbacks are listed in its warnings.

    Raises:
        EmptyFile: 0 bytes, only whitespace, or a PDF without pages.
        FileTooLarge: the file is bigger than ``max_bytes``.
        UnsupportedFile: a folder, an image, or another binary format.
        EncryptedPdf, DamagedFile: see :func:`.pdf.extract_pdf`.
        OSError: the file cannot be read (missing, no permission).
    """
    path = Path(path)
    if path.is_dir():
        raise UnsupportedFile(f"{path.name} is a folder, not a file")
    size = path.stat().st_size
    if size == 0:
        raise EmptyFile(f"{path.name} is empty (0 bytes)")
    if max_bytes is not None and size > max_bytes:
        raise FileTooLarge(f"{path.name} is {format_size(size)}, over the import limit of {format_size(max_bytes)}")
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    if size <= SNIFF_BYTES and not head.strip():
        raise EmptyFile(f"{path.name} has no content (only whitespace)")
    if _is_pdf(path, head):
        from .pdf import extract_pdf  # deferred: PyMuPDF costs ~0.6 s to import, and searches never need it

        return extract_pdf(path, password=password)
    if _suffix(path) not in SUPPORTED_EXTENSIONS:  # a note may start with "MZ" or "GIF8" as text
        for signature, kind in _BINARY_SIGNATURES.items():
            if head.startswith(signature):
                raise UnsupportedFile(f"{path.name} is a {kind}, which cannot be imported yet")
    text, warnings = _read_text(path, path.read_bytes())
    # Titles come from the name: never its undecodable bytes (they would fail SQLite, the tokenizer…).
    extraction = _dispatch_text(path.with_name(readable(path.name)), text)
    extraction.warnings[:0] = warnings
    return extraction


def _first_line_title(text: str, limit: int = 80) -> str | None:
    """First non-empty line without markdown heading marks, cut at ``limit`` characters."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return None


def extract_text(text: str, doc_type: DocumentType, title: str | None = None) -> Extraction:
    """Extract text typed by a user or an agent.

    Args:
        text: the content.
        doc_type: FACT, EVENT, PLAN, RESULT or ANNOTATION → exactly one chunk (the splitter may still cut a long one);
            NOTE → markdown rules (front matter, tags, sections); FILE → plain-text paragraphs;
            STRUCTURED → JSON or YAML records; REFERENCE → BibTeX, RIS or CSL-JSON entries, or one
            chunk for a free-text citation.
        title: the title given by the caller; it wins over any title found in the text. When None,
            notes use their front matter or title heading; other types their first line.

    Returns:
        The :class:`Extraction`.

    Raises:
        EmptyFile: the text is empty or whitespace.
        InvalidInput: ``doc_type`` is FOLDER.
    """
    text = text.lstrip("\ufeff")
    if not normalize_text(text):  # also catches text made only of invisible characters
        raise EmptyFile("the text is empty")
    fallback_title = title or _first_line_title(text)
    if doc_type is DocumentType.NOTE:
        extraction = extract_markdown(text, default_title=fallback_title)
    elif doc_type in (DocumentType.FACT, DocumentType.EVENT, DocumentType.PLAN, DocumentType.RESULT,
                      DocumentType.ANNOTATION):
        clean = normalize_text(text)
        mime = "text/markdown" if doc_type is DocumentType.RESULT else "text/plain"
        extraction = Extraction(doc_type=doc_type, mime_type=mime, text=clean, chunks=[ChunkDraft(clean)])
    elif doc_type is DocumentType.MESSAGE:  # kept as written (the audit reads it); one chunk, cut if too long
        extraction = Extraction(doc_type=doc_type, mime_type="text/plain", text=text,
                                chunks=[ChunkDraft(normalize_text(text))])
    elif doc_type is DocumentType.FILE:
        extraction = extract_plain_text(text, title=fallback_title)
    elif doc_type is DocumentType.STRUCTURED:
        stripped = text.lstrip()
        if stripped.startswith(("{", "[")):
            extraction = _parsed_or_text(text, parse_json, "JSON", fallback_title, "application/json")
        else:
            extraction = _parsed_or_text(text, parse_yaml, "YAML", fallback_title, "application/yaml")
        extraction.doc_type = DocumentType.STRUCTURED
    elif doc_type is DocumentType.REFERENCE:
        extraction = _reference_text(text, fallback_title)
    else:
        raise InvalidInput(f"a {doc_type.value} has no text to extract")
    if title or not extraction.title:
        extraction.title = fallback_title
    return extraction


def _reference_text(text: str, title: str | None) -> Extraction:
    """A reference typed as text: one entry of BibTeX, RIS or CSL-JSON becomes that entry's reference
    (fields as metadata); several entries are listed in ``references`` (``services.bibliography``
    stores one document each) with a chunk each; anything else is one chunk, a free-text citation."""
    bibliography = parse_reference_text(text)
    if bibliography is not None and len(bibliography.entries) == 1:
        extraction = reference_extraction(bibliography.entries[0])
        extraction.references = list(bibliography.entries)
        return extraction
    if bibliography is not None:
        chunks = [ChunkDraft(e.text(), section=e.key) for e in bibliography.entries if e.text()]
        return Extraction(doc_type=DocumentType.REFERENCE, mime_type=bibliography.mime_type, title=title,
                          text="\n\n".join(c.text for c in chunks), chunks=chunks,
                          references=list(bibliography.entries), warnings=bibliography.warnings)
    clean = normalize_text(text)
    return Extraction(
        doc_type=DocumentType.REFERENCE, mime_type="text/plain", title=title, text=clean, chunks=[ChunkDraft(clean)]
    )
