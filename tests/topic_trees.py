"""A small topic tree made by hand with ``services.topics``' session helpers (what the digest writes), for the tests
of the topic services, the CLI, the agent tools and the app before any digest builds one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tests.library_copies import copied_library
from vancetope_desktop.services import atoms, topics
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library
from vancetope_desktop.store.db import write_session

FACTS = ("Grey herons nest in alder carr.", "Heron chicks fledge after seven weeks.",
         "Alder carr floods every winter.", "Heron nests are built of sticks.", "The survey report is due soon.")
"""The atoms a0…a4 of :func:`small_tree`."""


def tree_copy(template: tuple[Path, dict[str, str]], tmp_path: Path) -> Iterator[tuple[Library, dict[str, str]]]:
    """A test's own copy of ``template`` (a module's :func:`tests.library_copies.build_template` around
    :func:`small_tree`), opened: yields (library, ids); closed afterwards. Building the tree stores five atoms and
    four topics, 0.2-0.7 s a test at load ~4; a copy costs about what a new library's does."""
    root, ids = template
    with copied_library(root, tmp_path / "library") as lib:
        yield lib, dict(ids)


def small_tree(lib: Library, scope: str = DEFAULT_PROJECT) -> dict[str, str]:
    """Store :data:`FACTS` as atoms a0…a4 of ``scope`` and a tree over them: root → Herons (a0, a1; surface heron,
    nest; a centroid) → Nesting (a3); root → Alders (a2, a0). a4 is in no topic. Nothing is recorded for undo.

    Returns:
        name → id: ``a0``…``a4``, ``root``, ``herons``, ``alders``, ``nesting``.
    """
    ids = {f"a{n}": atoms.store_atom(lib, atoms.draft_atom("fact", text), scope=scope).id
           for n, text in enumerate(FACTS)}
    with write_session(lib.engine) as session:
        root = topics.session_create_topic(session, None, scope_path=scope, label="Default project", parent_id=None)
        herons = topics.session_create_topic(session, None, scope_path=scope, label="Herons", parent_id=root.id,
                                             surface=["heron", "nest"], centroid=np.ones(4, dtype=np.float32) / 2)
        alders = topics.session_create_topic(session, None, scope_path=scope, label="Alders", parent_id=root.id)
        nesting = topics.session_create_topic(session, None, scope_path=scope, label="Nesting", parent_id=herons.id)
        for atom, topic in (("a0", herons), ("a1", herons), ("a2", alders), ("a3", nesting), ("a0", alders)):
            topics.session_add_member(session, ids[atom], topic.id, None)
        ids.update(root=root.id, herons=herons.id, alders=alders.id, nesting=nesting.id)
    return ids
