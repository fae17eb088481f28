"""CSV/TSV, JSON and YAML files: one key-value chunk per record."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest import structured
from vancetope_desktop.ingest.registry import extract_file, extract_text


@pytest.mark.corpus
def test_semicolon_csv_has_many_columns(corpus: Path) -> None:
    extraction = extract_file(corpus / "data/semicolon-delimited.csv")
    assert extraction.doc_type is DocumentType.STRUCTURED and extraction.mime_type == "text/csv"
    assert extraction.metadata["delimiter"] == ";"
    assert len(extraction.metadata["columns"]) == 12
    assert extraction.metadata["row_count"] == 5 and len(extraction.chunks) == 5
    first = extraction.chunks[0]
    assert first.section == "row 1"
    assert first.text.startswith("Index: 1; Customer Id: DD37Cf93aecA6Dc; First Name: Sheryl")


@pytest.mark.corpus
def test_ragged_csv_does_not_crash(corpus: Path) -> None:
    extraction = extract_file(corpus / "data/inconsistent-header.csv")
    assert extraction.metadata["columns"] == ["1", "2", "3"]
    assert extraction.chunks[0].text == "1: a; 2: b; 3: c; column 4: d"


@pytest.mark.corpus
def test_empty_cells_are_skipped(corpus: Path) -> None:
    extraction = extract_file(corpus / "data/exoplanets.csv")
    assert extraction.metadata["row_count"] == 1035
    assert all(": ;" not in c.text and not c.text.endswith(": ") for c in extraction.chunks)


@pytest.mark.corpus
def test_geojson_features_are_records(corpus: Path) -> None:
    extraction = extract_file(corpus / "data/earthquakes-usgs-week.geojson.json")
    assert extraction.mime_type == "application/json"
    features = [c for c in extraction.chunks if (c.section or "").startswith("features[")]
    assert len(features) == 1707
    assert features[3].section == "features[3]"
    assert "properties.mag: " in features[3].text and "geometry.coordinates: " in features[3].text
    assert "features" in extraction.metadata["keys"]
    assert any(c.section == "metadata" and "metadata.count: 1707" in c.text for c in extraction.chunks)


@pytest.mark.corpus
def test_yaml_files(corpus: Path) -> None:
    cff = extract_file(corpus / "data/napari-citation.cff.yaml")
    assert cff.metadata["keys"][:3] == ["cff-version", "message", "title"]
    assert any("Zürich" in c.text or "Rodríguez-Guerra" in c.text for c in cff.chunks)
    assert any(c.section == "authors[0]" for c in cff.chunks)
    zotero = extract_file(corpus / "data/zotero-library-dump.yaml")
    items = [c for c in zotero.chunks if (c.section or "").startswith("items[")]
    assert len(items) >= 20
    assert any("creators[0].lastName: Pink" in c.text for c in items)


def test_invalid_json_is_imported_as_text(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"a": 1, "b": [1, 2,}', encoding="utf-8")
    extraction = extract_file(path)
    assert extraction.chunks and any("not valid JSON" in w for w in extraction.warnings)


def test_tsv_and_scalar_lists(tmp_path: Path) -> None:
    path = tmp_path / "table.tsv"
    path.write_text("name\tvalue\nalpha\t1\nbeta\t\n", encoding="utf-8")
    extraction = extract_file(path)
    assert [c.text for c in extraction.chunks] == ["name: alpha; value: 1", "name: beta"]
    data = extract_text(
        '{"title": "T", "values": [1, 2, 3], "nested": {"a": {"b": null, "c": true}}}', DocumentType.STRUCTURED
    )
    assert [(c.section, c.text) for c in data.chunks] == [
        ("title", "title: T"),
        ("values", "values: 1, 2, 3"),
        ("nested", "nested.a.c: true"),
    ]


def test_record_cap_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structured, "MAX_RECORDS", 10)
    extraction = structured.extract_data([{"i": i} for i in range(25)], title="t", mime_type="application/json")
    assert len(extraction.chunks) == 10 and extraction.metadata["record_count"] == 25
    assert "only the first 10" in extraction.warnings[0]
