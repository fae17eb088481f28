"""Schema 6: the ``derived_from`` and ``links_to`` metadata lists of an older library become relation edges."""

import json
import sqlite3

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents, notelinks, relations
from vancetope_desktop.services.library import Library

from .schemas import downgrade_to_schema_5


def test_an_older_librarys_lineage_and_links_become_edges(tmp_path):
    lib = Library.open(tmp_path / "lib")
    paper = documents.add_text(lib, "Attention replaces recurrence.", title="Paper")
    result = documents.add_text(lib, "Claim: attention suffices.", doc_type=DocumentType.RESULT, title="Claims",
                                derived_from=[paper.id])
    note = documents.add_text(lib, "Builds on [[Claims]].", doc_type=DocumentType.NOTE, title="Reading")
    lib.close()
    database = tmp_path / "lib" / "library.sqlite"
    downgrade_to_schema_5(database)
    with sqlite3.connect(database) as con:  # an input purged long ago, as old lists could hold
        con.execute("UPDATE document SET metadata = json_set(metadata, '$.derived_from', json(?)) WHERE id = ?",
                    (json.dumps([paper.id, "doc_purged"]), result.id))
        stored = json.loads(con.execute("SELECT metadata FROM document WHERE id = ?", (note.id,)).fetchone()[0])
    assert stored["links_to"] == [result.id]  # what the code before schema 6 wrote

    lib = Library.open(tmp_path / "lib")
    try:
        assert list((tmp_path / "lib").rglob("library-schema5-*.sqlite"))  # the copy made before migrating
        assert relations.derived_from(lib, result.id) == [paper.id]
        assert relations.derivation_closure(lib, [paper.id]) == [paper.id, result.id]
        assert [m.document.id for m in notelinks.backlinks(lib, result.id).linked] == [note.id]
        for doc_id in (result.id, note.id):
            assert not {"derived_from", "links_to"} & set(documents.get_document(lib, doc_id).metadata)
        # Purging the input takes its edges; the result stays.
        documents.set_status(lib, paper.id, DocumentStatus.DELETED)
        documents.purge_document(lib, paper.id)
        assert relations.derived_from(lib, result.id) == []
    finally:
        lib.close()
