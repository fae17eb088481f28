"""`memory tags / tag-rename / tag-merge / tag-delete`: the tag pane's actions from the terminal (they existed
in the app only, found by a new user), each one undo step shared with the app."""

import json

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.services.library import Library


def test_tags_are_renamed_merged_and_deleted_across_the_library_and_undone(cli, tmp_path):
    with Library.open(tmp_path / "lib") as lib:  # notes made here: the commands below are what is tested
        a = documents.add_text(lib, "First.", doc_type=DocumentType.NOTE, tags=["ml/nlp", "todo"]).id
        b = documents.add_text(lib, "Second.", doc_type=DocumentType.NOTE, tags=["ML-papers"]).id
    assert "#ml/nlp  1" in cli("memory", "tags").stdout
    renamed = json.loads(cli("memory", "tag-rename", "ml", "machine-learning", "--no-wait", "--json").stdout)
    assert renamed["changed"] == [a]
    merged = cli("memory", "tag-merge", "ml-papers", "machine-learning", "--into", "learning", "--no-wait").stdout
    assert merged == "merged into #learning: 2 documents changed\n"
    cli("memory", "tag-delete", "todo", "--no-wait")
    with Library.open(tmp_path / "lib") as lib:
        assert (documents.get_document(lib, a).tags, documents.get_document(lib, b).tags) == (
            ["learning/nlp"], ["learning"])
    assert cli("undo", "--no-wait").stdout.startswith("Undo Delete #todo")
    assert cli("undo", "--no-wait").stdout.startswith("Undo Merge tags into #learning: 2 documents")
    with Library.open(tmp_path / "lib") as lib:
        assert documents.get_document(lib, b).tags == ["ml-papers"]
    assert cli("memory", "tag-rename", "a", "a/b", ok=False).exit_code == 2  # a cycle, refused
