"""Saved searches: a query and filters under a name, kept in the library, run again, renamed, forgotten."""

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, NotFound
from vancetope_desktop.core.reading import ReadingStatus
from vancetope_desktop.services import documents, saved_searches
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.saved_searches import SavedSearch


def test_a_saved_filter_search_lists_live_results_and_survives_reopening(library, tmp_path):
    saved_searches.save_search(library, SavedSearch(name="  Bee  notes ", tags=["#Bees"], types=[DocumentType.NOTE]))
    first = documents.add_text(library, "Varroa mites", doc_type=DocumentType.NOTE, tags=["bees"])
    documents.add_text(library, "Bees fact", tags=["bees"])
    assert [d.id for d in saved_searches.run_saved(library, "Bee notes")] == [first.id]
    second = documents.add_text(library, "Hive health", doc_type=DocumentType.NOTE, tags=["bees/health"])
    assert [d.id for d in saved_searches.run_saved(library, "Bee notes")] == [second.id, first.id]
    library.close()
    reopened = Library.open(tmp_path / "library")
    try:
        assert [s.name for s in saved_searches.list_saved(reopened)] == ["Bee notes"]
        assert saved_searches.get_saved(reopened, "Bee notes").tags == ["bees"]
    finally:
        reopened.close()


def test_rename_forget_and_clear_errors(library):
    saved_searches.save_search(library, SavedSearch(name="To read", reading=[ReadingStatus.UNREAD]))
    saved_searches.save_search(library, SavedSearch(name="Other", query="mites"))
    with pytest.raises(InvalidInput, match="already"):
        saved_searches.save_search(library, SavedSearch(name="Other", query="bees"))
    with pytest.raises(InvalidInput, match="already"):
        saved_searches.rename_saved(library, "To read", "Other")
    saved_searches.rename_saved(library, "To read", "Reading list")
    assert [s.name for s in saved_searches.list_saved(library)] == ["Other", "Reading list"]
    saved_searches.forget_saved(library, "Other")
    with pytest.raises(NotFound):
        saved_searches.run_saved(library, "Other")
    with pytest.raises(InvalidInput):
        saved_searches.save_search(library, SavedSearch(name=" "))
    with pytest.raises(InvalidInput):
        saved_searches.save_search(library, SavedSearch(name="bad", where="#a and ("))


def test_a_saved_query_ranks_by_the_search(library):
    wanted = documents.add_text(library, "Honeybee colonies collapse when varroa mites spread viruses.")
    documents.add_text(library, "The Andromeda galaxy will merge with the Milky Way.")
    saved_searches.save_search(library, SavedSearch(name="mites", query='"varroa mites"'))
    assert [d.id for d in saved_searches.run_saved(library, "mites")] == [wanted.id]


def test_names_are_case_insensitive_and_keep_the_spelling_given(library):
    # Found by a new user: `search save Foo` then `search run foo` failed; `save foo` made a second one.
    saved_searches.save_search(library, SavedSearch(name="Bee Notes", query="mites"))
    assert saved_searches.get_saved(library, "bee notes").query == "mites"
    with pytest.raises(InvalidInput, match="already a saved search 'Bee Notes'"):
        saved_searches.save_search(library, SavedSearch(name="bee  notes", query="hives"))
    saved_searches.save_search(library, SavedSearch(name="BEE notes", query="hives"), replace=True)
    assert [(s.name, s.query) for s in saved_searches.list_saved(library)] == [("BEE notes", "hives")]
    saved_searches.save_search(library, SavedSearch(name="Other", query="x"))
    with pytest.raises(InvalidInput, match="already"):
        saved_searches.rename_saved(library, "other", "bee NOTES")
    assert saved_searches.rename_saved(library, "bee notes", "Bee notes").name == "Bee notes"  # a change of case
    saved_searches.forget_saved(library, "OTHER")
    assert [s.name for s in saved_searches.list_saved(library)] == ["Bee notes"]
