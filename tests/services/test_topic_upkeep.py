"""The digest's upkeep of a scope's topic tree (issue 14): rebuilt from scratch while cold, marked consolidated at
the threshold, then revised locally (attach, split, merge); a person's pins kept; its changes lines of the digest's
change set and undone with it; idempotent; atoms gone leave their topics; a person's edit meanwhile never
overwritten. Real library, real model; the tree's shape is made small (``TREE``) so that a few dozen atoms give
several levels."""

import json
from datetime import date, datetime, timedelta

import pytest
from sqlalchemy import text

from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.core.topics import topic_fields
from vancetope_desktop.core.undo import UserAction
from vancetope_desktop.index.topic_plans import TreeParams
from vancetope_desktop.services import atoms, audit, digest, documents, indexing, topic_upkeep, topics, undo
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session

P = DEFAULT_PROJECT
SMALL = TreeParams(leaf_max=6, leaf_fill=0.5, branching=2, max_children=4)
"""Leaves of 3 atoms aimed at, split past 6, at most 4 children: 30 atoms make three levels."""

HERONS = [
    "Grey herons nest in the alder carr by the north shore.",
    "The heron colony counted forty occupied nests this spring.",
    "Herons stalk fish in the shallow reed margins at dawn.",
    "Heron chicks fledge in late June after seven weeks.",
    "A ringed heron from Denmark was sighted at the lake.",
    "Egrets joined the herons roosting on the island willows.",
    "Storms blew two heron nests out of the tallest alders.",
    "The survey team counts heron nests from a canoe in April.",
    "Herons swallow eels whole, head first.",
    "Heron numbers fell after the cold winter froze the lake.",
]
INSULIN = [
    "Insulin lowers blood glucose by moving it into muscle cells.",
    "Pancreatic beta cells secrete insulin after a meal.",
    "Insulin resistance often precedes type 2 diabetes.",
    "The ELISA measures insulin in plasma samples.",
    "Mice on a high-fat diet became insulin resistant within weeks.",
    "Metformin improves insulin sensitivity in the liver.",
    "Glucose tolerance tests were run after an overnight fast.",
    "Islet transplants restored insulin secretion in two patients.",
    "The insulin receptor is a tyrosine kinase.",
    "HbA1c reflects average blood sugar over three months.",
]
GPUS = [
    "The compute cluster has eight A100 GPUs per node.",
    "Each GPU card carries 80 GB of memory.",
    "The training job queue on the GPU nodes is full on Mondays.",
    "CUDA 12 drivers were installed on every GPU server.",
    "Mixed precision halves the GPU memory a model needs.",
    "The scheduler gives each lab four GPU hours a day.",
    "NVLink connects the GPUs within a node.",
    "A failed fan overheated one GPU in rack three.",
    "Batch size 64 fits on one GPU without sharding.",
    "The GPU cluster's storage is a parallel file system.",
]


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(topic_upkeep, "TREE", SMALL)


def _store(lib, texts, scope=P):
    return [atoms.store_atom(lib, atoms.draft_atom("fact", t), scope=scope).id for t in texts]


def _tree(lib, scope=P):
    return topics.get_tree(lib, scope)


def _in(lib, topic_id):
    """The ids of the live atoms attached to ``topic_id`` itself."""
    return {a.id for a in topics.topic_atoms(lib, topic_id)}


def _stored(lib):
    """Every topic document (id, status, version) and in_topic edge: what a run writes."""
    with write_session(lib.engine) as session:
        docs = session.exec(text("SELECT id, status, version FROM document WHERE type = 'topic' ORDER BY id")).all()
        edges = session.exec(text("SELECT source_id, target_id FROM relation WHERE type = 'in_topic' "
                                  "ORDER BY 1, 2")).all()
    return [tuple(d) for d in docs], [tuple(e) for e in edges]


def _shape(lib):
    """Each topic's label, parent, words, centroid and atoms: the tree as the digest writes it."""
    with write_session(lib.engine) as session:
        rows = session.exec(text("SELECT id, title, content, metadata FROM document WHERE type = 'topic' "
                                 "AND status = 'active' ORDER BY id")).all()
    return [(i, title, content, json.loads(meta)["topic"], _in(lib, i)) for i, title, content, meta in rows]


def _person():
    return UserAction(label="Edit topics", actor=audit.current_user())


def _leaf_of(lib, atom_id):
    """The topic holding ``atom_id``."""
    return next(t for t in _tree(lib).topics if atom_id in _in(lib, t.id))


def test_cold_start_builds_the_whole_tree_and_a_rerun_changes_nothing(library, small):
    ids = _store(library, HERONS[:5] + INSULIN[:5] + GPUS[:5])

    done = topic_upkeep.update_topics(library, P)

    tree = _tree(library)
    assert done.mode == "cold" and not tree.consolidated and tree.unplaced == 0 and tree.atoms == 15
    assert tree.topics[0].is_root and tree.topics[0].label == "Inbox"
    assert len(tree.topics) > 3  # a few leaves and a level above them
    leaves = [t for t in tree.topics if not t.children]
    assert all(t.own_atoms <= SMALL.leaf_max for t in leaves)
    placed = {a for t in leaves for a in _in(library, t.id)}
    assert placed == set(ids)
    worded = {i: (fields.get("worded"), len(members)) for i, _, _, fields, members in _shape(library)}
    assert all(worded[t.id] == (t.own_atoms, t.own_atoms) for t in leaves)  # stored for rewords to judge
    assert {c.kind for c in done.changes} == {"added"} and any("attached" in c.what for c in done.changes)
    assert undo.history(library)[0][0].label == f"Topics of {P}"

    before = _stored(library)
    again = topic_upkeep.update_topics(library, P)
    assert again.changes == [] and again.message.endswith("up to date") and _stored(library) == before
    assert topic_upkeep.stale_scopes(library) == []


def test_cold_tree_is_rebuilt_until_the_threshold_then_consolidated_and_revised_locally(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 20})
    _store(library, HERONS[:5] + INSULIN[:5] + GPUS[:5])
    topic_upkeep.update_topics(library, P)
    assert not _tree(library).consolidated

    _store(library, HERONS[5:8] + INSULIN[5:8])  # 21 atoms: past the threshold
    grown = topic_upkeep.update_topics(library, P)
    tree = _tree(library)
    assert grown.mode == "cold" and tree.consolidated and tree.unplaced == 0
    assert any(c.document_id == tree.root_id and c.what.startswith("consolidated at 21 atoms "
                                                                   "(Settings.topic_consolidate_at 20)")
               for c in grown.changes)

    kept = {t.id for t in tree.topics}
    shape = _shape(library)
    new = _store(library, [GPUS[5]])
    revised = topic_upkeep.update_topics(library, P)
    after = _tree(library)
    assert revised.mode == "consolidated" and after.consolidated and after.unplaced == 0
    assert {t.id for t in after.topics} == kept  # attached locally: nothing rebuilt, no topic made or retired
    line = next(c for c in revised.changes if "attached" in c.what)
    assert line.what == f"1 atom attached: “{GPUS[5]}”" and new[0] in _in(library, line.document_id)
    assert any(c.what == "centroid and summary revised" or "keywords" in c.what for c in revised.changes)

    undo.undo(library)  # the revision, as one step: the atom out again, the centroids back
    assert _shape(library) == shape and _tree(library).unplaced == 1


def test_a_new_atom_is_attached_to_its_nearest_leaf(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 10})
    herons = _store(library, HERONS[:6])
    _store(library, GPUS[:6])
    topic_upkeep.update_topics(library, P)
    assert _tree(library).consolidated

    [egret] = _store(library, ["Two herons and an egret fished the reed margin at dusk."])
    topic_upkeep.update_topics(library, P)

    home = _leaf_of(library, egret)
    assert _in(library, home.id) & set(herons)  # among the herons, not the GPUs


def test_a_leaf_grown_past_the_leaf_size_is_split(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 10})
    _store(library, HERONS[:3] + GPUS[:3] + INSULIN[:4])
    topic_upkeep.update_topics(library, P)
    tree = _tree(library)
    assert tree.consolidated

    _store(library, HERONS[3:] + GPUS[3:])  # 14 more atoms: leaves of at most 6 overflow
    done = topic_upkeep.update_topics(library, P)

    tree = _tree(library)
    assert done.mode == "consolidated" and tree.unplaced == 0
    split = next(c for c in done.changes if c.kind == "modified" and c.what.startswith("split in"))
    assert split.document_id == tree.root_id  # the overflowing leaves' parent: its leaves regrouped together
    made = [c for c in done.changes if c.kind == "added" and "(split)" in c.what]
    assert made and all(c.what.startswith(f"new topic (split): “{c.title}”; keywords: ") for c in made)
    assert not any("“doc_" in c.what for c in done.changes)  # topics and atoms named by their titles, not ids
    assert all(t.own_atoms <= SMALL.leaf_max for t in tree.topics if not t.children)


def test_a_leaf_grown_by_half_gets_new_words_and_keeps_a_pinned_label(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 9})
    herons = _store(library, HERONS[:3])
    gpus = _store(library, GPUS[:3])
    _store(library, INSULIN[:3])
    topic_upkeep.update_topics(library, P)
    heron_leaf, gpu_leaf = _leaf_of(library, herons[0]), _leaf_of(library, gpus[0])
    assert _tree(library).consolidated and heron_leaf.own_atoms == gpu_leaf.own_atoms == 3
    topics.rename_topic(library, heron_leaf.id, "Heron fieldwork", user_action=_person())
    words = {i: fields["surface"] for i, _, _, fields, _ in _shape(library)}

    # 3 → 5 atoms each (past half as many again, under the leaf size), with a word twice: a keyword of the five.
    _store(library, ["Egrets share the herons' island roost.", "Egrets outnumbered the herons this year.",
                     "CUDA drivers were updated on every GPU node.", "The CUDA toolkit matches the GPU drivers."])
    done = topic_upkeep.update_topics(library, P)

    assert done.mode == "consolidated"
    after = {i: (title, fields) for i, title, _, fields, _ in _shape(library)}
    for leaf, word in ((heron_leaf, "egrets"), (gpu_leaf, "CUDA")):
        fields = after[leaf.id][1]
        assert word not in words[leaf.id] and word in fields["surface"]  # words made from all five now
        assert fields["worded"] == 5
        assert any(c.document_id == leaf.id and c.what.startswith("words renewed: 5 atoms, made from 3; ")
                   and "keywords: " in c.what for c in done.changes)  # listed in the change set
    assert after[heron_leaf.id][0] == "Heron fieldwork"  # the person's label kept, its surface renewed


def test_near_identical_sibling_leaves_are_merged(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 10})
    _store(library, HERONS[:5] + GPUS[:5])
    topic_upkeep.update_topics(library, P)
    tree = _tree(library)
    heron_leaf = _leaf_of(library, atoms.list_atoms(library, P, text="alder carr")[0].id)
    moved = sorted(_in(library, heron_leaf.id))[:1]
    # A machine-made twin beside it (as a split later emptied by archiving would leave): same words, same centroid.
    with write_session(library.engine) as session:
        row = session.get(tables.DocumentRow, heron_leaf.id)
        fields = topic_fields(row.meta)
        twin = topics.session_create_topic(session, None, scope_path=P, label=heron_leaf.label,
                                           parent_id=heron_leaf.parent_id, surface=fields["surface"],
                                           centroid=fields["centroid"], origin="attach")
        for atom_id in moved:
            topics.session_remove_member(session, atom_id, heron_leaf.id, None)
            topics.session_add_member(session, atom_id, twin.id, None)
    assert len(_tree(library).topics) == len(tree.topics) + 1

    _store(library, [HERONS[5]])  # something new: the digest's revision runs
    done = topic_upkeep.update_topics(library, P)

    merged = next(c for c in done.changes if c.kind == "deleted")
    assert "merged into" in merged.what and {merged.document_id, merged.related_id} == {heron_leaf.id, twin.id}
    assert documents.get_document(library, merged.document_id).status is DocumentStatus.DELETED
    assert set(moved) <= _in(library, merged.related_id)
    assert len(_tree(library).topics) == len(tree.topics)


def test_a_persons_pins_are_kept_across_a_rebuild_and_a_consolidation(library, small):
    library.settings = library.settings.model_copy(update={"topic_consolidate_at": 20})
    herons = _store(library, HERONS[:5])
    gpus = _store(library, GPUS[:5])
    topic_upkeep.update_topics(library, P)
    leaf = _leaf_of(library, herons[0])
    topics.rename_topic(library, leaf.id, "Heron fieldwork", user_action=_person())
    other = _leaf_of(library, gpus[0])
    topics.move_atom(library, herons[1], other.id, user_action=_person())  # a person's odd choice, pinned

    def held() -> None:
        assert documents.get_document(library, leaf.id).title == "Heron fieldwork"
        assert herons[1] in _in(library, other.id)

    _store(library, HERONS[5:] + INSULIN[:2])  # cold: the whole tree rebuilt
    assert topic_upkeep.update_topics(library, P).mode == "cold"
    held()
    _store(library, INSULIN[2:5])  # 20 atoms: consolidated
    topic_upkeep.update_topics(library, P)
    assert _tree(library).consolidated
    held()
    _store(library, INSULIN[5:])  # consolidated: attached locally
    assert topic_upkeep.update_topics(library, P).mode == "consolidated"
    held()


def test_an_archived_or_trashed_atom_leaves_its_topic(library, small):
    ids = _store(library, HERONS[:4] + GPUS[:4])
    topic_upkeep.update_topics(library, P)
    leaf = _leaf_of(library, ids[0])
    count = leaf.own_atoms
    documents.set_status(library, ids[0], DocumentStatus.ARCHIVED)
    documents.set_status(library, ids[5], DocumentStatus.DELETED)
    assert topic_upkeep.stale_scopes(library) == [P]

    done = topic_upkeep.update_topics(library, P)

    with write_session(library.engine) as session:
        left = session.exec(text("SELECT COUNT(*) FROM relation WHERE type = 'in_topic' AND source_id IN (:a, :b)"),
                            params={"a": ids[0], "b": ids[5]}).one()[0]
    assert left == 0 and _tree(library).get(leaf.id).own_atoms == count - 1
    assert any("left" in c.what for c in done.changes) and topic_upkeep.stale_scopes(library) == []


def test_a_persons_edit_while_the_tree_is_planned_is_never_overwritten(library, small):
    ids = _store(library, HERONS[:4] + GPUS[:4])
    topic_upkeep.update_topics(library, P)
    _store(library, INSULIN[:3])
    plan = topic_upkeep.plan_upkeep(library, P)  # the slow part, before the transaction
    leaf = _leaf_of(library, ids[0])
    topics.rename_topic(library, leaf.id, "Herons", user_action=_person())  # meanwhile
    before = _stored(library)

    with write_session(library.engine) as session:
        done = topic_upkeep.apply_upkeep(session, plan, UserAction(label="Digest", actor=audit.current_user()))

    assert done.mode == "skipped" and done.changes == [] and "changed while" in done.warnings[0]
    assert _stored(library) == before
    assert topic_upkeep.update_topics(library, P).mode == "cold"  # the next run goes ahead


@pytest.mark.slow  # the digest's reconciliation embeds every atom
def test_the_digest_keeps_the_tree_in_its_run_and_its_undo_takes_it_back(library, small):
    ids = _store(library, HERONS[:5] + INSULIN[:5] + GPUS[:5])
    indexing.try_drain(library)  # most atoms embedded, as the app's indexing process does
    late = _store(library, [GPUS[5]])[0]  # one still queued: encoded by the upkeep
    before = _stored(library)

    run = digest.run_digest(library, P)

    tree = _tree(library)
    assert tree.unplaced == 0 and tree.atoms == 16 and late in {a for t in tree.topics
                                                                for a in _in(library, t.id)}
    lines = [c for c in run.changes if c.document_id in {t.id for t in tree.topics}]
    assert lines and lines[0].what == "the scope's topic tree, made" and all(c.run == 1 for c in lines)
    assert digest.show_digest(library, P).changes == run.changes
    after = _stored(library)
    assert digest.run_digest(library, P).outcome == "already digested" and _stored(library) == after

    digest.undo_digest(library, P)
    docs, edges = _stored(library)
    assert edges == [] and {s for _, s, _ in docs} == {DocumentStatus.DELETED.value}
    assert _tree(library).root_id is None and before == ([], [])
    undo.redo(library)
    assert _stored(library)[1] == after[1]
    assert ids


@pytest.mark.slow  # several digests, each embedding its atoms
def test_the_apps_pending_run_keeps_each_tree_once(library, small):
    ids = _store(library, HERONS[:4] + GPUS[:4])
    days = [date.today() - timedelta(days=back) for back in (3, 2)]
    with write_session(library.engine) as session:  # written on two past days
        for atom_id, day in zip(ids, [days[0]] * 4 + [days[1]] * 4, strict=True):
            moment = datetime.combine(day, datetime.min.time()).astimezone() + timedelta(hours=12)
            session.exec(text("UPDATE document SET created_at = :at, updated_at = :at WHERE id = :id"),
                         params={"at": moment.astimezone().replace(tzinfo=None).isoformat(sep=" "), "id": atom_id})

    runs = digest.run_pending(library)

    assert [(r.scope, r.day) for r in runs] == [(P, days[0]), (P, days[1])]
    tree_ids = {t.id for t in _tree(library).topics}
    assert not any(c.document_id in tree_ids for c in runs[0].changes)  # the tree waits for the latest day
    assert any(c.document_id in tree_ids for c in runs[1].changes) and _tree(library).unplaced == 0

    documents.set_status(library, ids[0], DocumentStatus.ARCHIVED)  # no day to digest, an atom gone
    [alone] = digest.run_pending(library)
    assert alone.outcome == "topics updated" and alone.writeup_id is None
    assert any("left" in c.what for c in alone.changes) and digest.run_pending(library) == []


def _rebuilt_keeps(library, check, *, consolidated=False):
    """``check`` holds after a cold rebuild with new atoms, a rebuild from scratch and (``consolidated``) a
    revision of the consolidated tree with new atoms."""
    if consolidated:  # the next five atoms reach the threshold
        library.settings = library.settings.model_copy(update={"topic_consolidate_at": _tree(library).atoms + 5})
        _store(library, INSULIN[:5])
        assert topic_upkeep.update_topics(library, P).mode == "cold"
        assert _tree(library).consolidated
        check()
        _store(library, INSULIN[5:])
        assert topic_upkeep.update_topics(library, P).mode == "consolidated"
        check()
        return
    _store(library, INSULIN[:5])
    assert topic_upkeep.update_topics(library, P).mode == "cold"
    check()
    assert topic_upkeep.update_topics(library, P, from_scratch=True).mode == "cold"
    check()


def _live_topics(library):
    return {t.id: t for t in _tree(library).topics}


@pytest.mark.parametrize("consolidated", [False, True])
def test_a_hand_made_topic_and_its_pinned_atom_survive_a_rebuild(library, small, consolidated):
    herons = _store(library, HERONS[:5])
    _store(library, GPUS[:5])
    topic_upkeep.update_topics(library, P)
    parent = _leaf_of(library, herons[0]).parent_id
    made = topics.create_topic(library, "My hand-made topic", parent, user_action=_person())
    topics.move_atom(library, herons[0], made.id, user_action=_person())
    empty = topics.create_topic(library, "Empty by hand", parent, user_action=_person())

    def check() -> None:
        live = _live_topics(library)
        assert made.id in live and live[made.id].label == "My hand-made topic"
        assert _in(library, made.id) == {herons[0]}
        assert empty.id in live and _in(library, empty.id) == set()

    _rebuilt_keeps(library, check, consolidated=consolidated)


@pytest.mark.parametrize("consolidated", [False, True])
def test_a_topic_moved_by_hand_keeps_its_parent_across_a_rebuild(library, small, consolidated):
    herons = _store(library, HERONS[:5])
    gpus = _store(library, GPUS[:5])
    topic_upkeep.update_topics(library, P)
    moved, target = _leaf_of(library, herons[0]), _leaf_of(library, gpus[0])
    topics.move_topic(library, moved.id, target.id, user_action=_person())

    def check() -> None:
        live = _live_topics(library)
        assert moved.id in live and target.id in live
        assert live[moved.id].parent_id == target.id and "parent" in live[moved.id].pinned

    _rebuilt_keeps(library, check, consolidated=consolidated)


@pytest.mark.parametrize("consolidated", [False, True])
def test_a_split_by_hand_keeps_its_parts_under_the_split_topic_across_a_rebuild(library, small, consolidated):
    herons = _store(library, HERONS[:6])
    _store(library, GPUS[:5])
    topic_upkeep.update_topics(library, P)
    split = _leaf_of(library, herons[0])
    parts = topics.split_topic(library, split.id, parts=2, user_action=_person())
    held = {p.id: _in(library, p.id) for p in parts}

    def check() -> None:
        live = _live_topics(library)
        assert split.id in live
        for part in parts:
            assert part.id in live and live[part.id].parent_id == split.id
            assert _in(library, part.id) == held[part.id]

    _rebuilt_keeps(library, check, consolidated=consolidated)
