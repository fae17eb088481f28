"""Schema 5: the document's memory type, a nullable indexed column; a schema-4 library upgrades in place."""

import sqlite3

from tests.store.schemas import downgrade_to_schema_4
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.memories import MemoryType
from vancetope_desktop.services import documents
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.tables import SCHEMA_VERSION


def test_a_schema_4_library_gains_the_memory_type_and_keeps_its_documents(tmp_path):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        old = documents.add_text(lib, "An old note about herons", title="Old")
    downgrade_to_schema_4(path / "library.sqlite")
    with Library.open(path) as lib:
        assert any("upgraded from schema 4" in n for n in lib.notices)
        assert documents.get_document(lib, old.id).memory_type is None
        new = documents.add_text(lib, "Always run ruff before committing", doc_type=DocumentType.NOTE,
                                 memory_type="feedback")
        assert documents.get_document(lib, new.id).memory_type is MemoryType.FEEDBACK
    with sqlite3.connect(path / "library.sqlite") as con:
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        indexes = {row[1]: row for row in con.execute("PRAGMA index_list(document)")}
        assert "ix_document_memory_type" in indexes
        plan = con.execute("EXPLAIN QUERY PLAN SELECT id FROM document WHERE memory_type = 'feedback'").fetchall()
        assert "ix_document_memory_type" in str(plan)
    assert list((path / "backups").glob("library-schema4-*.sqlite"))  # copied before the upgrade
