"""Sharing a document with a scope that would not see it, the one rule for reading a document by id, and the
one rule for writing into a scope.

Seed §4.2: a think process does not see another think process's memory, "only via explicit reference".
The user makes such a reference readable by sharing the document with a scope. A share with a scope
reaches the scopes below it too (shared with a session: each of its think processes may read it), as
everything else in the tree is inherited downwards.

A share opens reading *by id* only: a shared document is not listed, searched or changed from the
scope it is shared with, so that scope's listings and search rankings stay those of its own branch.

Storage: the receiving scope's ``settings["shared_documents"]`` (the scope table's JSON column), a list
of document ids, written in one transaction. Not the document's metadata: a re-import and restoring a
version rewrite that, and the details form shows it as an editable field. A grant belongs to the
receiver, like the sibling-results setting (``scopes.set_sibling_results_visible``) beside it. No
schema change; ids of purged documents are dropped the next time the scope's list is written.

Writing (:func:`write_grant`) is narrower than reading: a scope writes its own memory, and a session or
think process run by an agent (``scopes.set_agent``) also writes that agent's own memory (the agent owns the
namespace, and its state, lessons and episodes are written from the sessions it runs: seed 001, "tau stores
its own state at the end of a session"). Never another agent's, a sibling's or an ancestor's: storing for an
ancestor is a promotion the user reviews (seed §4.3), and the agent tools turn it into one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import STRUCTURAL_VALUES, DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import AccessDenied, InvalidInput, ScopeNotVisible
from ..core.scopes import ScopeKind, ScopePath
from ..store import tables
from ..store.db import read_session, write_session
from . import records
from .library import Library
from .scopes import RUN_BY_AGENT_KINDS, ancestry, resolve_scope, visibility_filter, visible_scopes

SHARED_KEY = "shared_documents"
"""The key of a scope's settings holding the ids of the documents shared with it."""


class Sharing(BaseModel):
    """Where a document lives and the scopes it is shared with (by path, sorted)."""

    model_config = ConfigDict(frozen=True)

    document_id: str = Field(description="The shared document's id (doc_…).")
    scope: str = Field(description="The scope the document belongs to.")
    shared_with: list[str] = Field(default_factory=list, description="Scopes that may read it by id.")


def share_document(lib: Library, doc_id: str, with_scope: str) -> Sharing:
    """Let ``with_scope`` (and the scopes below it) read ``doc_id`` by id. Sharing twice changes nothing.

    Raises:
        DocumentNotFound. ScopeNotFound / InvalidInput: unknown or malformed scope path.
        InvalidInput: a folder, a trashed document, or a scope that sees the document already (its own
        scope or a descendant of it).
    """
    target = resolve_scope(lib, with_scope)
    chain = ancestry(lib, target)
    with write_session(lib.engine) as session:
        row = records.document_row(session, doc_id)
        if row.type in STRUCTURAL_VALUES:
            raise InvalidInput(f"{doc_id} is a {row.type}: share the documents inside it one by one")
        if row.status == DocumentStatus.DELETED.value:
            raise InvalidInput(f"{doc_id} is in the trash: restore it before sharing it")
        if row.scope_path in chain:
            where = "its own scope" if row.scope_path == target else f"{row.scope_path}, an ancestor"
            raise InvalidInput(f"{target} sees {doc_id} already: it is in {where}")
        _write_ids(session, target, add=doc_id)
        return _sharing(session, row)


def unshare_document(lib: Library, doc_id: str, with_scope: str) -> Sharing:
    """Take back a share made with :func:`share_document`; a share that does not exist changes nothing.

    Only the share with ``with_scope`` itself is removed: a share with one of its ancestors still
    reaches it (the returned :class:`Sharing` lists what remains).

    Raises:
        DocumentNotFound. ScopeNotFound / InvalidInput: unknown or malformed scope path.
    """
    target = resolve_scope(lib, with_scope)
    with write_session(lib.engine) as session:
        row = records.document_row(session, doc_id)
        _write_ids(session, target, remove=doc_id)
        return _sharing(session, row)


def shared_with(lib: Library, doc_id: str) -> list[str]:
    """The scopes ``doc_id`` is shared with directly, sorted (not the scopes below them). Raises DocumentNotFound."""
    return sharing_of(lib, doc_id).shared_with


def sharing_of(lib: Library, doc_id: str) -> Sharing:
    """``doc_id``'s scope and shares as a :class:`Sharing`. Raises DocumentNotFound."""
    with read_session(lib.engine) as session:
        return _sharing(session, records.document_row(session, doc_id))


def is_shared_with(lib: Library, doc_id: str, scope: str) -> bool:
    """True when ``doc_id`` is shared with ``scope`` or with one of its ancestors (shares are inherited).

    Raises:
        ScopeNotFound / InvalidInput: unknown or malformed scope path.
    """
    chain = ancestry(lib, resolve_scope(lib, scope))
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.ScopeRow).where(tables.ScopeRow.path.in_(chain))).all()  # type: ignore[attr-defined]
    return any(doc_id in _ids(row) for row in rows)


class ReadGrant(StrEnum):
    """Why an acting scope may read a document (see :func:`read_grant`)."""

    OWN = "own"
    ANCESTOR = "ancestor"
    SHARED = "shared"
    SIBLING = "sibling"
    AGENT = "agent"


def read_grant(lib: Library, acting: str, doc: DocumentInfo) -> ReadGrant | None:
    """The one place deciding whether ``acting`` may read ``doc`` by id, and why; None when it may not.

    Order: the document's scope is ``acting`` (own) or one of its ancestors (seed §4.2); the agent scope
    that runs ``acting`` (``scopes.set_agent``); the user shared it with ``acting`` or an ancestor
    (:func:`is_shared_with`); the sibling-visibility setting (:func:`sibling_visible`). Raises ScopeNotFound
    for an unknown acting scope.
    """
    chain = ancestry(lib, acting)
    if doc.scope == acting:
        return ReadGrant.OWN
    if doc.scope in chain:
        return ReadGrant.ANCESTOR
    if any(v.via_agent and v.path == doc.scope for v in visible_scopes(lib, acting)):
        return ReadGrant.AGENT
    if is_shared_with(lib, doc.id, acting):
        return ReadGrant.SHARED
    if sibling_visible(lib, acting, doc):
        return ReadGrant.SIBLING
    return None


def readable_ids(lib: Library, acting: str, document_ids: Iterable[str], *, live_only: bool = True) -> set[str]:
    """Those of ``document_ids`` that ``acting`` may read by id (:func:`read_grant`'s rule for many documents
    at once: two queries), leaving out trashed ones unless ``live_only`` is False. Unknown ids are left out.

    Raises:
        ScopeNotFound.
    """
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return set()
    where = visibility_filter(lib, acting)
    if live_only:
        where.clauses.append(f"d.status != '{DocumentStatus.DELETED.value}'")
    chain = ancestry(lib, acting)
    with read_session(lib.engine) as session:
        found = {r[0] for r in session.exec(text(
            f"SELECT d.id FROM document d WHERE {where.sql} AND d.id IN ({where.forms.rows('ids')})"),
            params={**where.params, "ids": json.dumps(ids)}).all()}
        shared = {i for row in session.exec(select(tables.ScopeRow).where(
            tables.ScopeRow.path.in_(chain))).all() for i in _ids(row)}  # type: ignore[attr-defined]
        rest = [i for i in ids if i not in found and i in shared]
        if rest:
            doc = tables.DocumentRow
            query = select(doc.id).where(doc.id.in_(rest))  # type: ignore[union-attr]
            if live_only:
                query = query.where(doc.status != DocumentStatus.DELETED.value)
            found.update(session.exec(query).all())
    return found


def sibling_visible(lib: Library, acting: str, doc: DocumentInfo) -> bool:
    """Whether ``acting`` sees ``doc`` through the sibling-results setting (seed §9 question 2).

    True when ``acting`` is a think process with the setting on, ``doc`` is a result, and it lives in
    another think process of the same session (``scopes.visible_scopes`` lists those scopes).
    """
    if doc.type != DocumentType.RESULT:
        return False
    return any(v.results_only and v.path == doc.scope for v in visible_scopes(lib, acting))


def check_read(lib: Library, acting: str, doc: DocumentInfo) -> ReadGrant:
    """:func:`read_grant`, raising instead of returning None.

    Raises:
        ScopeNotVisible: the message names the rule and how the user can share the document.
    """
    grant = read_grant(lib, acting, doc)
    if grant is None:
        raise ScopeNotVisible(
            f"{acting} cannot read {doc.id} in {doc.scope}: {visibility_rule(lib, acting, doc.scope)} "
            f"(the user can share it: `vancetope memory share {doc.id} --with {acting}`)"
        )
    return grant


def visibility_rule(lib: Library, acting: str, target: str) -> str:
    """The seed §4.2 rule as it applies to ``acting`` looking at ``target``, for error messages.

    E.g. "a think process sees its own memory and its ancestors', not a sibling's"; for an agent's scope seen
    from a session or think process, that it sees an agent's only when that agent runs it.
    """
    acting_chain, target_chain = ancestry(lib, acting), ancestry(lib, target)
    kind = ScopePath.parse(acting).kind
    if ScopePath.parse(target).kind is ScopeKind.AGENT and kind in RUN_BY_AGENT_KINDS:
        return f"a {kind.label.lower()} sees its own memory and its ancestors', and an agent's only when it runs it"
    if acting in target_chain:
        excluded = "not its descendants'"
    elif acting_chain[1:2] == target_chain[1:2]:  # same parent, or two project groups
        excluded = "not a sibling's"
    else:
        excluded = f"not another {ScopePath.parse(target).kind.label.lower()}'s"
    return f"a {ScopePath.parse(acting).kind.label.lower()} sees its own memory and its ancestors', {excluded}"


class WriteGrant(StrEnum):
    """Why an acting scope may write into a scope (see :func:`write_grant`)."""

    OWN = "own"
    AGENT = "agent"


def write_grant(lib: Library, acting: str, target: str) -> WriteGrant | None:
    """The one place deciding whether ``acting`` may write directly into scope ``target`` (store, tag, relate
    from, archive, restore its documents), and why; None when it may not.

    ``target`` is ``acting`` itself (own), or the agent scope that runs ``acting``: the one
    :func:`scopes.visible_scopes` lists ``via_agent``, so a think process of a session run by the agent
    writes there too, as it reads there (agent). Anything else, ancestors included, is None: an ancestor is
    reached by a promotion request, never written directly. Raises ScopeNotFound for an unknown ``acting``.
    """
    if target == acting:
        return WriteGrant.OWN
    if any(v.via_agent and v.path == target for v in visible_scopes(lib, acting)):
        return WriteGrant.AGENT
    return None


def check_write(lib: Library, acting: str, target: str) -> WriteGrant:
    """:func:`write_grant`, raising instead of returning None.

    Raises:
        ScopeNotVisible: ``acting`` does not even see ``target`` (a sibling, a descendant, another agent).
        AccessDenied: it sees ``target`` but writes there only through a promotion (an ancestor).
        The message names the rule (:func:`write_rule`).
    """
    grant = write_grant(lib, acting, target)
    if grant is not None:
        return grant
    seen = any(v.path == target and not v.results_only for v in visible_scopes(lib, acting))
    error = AccessDenied if seen else ScopeNotVisible
    raise error(f"{acting} cannot write to {target}: {write_rule(lib, acting)}"
                + ("" if seen else f" ({visibility_rule(lib, acting, target)})"))


def write_rule(lib: Library, acting: str) -> str:
    """The write rule as it applies to ``acting``, for error messages: e.g. "a session writes only its own
    memory and that of the agent that runs it (agent/tau), and asks for promotion to an ancestor"."""
    agent = next((v.path for v in visible_scopes(lib, acting) if v.via_agent), None)
    kind = ScopePath.parse(acting).kind.label.lower()
    return (f"a {kind} writes only its own memory" + (f" and that of the agent that runs it ({agent})" if agent else "")
            + ", and asks for promotion to an ancestor")


def _ids(row: tables.ScopeRow) -> list[str]:
    value = (row.settings or {}).get(SHARED_KEY, [])
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _write_ids(session: Session, scope: str, *, add: str | None = None, remove: str | None = None) -> None:
    """Rewrite ``scope``'s shared ids (adding/removing one), dropping ids of purged documents."""
    row = session.get(tables.ScopeRow, scope)
    assert row is not None  # resolve_scope checked it
    before = _ids(row)
    wanted = [i for i in dict.fromkeys([*before, *([add] if add else [])]) if i != remove]
    existing = set(session.exec(
        select(tables.DocumentRow.id).where(tables.DocumentRow.id.in_(wanted))  # type: ignore[attr-defined]
    ).all())
    after = [i for i in wanted if i in existing]
    if after == before:
        return
    # A new dict: SQLAlchemy notices a JSON column change only on assignment.
    row.settings = {**(row.settings or {}), SHARED_KEY: after}
    session.add(row)
    records.bump_change_counter(session)


def _sharing(session: Session, row: tables.DocumentRow) -> Sharing:
    scopes = session.exec(select(tables.ScopeRow)).all()
    return Sharing(document_id=row.id, scope=row.scope_path,
                   shared_with=sorted(s.path for s in scopes if row.id in _ids(s)))
