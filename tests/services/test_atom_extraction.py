"""Atoms read from sources (issue 13, ``services.atom_extraction``): a note written gets its atoms with spans into
its text, a PDF only where the scope's setting (inherited by child scopes) says so, with its pages; a second run
adds nothing, a new version only what is new, a note of one chunk gives no facts that restate it (its event and
plan kept), a person's edit is never touched; a failing generator falls back
and the source survives; hostile texts are read or refused with a reason."""

from datetime import datetime

import pytest

from vancetope_desktop.core.atoms import AtomDraft, AtomType
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import atom_extraction, atoms, documents, imports, memory_guard, scopes
from vancetope_desktop.services.digest import DIGEST_KEY
from vancetope_desktop.services.library import DEFAULT_PROJECT

P = DEFAULT_PROJECT
# Two sections, so two chunks: a note of one chunk gives no facts (``without_restatements``)
NOTE = ("---\ndate: 2026-12-02T09:00:00\n---\n# Heron survey\n\n## Meeting\n\nMet Ana yesterday about the heron "
        "survey. We will submit the survey report by 15 December 2026.\n\n## Site\n\nHerons nest in alder carr.\n")


def _remember(lib, text=NOTE, **kwargs):
    return memory_guard.remember(lib, text, scope=P, doc_type=DocumentType.NOTE, on_duplicate="store", **kwargs)


def test_a_note_written_gets_its_atoms_with_spans_into_its_text_and_dates_from_its_own_date(library):
    kept = _remember(library)
    found = atoms.atoms_of_source(library, kept.document.id)
    assert [a.id for a in found] == kept.atoms
    by_type = {a.type: a for a in found}
    assert set(by_type) == {AtomType.EVENT, AtomType.FACT, AtomType.PLAN}
    content = documents.get_document(library, kept.document.id).content
    for found_atom in found:  # each span is the passage of the stored text it was read from
        passage = atoms.source_passage(library, found_atom.id)
        assert passage.text and passage.text == content[found_atom.span.start:found_atom.span.end].strip()
        assert found_atom.span.chunk_index is None and found_atom.span.page is None
    assert "Herons nest" in atoms.source_passage(library, by_type[AtomType.FACT].id).text
    # "yesterday" is read against the note's own date (front matter), not today
    assert by_type[AtomType.EVENT].when.date() == datetime(2026, 12, 1).date()
    assert by_type[AtomType.PLAN].due.date() == datetime(2026, 12, 15).date()


def test_what_is_never_a_source_and_what_is_read_only_on_request(library):
    note = _remember(library, "## Colony\n\nThe heron colony has 40 nests.\n\n## Feeding\n\nIts herons fish in the "
                              "millrace.\n")
    assert len(note.atoms) == 2  # a note: read
    assert _remember(library, "The egret colony has 12 nests.").atoms == []  # one chunk: no facts
    assert len(_remember(library, "We will ring the herons by 15 December 2026.").atoms) == 1  # a plan adds its due
    written = memory_guard.remember(library, "Herons eat fish.", scope=P, doc_type=DocumentType.FACT)
    assert written.atoms == []  # a fact is an atom itself
    episode = _remember(library, "## Goal\n\nCount the herons of the colony.\n\n## Outcome\n\nForty nests were "
                                 "counted in the alder carr.", memory_type="episode")
    assert episode.atoms == []  # an episode is a structured record already
    report = atom_extraction.extract_atoms(library, [written.document.id, "doc_nothere", episode.document.id])
    assert [o.status for o in report.outcomes] == ["skipped", "skipped", "extracted"]
    assert "atoms are read from sources" in report.outcomes[0].reason
    assert report.outcomes[2].added  # asked for: read
    writeup = documents.add_text(library, "Herons were counted. Egrets roosted.", doc_type=DocumentType.NOTE,
                                 metadata={DIGEST_KEY: {"day": "2026-12-01"}})
    assert "digest writeup" in atom_extraction.extract_atoms(library, [writeup.id]).outcomes[0].reason
    documents.set_status(library, episode.document.id, DocumentStatus.DELETED)
    again = atom_extraction.extract_atoms(library, [episode.document.id])
    assert again.outcomes[0].status == "skipped" and "trash" in again.outcomes[0].reason
    with pytest.raises(InvalidInput):
        atom_extraction.extract_atoms(library, [" "])


def test_a_note_of_one_chunk_gives_no_facts_but_keeps_its_event_and_plan(library):
    text = ("Met Ana yesterday about the heron survey. Herons nest in alder carr. We will submit the survey report "
            "by 15 December 2026. The colony has 40 nests.")
    short = _remember(library, text)  # one chunk: one search hit already, its facts would be its words again
    assert len(documents.list_chunks(library, short.document.id)) == 1
    assert sorted(atoms.atom(library, i).type for i in short.atoms) == [AtomType.EVENT, AtomType.PLAN]
    assert atom_extraction.extract_atoms(library, [short.document.id]).added == []  # asked for: the same rule
    long = _remember(library, text.replace(" Herons nest", "\n\n## Site\n\nHerons nest"))  # two sections: two hits
    assert len(documents.list_chunks(library, long.document.id)) == 2
    assert [atoms.atom(library, i).text for i in long.atoms if atoms.atom(library, i).type is AtomType.FACT] == \
        ["Herons nest in alder carr.", "The colony has 40 nests."]


def test_a_fact_of_a_one_chunk_source_is_kept_when_it_adds_a_word():
    text = "Caroline: It is called Oscar. He loves carrots."
    drafts = [AtomDraft(type=AtomType.FACT, text="Caroline: It is called Oscar."),  # the built-in's: its words
              AtomDraft(type=AtomType.FACT, text="Caroline has a guinea pig named Oscar.")]  # a model's: adds some
    assert atom_extraction.without_restatements(drafts, 1, text) == drafts[1:]
    assert atom_extraction.without_restatements(drafts, 2, text) == drafts  # a longer source keeps all


def test_reading_twice_adds_nothing_and_a_new_version_adds_only_what_is_new(library):
    kept = _remember(library)
    first = atoms.atoms_of_source(library, kept.document.id)
    again = atom_extraction.extract_atoms(library, [kept.document.id])
    assert again.added == [] and again.outcomes[0].known == len(first)
    fact = next(a for a in first if a.type is AtomType.FACT)
    plan = next(a for a in first if a.type is AtomType.PLAN)
    # a person edits the plan; the note is rewritten: the fact leaves it, the plan's sentence stays, one is new
    documents.update_document(library, plan.id, content="Submit the heron report by mid-December.",
                              metadata={"atom": {**documents.get_document(library, plan.id).metadata["atom"],
                                                 "edited_by_person": True}})
    edited = atoms.atom(library, plan.id)
    rewritten = NOTE.replace("Herons nest in alder carr.", "Egrets roost in the willows near the pond.")
    documents.update_document(library, kept.document.id, content=rewritten)
    report = atom_extraction.extract_atoms(library, [kept.document.id])
    assert [atoms.atom(library, i).text for i in report.added] == ["Egrets roost in the willows near the pond."]
    assert report.outcomes[0].marked_stale == [fact.id]  # its statement left the source: marked, not deleted
    assert atoms.atom(library, fact.id).status == "stale"
    assert atoms.atom(library, plan.id) == edited  # a person's atom is never touched nor read again
    event = next(a for a in first if a.type is AtomType.EVENT)
    moved = atoms.atom(library, event.id)
    content = documents.get_document(library, kept.document.id).content
    assert content[moved.span.start:moved.span.end].startswith("Met Ana yesterday")
    assert atom_extraction.extract_atoms(library, [kept.document.id]).added == []
    # a machine atom a person deleted is not brought back
    egret = report.added[0]
    documents.set_status(library, egret, DocumentStatus.DELETED)
    assert atom_extraction.extract_atoms(library, [kept.document.id]).added == []


class _Raising:
    name = "broken"

    def extract_atoms(self, text, *, reference_time, timezone=None):
        raise RuntimeError("the model fell over")


class _Garbage:
    name = "garbage"

    def extract_atoms(self, text, *, reference_time, timezone=None):
        return "not a list of drafts"


class _BuiltinBroken(BuiltinGenerator):
    name = "builtin"

    def extract_atoms(self, text, *, reference_time, timezone=None):
        raise RuntimeError("even the built-in failed")


@pytest.mark.parametrize("generator", [_Raising(), _Garbage()])
def test_a_failing_generator_falls_back_and_the_note_survives(library, generator):
    kept = _remember(library, generator=generator)
    assert len(kept.atoms) == 3 and kept.warnings == []
    report = atom_extraction.extract_atoms(library, [kept.document.id], generator=generator)
    assert report.outcomes[0].fallbacks == 1 and report.added == []


def test_when_even_the_builtin_fails_the_note_is_kept_and_the_reason_said(library):
    kept = _remember(library, generator=_BuiltinBroken())
    assert kept.stored and kept.atoms == []
    assert "even the built-in failed" in kept.warnings[0]
    assert documents.get_document(library, kept.document.id).content.startswith("# Heron survey")


def test_hostile_texts_are_read_or_refused_with_a_reason(library, monkeypatch):
    binaryish = _remember(library, "\x00\x01\x02 ÿþ \ufffd\ufffd %PDF-1.4 \x7f" * 50)
    assert binaryish.stored  # read without a crash (whatever it holds)
    monkeypatch.setattr(atom_extraction, "MAX_ATOMS_PER_SOURCE", 5)
    monkeypatch.setattr(atom_extraction, "MAX_EXTRACT_CHARS", 2_000)  # the same path as past 200,000 characters
    huge = _remember(library, " ".join(f"Heron {n} nests in the alder carr." for n in range(300)))
    assert len(huge.atoms) == 5
    report = atom_extraction.extract_atoms(library, [huge.document.id])  # again: reads on past what it holds
    outcome = report.outcomes[0]
    assert len(outcome.added) == 5 and outcome.known == 5 and outcome.cut_short
    assert "stopped at 5 new atoms" in outcome.reason and outcome.marked_stale == []  # not read is not gone
    assert atoms.atom(library, huge.atoms[0]).status == "active"


def test_the_files_setting_is_off_by_default_and_inherited_nearest_value_first(library):
    scopes.create_scope(library, "session", "s1", parent=P)
    assert atom_extraction.files_setting(library, "session/s1").enabled is False
    atom_extraction.set_files_setting(library, P, True)
    child = atom_extraction.files_setting(library, "session/s1")
    assert (child.enabled, child.own, child.set_in) == (True, None, P)
    atom_extraction.set_files_setting(library, "session/s1", False)
    assert atom_extraction.files_setting(library, "session/s1").enabled is False
    atom_extraction.set_files_setting(library, "session/s1", None)
    assert atom_extraction.files_setting(library, "session/s1").enabled is True


@pytest.mark.corpus
def test_a_pdf_gets_atoms_with_pages_only_where_the_setting_is_on(library, corpus):
    """A small paper (4 pages), read in this process: the upload's extraction is not the point here."""
    pdf = corpus / "papers" / "black-hole-singularities-collision-arxiv1805.05865.pdf"
    scopes.create_scope(library, "session", "plain", parent=P)
    scopes.create_scope(library, "session", "reads", parent=P)
    atom_extraction.set_files_setting(library, P, True)  # inherited by "reads", switched off in "plain"
    atom_extraction.set_files_setting(library, "session/plain", False)
    ids = {}
    for scope in ("session/plain", "session/reads"):
        report = imports.upload(library, [pdf], scope=scope, extractor=extract_file)
        ids[scope] = report.document_ids[0]
        atom_extraction.extract_at_import(library, report.document_ids)
    assert atoms.atoms_of_source(library, ids["session/plain"]) == []
    found = atoms.atoms_of_source(library, ids["session/reads"])
    assert found and all(a.span.page and a.span.chunk_index is not None for a in found)
    assert len({a.span.page for a in found}) > 1
    chunks = {c.ordinal: c for c in documents.list_chunks(library, ids["session/reads"])}
    for found_atom in found:
        chunk = chunks[found_atom.span.chunk_index]
        assert chunk.page == found_atom.span.page
        passage = atoms.source_passage(library, found_atom.id)
        assert passage.page == chunk.page
        assert passage.text == chunk.text[found_atom.span.start:found_atom.span.end].strip()
