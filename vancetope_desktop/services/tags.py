"""Tags as a library-wide vocabulary: counts per scope, rename, merge, delete, colours, suggestions.

Like Zotero's tag selector, a tag belongs to the library, not to a scope: renaming, merging or
deleting it changes every document carrying it, whatever its scope or status. Counting and
suggesting, on the other hand, look only at documents visible from a scope (seed §4.2).

Each document whose tags change keeps its previous state as a version and gets a ``refresh`` index
job (its vectors carry the tags as metadata); all of it commits in one transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import STRUCTURAL_TYPES, DocumentStatus, DocumentType
from ..core.errors import InvalidInput
from ..core.tags import AnyOf, TagIs, normalize_tag, normalize_tags, tag_matches
from ..core.undo import UserAction
from ..store import tables
from ..store.db import get_meta, read_session, set_meta, write_session
from ..store.dialect_sql import SqlForms
from ..store.filters import SqlFilter
from . import audit, records
from .library import Library
from .scopes import resolve_scope, visibility_filter

COLORS_KEY = "tag_colors"
"""The ``meta`` key holding ``{tag: "#rrggbb"}`` as JSON."""

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
_CONTENT_TYPES = [t.value for t in DocumentType if t not in STRUCTURAL_TYPES]


class TagCount(BaseModel):
    """One tag as a tag tree shows it.

    Attributes:
        tag: the normalised tag, e.g. ``topic/attention``.
        own: visible documents carrying exactly this tag.
        total: distinct visible documents carrying this tag or any tag below it (``a`` counts ``a/b``).
        color: ``#rrggbb`` or None.
    """

    model_config = ConfigDict(frozen=True)

    tag: str
    own: int
    total: int
    color: str | None = None


def _visible_filter(lib: Library, scope: str | None, include_ancestors: bool,
                    statuses: Sequence[DocumentStatus]) -> SqlFilter:
    """Non-folder documents of ``statuses`` in ``scope`` (and its ancestors) as a filter over ``d``."""
    where = visibility_filter(lib, resolve_scope(lib, scope), include_ancestors=include_ancestors)
    return where.and_in("status", [s.value for s in statuses]).and_in("type", _CONTENT_TYPES)


# The parent of ``tag`` in SQL: rtrim strips the trailing characters that are not '/', then the '/'.
_PARENT_SQL = "substr(rtrim(tag, replace(tag, '/', '')), 1, length(rtrim(tag, replace(tag, '/', ''))) - 1)"


def list_tags(lib: Library, *, scope: str | None = None, include_ancestors: bool = True,
              statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,)) -> list[TagCount]:
    """Every tag carried by a document visible from ``scope``, with its counts and colour.

    Folders are not counted. Parent levels that no document carries directly (only ``topic/x``
    exists) appear with ``own=0``. One SQL query: a recursive CTE lifts each (document, tag) pair to
    every ancestor level, so ``total`` is a ``COUNT(DISTINCT document)`` per level.

    Args:
        scope: scope path; None means the current scope.
        include_ancestors: also count the ancestors' documents (what the scope sees), else its own only.
        statuses: which lifecycle states count (default: active only).

    Returns:
        TagCount per tag, sorted level by level (``a``, ``a/b``, ``a/c``, ``a-b``), so a parent
        comes right before its subtree.

    Raises:
        ScopeNotFound: unknown scope.
    """
    where = _visible_filter(lib, scope, include_ancestors, statuses)
    sql = (
        "WITH RECURSIVE up(document_id, tag, own) AS ("
        # CAST: PostgreSQL wants the recursive term's type (text, from substr) in the first one (varchar).
        " SELECT x.document_id, CAST(x.tag AS TEXT), 1 FROM document_tag x JOIN document d ON d.id = x.document_id"
        f" WHERE {where.sql}"
        f" UNION ALL SELECT document_id, {_PARENT_SQL}, 0 FROM up WHERE tag LIKE '%/%'"
        ") SELECT tag, SUM(own), COUNT(DISTINCT document_id) FROM up GROUP BY tag"
    )
    with read_session(lib.engine) as session:
        rows = session.exec(text(sql), params=where.params).all()
        colors = _read_colors(session)
    counts = [TagCount(tag=tag, own=int(own), total=int(total), color=colors.get(tag)) for tag, own, total in rows]
    return sorted(counts, key=lambda c: c.tag.split("/"))


def suggest_tags(lib: Library, prefix: str, *, scope: str | None = None, limit: int = 20) -> list[str]:
    """Existing tags for autocompletion: those whose path, or any level of it, starts with ``prefix``.

    ``"att"`` finds ``attention`` and ``topic/attention``; ``"topic/at"`` finds ``topic/attention``;
    a namespace counts as a level too (``"tp"`` finds ``thinkprocess:tp_12``). Only tags carried by
    active, non-folder documents visible from ``scope`` (with its ancestors) are suggested.

    Args:
        prefix: as typed (``"#Top"`` is normalised like a tag); blank suggests the most used tags.
        scope: scope path; None means the current scope.
        limit: at most this many tags.

    Returns:
        Tags, most used first, then alphabetical.

    Raises:
        InvalidInput: a prefix that can never start a tag (quotes, commas, an empty level).
        ScopeNotFound: unknown scope.
    """
    wanted = _normalize_prefix(prefix)
    where = _visible_filter(lib, scope, True, (DocumentStatus.ACTIVE,))
    sql = "SELECT x.tag FROM document_tag x JOIN document d ON d.id = x.document_id WHERE " + where.sql
    params = dict(where.params)
    if wanted:
        escaped = _like_escape(wanted)
        params.update(start=escaped + "%", level=f"%/{escaped}%", space=f"%:{escaped}%")
        sql += (" AND (x.tag LIKE :start ESCAPE '\\' OR x.tag LIKE :level ESCAPE '\\'"
                " OR x.tag LIKE :space ESCAPE '\\')")
    sql += f" GROUP BY x.tag ORDER BY COUNT(*) DESC, x.tag LIMIT {max(int(limit), 0)}"
    with read_session(lib.engine) as session:
        return [row[0] for row in session.exec(text(sql), params=params).all()]


def _normalize_prefix(prefix: str) -> str:
    stripped = prefix.strip().lstrip("#").strip()
    if not stripped:
        return ""
    # A trailing '/' is an unfinished level, not an empty one: "topic/" completes below topic.
    body = normalize_tag(stripped.rstrip("/")) if stripped.rstrip("/") else normalize_tag(stripped)
    return body + "/" if stripped.endswith("/") else body


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def rename_tag(lib: Library, old: str, new: str, *, user_action: UserAction | None = None) -> list[str]:
    """Rename ``old`` and every tag below it (``old/x`` → ``new/x``) on every document of the library.

    A document that ends up with the same tag twice keeps it once. Each changed document gets a
    version (reason ``tag renamed #old → #new``) and a ``refresh`` index job; the colours of the
    renamed tags move with them (a colour already set on the new name wins). With ``user_action`` each
    document's change is recorded for undo (``tag``: ``audit.record_user_action``; colours are not undone).

    Returns:
        Ids of the documents whose tags changed, sorted.

    Raises:
        InvalidInput: malformed tags, or ``new`` equal to or below ``old`` (a cycle).
    """
    old, new = normalize_tag(old), normalize_tag(new)
    if tag_matches(new, old):
        raise InvalidInput(f"cannot rename #{old} to #{new}: the new name is the tag itself or below it")
    return _retag(lib, {old: new}, f"tag renamed #{old} → #{new}", user_action)


def merge_tags(lib: Library, sources: Sequence[str], target: str, *,
               user_action: UserAction | None = None) -> list[str]:
    """Make every source tag ``target``, on every document of the library; subtrees follow (``s/x`` → ``target/x``).

    A source equal to ``target`` is ignored; when sources nest (``a`` and ``a/b``), a tag is
    renamed by the most specific source it lies under. Versions, jobs, colours and undo as in
    :func:`rename_tag` (reason ``tags merged #a, #b → #target``).

    Returns:
        Ids of the documents whose tags changed, sorted (empty when there is nothing to merge).

    Raises:
        InvalidInput: malformed tags, or ``target`` below one of the sources (a cycle).
    """
    target = normalize_tag(target)
    wanted = [s for s in normalize_tags(sources) if s != target]
    for source in wanted:
        if tag_matches(target, source):
            raise InvalidInput(f"cannot merge #{source} into #{target}: the target lies below it")
    if not wanted:
        return []
    reason = "tags merged " + ", ".join(f"#{s}" for s in wanted) + f" → #{target}"
    return _retag(lib, dict.fromkeys(wanted, target), reason, user_action)


def delete_tags(lib: Library, tags: Sequence[str], *, user_action: UserAction | None = None) -> list[str]:
    """Remove ``tags`` and every tag below them from every document of the library, with their colours.

    Each changed document gets a version (reason ``tags deleted #a, #b``) and a ``refresh`` index job;
    undo as in :func:`rename_tag`.

    Returns:
        Ids of the documents whose tags changed, sorted.

    Raises:
        InvalidInput: malformed tags.
    """
    wanted = normalize_tags(tags)
    if not wanted:
        return []
    reason = ("tag deleted " if len(wanted) == 1 else "tags deleted ") + ", ".join(f"#{t}" for t in wanted)
    return _retag(lib, dict.fromkeys(wanted), reason, user_action)


def _map_tag(tag: str, mapping: Mapping[str, str | None]) -> str | None:
    """``tag`` rewritten by the most specific mapping entry it lies under; None: dropped."""
    best = max((old for old in mapping if tag_matches(tag, old)), key=len, default=None)
    if best is None:
        return tag
    replacement = mapping[best]
    return None if replacement is None else replacement + tag[len(best):]


def _retag(lib: Library, mapping: Mapping[str, str | None], reason: str,
           user_action: UserAction | None = None) -> list[str]:
    """Rewrite tags by ``mapping`` (old prefix → new prefix, None: remove) on every document; one transaction."""
    where = SqlFilter(SqlForms.of(lib.engine)).and_tags(AnyOf(tuple(TagIs(t) for t in mapping)))
    with write_session(lib.engine) as session:
        sql = f"SELECT d.id FROM document d WHERE {where.sql} ORDER BY d.id"
        ids = [row[0] for row in session.exec(text(sql), params=where.params).all()]
        changed: list[str] = []
        # A popular tag spans thousands of documents: rows and tags load in batches, and the tag rows change
        # by plain SQL (an ORM delete per document would re-scan the whole identity map each time).
        with session.no_autoflush:
            for start in range(0, len(ids), 500):
                batch = ids[start : start + 500]
                rows = {r.id: r for r in session.exec(
                    select(tables.DocumentRow).where(tables.DocumentRow.id.in_(batch))).all()}  # type: ignore[attr-defined]
                removed, added = [], []
                for document_id, before in records.tags_by_document(session, batch).items():
                    after = list(dict.fromkeys(m for t in before if (m := _map_tag(t, mapping)) is not None))
                    if sorted(after) == before:
                        continue
                    row = rows[document_id]
                    records.snapshot_version(session, row, reason)
                    if user_action is not None:
                        audit.record_user_action(session, row, "tag", user_action,
                                                 {"version": [row.version - 1, row.version]})
                    removed += [{"d": document_id, "t": t} for t in before if t not in after]
                    added += [{"d": document_id, "t": t} for t in after if t not in before]
                    records.enqueue(session, document_id, "refresh")
                    changed.append(document_id)
                if removed:
                    session.exec(text("DELETE FROM document_tag WHERE document_id = :d AND tag = :t"), params=removed)
                if added:
                    session.exec(text("INSERT INTO document_tag (document_id, tag) VALUES (:d, :t)"), params=added)
        colors = _read_colors(session)
        moved = _move_colors(colors, mapping)
        if moved != colors:
            _write_colors(session, moved)
        if changed or moved != colors:
            records.bump_change_counter(session)
        return changed


def _move_colors(colors: dict[str, str], mapping: Mapping[str, str | None]) -> dict[str, str]:
    # Tags the mapping leaves alone keep their colour first, so a colour on the target wins.
    kept = {tag: color for tag, color in colors.items() if _map_tag(tag, mapping) == tag}
    for tag, color in colors.items():
        mapped = _map_tag(tag, mapping)
        if mapped is not None and mapped != tag:
            kept.setdefault(mapped, color)
    return kept


def tag_colors(lib: Library) -> dict[str, str]:
    """Every tag colour of the library: ``{tag: "#rrggbb"}`` (tags need not be in use)."""
    with read_session(lib.engine) as session:
        return _read_colors(session)


def set_tag_color(lib: Library, tag: str, color: str | None) -> None:
    """Give ``tag`` a colour (``#rrggbb``, stored lower-case), or clear it with None.

    Stored in the library's ``meta`` table, so it commits like any other change and other processes
    see it; bumps the change counter.

    Raises:
        InvalidInput: a malformed tag or colour.
    """
    tag = normalize_tag(tag)
    if color is not None and not _COLOR.fullmatch(color.strip()):
        raise InvalidInput(f"a tag colour looks like '#1f77b4', not {color!r}")
    with write_session(lib.engine) as session:
        colors = _read_colors(session)
        if color is None:
            colors.pop(tag, None)
        else:
            colors[tag] = color.strip().lower()
        _write_colors(session, colors)
        records.bump_change_counter(session)


def _read_colors(session: Session) -> dict[str, str]:
    stored = json.loads(get_meta(session, COLORS_KEY) or "{}")
    return {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}


def _write_colors(session: Session, colors: Mapping[str, str]) -> None:
    set_meta(session, COLORS_KEY, json.dumps(dict(sorted(colors.items())), ensure_ascii=False))
