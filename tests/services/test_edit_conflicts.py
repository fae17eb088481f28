"""Concurrent edits never overwrite silently (issue 17): two writers on one note, one wins, the other gets the
conflict and keeps its text, then merges (services/edit_merge.py); every version says who made it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import EditConflict, InvalidInput, MergeConflicts
from vancetope_desktop.services import documents, edit_merge, identity
from vancetope_desktop.services.library import Library

REPO = Path(__file__).resolve().parents[2]
TEXT = "# Trial plan\n\nRecruit 40 patients.\n\nAnalyse with a t-test.\n\nReport in May.\n"


@pytest.fixture(autouse=True)
def _nobody_chosen(tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv(identity.IDENTITY_ENV, "ada")


def test_two_writers_on_one_folder_one_wins_the_other_gets_the_conflict_and_keeps_its_text(library, monkeypatch):
    note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
    other = Library.open(library.paths.root)  # a second writer on the same folder, as another process
    try:
        monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
        bobs = TEXT.replace("in May", "in June")
        won = documents.update_document(other, note.id, content=bobs, expected_version=1)
        assert (won.version, won.updated_by) == (2, "user:bob")
    finally:
        other.close()
    monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
    adas = TEXT.replace("40 patients", "60 patients")
    with pytest.raises(EditConflict) as refused:
        documents.update_document(library, note.id, content=adas, expected_version=1)
    assert (refused.value.expected, refused.value.current) == (1, 2)
    assert "version 1" in str(refused.value) and "version 2 now, by user:bob" in str(refused.value)
    stored = documents.get_document(library, note.id)
    assert stored.content == bobs and stored.version == 2  # nothing of Ada's written; her draft is hers still

    sides = edit_merge.conflict_sides(library, note.id, 1, adas)
    assert (sides.theirs.version, sides.theirs.updated_by, sides.base.number) == (2, "user:bob", 1)
    assert sides.merged is not None and sides.merged.clean
    merged = edit_merge.merge_edit(library, note.id, 1, adas)
    assert merged.content == TEXT.replace("40 patients", "60 patients").replace("in May", "in June")
    assert (merged.version, merged.updated_by) == (3, "user:ada")
    history = documents.list_versions(library, note.id)
    assert [(v.number, v.created_by) for v in history] == [(1, "user:ada"), (2, "user:bob")]


def test_a_conflicting_merge_writes_nothing_and_names_the_conflicts(library, monkeypatch):
    note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
    monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
    documents.update_document(library, note.id, content=TEXT.replace("t-test", "mixed model"))
    monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
    with pytest.raises(MergeConflicts, match="left 1 conflict, at line 5 of the merged text") as refused:
        edit_merge.merge_edit(library, note.id, 1, TEXT.replace("t-test", "Wilcoxon test"))
    merge = refused.value.merge
    assert [(h.mine, h.theirs) for h in merge.conflicts] == [("Analyse with a Wilcoxon test.\n",
                                                              "Analyse with a mixed model.\n")]
    assert documents.get_document(library, note.id).version == 2
    with pytest.raises(InvalidInput, match="conflict markers"):  # a merge saved before it is settled
        edit_merge.save_resolution(library, edit_merge.conflict_sides(library, note.id, 1, "x"), merge.text)
    # Settled by hand: both methods kept, the markers gone.
    settled = re.sub(r"<<<<<<< .*\n(.*)\n=======\n(.*)\n>>>>>>> .*\n", r"\1 Then \2\n", merge.text)
    sides = edit_merge.conflict_sides(library, note.id, 1, TEXT.replace("t-test", "Wilcoxon test"))
    saved = edit_merge.save_resolution(library, sides, settled)
    assert "Analyse with a Wilcoxon test. Then Analyse with a mixed model.\n" in saved.content
    assert (saved.version, saved.updated_by) == (3, "user:ada")


def test_a_resolution_saved_after_yet_another_change_is_refused_too(library, monkeypatch):
    note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
    documents.update_document(library, note.id, content=TEXT + "\nSecond.\n")
    sides = edit_merge.conflict_sides(library, note.id, 1, TEXT + "\nMine.\n")
    monkeypatch.setenv(identity.IDENTITY_ENV, "carol")
    documents.update_document(library, note.id, content=TEXT + "\nThird.\n")  # while the person chose
    with pytest.raises(EditConflict, match="by user:carol"):
        edit_merge.save_resolution(library, sides, sides.mine)
    assert documents.get_document(library, note.id).content.endswith("Third.\n")


def test_a_base_that_is_not_kept_gives_no_merge(library):
    note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
    documents.update_document(library, note.id, content=TEXT + "\nMore.\n")
    assert edit_merge.conflict_sides(library, note.id, 7, "mine").merged is None
    with pytest.raises(MergeConflicts, match="version 7, the one your text was made on, is not kept"):
        edit_merge.merge_edit(library, note.id, 7, "mine")


def test_a_second_process_edits_first_and_this_one_merges(library, monkeypatch):
    note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
    library.close()
    env = dict(os.environ, PYTHONPATH=str(REPO), VANCETOPE_IDENTITY="bob")
    done = subprocess.run([sys.executable, "-m", "vancetope_desktop.cli.main", "memory", "edit", note.id, "--content",
                           TEXT.replace("in May", "in June"), "--if-version", "1", "--no-wait", "--library",
                           str(library.paths.root)], capture_output=True, text=True, env=env, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr
    lib = Library.open(library.paths.root)
    try:
        mine = TEXT.replace("# Trial plan", "# Trial plan (v2)")
        with pytest.raises(EditConflict):
            documents.update_document(lib, note.id, content=mine, expected_version=1)
        merged = edit_merge.merge_edit(lib, note.id, 1, mine)
        assert merged.content.startswith("# Trial plan (v2)") and "in June" in merged.content
        assert [v.created_by for v in documents.list_versions(lib, note.id)] == ["user:ada", "user:bob"]
    finally:
        lib.close()


def test_each_change_is_recorded_as_its_maker(library, monkeypatch):
    note = documents.add_text(library, "Start.", doc_type=DocumentType.NOTE, title="Log")
    assert note.updated_by == "user:ada"
    monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
    documents.tag_document(library, note.id, add=["trial"])
    documents.tag_document(library, note.id, add=["agent"], author="think-process/tp-1")
    documents.restore_version(library, note.id, 1)
    history = documents.list_versions(library, note.id)
    assert [v.created_by for v in history] == ["user:ada", "user:bob", "think-process/tp-1"]
    assert documents.get_document(library, note.id).updated_by == "user:bob"
