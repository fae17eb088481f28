"""A source's profile (issue 13): summary, keywords and suggested topics, made at import, after an edit and on
demand, whatever the generator does."""

import logging

import pytest
from sqlmodel import select

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.profiles import PROFILE_KEY, WRITEUP_KEY, is_current, profile_of, suggested_topics
from vancetope_desktop.generation.base import GeneratorTimeout
from vancetope_desktop.generation.fallback import FallbackGenerator
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import atoms, digest, documents, imports, source_profile
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session

NOTE = ("# Sepsis model\n\nThe sepsis model uses a Gaussian process RNN on the MIMIC data. We validate the sepsis "
        "model on the ICU cohort before the review.\n\nThe ICU cohort holds 20,000 stays; the sepsis model flags "
        "septic shock six hours early.")


class Raising:
    """A model that always fails (what a dead endpoint or a crashed runtime looks like to the caller)."""

    name = "broken-model"

    def summarize(self, text, max_words):
        raise GeneratorTimeout("no reply within 60 s")

    def keywords(self, text, k):
        raise RuntimeError("segfault-ish surprise")


class Garbling:
    """A model that answers the wrong shapes."""

    name = "garbling-model"

    def summarize(self, text, max_words):
        return {"not": "a string"}

    def keywords(self, text, k):
        return [1, 2, 3]


def _strip_profile(lib, doc_id):
    """As a library from before profiles has it."""
    with write_session(lib.engine) as session:
        row = session.get(tables.DocumentRow, doc_id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)


def test_a_paper_and_a_note_get_their_profile_at_import(library, corpus):
    # A tag the library already uses: a topic the paper is about converges on it rather than on a new label.
    documents.add_text(library, "Our dementia cohort list.", doc_type=DocumentType.NOTE, tags=["topic/dementia"])
    paper = corpus / "papers" / "stressful-life-events-dementia-psychogeriatrics.pdf"
    outcome = imports.upload(library, [paper], extractor=extract_file).outcomes[0]
    doc = documents.get_document(library, outcome.document_id)
    profile = profile_of(doc.metadata)
    assert profile is not None and profile.generator == "builtin" and not profile.fallback
    # The summary reads the opening: the abstract, not the reference list or a table from the middle.
    assert profile.summary.startswith("Background: The impact of stressful life events")  # no DOI, no title line
    assert len(profile.summary.split()) <= 60
    assert "life events" in profile.keywords and len(profile.keywords) == source_profile.KEYWORD_COUNT
    assert 3 <= len(profile.topics) <= 5 and profile.topics[0] == "topic/dementia" and "life-events" in profile.topics
    assert profile.from_version == doc.version and is_current(profile, doc.content_hash)

    note = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE)
    made = profile_of(note.metadata)
    assert made is not None and "sepsis model" in made.summary and "sepsis-model" in made.topics
    assert suggested_topics(made, ["sepsis-model"]) == [t for t in made.topics if t != "sepsis-model"]


def test_what_is_not_a_source_gets_no_profile(library):
    fact = atoms.store_atom(library, atoms.draft_atom("fact", "The ICU cohort holds 20,000 stays."))
    citation = documents.add_text(library, "Kitaev et al. Reformer. ICLR 2020.", doc_type=DocumentType.REFERENCE)
    trashed = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE)
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    _strip_profile(library, trashed.id)
    assert profile_of(documents.get_document(library, fact.id).metadata) is None
    assert profile_of(citation.metadata) is None  # a citation without an abstract has nothing to summarise
    assert source_profile.missing_profiles(library) == []
    # A reference with an abstract is a source; entries pasted as BibTeX get theirs after (as a bibliography's).
    pasted = documents.add_text(library, "@article{lee2020, title={Heron counts at alpine reserves}, author={Lee, "
                                "Ann}, year={2020}, abstract={We counted grey herons at alpine reserves over ten "
                                "winters. Heron counts fell where the reserves froze early.}}",
                                doc_type=DocumentType.REFERENCE)
    assert source_profile.missing_profiles(library) == [pasted.id]
    assert source_profile.make_profiles(library, [pasted.id]).outcomes[0].profile.summary.startswith("We counted")
    report = source_profile.make_profiles(library, [fact.id, trashed.id, "doc_000000000000"])
    assert [o.status for o in report.outcomes] == ["skipped", "skipped", "failed"]
    assert WRITEUP_KEY == digest.DIGEST_KEY  # the writeups, left out by that key, are the digest's


@pytest.mark.parametrize("model", [Raising(), Garbling()], ids=["raises", "garbles"])
def test_a_failing_model_still_gives_a_profile_and_never_costs_the_import(library, tmp_path, model, caplog):
    note = tmp_path / "sepsis.md"
    note.write_text(NOTE, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        outcome = imports.upload(library, [note], extractor=extract_file, generator=model).outcomes[0]
    assert outcome.status == "imported"
    profile = profile_of(documents.get_document(library, outcome.document_id).metadata)
    assert profile is not None and profile.fallback and profile.generator == model.name
    assert "sepsis model" in profile.summary and profile.keywords
    assert model.name in caplog.text  # each failure is logged with what answered instead

    # Even the built-in failing: the note is stored without a profile, and the reason is logged.
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        kept = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE,
                                  generator=FallbackGenerator(model, Raising()))
    assert profile_of(kept.metadata) is None and "no profile" in caplog.text
    assert source_profile.missing_profiles(library) == [kept.id]  # the next fill tries again


def test_an_edit_remakes_the_profile_of_its_new_text(library):
    note = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE)
    edited = documents.update_document(library, note.id, content="# Graph partitioning\n\nSpectral graph "
                                       "partitioning splits a graph by the Fiedler vector. Graph partitioning "
                                       "balances the parts.")
    profile = profile_of(edited.metadata)
    assert profile.from_version == edited.version == 2 and "graph-partitioning" in profile.topics
    assert "sepsis" not in profile.summary

    # The app saves without waiting for it (refresh_profile=False) and remakes it on its import lane: until
    # then the profile says it describes older text, and the missing list has it.
    later = documents.update_document(library, note.id, content=NOTE, refresh_profile=False)
    assert not is_current(profile_of(later.metadata), later.content_hash)
    assert source_profile.missing_profiles(library) == [note.id]
    assert source_profile.refresh(library, note.id).from_version == 3
    restored = documents.restore_version(library, note.id, 2)  # its profile of version 2 comes back with it
    assert "graph-partitioning" in profile_of(restored.metadata).topics


def test_sources_from_before_profiles_are_profiled_on_demand(library):
    notes = [documents.add_text(library, f"{NOTE}\n\nRun {i}.", doc_type=DocumentType.NOTE) for i in range(3)]
    for note in notes[:2]:
        _strip_profile(library, note.id)
    before = documents.get_document(library, notes[0].id)
    assert source_profile.missing_profiles(library) == [notes[1].id, notes[0].id]  # newest first
    progress = []
    report = source_profile.make_profiles(library, [n.id for n in notes], only_missing=True,
                                          progress=lambda done, total, _title: progress.append((done, total)))
    assert [o.status for o in report.outcomes] == ["made", "made", "current"] and progress[-1] == (3, 3)
    assert source_profile.missing_profiles(library) == []
    after = documents.get_document(library, notes[0].id)
    # Metadata only: no new version, and not "changed today" for the digest.
    assert (after.version, after.updated_at) == (before.version, before.updated_at)
    cancelled = source_profile.make_profiles(library, [n.id for n in notes], cancel=lambda: True)
    assert cancelled.cancelled and cancelled.outcomes == []


def test_hostile_texts():
    assert source_profile.make_profile("", title="Empty") is None
    assert source_profile.make_profile(" \n\t ", title="Blank") is None
    symbols = source_profile.make_profile("∑∂ ⊕ 42 ## -- $$ %%", title="Symbols")
    assert symbols is not None and symbols.topics == []
    # A huge text (4 MB, one line) is read in bounded parts: its opening and ten windows.
    huge = ("The glacier retreat dataset covers alpine glaciers. " * 80_000)
    assert len(source_profile.opening(huge)) <= source_profile.OPENING_CHARS
    assert len(source_profile.keyword_sample(huge)) <= source_profile.KEYWORD_CHARS + 20
    profile = source_profile.make_profile(huge, title="Glaciers")
    assert len(profile.summary.split()) <= source_profile.SUMMARY_WORDS and "glacier-retreat" in profile.topics


def test_topics_prefer_known_labels_and_the_subject_over_passing_words():
    keywords = ["Meeting", "sepsis model", "decided", "Results", "Dementia", "2024", "try"]
    text = "sepsis model … sepsis model … dementia … dementia"
    topics = source_profile.choose_topics(keywords, "Meeting notes", ["topic/dementia", "thinkprocess:tp_1"], text)
    assert topics[:3] == ["topic/dementia", "sepsis-model", "meeting"]
    assert "results" not in topics and "2024" not in topics and len(topics) == 3


def test_the_digest_writeup_carries_its_sources_summaries(library):
    note = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE)
    run = digest.run_digest(library, note.scope, note.created_at.astimezone().date())
    assert profile_of(note.metadata).summary.split(".")[0] in run.content
    with write_session(library.engine) as session:  # nothing else was stored on the source by the run
        assert session.exec(select(tables.DocumentRow.version).where(tables.DocumentRow.id == note.id)).one() == 1


def test_a_heading_that_repeats_the_title_is_not_the_summarys_first_sentence():
    # A PDF's first line is its title without a full stop: it was summarised as a "sentence" glued to the next.
    text = ("Reformer: The Efficient Transformer (demo summary)\n"
            "Large Transformer models give strong results but are costly to train on long sequences. "
            "The Reformer replaces dot-product attention with hashing-based attention. "
            "Reversible layers store activations once.")
    profile = source_profile.make_profile(text, title="Reformer: The Efficient Transformer (demo summary)")
    assert "demo summary" not in profile.summary and "Reformer replaces" in profile.summary
    assert "(demo summary)" in source_profile.opening(text)  # without a title, nothing is dropped
