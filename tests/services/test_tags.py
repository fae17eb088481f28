"""Tags as a library-wide vocabulary: counts per scope, rename, merge, delete, colours, suggestions."""

import pytest
from sqlmodel import select

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput, ScopeNotFound
from vancetope_desktop.services import documents, folders, indexing, scopes, tags
from vancetope_desktop.services.library import DEFAULT_GROUP, DEFAULT_PROJECT, Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import get_meta, read_session


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL (issue 17)."""
    return any_library


def counts(library, **kwargs):
    return {c.tag: (c.own, c.total) for c in tags.list_tags(library, **kwargs)}


def refresh_jobs(library) -> set[str]:
    with read_session(library.engine) as session:
        return set(session.exec(select(tables.JobRow.document_id).where(tables.JobRow.kind == "refresh")).all())


def change_counter(library) -> int:
    with read_session(library.engine) as session:
        return int(get_meta(session, "change_counter", "0") or 0)


@pytest.fixture
def branches(library):
    """Documents in the inbox, its group (an ancestor) and a sibling project that the inbox must not see."""
    scopes.create_scope(library, "project", "other", parent=DEFAULT_GROUP)
    docs = {
        "inbox_a": documents.add_text(library, "Flash attention", tags=["topic/attention", "topic", "unread"]),
        "inbox_b": documents.add_text(library, "Sparse attention", tags=["topic/attention/sparse", "area/x"]),
        "group": documents.add_text(library, "Lab rules", tags=["topic/attention"], scope=DEFAULT_GROUP),
        "sibling": documents.add_text(library, "Secret", tags=["topic/attention", "secret"], scope="project/other"),
    }
    trashed = documents.add_text(library, "Old", tags=["topic/old"])
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    folder = folders.create_folder(library, "Papers")
    documents.tag_document(library, folder.id, add=["topic/folder-tag"])  # folders are never counted
    docs["trashed"] = trashed
    return docs


def test_counts_follow_the_hierarchy_and_the_visible_scopes(library, branches):
    assert counts(library) == {
        "area": (0, 1),  # implied by area/x only
        "area/x": (1, 1),
        "topic": (1, 3),  # inbox_a carries topic and topic/attention: counted once
        "topic/attention": (2, 3),
        "topic/attention/sparse": (1, 1),
        "unread": (1, 1),
    }
    assert [c.tag for c in tags.list_tags(library)] == [
        "area", "area/x", "topic", "topic/attention", "topic/attention/sparse", "unread"
    ]
    own_only = counts(library, include_ancestors=False)
    assert own_only["topic/attention"] == (1, 2) and own_only["topic"] == (1, 2)
    from_sibling = counts(library, scope="project/other")
    assert from_sibling == {"secret": (1, 1), "topic": (0, 2), "topic/attention": (2, 2)}
    with_trash = counts(library, statuses=(DocumentStatus.ACTIVE, DocumentStatus.DELETED))
    assert with_trash["topic/old"] == (1, 1) and with_trash["topic"] == (1, 4)
    with pytest.raises(ScopeNotFound):
        tags.list_tags(library, scope="project/nope")


def test_rename_moves_the_subtree_everywhere_and_collapses_duplicates(library):
    both = documents.add_text(library, "Both names", tags=["ml/transformers", "ml", "deep-learning", "keep"])
    nested = documents.add_text(library, "Nested", tags=["ml/transformers/vision"], doc_type=DocumentType.NOTE)
    scopes.create_scope(library, "project", "other", parent=DEFAULT_GROUP)
    elsewhere = documents.add_text(library, "Other branch", tags=["ml"], scope="project/other")
    untouched = documents.add_text(library, "Unrelated", tags=["mlops"])
    documents.set_status(library, nested.id, DocumentStatus.DELETED)  # the vocabulary includes the trash
    before = change_counter(library)

    changed = tags.rename_tag(library, "#ML", "Deep Learning")

    assert changed == sorted([both.id, nested.id, elsewhere.id])
    assert documents.get_document(library, both.id).tags == ["deep-learning", "deep-learning/transformers", "keep"]
    assert documents.get_document(library, nested.id).tags == ["deep-learning/transformers/vision"]
    assert documents.get_document(library, elsewhere.id).tags == ["deep-learning"]
    assert documents.get_document(library, untouched.id).tags == ["mlops"]
    last = documents.list_versions(library, both.id)[-1]
    assert last.reason == "tag renamed #ml → #deep-learning"
    assert last.tags == ["deep-learning", "keep", "ml", "ml/transformers"]
    assert documents.get_document(library, both.id).version == 2
    assert refresh_jobs(library) == set(changed)
    assert change_counter(library) == before + 1


def test_rename_refuses_cycles_and_bad_tags(library):
    documents.add_text(library, "x", tags=["a/b"])
    for old, new in [("a", "A"), ("a/b", "a/b/c"), ("a", "#a/b")]:
        with pytest.raises(InvalidInput):
            tags.rename_tag(library, old, new)
    with pytest.raises(InvalidInput):
        tags.rename_tag(library, "a", "bad,tag")
    assert tags.rename_tag(library, "a/b", "a") != []  # moving a level up is no cycle
    assert counts(library) == {"a": (1, 1)}
    assert tags.rename_tag(library, "missing", "other") == []


def test_rename_carries_the_new_tags_into_the_vectors(library):
    doc = documents.add_text(library, "Attention heads specialise", tags=["ml/attention"])
    indexing.try_drain(library)
    tags.rename_tag(library, "ml", "machine-learning")
    indexing.try_drain(library)
    _, _, metas = library.vectors.document_vectors(DEFAULT_PROJECT, doc.id)
    assert metas[0]["tags"] == ["machine-learning/attention"]


def test_merge_and_delete(library):
    a = documents.add_text(library, "A", tags=["ml/vision", "misc"])
    b = documents.add_text(library, "B", tags=["machine-learning", "ai/nlp/parsing"])
    c = documents.add_text(library, "C", tags=["ai/nlp", "ai/other", "keep"])

    changed = tags.merge_tags(library, ["ml", "ai/nlp", "ai", "machine-learning"], "machine-learning")
    assert changed == sorted([a.id, b.id, c.id])
    assert documents.get_document(library, a.id).tags == ["machine-learning/vision", "misc"]
    # ai/nlp/parsing follows the most specific source, ai/nlp, not ai.
    assert documents.get_document(library, b.id).tags == ["machine-learning", "machine-learning/parsing"]
    assert documents.get_document(library, c.id).tags == ["keep", "machine-learning", "machine-learning/other"]
    assert documents.list_versions(library, a.id)[-1].reason == "tags merged #ml, #ai/nlp, #ai → #machine-learning"
    with pytest.raises(InvalidInput):
        tags.merge_tags(library, ["machine-learning"], "machine-learning/vision")
    assert tags.merge_tags(library, ["machine-learning"], "machine-learning") == []

    changed = tags.delete_tags(library, ["machine-learning", "#MISC"])
    assert changed == sorted([a.id, b.id, c.id])
    assert [documents.get_document(library, d.id).tags for d in (a, b, c)] == [[], [], ["keep"]]
    assert documents.list_versions(library, c.id)[-1].reason == "tags deleted #machine-learning, #misc"
    assert tags.delete_tags(library, ["nothing"]) == []


@pytest.mark.parametrize("any_library", ["embedded"], indirect=True)  # reopens it by its folder
def test_colours_are_validated_stored_and_follow_renames(library):
    documents.add_text(library, "x", tags=["topic/a", "topic/b", "other"])
    tags.set_tag_color(library, "#Topic/A", "#FF8800")
    tags.set_tag_color(library, "topic/b", "#00aa00")
    tags.set_tag_color(library, "other", "#0000ff")
    assert tags.tag_colors(library) == {"other": "#0000ff", "topic/a": "#ff8800", "topic/b": "#00aa00"}
    for bad in ["red", "#fff", "#12345g", ""]:
        with pytest.raises(InvalidInput):
            tags.set_tag_color(library, "topic", bad)
    assert {c.tag: c.color for c in tags.list_tags(library)}["topic/a"] == "#ff8800"

    tags.rename_tag(library, "topic", "subject")
    assert tags.tag_colors(library) == {"other": "#0000ff", "subject/a": "#ff8800", "subject/b": "#00aa00"}
    tags.merge_tags(library, ["subject/a"], "other")  # the target keeps its own colour
    assert tags.tag_colors(library) == {"other": "#0000ff", "subject/b": "#00aa00"}
    tags.delete_tags(library, ["subject"])
    tags.set_tag_color(library, "other", None)
    assert tags.tag_colors(library) == {}

    tags.set_tag_color(library, "unused", "#123456")  # a colour may wait for its tag
    with Library.open(library.paths.root) as again:
        assert tags.tag_colors(again) == {"unused": "#123456"}


def test_suggestions_match_any_level_most_used_first(library, branches):
    documents.add_text(library, "More", tags=["topic/attention", "attic", "thinkProcess:tp_12"])
    assert tags.suggest_tags(library, "att") == ["topic/attention", "attic", "topic/attention/sparse"]
    assert tags.suggest_tags(library, "#Topic/At") == ["topic/attention", "topic/attention/sparse"]
    assert tags.suggest_tags(library, "topic/") == ["topic/attention", "topic/attention/sparse"]
    assert tags.suggest_tags(library, "tp") == ["thinkprocess:tp_12"]
    assert tags.suggest_tags(library, "secret") == []  # only in a sibling project
    assert tags.suggest_tags(library, "secret", scope="project/other") == ["secret"]
    assert tags.suggest_tags(library, "folder") == []  # folders' tags are not suggested
    assert tags.suggest_tags(library, "", limit=2) == ["topic/attention", "area/x"]
    assert tags.suggest_tags(library, "100%_") == []
    with pytest.raises(InvalidInput):
        tags.suggest_tags(library, "a,b")
