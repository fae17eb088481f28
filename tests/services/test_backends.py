"""The services' main operations on both databases (issue 17): the embedded library's SQLite, then PostgreSQL
(``library``), where the SQL the services write by hand (``store/dialect_sql``) and the keyword index
(``index/lexical_backend``) run on the server; each operation checked by what it must leave behind, the same on
both."""

import shutil

import pytest

from tests.conftest import SHARED
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.core.undo import UserAction
from vancetope_desktop.index import lexical_backend
from vancetope_desktop.services import (
    bibliography,
    citation_keys,
    documents,
    duplicates,
    graph,
    imports,
    moves,
    notelinks,
    relations,
    scopes,
    tags,
    undo,
)
from vancetope_desktop.store.db import read_session
from vancetope_desktop.store.fulltext import parse_query

ME = "user:tester"


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL."""
    return any_library
CORPUS = SHARED / "corpus"


def _note(lib, text, **kwargs):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, **kwargs)


def _keyword(lib, query: str) -> list[str]:
    """The documents the keyword index finds for ``query`` among the active ones, best first (what
    ``services.search`` fuses with the vectors' ranking: ``index/lexical_backend``)."""
    parsed = parse_query(query)
    where = scopes.visibility_filter(lib, scopes.resolve_scope(lib, None)).and_in("status", ["active"])
    with read_session(lib.engine) as session:
        quoted = lexical_backend.documents_with_quoted(session, parsed)
        if quoted is not None:
            where.and_ids(quoted)
        hits = lexical_backend.search_chunks(session, parsed, where, 20)
    return list(dict.fromkeys(hit.document_id for hit in hits))


def test_texts_are_stored_tagged_listed_and_found_by_keyword(library):
    a = _note(library, "# Attention\n\nScaled dot-product attention weighs the values.", tags=["ml/attention"])
    b = documents.add_text(library, "Skimmed milk powder keeps for a year.", tags=["food"])
    documents.tag_document(library, b.id, add=["ml"])
    assert documents.get_document(library, a.id).content.startswith("# Attention")
    assert {d.id for d in documents.list_documents(library)} >= {a.id, b.id}
    counted = {t.tag: (t.own, t.total) for t in tags.list_tags(library)}
    assert counted == {"food": (1, 1), "ml": (1, 2), "ml/attention": (1, 1)}
    assert tags.suggest_tags(library, "att") == ["ml/attention"]

    assert _keyword(library, "attention values") == [a.id]
    assert _keyword(library, '"milk powder"') == [b.id]
    documents.rename_document(library, b.id, "Pantry notes")
    assert _keyword(library, "pantry") == [b.id]


def test_a_real_note_file_is_uploaded_and_searchable(library, tmp_path):
    source = CORPUS / "notes" / "category-theory-overview.md"
    shutil.copy(source, tmp_path / source.name)
    report = imports.upload(library, [tmp_path / source.name])
    assert [o.document_id for o in report.outcomes if o.document_id]
    doc_id = next(o.document_id for o in report.outcomes if o.document_id)
    assert documents.list_chunks(library, doc_id)
    assert _keyword(library, "functor category")[:1] == [doc_id]


def test_a_document_moves_between_scopes_and_the_move_is_undone(library):
    scopes.create_scope(library, "session", "s_1", parent="project/inbox")
    doc = _note(library, "A finding worth promoting.", scope="session/s_1")
    moved = moves.move_to_scope(library, doc.id, "project/inbox", "up", actor=ME)
    assert [d.scope for d in moved] == ["project/inbox"]

    action = UserAction(label="Trash", actor=ME)
    documents.set_status(library, doc.id, DocumentStatus.DELETED, user_action=action)
    assert [s.label for s in undo.history(library, ME)[0]] == ["Trash"]
    undo.undo(library, ME)
    assert documents.get_document(library, doc.id).status == DocumentStatus.ACTIVE
    assert [s.label for s in undo.history(library, ME)[1]] == ["Trash"]


def test_relations_derived_from_and_updates(library):
    first = _note(library, "Source one.")
    second = _note(library, "Source two.")
    derived = _note(library, "Derived from both.", derived_from=[second.id, first.id])
    assert relations.derived_from(library, derived.id) == [second.id, first.id]
    assert relations.derived_documents(library, [first.id]) == [derived.id]

    newer = _note(library, "Source one, corrected.")
    graph.relate(library, newer.id, first.id, RelationType.UPDATES, created_by=ME)
    assert documents.get_document(library, first.id).status == DocumentStatus.ARCHIVED
    incoming = graph.relations_of(library, first.id).incoming
    assert [d.id for d in incoming[RelationType.UPDATES]] == [newer.id]
    assert [d.id for d in incoming[RelationType.DERIVED_FROM]] == [derived.id]


def test_wikilinks_resolve_and_backlinks_find_mentions(library):
    target = _note(library, "Graph partitioning splits a graph.", title="Graph partitioning")
    linker = _note(library, "See [[Graph partitioning]] for the method.", title="Reading list")
    mention = _note(library, "Graph partitioning appears here without a link.", title="Aside")
    assert [(link.state, link.target) for link in notelinks.note_links(library, linker.id)] == [
        ("resolved", "Graph partitioning")]
    found = notelinks.backlinks(library, target.id)
    assert [m.document.id for m in found.linked] == [linker.id]
    assert [m.document.id for m in found.unlinked] == [mention.id]


def test_a_real_bibliography_is_imported_keyed_and_duplicates_found(library):
    whole = (CORPUS / "refs" / "nanowire-physics-library-latex-accents.bib").read_text(encoding="utf-8")
    content = "\n@".join(whole.split("\n@")[:6])  # its first entries: the suite's time is short
    report = bibliography.add_references(library, content)
    ids = [e.document_id for e in report.entries]
    assert len(ids) >= 4 and report.count("imported") == len(ids)
    again = bibliography.add_references(library, content)  # known by key and title: nothing new
    assert again.count("imported") == 0 and sorted(e.document_id for e in again.entries) == sorted(ids)
    keys = citation_keys.ensure_keys(library, ids)
    assert sorted(keys) == sorted(ids) and len(set(keys.values())) == len(ids)
    assert all(citation_keys.is_valid_key(k) for k in keys.values())

    text = "Two copies of one note are one document twice."
    first, second = _note(library, text), _note(library, text)
    groups = duplicates.find_duplicates(library)
    assert [sorted(d.id for d in g.documents) for g in groups] == [sorted([first.id, second.id])]
