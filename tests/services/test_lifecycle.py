"""``updates`` archives the older memory in the same transaction, chains leave only the newest active, cycles
are refused with nothing written, restore brings one back; ``contradicts`` conflicts show on search hits and
are settled by keeping one."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput, UpdatesCycle
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.services import audit, conflicts, documents, graph, lifecycle, relations, scopes
from vancetope_desktop.services.search import search


def _note(lib, text):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=text)


def _status(lib, *docs):
    return [documents.get_document(lib, d.id).status for d in docs]


def test_a_chain_of_updates_leaves_only_the_newest_active_and_a_cycle_writes_nothing(library):
    a, b, c = (_note(library, f"Colour tokens, version {n}") for n in (1, 2, 3))
    assert graph.relate(library, b.id, a.id, "updates").archived == [a.id]
    assert graph.relate(library, c.id, b.id, "updates").archived == [b.id]
    assert _status(library, a, b, c) == [DocumentStatus.ARCHIVED, DocumentStatus.ARCHIVED, DocumentStatus.ACTIVE]
    assert documents.get_document(library, a.id).metadata[lifecycle.SUPERSEDED_BY] == b.id
    assert audit.document_history(library, a.id)[-1].reason == f"superseded by {b.id} ({b.title})"
    history = len(audit.document_history(library, c.id))
    with pytest.raises(UpdatesCycle, match="through 2 updates"):
        graph.relate(library, a.id, c.id, "updates")
    assert _status(library, c) == [DocumentStatus.ACTIVE]
    assert relations.targets(library, a.id, RelationType.UPDATES) == []
    assert len(audit.document_history(library, c.id)) == history


def test_restore_brings_an_archived_memory_back_and_drops_the_updates_into_it(library):
    old, new = _note(library, "Use shadcn"), _note(library, "Never use shadcn")
    graph.relate(library, new.id, old.id, RelationType.UPDATES)
    with pytest.raises(InvalidInput, match="not archived"):
        lifecycle.restore(library, new.id)
    restored = lifecycle.restore(library, old.id)
    assert restored.status is DocumentStatus.ACTIVE and lifecycle.SUPERSEDED_BY not in restored.metadata
    assert graph.relations_of(library, old.id).incoming == {}
    assert audit.document_history(library, old.id)[-1].reason == f"restored; it had been superseded by {new.id}"


def test_conflicts_show_on_hits_and_settling_keeps_one(library):
    old = _note(library, "The deploy target is the staging cluster")
    new = _note(library, "The deploy target is the production cluster")
    bystander = _note(library, "The deploy target was chosen in March")
    graph.relate(library, new.id, old.id, "contradicts")
    assert relations.conflicts_for(library, [old.id, new.id, bystander.id]) == {old.id: [new.id], new.id: [old.id]}
    assert [(c.first.id, c.second.id) for c in conflicts.list_conflicts(library)] == [(new.id, old.id)]
    hits = {h.document.id: h.conflicts_with for h in search(library, "deploy target cluster").hits}
    assert hits == {old.id: [new.id], new.id: [old.id], bystander.id: []}
    with pytest.raises(InvalidInput, match="not in conflict"):
        conflicts.settle(library, new.id, bystander.id)
    assert conflicts.settle(library, new.id, old.id).archived == [old.id]
    assert relations.conflicts_for(library, [old.id, new.id]) == {} and conflicts.list_conflicts(library) == []
    found = search(library, "deploy target cluster", statuses=(DocumentStatus.ACTIVE, DocumentStatus.ARCHIVED))
    assert {h.document.id for h in search(library, "deploy target cluster").hits} == {new.id, bystander.id}
    assert {h.document.id for h in found.hits} == {old.id, new.id, bystander.id}


def test_bring_back_restores_what_took_it_away_for_the_app_and_the_cli_alike(library):
    old, new, trashed = _note(library, "Port 8080"), _note(library, "Port 9090"), _note(library, "Port 7070")
    graph.relate(library, new.id, old.id, "updates")
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    back = lifecycle.bring_back(library, old.id)  # archived: lifecycle.restore, the updates into it go
    assert [d.status for d in back] == [DocumentStatus.ACTIVE] and lifecycle.SUPERSEDED_BY not in back[0].metadata
    assert graph.relations_of(library, old.id).incoming == {}
    assert [d.id for d in lifecycle.bring_back(library, trashed.id)] == [trashed.id]  # the trash: set_status
    assert _status(library, old, new, trashed) == [DocumentStatus.ACTIVE] * 3


def test_the_archived_view_lists_superseded_and_hand_archived_documents_and_names_what_superseded_them(library):
    old, new, shelved = _note(library, "Colours in hex"), _note(library, "Colours in OKLCH"), _note(library, "Old plan")
    graph.relate(library, new.id, old.id, "updates")
    documents.set_status(library, shelved.id, DocumentStatus.ARCHIVED)
    listed = documents.list_documents(library, **documents.smart_view_filters("archived"))
    assert {d.id for d in listed} == {old.id, shelved.id}
    assert documents.smart_counts(library)["archived"] == 2
    assert lifecycle.superseded_titles(library, listed) == {old.id: "Colours in OKLCH"}
    # A newer document the acting scope may not read is not named.
    scopes.create_scope(library, "session", "s_1", parent="project/inbox")
    hidden = documents.add_text(library, "Colours in P3", doc_type=DocumentType.NOTE, scope="session/s_1")
    graph.relate(library, hidden.id, new.id, "updates", scope="session/s_1")
    archived_new = documents.get_document(library, new.id)
    assert lifecycle.superseded_titles(library, [archived_new], "project/inbox") == {new.id: None}
    assert lifecycle.superseded_titles(library, [archived_new], "session/s_1") == {new.id: "Colours in P3"}
