"""The scope tree and the visibility rule (seed §4.2)."""

import pytest

from vancetope_desktop.core.errors import ScopeError, ScopeNotFound
from vancetope_desktop.services import scopes


def test_create_tree_and_visibility(library):
    scopes.create_scope(library, "group", "grp_1", name="Lab")
    scopes.create_scope(library, "project", "proj_5", parent="group/grp_1")
    scopes.create_scope(library, "session", "sess_7", parent="project/proj_5")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/sess_7", name="Hypothesis Check")
    visible = scopes.visible_scopes(library, "think-process/tp_12")
    assert [(v.path, v.weight) for v in visible] == [
        ("think-process/tp_12", 1.0), ("session/sess_7", 0.8), ("project/proj_5", 0.5), ("group/grp_1", 0.3)
    ]
    assert [v.path for v in scopes.visible_scopes(library, "project/proj_5")] == ["project/proj_5", "group/grp_1"]


def test_wrong_parent_kind_and_duplicates_are_refused(library):
    with pytest.raises(ScopeError):
        scopes.create_scope(library, "think-process", "tp_1", parent="project/inbox")
    with pytest.raises(ScopeError):
        scopes.create_scope(library, "project", "inbox", parent="group/default")
    with pytest.raises(ScopeNotFound):
        scopes.create_scope(library, "session", "s", parent="project/nope")


def test_current_scope_persists(library, tmp_path):
    from vancetope_desktop.services.library import Library

    scopes.create_scope(library, "project", "proj_5")  # parent: the current scope's group
    scopes.use_scope(library, "project/proj_5")
    with Library.open(library.paths.root) as again:
        assert scopes.current_scope(again) == "project/proj_5"


def test_unicode_scope_ids(library):
    for key in ["AI", "Über Attention (2023)", "日本語", "x" * 80]:
        created = scopes.create_scope(library, "project", key, parent="group/default")
        assert scopes.get_scope(library, created.path).key == key


def test_a_damaged_parent_loop_ends_the_chain_instead_of_hanging(library):
    # The chain is one recursive query; a loop written by a damaged or hand-edited database must
    # end at its first repeat, as the old walk did.
    from sqlalchemy import text

    from vancetope_desktop.store.db import write_session

    scopes.create_scope(library, "session", "s_loop", parent="project/inbox")
    with write_session(library.engine) as session:
        session.exec(text("UPDATE scope SET parent_path = 'session/s_loop' WHERE path = 'group/default'"))
    assert scopes.ancestry(library, "session/s_loop") == ["session/s_loop", "project/inbox", "group/default"]
    with pytest.raises(ScopeNotFound):
        scopes.ancestry(library, "session/absent")
