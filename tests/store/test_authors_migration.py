"""Schema 8: who made each state (``document.updated_by``, ``document_version.created_by``); a schema-7 library
upgrades in place, its earlier states left without a name (nobody recorded them)."""

import sqlite3

from tests.store.schemas import downgrade_to_schema_7
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, identity
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.tables import SCHEMA_VERSION


def test_a_schema_7_library_gains_authors_and_keeps_its_versions(tmp_path, monkeypatch):
    monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        old = documents.add_text(lib, "First.", doc_type=DocumentType.NOTE, title="Old")
        documents.update_document(lib, old.id, content="Second.")
    downgrade_to_schema_7(path / "library.sqlite")
    with Library.open(path) as lib:
        assert any("upgraded from schema 7" in n for n in lib.notices)
        before = documents.get_document(lib, old.id)
        assert before.updated_by is None and [v.created_by for v in documents.list_versions(lib, old.id)] == [None]
        monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
        after = documents.update_document(lib, old.id, content="Third.")
        assert after.updated_by == "user:bob"
        assert [(v.content, v.created_by) for v in documents.list_versions(lib, old.id)] == [("First.", None),
                                                                                              ("Second.", None)]
    with sqlite3.connect(path / "library.sqlite") as con:
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    assert list((path / "backups").glob("library-schema7-*.sqlite"))  # copied before the upgrade
