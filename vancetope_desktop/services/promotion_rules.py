"""Auto-promote rules: a tag that, when added to a document, asks for its promotion (seed §4.3).

Seed §4.3 "certain tags trigger automatic promotion (e.g. #project-relevant)"; seed §9 question 1
leaves open whether that should happen without review. Here a rule creates a *request* in the review
queue, and only a rule configured with ``auto_approve`` carries it out at once.

Rules live in a scope's settings (``settings["promotion_rules"]``: ``{tag: {"target": …,
"auto_approve": …}}``, or ``{tag: null}`` to switch a rule off) and apply to documents in that scope
and every scope below it; the nearest scope's rule for a tag wins. The built-in rule
``project-relevant → project`` (review) applies everywhere unless switched off.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session

from ..core.documents import STRUCTURAL_VALUES, DocumentStatus
from ..core.errors import InvalidInput, ScopeError
from ..core.promotion import PromotionRule
from ..core.scopes import ScopeKind, parse_kind
from ..core.tags import normalize_tag
from ..store import tables
from ..store.db import read_session, write_session
from . import records
from .library import Library
from .promotion_requests import create_request, decide_approved, update_target
from .scopes import resolve_scope, session_ancestry

RULES_KEY = "promotion_rules"
"""The key of a scope's settings holding its auto-promote rules."""

DEFAULT_RULES = (PromotionRule(tag="project-relevant", target="project"),)
"""Seed §4.3's example rule, on in every scope: ``#project-relevant`` asks to promote to the project."""


def effective_rules(lib: Library, scope: str) -> list[PromotionRule]:
    """The rules that apply to documents in ``scope`` (its own, inherited, built-in), sorted by tag.

    Raises:
        ScopeNotFound.
    """
    path = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        return sorted(rules_in_session(session, path).values(), key=lambda r: r.tag)


def switched_off_rules(lib: Library, scope: str) -> dict[str, str]:
    """Tags whose rule is switched off for documents in ``scope`` → the scope that switched it off.

    Raises:
        ScopeNotFound.
    """
    path = resolve_scope(lib, scope)
    off: dict[str, str] = {}
    with read_session(lib.engine) as session:
        for where in reversed(session_ancestry(session, path)):
            for tag, value in _stored(session.get(tables.ScopeRow, where)).items():
                if value is None:
                    off[tag] = where
                else:
                    off.pop(tag, None)
    return dict(sorted(off.items()))


def rules_in_session(session: Session, scope: str) -> dict[str, PromotionRule]:
    """Tag → rule for documents in ``scope``: built-in rules overridden by each ancestor, nearest last."""
    rules = {r.tag: r for r in DEFAULT_RULES}
    for path in reversed(session_ancestry(session, scope)):
        row = session.get(tables.ScopeRow, path)
        for tag, value in _stored(row).items():
            if value is None:
                rules.pop(tag, None)
            else:
                rules[tag] = PromotionRule(tag=tag, target=str(value.get("target", "project")),
                                           auto_approve=bool(value.get("auto_approve", False)), defined_in=path)
    return rules


def set_rule(lib: Library, scope: str, tag: str, *, target: str = "project",
             auto_approve: bool = False) -> PromotionRule:
    """Add or change the rule for ``tag`` in ``scope`` (it applies to ``scope`` and everything below).

    Args:
        target: a scope kind (``project``, ``session``, ``group``: that ancestor of each document)
            or a full scope path.
        auto_approve: approve the requests at once instead of waiting for review.

    Raises:
        ScopeNotFound. InvalidInput: a malformed tag or target. ScopeError: a target no document of
        ``scope`` could be promoted to (below it, on another branch, a think process).
    """
    path = resolve_scope(lib, scope)
    name = normalize_tag(tag)
    target = resolve_scope(lib, target) if "/" in target else parse_kind(target).value
    with write_session(lib.engine) as session:
        _check_target(session, path, target)
        _write(session, path, name, {"target": target, "auto_approve": bool(auto_approve)})
        return rules_in_session(session, path)[name]


def _check_target(session: Session, scope: str, target: str) -> None:
    """A rule's target must be above some document it applies to: ``scope`` or one of its ancestors, and
    not a think process (nothing lies below one).

    Raises:
        ScopeError: the target is below ``scope``, on another branch, or a think process.
    """
    chain = session_ancestry(session, scope)
    kind = target.split("/", 1)[0]
    if kind == ScopeKind.THINK_PROCESS.value:
        raise ScopeError("a promotion rule cannot target a think process: nothing lies below one")
    if "/" in target:
        if target not in chain:
            raise ScopeError(f"{target} is not {scope} or above it: a rule set here promotes documents of "
                             f"{scope} and below, so its target must be on that branch")
    elif not any(p.split("/", 1)[0] == kind for p in chain):
        raise ScopeError(f"{scope} has no {kind} at or above it: choose a scope kind above it")


def remove_rule(lib: Library, scope: str, tag: str) -> None:
    """Switch off the rule for ``tag`` in ``scope`` and below (a built-in or inherited rule too).

    Raises:
        ScopeNotFound. InvalidInput: a malformed tag, or no rule for it applies in ``scope``.
    """
    path = resolve_scope(lib, scope)
    name = normalize_tag(tag)
    with write_session(lib.engine) as session:
        if name not in rules_in_session(session, path):
            raise InvalidInput(f"no rule for #{name} applies in {path}: nothing to switch off "
                               f"(see `vancetope scope rules {path}`)")
        _write(session, path, name, None)


def reset_rule(lib: Library, scope: str, tag: str) -> None:
    """Drop ``scope``'s own setting for ``tag``, so the inherited or built-in rule applies again.

    Raises:
        ScopeNotFound. InvalidInput: a malformed tag, or ``scope`` has no setting of its own for it.
    """
    path = resolve_scope(lib, scope)
    name = normalize_tag(tag)
    with write_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        assert row is not None  # resolve_scope checked it
        stored = _stored(row)
        if name not in stored:
            raise InvalidInput(f"{path} has no setting of its own for #{name} (see `vancetope scope rules {path}`)")
        row.settings = {**(row.settings or {}), RULES_KEY: {t: v for t, v in stored.items() if t != name}}
        session.add(row)
        records.bump_change_counter(session)


def on_tags_added(session: Session, document_id: str, added: Iterable[str]) -> None:
    """Apply the rules to tags just added to a document, inside the tagging transaction.

    A rule's tag (or a tag below it, ``project-relevant/x``) creates a request to the rule's target
    when the document sits below that target and has no pending request; an ``auto_approve`` rule
    approves it at once, unless it would overwrite an earlier result in the target (that needs a
    person). Folders, trashed documents and targets off the document's branch are skipped silently:
    tagging must never fail because of a rule.
    """
    row = records.document_row(session, document_id)
    if row.type in STRUCTURAL_VALUES or row.status == DocumentStatus.DELETED.value:
        return
    rules = rules_in_session(session, row.scope_path)
    chain = session_ancestry(session, row.scope_path)
    for tag in added:
        rule = rules.get(tag) or rules.get(tag.split("/", 1)[0])
        if rule is None:
            continue
        target = _target_path(rule.target, chain)
        if target is None or target == row.scope_path:
            continue
        actor = f"rule:{rule.tag}"
        try:
            request = create_request(session, row, target, requested_by=actor,
                                     reason=f"tagged #{tag}" + (f" (rule set in {rule.defined_in})"
                                                               if rule.defined_in else ""))
        except (InvalidInput, ScopeError):
            continue
        if rule.auto_approve and update_target(session, row) is None:
            decide_approved(session, request, target, actor=actor, reason="approved by the rule's setting")
        return  # one request per document at a time


def _target_path(target: str, chain: list[str]) -> str | None:
    """A rule's target on a document's branch: the ancestor of that kind, or the path if it is an ancestor."""
    if "/" in target:
        return target if target in chain else None
    return next((p for p in chain if p.startswith(target + "/")), None)


def _stored(row: tables.ScopeRow | None) -> dict[str, dict | None]:
    value = (row.settings or {}).get(RULES_KEY, {}) if row is not None else {}
    return value if isinstance(value, dict) else {}


def _write(session: Session, path: str, tag: str, value: dict | None) -> None:
    row = session.get(tables.ScopeRow, path)
    assert row is not None  # resolve_scope checked it
    # A new dict: SQLAlchemy notices a JSON column change only on assignment.
    row.settings = {**(row.settings or {}), RULES_KEY: {**_stored(row), tag: value}}
    session.add(row)
    records.bump_change_counter(session)
