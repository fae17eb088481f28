"""Undo and redo of a person's actions (trash, folder and scope moves, tags, renames, edits), built on the
audit trail and the versions: each kind undone and redone, a stale undo refused, the history kept in the
library across reopening it, and the actions nobody recorded (agents, review decisions) left alone."""

import sqlite3

import pytest

from tests.store.schemas import downgrade_to_schema_3
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import NothingToUndo, UndoRefused
from vancetope_desktop.core.undo import UserAction
from vancetope_desktop.services import audit, documents, folders, moves, review, scopes, tags, undo
from vancetope_desktop.services.library import Library

ME = "user:tester"


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL (issue 17)."""
    return any_library


def _act(label: str) -> UserAction:
    return UserAction(label=label, actor=ME)


def _note(lib, text="A note about attention.", **kwargs):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, **kwargs)


def _doc(lib, doc_id):
    return documents.get_document(lib, doc_id)


def test_a_trash_of_several_documents_is_one_step_undone_and_redone(library):
    a, b = _note(library, "First note."), _note(library, "Second note.")
    action = UserAction.named("Trash", [a.title, b.title], ME)
    for doc in (a, b):
        documents.set_status(library, doc.id, DocumentStatus.DELETED, user_action=action)
    undoable, redoable = undo.history(library, ME)
    assert [(s.label, s.kind, s.documents) for s in undoable] == [("Trash 2 documents", "trash", 2)]
    assert redoable == []

    assert undo.undo(library, ME).label == "Trash 2 documents"
    assert {_doc(library, d.id).status for d in (a, b)} == {DocumentStatus.ACTIVE}
    assert [s.label for s in undo.history(library, ME)[1]] == ["Trash 2 documents"]

    undo.redo(library, ME)
    assert {_doc(library, d.id).status for d in (a, b)} == {DocumentStatus.DELETED}
    assert undo.history(library, ME)[1] == []


def test_a_trashed_folder_comes_back_with_its_contents(library):
    folder = folders.create_folder(library, "Reading")
    inside = _note(library, folder_id=folder.id)
    documents.set_status(library, folder.id, DocumentStatus.DELETED, user_action=_act("Trash “Reading”"))
    assert _doc(library, inside.id).status is DocumentStatus.DELETED
    undo.undo(library, ME)
    assert {_doc(library, d).status for d in (folder.id, inside.id)} == {DocumentStatus.ACTIVE}


def test_a_folder_move_is_undone_and_redone(library):
    papers = folders.create_folder(library, "Papers")
    note = _note(library)
    folders.move_to_folder(library, note.id, papers.id, user_action=_act("Move “A note”"))
    undo.undo(library, ME)
    assert _doc(library, note.id).folder_id is None
    undo.redo(library, ME)
    assert _doc(library, note.id).folder_id == papers.id


def test_a_tag_change_is_undone_as_a_new_version_and_redone(library):
    note = _note(library, tags=["draft"])
    documents.tag_document(library, note.id, add=["important"], remove=["draft"], user_action=_act("Tag"))
    undo.undo(library, ME)
    after_undo = _doc(library, note.id)
    assert (after_undo.tags, after_undo.version) == (["draft"], 3)  # restored as version 3, nothing rewritten
    assert [v.number for v in documents.list_versions(library, note.id)] == [1, 2]
    undo.redo(library, ME)
    assert _doc(library, note.id).tags == ["important"]
    undo.undo(library, ME)  # and back again: each undo and redo is checked against the last one
    assert _doc(library, note.id).tags == ["draft"]


def test_renames_of_documents_and_folders_are_undone(library):
    note = _note(library, title="Old title")
    folder = folders.create_folder(library, "Old folder")
    documents.update_document(library, note.id, title="New title", user_action=_act("Rename “Old title”"))
    folders.rename_folder(library, folder.id, "New folder", user_action=_act("Rename “Old folder”"))
    assert [s.kind for s in undo.history(library, ME)[0]] == ["rename", "rename"]
    assert undo.undo(library, ME).label == "Rename “Old folder”"
    assert _doc(library, folder.id).title == "Old folder"
    undo.undo(library, ME)
    assert _doc(library, note.id).title == "Old title"


def test_an_edit_is_undone_by_restoring_the_previous_text_as_a_new_version(library):
    note = _note(library, "# Plan\n\nFirst draft.")
    documents.update_document(library, note.id, content="# Plan\n\nSecond draft.", user_action=_act("Edit “Plan”"))
    undo.undo(library, ME)
    doc = _doc(library, note.id)
    assert "First draft." in doc.content and doc.version == 3
    assert "First draft." in " ".join(c.text for c in documents.list_chunks(library, note.id))
    undo.redo(library, ME)
    assert "Second draft." in _doc(library, note.id).content


def test_an_undo_is_refused_when_an_agent_changed_the_document_since(library):
    note = _note(library, "# Plan\n\nFirst draft.")
    documents.tag_document(library, note.id, add=["important"], user_action=_act("Tag “Plan”"))
    documents.update_document(library, note.id, content="# Plan\n\nAn agent's rewrite.")  # no user action: an agent
    with pytest.raises(UndoRefused, match=r"“Plan” was changed .*would overwrite that change"):
        undo.undo(library, ME)
    doc = _doc(library, note.id)
    assert "An agent's rewrite." in doc.content and doc.tags == ["important"]  # nothing was touched
    assert undo.history(library, ME) == ([], [])  # taken off the history: the next undo reaches older actions
    assert audit.document_history(library, note.id)[-1].action == "skip"


def test_a_group_is_undone_all_or_nothing(library):
    a, b = _note(library, "First note."), _note(library, "Second note.")
    action = _act("Trash 2 documents")
    for doc in (a, b):
        documents.set_status(library, doc.id, DocumentStatus.DELETED, user_action=action)
    documents.set_status(library, b.id, DocumentStatus.ACTIVE)  # restored by someone else
    with pytest.raises(UndoRefused, match=r"became active.*taken off the undo history"):
        undo.undo(library, ME)
    assert _doc(library, a.id).status is DocumentStatus.DELETED


def test_a_new_action_after_an_undo_empties_the_redo_stack(library):
    note = _note(library)
    documents.tag_document(library, note.id, add=["one"], user_action=_act("Tag one"))
    undo.undo(library, ME)
    documents.tag_document(library, note.id, add=["two"], user_action=_act("Tag two"))
    undoable, redoable = undo.history(library, ME)
    assert ([s.label for s in undoable], redoable) == (["Tag two"], [])
    with pytest.raises(UndoRefused, match="nothing to redo"):
        undo.redo(library, ME)


def test_each_person_undoes_only_their_own_actions(library):
    note = _note(library)
    documents.tag_document(library, note.id, add=["mine"], user_action=UserAction(label="Tag", actor="user:other"))
    with pytest.raises(UndoRefused, match="nothing to undo"):
        undo.undo(library, ME)


def test_the_history_survives_reopening_the_library(tmp_path):
    lib = Library.open(tmp_path / "lib")
    note = _note(lib)
    documents.set_status(lib, note.id, DocumentStatus.DELETED, user_action=_act("Trash “A note”"))
    lib.close()
    again = Library.open(tmp_path / "lib")
    try:
        assert undo.undo(again, ME).label == "Trash “A note”"
        assert _doc(again, note.id).status is DocumentStatus.ACTIVE
    finally:
        again.close()


def test_a_schema_3_library_gains_the_audit_payload_and_keeps_its_trail(tmp_path):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        scopes.create_scope(lib, "session", "s1", parent="project/inbox")
        note = _note(lib, scope="session/s1")
        moves.move_to_scope(lib, note.id, "project", actor=ME)  # an entry of the old kind
    downgrade_to_schema_3(path / "library.sqlite")
    with Library.open(path) as lib:
        with sqlite3.connect(path / "library.sqlite") as con:
            indexes = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE tbl_name='audit_entry'")}
        assert {"ix_audit_entry_undo", "ix_audit_entry_group", "ix_audit_entry_target"} <= indexes
        assert [e.action for e in audit.document_history(lib, note.id)] == ["promote"]
        assert undo.history(lib, ME) == ([], [])  # written before undo existed: not an undoable action
        documents.set_status(lib, note.id, DocumentStatus.DELETED, user_action=_act("Trash “A note”"))
        assert undo.undo(lib, ME).label == "Trash “A note”"


def test_a_scope_move_by_hand_is_undone_into_its_folder_but_an_approved_request_is_not(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    folder = folders.create_folder(library, "Drafts", scope="session/s1")
    note = _note(library, scope="session/s1", folder_id=folder.id)
    moves.move_documents(library, [note.id], "project", user_action=_act("Move “A note” to Inbox"))
    assert _doc(library, note.id).scope == "project/inbox"
    undo.undo(library, ME)
    back = _doc(library, note.id)
    assert (back.scope, back.folder_id) == ("session/s1", folder.id)
    assert [e.action for e in audit.document_history(library, note.id)][-2:] == ["demote", "undo"]
    undo.redo(library, ME)
    assert _doc(library, note.id).scope == "project/inbox"

    other = _note(library, "A result to publish.", scope="session/s1")
    request = review.request_promotion(library, other.id, "project", requested_by=ME)
    review.approve(library, [request.id], actor=ME)
    # The review's move is a decision, not an action of the undo history.
    assert [s.label for s in undo.history(library, ME)[0]] == ["Move “A note” to Inbox"]


def test_a_move_into_a_folder_of_another_scope_comes_back_in_one_undo(library):
    """The window's drop on a folder of another scope: a scope move then a folder move, one action."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    target = folders.create_folder(library, "Shared")  # in project/inbox
    note = _note(library, scope="session/s1")
    action = _act("Move “A note” to Inbox")
    moves.move_documents(library, [note.id], "project/inbox", user_action=action)
    folders.move_to_folder(library, note.id, target.id, user_action=action)
    assert [s.documents for s in undo.history(library, ME)[0]] == [1]  # two entries, one action, one document
    undo.undo(library, ME)
    back = _doc(library, note.id)
    assert (back.scope, back.folder_id) == ("session/s1", None)
    undo.redo(library, ME)
    there = _doc(library, note.id)
    assert (there.scope, there.folder_id) == ("project/inbox", target.id)


def test_a_tag_renamed_across_the_library_comes_back_in_one_undo(library):
    a, b = _note(library, "First.", tags=["topic/attention"]), _note(library, "Second.", tags=["topic"])
    tags.rename_tag(library, "topic", "subject", user_action=_act("Rename #topic to #subject"))
    assert [(s.label, s.documents) for s in undo.history(library, ME)[0]] == [("Rename #topic to #subject", 2)]
    undo.undo(library, ME)
    assert (_doc(library, a.id).tags, _doc(library, b.id).tags) == (["topic/attention"], ["topic"])


def test_the_steps_of_a_purged_document_leave_the_history_and_undo_goes_past_them(library):
    # Found by a new user: the Trash of a purged note stayed in the list and the next undo failed on it.
    note, other = _note(library), _note(library, "Other.")
    documents.tag_document(library, other.id, add=["x"], user_action=_act("Tag “Other”"))
    documents.tag_document(library, note.id, add=["y"], user_action=_act("Tag “A note”"))
    documents.set_status(library, note.id, DocumentStatus.DELETED, user_action=_act("Trash “A note”"))
    documents.purge_document(library, note.id)
    assert [s.label for s in undo.history(library, ME)[0]] == ["Tag “Other”"]
    assert undo.undo(library, ME).label == "Tag “Other”"
    with pytest.raises(NothingToUndo):
        undo.undo(library, ME)


def test_a_step_that_keeps_some_of_its_documents_takes_back_only_those(library):
    a, b = _note(library, "First note."), _note(library, "Second note.")
    action = UserAction.named("Trash", [a.title, b.title], ME)
    for doc in (a, b):
        documents.set_status(library, doc.id, DocumentStatus.DELETED, user_action=action)
    documents.purge_document(library, a.id)
    assert [s.documents for s in undo.history(library, ME)[0]] == [1]
    assert undo.undo(library, ME).document_ids == [b.id]
    assert _doc(library, b.id).status is DocumentStatus.ACTIVE


def test_two_actions_on_one_document_are_undone_one_after_the_other_and_redone(library):
    # The second undo meets the state the first undo restored (a new version): the person's own stack
    # unwinding, not a change by someone else (it was refused, and the step lost, found by a new user).
    note = _note(library)
    documents.tag_document(library, note.id, add=["a1"], user_action=_act("Tag a1"))
    documents.update_document(library, note.id, title="Renamed", user_action=_act("Rename"))
    documents.tag_document(library, note.id, add=["a2"], user_action=_act("Tag a2"))
    for _ in range(3):
        undo.undo(library, ME)
    back = _doc(library, note.id)
    assert (back.tags, back.title) == ([], note.title)
    for _ in range(3):
        undo.redo(library, ME)
    again = _doc(library, note.id)
    assert (again.tags, again.title) == (["a1", "a2"], "Renamed")
    documents.update_document(library, note.id, content="An agent's edit.")  # someone else's change
    with pytest.raises(UndoRefused, match="would overwrite"):
        undo.undo(library, ME)
