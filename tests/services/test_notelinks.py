"""Links between notes: [[Title]] resolved within the note's scope chain, stored as links_to relations,
kept up to date on edits and new notes, and the backlinks (linked and unlinked mentions) of a document."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.wikilinks import find_links
from vancetope_desktop.services import documents, folders, moves, notelinks, relations, scopes, undo
from vancetope_desktop.services.library import DEFAULT_PROJECT

NOTE = DocumentType.NOTE


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL (issue 17)."""
    return any_library


def _note(lib, content, title=None, scope=None):
    return documents.add_text(lib, content, doc_type=NOTE, title=title, scope=scope)


def test_links_are_parsed_with_shown_text_and_headings_but_not_in_code():
    text = "See [[Sparse Attention|the survey]] and [[ Flash  attention #Results ]].\n`[[not a link]]`\n" \
           "```\n[[also not]]\n```\n[[]] [[Last]]"
    links = find_links(text)
    assert [(link.target, link.shown, link.heading) for link in links] == [
        ("Sparse Attention", "the survey", ""), ("Flash attention", "Flash attention › Results", "Results"),
        ("Last", "Last", "")]
    assert text[links[0].start:links[0].end] == "[[Sparse Attention|the survey]]"


def test_a_link_resolves_case_insensitively_and_is_stored_as_a_relation(library):
    target = _note(library, "# Sparse Attention\nA survey of sparse attention.")
    note = _note(library, "Reading notes: see [[sparse attention|the survey]] and [[Nowhere]].", title="Reading")
    stored = documents.get_document(library, note.id).metadata
    assert relations.targets(library, note.id, relations.LINKS_TO) == [target.id]
    assert stored[notelinks.LINK_PROBLEMS] == [
        {"target": "Nowhere", "key": "nowhere", "problem": "missing", "candidates": []}]
    assert [d.id for d in relations.document_links(library, note.id).links_to] == [target.id]
    resolved = notelinks.note_links(library, note.id)
    states = [(r.target, r.state, r.document.id if r.document else None) for r in resolved]
    assert states == [("sparse attention", "resolved", target.id), ("Nowhere", "missing", None)]


def test_an_ambiguous_target_is_reported_with_its_candidates_never_guessed(library):
    a = _note(library, "Methods, first draft", title="Methods")
    b = _note(library, "Methods, second draft", title="methods")
    note = _note(library, "Compare [[Methods]].", title="Compare")
    resolved = notelinks.resolve_link(library, note.id, "Methods")
    assert resolved.state == "ambiguous" and {c.id for c in resolved.candidates} == {a.id, b.id}
    assert relations.targets(library, note.id, relations.LINKS_TO) == []
    by_id = notelinks.resolve_link(library, note.id, f"{b.id}|the second")
    assert by_id.state == "resolved" and by_id.document.id == b.id and by_id.shown == "the second"


def test_links_see_the_notes_scope_and_its_ancestors_only(library):
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s_1")
    scopes.create_scope(library, "think-process", "tp_2", parent="session/s_1")
    hidden = _note(library, "Only tp_2 sees this", title="Hidden plan", scope="think-process/tp_2")
    shared = _note(library, "The project's plan", title="Project plan")
    note = _note(library, "[[Hidden plan]] and [[Project plan]]", title="tp_1 note", scope="think-process/tp_1")
    states = {r.target: r.state for r in notelinks.note_links(library, note.id)}
    assert states == {"Hidden plan": "missing", "Project plan": "resolved"}
    assert relations.targets(library, note.id, relations.LINKS_TO) == [shared.id]
    assert hidden.id not in relations.linking_documents(library, relations.LINKS_TO, [hidden.id])


def test_links_follow_edits_and_a_missing_target_resolves_once_created(library):
    note = _note(library, "Next: [[Ideas]]", title="Plan")
    assert notelinks.note_links(library, note.id)[0].state == "missing"
    ideas = _note(library, "Some ideas", title="ideas")
    assert relations.targets(library, note.id, relations.LINKS_TO) == [ideas.id]
    other = _note(library, "Other text", title="Other")
    documents.update_document(library, note.id, content="Next: [[Other]] only")
    meta = documents.get_document(library, note.id).metadata
    assert relations.targets(library, note.id, relations.LINKS_TO) == [other.id] and notelinks.LINK_PROBLEMS not in meta
    # A rename that takes a waited-for title resolves the waiting note too.
    waiting = _note(library, "See [[Renamed later]]", title="Waiting")
    documents.update_document(library, other.id, title="Renamed later")
    assert relations.targets(library, waiting.id, relations.LINKS_TO) == [other.id]


def test_backlinks_list_linked_and_unlinked_mentions_but_not_trashed_ones(library):
    target = _note(library, "Mixture of experts routes tokens.", title="Mixture of Experts")
    linking = _note(library, "We build on [[Mixture of Experts]].", title="Linking")
    mentioning = _note(library, "Plain text: a mixture of experts layer, no link.", title="Mentioning")
    unrelated = _note(library, "Experts disagree about mixtures.", title="Unrelated")
    trashed = _note(library, "Trashed [[Mixture of Experts]]", title="Trashed")
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    found = notelinks.backlinks(library, target.id)
    assert [m.document.id for m in found.linked] == [linking.id]
    assert [m.document.id for m in found.unlinked] == [mentioning.id]
    assert "mixture of experts layer" in found.unlinked[0].snippet
    assert unrelated.id not in {m.document.id for m in found.unlinked}


def test_imported_vault_notes_link_by_file_name_and_wait_for_each_other(library, tmp_path):
    from vancetope_desktop.ingest.registry import extract_file
    from vancetope_desktop.services import imports

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Daily.md").write_text("Today: read [[Bee Health]] and [[Hive]].\n", encoding="utf-8")
    (vault / "Bee Health.md").write_text("# Notes on colony health\nVarroa.\n", encoding="utf-8")
    # The real extractor, in this process: a worker process would cost seconds to start.
    imports.upload(library, [vault / "Daily.md"], extractor=extract_file)
    imports.upload(library, [vault / "Bee Health.md"], extractor=extract_file)
    daily, health = (next(d for d in documents.list_documents(library) if d.metadata.get("original_name") == name)
                     for name in ("Daily.md", "Bee Health.md"))
    assert health.title == "Notes on colony health"  # its heading; [[Bee Health]] is its file name
    assert relations.targets(library, daily.id, relations.LINKS_TO) == [health.id]
    assert [p["target"] for p in daily.metadata[notelinks.LINK_PROBLEMS]] == ["Hive"]


def test_an_imported_note_linking_to_a_note_already_there_imports_with_its_link(library, tmp_path):
    # The linking note's row must exist before its edge is written (the edge's foreign key): this
    # order failed with "FOREIGN KEY constraint failed" and lost the note.
    from vancetope_desktop.ingest.registry import extract_file
    from vancetope_desktop.services import imports

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Hive.md").write_text("# Hive\nTwelve frames.\n", encoding="utf-8")
    (vault / "Daily.md").write_text("Checked the [[Hive]] today.\n", encoding="utf-8")
    report = imports.upload(library, [vault / "Hive.md", vault / "Daily.md"], extractor=extract_file)
    assert [o.status for o in report.outcomes] == ["imported", "imported"], report
    daily, hive = (next(d for d in documents.list_documents(library) if d.metadata.get("original_name") == name)
                   for name in ("Daily.md", "Hive.md"))
    assert relations.targets(library, daily.id, relations.LINKS_TO) == [hive.id]


def test_a_rename_resolves_again_the_links_naming_the_old_or_the_new_title_and_undo_turns_them_back(library):
    # Found by a new user: after a rename, `memory links` said missing while the app still showed it linked.
    target = _note(library, "Mites in spring.", title="Varroa")
    old = _note(library, "See [[Varroa]].", title="Old name")
    new = _note(library, "See [[Varroa mites]].", title="New name")
    by_id = _note(library, f"See [[{target.id}|it]].", title="By id")
    renamed = documents.update_document(library, target.id, title="Varroa mites",
                                        user_action=undo.user_action(library, "Rename", [target.id]))
    for note, state in ((old, "missing"), (new, "resolved"), (by_id, "resolved")):
        live = notelinks.note_links(library, note.id)[0]  # what the CLI and the agent tools say
        stored = documents.get_document(library, note.id).metadata  # what the app's banner shows
        assert live.state == state
        stored_links = relations.targets(library, note.id, relations.LINKS_TO)  # what Backlinks show
        assert stored_links == ([renamed.id] if state == "resolved" else [])
        assert (notelinks.link_problem_text(stored) is None) == (state == "resolved")
    assert {m.document.id for m in notelinks.backlinks(library, target.id).linked} == {new.id, by_id.id}
    undo.undo(library)
    assert notelinks.note_links(library, old.id)[0].state == "resolved"
    assert notelinks.note_links(library, new.id)[0].state == "missing"
    assert {m.document.id for m in notelinks.backlinks(library, target.id).linked} == {old.id, by_id.id}


def test_a_rename_rewrites_the_links_that_led_to_it_in_one_undo_step_with_the_rename(library):
    # Found by a new user (a blocker): renaming a paper left their note's [[Old title]] missing.
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    target = _note(library, "Mites in spring.", title="Varroa")
    note = _note(library, "See [[varroa]], [[Varroa#Spring|the spring part]] and [[Other]].", title="Reading")
    by_id = _note(library, f"See [[{target.id}|it]].", title="By id")
    agents = _note(library, "The agent's [[Varroa]].", title="Agent note", scope="session/s_1")
    action = undo.user_action(library, "Rename", [target.id])
    renamed = documents.rename_document(library, target.id, "Varroa mites", user_action=action)
    assert [n.id for n in renamed.updated] == [note.id, agents.id] and renamed.not_updated == []
    after = documents.get_document(library, note.id)
    assert after.content == "See [[Varroa mites]], [[Varroa mites#Spring|the spring part]] and [[Other]]."
    assert after.version == note.version + 1
    assert documents.get_document(library, by_id.id).content == f"See [[{target.id}|it]]."
    assert relations.targets(library, note.id, relations.LINKS_TO) == [target.id]
    assert [s.documents for s in undo.history(library)[0]][:1] == [3]  # the rename and its two notes
    undo.undo(library)
    assert documents.get_document(library, note.id).content.startswith("See [[varroa]]")
    assert documents.get_document(library, target.id).title == "Varroa"
    assert relations.targets(library, note.id, relations.LINKS_TO) == [target.id]
    # An agent renaming its own document writes only its own notes: the others are listed, left missing.
    mine = _note(library, "Agent's summary.", title="Summary", scope="session/s_1")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s_1")
    theirs = _note(library, "A sub-agent's note on [[Summary]].", title="Theirs", scope="think-process/tp_1")
    own = _note(library, "Own note on [[Summary]].", title="Own", scope="session/s_1")
    by_agent = documents.rename_document(library, mine.id, "Summary 2", writer_scope="session/s_1")
    assert [n.id for n in by_agent.updated] == [own.id] and [n.id for n in by_agent.not_updated] == [theirs.id]
    assert notelinks.note_links(library, theirs.id)[0].state == "missing"
    # A note linking to itself is renamed and rewritten in one version.
    selfish = _note(library, "I am [[Selfish]].", title="Selfish")
    assert documents.rename_document(library, selfish.id, "Kind").updated == []
    again = documents.get_document(library, selfish.id)
    assert (again.content, again.version) == ("I am [[Kind]].", selfish.version + 1)
    folder = folders.create_folder(library, "Drafts")  # no text of its own: renamed as before
    assert documents.rename_document(library, folder.id, "Old drafts").document.title == "Old drafts"
    # The library setting off (or --keep-links): the links stay as written.
    library.settings.update_links_on_rename = False
    assert documents.rename_document(library, mine.id, "Summary 3").updated == []
    assert documents.get_document(library, own.id).content == "Own note on [[Summary 2]]."


def test_a_second_document_with_a_linked_title_makes_the_link_ambiguous_in_every_face(library):
    first = _note(library, "First draft.", title="Methods")
    note = _note(library, "Compare [[Methods]].", title="Compare")
    second = _note(library, "Second draft.", title="methods")
    live = notelinks.note_links(library, note.id)[0]
    assert live.state == "ambiguous" and [c.id for c in live.candidates] == [first.id, second.id]  # oldest first
    stored = documents.get_document(library, note.id).metadata
    assert relations.targets(library, note.id, relations.LINKS_TO) == []
    assert "several documents for [[Methods]] (2 documents)" in \
        notelinks.link_problem_text(stored)
    assert notelinks.backlinks(library, first.id).linked == []


def test_stored_links_follow_a_target_into_and_out_of_the_trash_and_across_scopes(library):
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    target = _note(library, "Sparse attention survey.", title="Survey")
    note = _note(library, "See [[Survey]].", title="Reading")

    def stored():
        problems = documents.get_document(library, note.id).metadata.get(notelinks.LINK_PROBLEMS, [])
        return relations.targets(library, note.id, relations.LINKS_TO), [p["problem"] for p in problems]

    assert stored() == ([target.id], [])
    documents.set_status(library, target.id, DocumentStatus.DELETED)
    assert stored() == ([], ["missing"])  # the banner says it is missing, as the rule does
    documents.set_status(library, target.id, DocumentStatus.ACTIVE)
    assert stored() == ([target.id], [])
    # Moved down out of the note's sight, then the note follows it into the session: resolved from there.
    moves.move_documents(library, [target.id], "session/s_1")
    assert stored() == ([], ["missing"])
    moves.move_documents(library, [note.id], "session/s_1")
    assert stored() == ([target.id], [])
    # Undo of a trash brings the link back too.
    documents.set_status(library, target.id, DocumentStatus.DELETED,
                         user_action=undo.user_action(library, "Trash", [target.id]))
    assert stored() == ([], ["missing"])
    undo.undo(library)
    assert stored() == ([target.id], [])
