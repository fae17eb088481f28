"""Atoms (issue 13): drafts from a source stored in one transaction with their provenance, listed by the
visibility rule and filters, plans updated, happened (an event updates and archives the plan) or missed, a purged
source said gone, a person's edit marked, and every bad input refused in one line with nothing written."""

from datetime import datetime

import pytest

from vancetope_desktop.core.atoms import ATOM_KEY, AtomDraft, AtomType, PlanStatus, SourceSpan
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import DocumentNotFound, InvalidAtom, InvalidInput
from vancetope_desktop.services import atoms, documents, relations, scopes, undo
from vancetope_desktop.services.library import DEFAULT_PROJECT

P = DEFAULT_PROJECT
NOTE = ("Met Ana on 2 December 2026 about the heron survey. Herons nest in alder carr. "
        "We plan to submit the survey report by 15 December 2026.")
NOW = datetime(2026, 12, 2, 9, 0)


def _span(sentence):
    return SourceSpan(start=NOTE.index(sentence), end=NOTE.index(sentence) + len(sentence))


def _drafts():
    """What a generator would draft from :data:`NOTE` (spans into its text)."""
    return [
        AtomDraft(type="event", text="Met Ana about the heron survey.", when=datetime(2026, 12, 2),
                  span=_span("Met Ana on 2 December 2026 about the heron survey.")),
        AtomDraft(type="fact", text="Herons nest in alder carr.", span=_span("Herons nest in alder carr.")),
        AtomDraft(type="plan", text="Submit the survey report.", due=datetime(2026, 12, 15),
                  span=_span("We plan to submit the survey report by 15 December 2026.")),
    ]


def _count(lib):
    return documents.count_documents(lib, scope=P, statuses=list(DocumentStatus))


def test_drafts_from_a_source_are_stored_with_provenance_and_listed_by_visibility(library):
    source = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, title="Heron meeting", scope=P)
    stored = atoms.store_atoms(library, _drafts(), source.id)
    assert [a.type for a in stored] == [AtomType.EVENT, AtomType.FACT, AtomType.PLAN]
    event, fact, plan = stored
    assert (event.when, plan.due, plan.plan_status) == (datetime(2026, 12, 2), datetime(2026, 12, 15),
                                                         PlanStatus.PLANNED)
    assert fact.span == _span("Herons nest in alder carr.").model_copy(update={"document_id": source.id})
    assert atoms.source_passage(library, plan.id) == atoms.SourcePassage(
        document_id=source.id, text="We plan to submit the survey report by 15 December 2026.")
    assert fact.source_title == "Heron meeting" and fact.title == "Herons nest in alder carr."
    assert relations.derived_from(library, plan.id) == [source.id]
    assert [a.id for a in atoms.atoms_of_source(library, source.id)] == [a.id for a in stored]
    # a child scope sees its ancestors' atoms; the project does not see the child's
    scopes.create_scope(library, "session", "s1", parent=P)
    atoms.store_atom(library, atoms.draft_atom("fact", "Alder carr floods in winter."), scope="session/s1")
    assert len(atoms.list_atoms(library, "session/s1")) == 4
    assert len(atoms.list_atoms(library, P)) == 3
    assert [a.id for a in atoms.list_atoms(library, P, types=["plan"], due_before="2026-12-20")] == [plan.id]
    assert atoms.list_atoms(library, P, due_before="2026-12-10") == []
    assert [a.id for a in atoms.list_atoms(library, P, text="ALDER")] == [fact.id]
    assert len(atoms.list_atoms(library, P, source_id=source.id)) == 3


def test_a_bad_draft_stores_nothing_of_the_batch(library):
    source = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, scope=P)
    before = _count(library)
    wrong = AtomDraft(type="fact", text="Elsewhere.", span=SourceSpan(start=0, end=5, document_id="doc_other"))
    with pytest.raises(InvalidAtom, match="atom 4 was read from doc_other"):
        atoms.store_atoms(library, [*_drafts(), wrong], source.id)
    assert _count(library) == before


@pytest.mark.parametrize(("kind", "when", "due", "status", "message"), [
    ("plan", None, None, None, "a plan atom needs a due date"),
    ("event", None, None, None, "an event atom needs a time"),
    ("event", "the day after never", None, None, "cannot read the time 'the day after never'"),
    ("plan", None, "2026-12-20", "done", "a plan is never 'completed'"),
    ("plan", None, "2026-12-20", "paused", "unknown plan status 'paused'"),
    ("rumour", None, None, None, "unknown atom type 'rumour'"),
])
def test_bad_input_is_one_typed_line(kind, when, due, status, message):
    with pytest.raises(InvalidAtom, match=message) as raised:
        atoms.draft_atom(kind, "Submit the report.", when=when, due=due, status=status)
    assert "\n" not in str(raised.value)


def test_natural_dates_are_read_relative_to_now():
    plan = atoms.draft_atom("plan", "Ring Ana.", due="next Friday", now=NOW)  # NOW is a Wednesday
    assert plan.due.date() == datetime(2026, 12, 4).date()
    assert atoms.draft_atom("event", "Rang Ana.", when="2026-12-01T14:30+01:00").when.utcoffset() is not None


def test_an_event_or_plan_without_its_time_is_never_half_stored(library):
    before = _count(library)
    with pytest.raises(InvalidInput, match="a plan needs a due date"):
        documents.add_text(library, "Submit the report.", doc_type=DocumentType.PLAN, scope=P)
    assert _count(library) == before


def test_plan_status_happened_and_missed(library):
    plan = atoms.store_atom(library, atoms.draft_atom("plan", "Submit the report.", due="2026-12-15"), scope=P)
    ring = atoms.store_atom(library, atoms.draft_atom("plan", "Ring Ana.", due="2026-12-01"), scope=P)
    kept = atoms.store_atom(library, atoms.draft_atom("plan", "Book the boat.", due="2026-11-30"), scope=P)
    with pytest.raises(InvalidAtom, match="never 'completed': record the event"):
        atoms.plan_update(library, plan.id, "completed")
    # a person's change is marked, and a digest (mark_missed) leaves that plan alone
    edited = atoms.plan_update(library, kept.id, "canceled",
                               user_action=undo.user_action(library, "Plan status", [kept.id]))
    assert edited.plan_status is PlanStatus.CANCELED and edited.edited_by_person
    atoms.plan_update(library, kept.id, "planned", user_action=undo.user_action(library, "Plan status", [kept.id]))
    assert atoms.mark_missed(library, P, now=NOW) == [ring.id]  # due 1 Dec: missed once the day is over
    assert atoms.atom(library, ring.id).plan_status is PlanStatus.MISSED
    assert atoms.atom(library, kept.id).plan_status is PlanStatus.PLANNED
    event = atoms.plan_happened(library, plan.id, "2026-12-14T16:00")
    assert (event.type, event.text, event.when) == (AtomType.EVENT, "Submit the report.", datetime(2026, 12, 14, 16))
    done = atoms.atom(library, plan.id)
    assert (done.status, done.happened_as) == ("archived", event.id)
    assert relations.targets(library, event.id, "updates") == [plan.id]
    assert plan.id not in [a.id for a in atoms.list_atoms(library, P)]
    with pytest.raises(InvalidAtom, match="happened already"):
        atoms.plan_happened(library, plan.id, "2026-12-14")
    with pytest.raises(InvalidAtom, match="needs its time"):
        atoms.plan_happened(library, ring.id, " ")
    with pytest.raises(InvalidAtom, match="only a plan has a status"):
        atoms.plan_update(library, event.id, "missed")


def test_an_atom_whose_source_was_purged_keeps_its_text_and_says_so(library):
    source = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, scope=P)
    fact = atoms.store_atoms(library, _drafts()[1:2], source.id)[0]
    documents.set_status(library, source.id, DocumentStatus.DELETED)
    documents.purge_document(library, source.id)
    after = atoms.atom(library, fact.id)
    assert (after.text, after.source_gone, after.source_id) == ("Herons nest in alder carr.", True, source.id)
    assert documents.get_document(library, fact.id).metadata[ATOM_KEY]["span"]["document_id"] == source.id
    with pytest.raises(DocumentNotFound, match="was purged; the atom keeps its text"):
        atoms.source_passage(library, fact.id)


def test_a_persons_text_edit_marks_the_atom(library):
    fact = atoms.store_atom(library, atoms.draft_atom("fact", "Herons nest in alder."), scope=P)
    assert not fact.edited_by_person
    documents.update_document(library, fact.id, content="Herons nest in alder carr.",
                              user_action=undo.user_action(library, "Edit", [fact.id]))
    assert atoms.atom(library, fact.id).edited_by_person


def test_no_drafts_store_nothing(library):
    source = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, title="Heron meeting", scope=P)
    assert atoms.store_atoms(library, [], source.id) == []
    assert atoms.atoms_of_source(library, source.id) == []
