"""Episodes: the seed's structured records, validated field by field, listed, read as a card, and recalled."""

import pytest

from vancetope_desktop.core.errors import InvalidEpisode
from vancetope_desktop.core.memories import MemoryType, Severity
from vancetope_desktop.services import documents, episodes, indexing, scopes, undo
from vancetope_desktop.services.memories import recall

SEED_EPISODE = {  # seed 001, "Schéma d'épisode"
    "context": "Deploying Convex schema changes",
    "goal": "Add vector index to memories table",
    "action": "Ran npx convex deploy after editing schema.ts",
    "outcome": "Deploy failed — vector index requires embedding field to exist first",
    "insight": "Vector indexes must be added in the same deploy as the embedding field. Order matters.",
    "severity": "major",
    "created_by": "alice",
}
OTHER_EPISODES = [
    ("Migrating the web app to Next.js 15", "Upgrade the router", "Ran the codemod on every page",
     "Two dynamic routes broke silently", "Check dynamic routes by hand after a router codemod", "minor"),
    ("Writing the auth middleware", "Protect the dashboard routes with Clerk", "Added a matcher to middleware.ts",
     "The API routes were left open", "A middleware matcher must list the API routes too", "critical"),
    ("Tuning the search ranking", "Raise recall of short notes", "Lowered the relevance floor to 0.05",
     "Noise flooded the results", "Measure on the benchmark before moving a threshold", "minor"),
    ("Setting up the CI pipeline", "Cache the Python wheels between runs", "Keyed the cache on the lock file",
     "Builds went from nine minutes to three", "Key caches on the lock file, not on the branch", "minor"),
]


@pytest.fixture
def tau(library):
    scopes.create_scope(library, "agent", "tau", parent="group/default")
    return library


def test_every_field_is_needed_and_a_missing_one_is_named(tau):
    with pytest.raises(InvalidEpisode, match="the episode has no goal, insight:"):
        episodes.store_episode(tau, "agent/tau", **{**SEED_EPISODE, "goal": " ", "insight": ""})
    with pytest.raises(InvalidEpisode, match="unknown severity 'huge': use one of minor, major, critical"):
        episodes.store_episode(tau, "agent/tau", **{**SEED_EPISODE, "severity": "huge"})
    assert documents.list_documents(tau, scope="agent/tau", types=documents.CONTENT_TYPES) == []  # nothing written


def test_store_list_and_read_the_card(tau):
    stored = episodes.store_episode(tau, "agent/tau", **SEED_EPISODE)
    assert (stored.namespace, stored.severity, stored.created_by) == ("agent/tau", Severity.MAJOR, "alice")
    doc = documents.get_document(tau, stored.id)
    assert doc.memory_type is MemoryType.EPISODE and doc.title == "Add vector index to memories table"
    assert doc.content.splitlines()[0] == "Context: Deploying Convex schema changes"
    assert doc.content.splitlines()[-1] == "Severity: major"
    minor = episodes.store_episode(tau, "agent/tau", *OTHER_EPISODES[0], created_by="tau")
    assert [e.id for e in episodes.list_episodes(tau, "agent/tau")] == [minor.id, stored.id]  # newest first
    assert [e.id for e in episodes.list_episodes(tau, "agent/tau", severity="major")] == [stored.id]
    assert [e.id for e in episodes.list_episodes(tau, "agent/tau", text="CODEMOD")] == [minor.id]
    assert episodes.episode(tau, stored.id) == stored
    note = documents.add_text(tau, "not an episode", scope="agent/tau")
    with pytest.raises(InvalidEpisode, match="is not an episode"):
        episodes.episode(tau, note.id)


@pytest.mark.slow  # embeds with the bundled model (loading it is most of the time when no test loaded it before)
def test_the_seed_s_episode_is_recalled_first_by_meaning_and_words(tau):
    for fields in OTHER_EPISODES:
        episodes.store_episode(tau, "agent/tau", *fields, created_by="tau")
    seed = episodes.store_episode(tau, "agent/tau", **SEED_EPISODE)
    indexing.try_drain(tau)
    found = recall(tau, "Convex deploy schema vector index", "agent/tau", limit=5)
    assert found.memories[0].id == seed.id and found.memories[0].memory_type is MemoryType.EPISODE
    assert found.warnings == []


def test_an_edit_changes_the_fields_the_text_and_the_title_together_and_undo_takes_it_back(tau):
    stored = episodes.store_episode(tau, "agent/tau", **SEED_EPISODE)
    action = undo.user_action(tau, "Edit episode", [stored.id])
    edited = episodes.update_episode(tau, stored.id, goal="Add the vector index", severity="CRITICAL",
                                     acting_scope="agent/tau", user_action=action)
    assert (edited.goal, edited.severity, edited.context) == ("Add the vector index", Severity.CRITICAL,
                                                              SEED_EPISODE["context"])
    assert edited.created_by == "alice"  # who recorded it stays; the audit entry names who edited
    doc = documents.get_document(tau, stored.id)
    assert doc.title == "Add the vector index"
    assert "Goal: Add the vector index" in doc.content and doc.content.endswith("Severity: critical")
    assert [e.id for e in episodes.list_episodes(tau, "agent/tau", severity="critical")] == [stored.id]
    with pytest.raises(InvalidEpisode, match="an episode's outcome, insight cannot be blank"):
        episodes.update_episode(tau, stored.id, outcome=" ", insight="")
    with pytest.raises(InvalidEpisode, match="unknown severity"):
        episodes.update_episode(tau, stored.id, severity="huge")
    assert episodes.episode(tau, stored.id) == edited  # nothing half-written
    undo.undo(tau)
    back = episodes.episode(tau, stored.id)
    assert (back.goal, back.severity) == (SEED_EPISODE["goal"], Severity.MAJOR)
    assert documents.get_document(tau, stored.id).content.endswith("Severity: major")
