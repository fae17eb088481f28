"""The write-time duplicate guard and ``relates_to`` of memory_store (issue 12): adding a memory twice never
removes it, a contradicting memory never removes the old one without adding itself, a failing call writes
nothing."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import DocumentNotFound, InvalidInput, UnknownRelationType
from vancetope_desktop.services import documents, indexing, lifecycle, scopes
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.services.memory_guard import remember, similar_memories

P = DEFAULT_PROJECT


def _active(lib):
    return sorted(d.content for d in documents.list_documents(lib, scope=P, types=[DocumentType.NOTE])  # not its atoms
                  if d.status is DocumentStatus.ACTIVE)


@pytest.mark.slow  # embeds with the bundled model (the point is meaning), once through the index
def test_adding_twice_never_removes_and_update_keeps_one_active_copy(library):
    fact = "The landing page uses OKLCH colour tokens only."
    first = remember(library, fact, scope=P)
    indexing.try_drain(library)  # the next checks find it through the vector index
    again = remember(library, fact, scope=P)
    assert (again.stored, again.document.id, again.duplicates[0].similarity) == (False, first.document.id, 1.0)
    paraphrase = remember(library, "Only OKLCH tokens are used for colours on the landing page.", scope=P)
    assert not paraphrase.stored and paraphrase.duplicates[0].id == first.document.id
    assert _active(library) == [fact]
    other = remember(library, "Deploys go through the staging cluster first.", scope=P)
    assert other.stored and other.duplicates == []
    both = remember(library, fact, scope=P, on_duplicate="store")
    assert both.stored and _active(library).count(fact) == 2
    newest = remember(library, fact, scope=P, on_duplicate="update")
    assert newest.stored and newest.archived == [both.document.id]  # the closest (identical, newest) one
    assert _active(library).count(fact) == 2 and documents.get_document(library, both.document.id).metadata[
        lifecycle.SUPERSEDED_BY] == newest.document.id


def test_a_contradiction_never_removes_the_old_without_adding_the_new(library):
    old = remember(library, "The deploy target is the staging cluster.", scope=P).document
    new_text = "The deploy target is the production cluster."
    held = remember(library, new_text, scope=P)
    assert not held.stored and held.duplicates[0].id == old.id  # asked, not guessed
    for bad in (dict(on_duplicate="replace"), dict(relates_to=(old.id, "overrides")),
                dict(relates_to=("doc_missing", "updates"))):
        with pytest.raises((InvalidInput, UnknownRelationType, DocumentNotFound)):
            remember(library, new_text, scope=P, **bad)
    assert _active(library) == ["The deploy target is the staging cluster."]  # nothing written by the failures
    kept = remember(library, new_text, scope=P, on_duplicate="store", relates_to=(old.id, "updates"))
    assert kept.stored and kept.archived == [old.id] and _active(library) == [new_text]
    assert documents.get_document(library, old.id).status is DocumentStatus.ARCHIVED  # kept for the audit trail


def test_the_guard_compares_within_one_scope_and_one_type(library):
    other = scopes.create_scope(library, "project", "elsewhere").path
    remember(library, "Bob reviews database migrations.", scope=other)
    documents.add_text(library, "Bob reviews database migrations.", doc_type=DocumentType.FACT, scope=P)
    assert similar_memories(library, "Bob reviews database migrations.", P) == []
    assert remember(library, "Bob reviews database migrations.", scope=P).stored
