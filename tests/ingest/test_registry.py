"""extract_file dispatch and its typed refusals; extract_text for typed notes, facts and results."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import EmptyFile, FileTooLarge, InvalidInput, UnsupportedFile
from vancetope_desktop.ingest.registry import SUPPORTED_EXTENSIONS, extract_file, extract_text


def test_supported_extensions() -> None:
    assert {
        ".pdf",
        ".md",
        ".txt",
        ".py",
        ".json",
        ".yaml",
        ".cff",
        ".csv",
        ".tsv",
        ".bib",
        ".ris",
    } <= SUPPORTED_EXTENSIONS
    assert all(s == s.lower() and s.startswith(".") for s in SUPPORTED_EXTENSIONS)


def test_empty_and_whitespace_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(EmptyFile, match=re.escape("empty.txt")):
        extract_file(empty)
    blank = tmp_path / "blank.md"
    blank.write_bytes(b" \n\t\r\n   \n")
    with pytest.raises(EmptyFile, match=re.escape("blank.md")):
        extract_file(blank)
    big_blank = tmp_path / "big.txt"
    big_blank.write_bytes(b" \n" * 5000)
    with pytest.raises(EmptyFile):
        extract_file(big_blank)


def test_too_large(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("word " * 1000, encoding="utf-8")
    with pytest.raises(FileTooLarge, match=re.escape("notes.txt")):
        extract_file(path, max_bytes=100)
    assert extract_file(path, max_bytes=10_000).chunks


def test_binary_files_are_refused(tmp_path: Path) -> None:
    png = tmp_path / "figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    with pytest.raises(UnsupportedFile, match=r"figure\.png is a PNG image"):
        extract_file(png)
    blob = tmp_path / "data.bin"
    blob.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(UnsupportedFile, match=re.escape("data.bin")):
        extract_file(blob)
    with pytest.raises(UnsupportedFile, match="folder"):
        extract_file(tmp_path)


def test_plain_text_and_code(tmp_path: Path) -> None:
    text = tmp_path / "readme.txt"
    text.write_text("First para effi-\ncient.\n\n" + ("word " * 150 + "\n\n") * 3, encoding="utf-8")
    extraction = extract_file(text)
    assert extraction.doc_type is DocumentType.FILE and extraction.mime_type == "text/plain"
    assert extraction.title == "readme"
    assert extraction.chunks[0].text.startswith("First para efficient.")
    assert len(extraction.chunks) == 3  # 153 + 150 words, then 150, then 150 (≤ 200 words each)
    code = tmp_path / "analysis.py"
    code.write_text("def f(x):\n    return x -\\\n        1\n\n\nprint(f(2))\n", encoding="utf-8")
    extraction = extract_file(code)
    assert extraction.mime_type == "text/x-python" and extraction.metadata["language"] == "python"
    assert len(extraction.chunks) == 1 and "    return x" in extraction.chunks[0].text
    unknown = tmp_path / "Makefile"
    unknown.write_text("all:\n\techo hi\n", encoding="utf-8")
    assert extract_file(unknown).chunks


def test_extract_text_fact_result_note() -> None:
    fact = extract_text("Water boils at 100 °C at sea level.\n\nAlways.", DocumentType.FACT)
    assert fact.doc_type is DocumentType.FACT and len(fact.chunks) == 1
    assert fact.title == "Water boils at 100 °C at sea level."
    result = extract_text("# Summary\n\n" + "The analysis found things.\n\n" * 50, DocumentType.RESULT, title="Run 12")
    assert len(result.chunks) == 1 and result.title == "Run 12"
    note = extract_text("---\ntags: [a/b]\n---\n# Note title\n\nBody #inline\n\n## Part\n\nMore.", DocumentType.NOTE)
    assert note.title == "Note title" and note.tags == ["a/b", "inline"]
    assert [c.section for c in note.chunks] == [None, "Part"]
    titled = extract_text("# Heading\n\ntext", DocumentType.NOTE, title="Given")
    assert titled.title == "Given"


def test_extract_text_refusals() -> None:
    with pytest.raises(EmptyFile):
        extract_text("  \n ", DocumentType.FACT)
    with pytest.raises(EmptyFile):
        extract_text("\u200b\u00ad\n", DocumentType.RESULT)
    with pytest.raises(InvalidInput):
        extract_text("x", DocumentType.FOLDER)


def test_text_mentioning_pdf_header_stays_text(tmp_path: Path) -> None:
    note = tmp_path / "pdf-notes.md"
    note.write_text("# PDF internals\n\nEvery file starts with %PDF-1.7 and ends with %%EOF.\n", encoding="utf-8")
    extraction = extract_file(note)
    assert extraction.doc_type is DocumentType.NOTE and extraction.title == "PDF internals"
