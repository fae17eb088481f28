"""Values JSON cannot hold never poison a library: a NaN in front matter, and rows already malformed."""

from __future__ import annotations

import datetime as dt
import json
import math
import sqlite3
from pathlib import Path

from tests.store.schemas import as_written_before_alembic
from vancetope_desktop.core.json_values import to_jsonable
from vancetope_desktop.services import documents, imports, relations
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.search import search
from vancetope_desktop.store.json_columns import UNREADABLE_KEY

NAN_NOTE = "---\ntitle: Poisoned\nyear: .nan\nweight: .inf\nwhen: 2024-01-31\n---\n# Poisoned\n\nligature quark text\n"


def _invalid_rows(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT COUNT(*) FROM document WHERE NOT json_valid(metadata)").fetchone()[0]


def test_to_jsonable_converts_what_json_cannot_hold() -> None:
    value = {"nan": math.nan, "inf": -math.inf, "ok": 1.5, 2: dt.date(2024, 1, 31), "set": {"b", "a"},
             "bytes": b"caf\xc3\xa9", "nested": [(math.inf, None)]}
    assert to_jsonable(value) == {"nan": None, "inf": None, "ok": 1.5, "2": "2024-01-31", "set": ["a", "b"],
                                  "bytes": "café", "nested": [[None, None]]}
    json.dumps(to_jsonable(value), allow_nan=False)  # strict JSON


def test_a_nan_in_front_matter_does_not_block_later_uploads(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "a-nan.md").write_text(NAN_NOTE, encoding="utf-8")
    (folder / "b-after.md").write_text("# After\n\nsecond note in the folder\n", encoding="utf-8")
    report = imports.upload(library, [folder])
    assert [o.status for o in report.outcomes] == ["imported", "imported"], report.outcomes
    poisoned = documents.get_document(library, report.outcomes[0].document_id)
    assert poisoned.metadata["year"] is None and poisoned.metadata["weight"] is None
    assert poisoned.metadata["when"] == "2024-01-31"
    assert _invalid_rows(library.paths.database) == 0
    later = tmp_path / "later.md"
    later.write_text("# Later\n\nan upload after the NaN note\n", encoding="utf-8")
    assert imports.upload(library, [later]).outcomes[0].status == "imported"
    assert imports.upload(library, [later]).outcomes[0].status == "duplicate"  # the source_path query works


def test_values_written_by_services_are_converted_at_the_engine(library: Library) -> None:
    added = documents.add_text(library, "a fact", metadata={"score": math.nan, "at": dt.datetime(2024, 5, 1, 12)})
    doc = documents.get_document(library, added.id)
    assert doc.metadata["score"] is None and doc.metadata["at"] == "2024-05-01T12:00:00"
    assert _invalid_rows(library.paths.database) == 0


def _poison(db: Path, ids: list[str]) -> None:
    """Write invalid JSON behind the library's back, as an older version or another tool would."""
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE document SET metadata = ? WHERE id = ?", ('{"year": NaN, "x": Infinity}', ids[0]))
        connection.execute("UPDATE document SET metadata = ? WHERE id = ?", ('{"broken": ', ids[1]))


def test_a_library_holding_malformed_rows_is_repaired_when_it_opens(tmp_path: Path) -> None:
    root = tmp_path / "library"
    with Library.open(root) as lib:
        ids = [documents.add_text(lib, f"note {i} about quarks", title=f"n{i}").id for i in range(3)]
    _poison(root / "library.sqlite", ids)
    with sqlite3.connect(root / "library.sqlite") as connection:  # as written by a version before schema 3
        as_written_before_alembic(connection, 2)
    assert _invalid_rows(root / "library.sqlite") == 2
    with Library.open(root) as lib:
        assert _invalid_rows(root / "library.sqlite") == 0
        assert documents.get_document(lib, ids[0]).metadata == {"year": None, "x": None}
        assert documents.get_document(lib, ids[1]).metadata == {UNREADABLE_KEY: '{"broken": '}
        note = tmp_path / "new.md"
        note.write_text("# New\n\nimported after the repair\n", encoding="utf-8")
        assert imports.upload(lib, [note]).outcomes[0].status == "imported"


def test_malformed_rows_written_while_open_block_nothing(library: Library, tmp_path: Path) -> None:
    ids = [documents.add_text(library, f"note {i} about gluons", title=f"n{i}").id for i in range(3)]
    _poison(library.paths.database, ids)
    note = tmp_path / "new.md"
    note.write_text("# New\n\ngluons imported beside malformed rows\n", encoding="utf-8")
    assert imports.upload(library, [note]).outcomes[0].status == "imported"
    assert imports.upload(library, [note]).outcomes[0].status == "duplicate"
    listed = {d.id: d for d in documents.list_documents(library)}
    assert set(ids) <= set(listed)
    assert listed[ids[1]].metadata == {UNREADABLE_KEY: '{"broken": '}
    assert {h.document.id for h in search(library, "gluons").hits} >= set(ids)
    assert relations.derived_documents(library, [ids[2]]) == []
