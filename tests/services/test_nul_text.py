"""A NUL character (U+0000) in what people, agents and files write: PostgreSQL refuses it, SQLite keeps it; the
library stores it as U+FFFD on both (``core.text.without_nul``, ``store.nul_guard``), so the write is not lost, the
two databases hold the same text, and the words on either side of it are found."""

import pytest
from sqlalchemy import text

from tests.conftest import SHARED
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.text import without_nul
from vancetope_desktop.index import lexical_backend
from vancetope_desktop.services import conversations, documents, imports, notelinks, scopes
from vancetope_desktop.store.db import read_session, write_session
from vancetope_desktop.store.fulltext import parse_query

NOTE = SHARED / "corpus" / "notes" / "math-affine-schemes.md"
"""A real note longer than the 8 KB the importer reads to tell text from binary (a NUL there means binary)."""


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL."""
    return any_library


def _keyword(lib, query: str, scope: str | None = None) -> list[str]:
    """The active documents visible from ``scope`` (default: the current one) the keyword index finds for ``query``,
    best first."""
    where = scopes.visibility_filter(lib, scopes.resolve_scope(lib, scope)).and_in("status", ["active"])
    with read_session(lib.engine) as session:
        hits = lexical_backend.search_chunks(session, parse_query(query), where, 20)
    return list(dict.fromkeys(hit.document_id for hit in hits))


def test_the_rule_replaces_nul_in_nested_values_and_counts_them():
    value = {"title": "a\x00b", "k\x00": ["c", ("d\x00", 1)], "n": None}
    cleaned, changed = without_nul(value)
    assert cleaned == {"title": "a\ufffdb", "k\ufffd": ["c", ("d\ufffd", 1)], "n": None} and changed == 3
    untouched = {"title": "bell\x07 stays", "tags": ["x"]}
    assert without_nul(untouched) == (untouched, 0) and without_nul(untouched)[0] is untouched


def test_a_note_its_title_and_its_metadata_are_stored_with_replacement_characters(library):
    note = documents.add_text(library, "Quokka\x00wombat habitats of Rottnest island.", doc_type=DocumentType.NOTE,
                              title="Island\x00fauna", metadata={"origin": "pasted\x00text", "k\x00": 1})
    assert (note.title, note.content) == ("Island\ufffdfauna", "Quokka\ufffdwombat habitats of Rottnest island.")
    again = documents.get_document(library, note.id)
    assert (again.title, again.content) == (note.title, note.content)
    assert again.metadata["origin"] == "pasted\ufffdtext" and again.metadata["k\ufffd"] == 1
    assert _keyword(library, "wombat") == _keyword(library, "fauna") == [note.id]

    documents.rename_document(library, note.id, "Rottnest\x00notes")
    assert documents.get_document(library, note.id).title == "Rottnest\ufffdnotes"
    assert _keyword(library, "rottnest notes") == [note.id]


def test_a_conversation_message_is_stored_with_a_replacement_character(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    message = conversations.append(library, "session/s1", "the log said\x00segfault at boot")
    assert message.content == "the log said\ufffdsegfault at boot"
    assert conversations.get_message(library, message.id).content == message.content
    assert _keyword(library, "segfault", "session/s1") == [message.id]


def test_an_imported_file_with_a_nul_is_stored_with_a_replacement_character(library, tmp_path):
    data = NOTE.read_bytes()
    cut = data.index(b"\n", 9000) + 1  # past the importer's binary check, at the start of a line
    copy = tmp_path / NOTE.name
    copy.write_bytes(data[:cut] + b"Quokka\x00wombat sightings.\n" + data[cut:])
    report = imports.upload(library, [copy])
    assert not report.failed, report.outcomes
    document_id = report.outcomes[0].document_id
    stored = documents.get_document(library, document_id).content
    assert "Quokka\ufffdwombat sightings." in stored and "\x00" not in stored
    assert _keyword(library, "wombat") == [document_id]


def test_a_query_holding_a_nul_finds_what_was_stored(library):
    """Queries pass the rule too: PostgreSQL would refuse the NUL in a filter's parameter, and the text stored holds
    U+FFFD where the NUL was."""
    note = documents.add_text(library, "Quokka\x00wombat burrows.", doc_type=DocumentType.NOTE, title="Burrow\x00notes")
    assert _keyword(library, '"quokka\x00wombat"') == [note.id]


def test_a_statement_written_by_hand_passes_the_rule_too(library):
    """Core inserts and SQL text (chunks, the lexical index, ``library migrate``'s rows) bypass the ORM's rows: the
    engine's parameters are cleaned as well (``store.nul_guard.guard_engine``)."""
    note = documents.add_text(library, "Burrows of the quokka.", doc_type=DocumentType.NOTE)
    with write_session(library.engine) as session:
        session.execute(text("UPDATE document SET title = :title WHERE id = :id"), {"title": "Q\x00W", "id": note.id})
    assert documents.get_document(library, note.id).title == "Q\ufffdW"


def test_an_edit_whose_text_links_with_a_nul_is_stored_and_its_link_resolved(library):
    """The links of an edited text are resolved before its row is flushed: their titles hold the NUL then
    (``services.notelinks`` passes them through the rule)."""
    target = documents.add_text(library, "Wombats dig.", doc_type=DocumentType.NOTE, title="Wombat\x00burrows")
    note = documents.add_text(library, "Draft.", doc_type=DocumentType.NOTE)
    documents.update_document(library, note.id, content="See [[Wombat\x00burrows]].", metadata={"m": "1\x002"})
    edited = documents.get_document(library, note.id)
    assert edited.content == "See [[Wombat\ufffdburrows]]." and edited.metadata["m"] == "1\ufffd2"
    assert [link.document.id for link in notelinks.note_links(library, note.id) if link.document] == [target.id]
