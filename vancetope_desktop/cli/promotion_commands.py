"""Promotion from the terminal: ``memory promote / demote / request / publish / history`` and the scope
settings that drive it, ``scope siblings`` and ``scope rules`` / ``scope rule set|off|reset``."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import DocumentNotFound, InvalidInput, ScopeNotVisible
from ..core.scopes import ScopeKind
from ..services import audit, indexing, moves, promotion_rules, review, scopes, undo
from ..services import documents as doc_service
from ..services.library import Library
from . import render
from .apps import memory, rule_app, scope_app
from .context import JsonOption, LibraryOption, ScopeOption, WaitOption, emit, open_library, out, required_reason


class Switch(StrEnum):
    """An on/off argument."""

    ON = "on"
    OFF = "off"


def _manageable(lib: Library, doc_id: str, scope: str | None) -> None:
    """Let the person at the terminal move, request or trace a document anywhere in the acting scope's reach.

    The acting scope (``--scope``, else the current one) manages its own documents, its ancestors' (what it
    sees) and everything below it (its subtree): after ``scope use project/x`` the results of that project's
    think processes can be promoted without switching scope. Only another branch is refused (exit 4).
    Reading (``memory read``…) keeps the stricter visibility rule of :func:`_visible`.

    Raises:
        DocumentNotFound. ScopeNotVisible: the document lies on another branch.
    """
    path = doc_service.get_document(lib, doc_id).scope
    _within_reach(lib, path, scope, f"{doc_id} (in {path})")


def _within_reach(lib: Library, path: str, scope: str | None, what: str) -> None:
    """Refuse ``what`` (in scope ``path``) unless ``path`` is the acting scope, an ancestor or below it."""
    acting = scopes.resolve_scope(lib, scope)
    if path in scopes.ancestry(lib, acting) or acting in scopes.ancestry(lib, path):
        return
    raise ScopeNotVisible(f"{what} is on another branch than the acting scope {acting}: act from its branch "
                          f"with `--scope {path}` (or `vancetope scope use {path}` first)")


def _move_scope(doc_ids: list[str], to: str, reason: str, scope: str | None, library: Path | None, as_json: bool,
                direction: moves.Direction, wait: bool) -> None:
    """Move documents all or none, first telling who gains and who loses sight of them (issue 4)."""
    with open_library(library) as lib:
        for doc_id in doc_ids:
            _manageable(lib, doc_id, scope)
        change = moves.visibility_change(lib, doc_ids, to)  # before the move: afterwards the sources are gone
        action = undo.user_action(lib, "Promote" if direction == "up" else "Demote", doc_ids,
                                  suffix=f"to {change.target_scope}")
        moved = moves.move_documents(lib, doc_ids, to, direction, reason=reason, user_action=action)
        if wait:  # carry their vectors along
            indexing.try_drain(lib, documents=[d.id for d in moved])
        emit(as_json, {**change.model_dump(mode="json"), "moved": moved},
             lambda: render.moved(moved, change, "promoted" if direction == "up" else "demoted"))


ReasonOption = Annotated[str, typer.Option("--reason", help="Why, kept in the document's audit trail.")]


@memory.command("promote")
def memory_promote(
    doc_ids: Annotated[list[str], typer.Argument(help="Documents (or folders, with their contents) to move.")],
    to: Annotated[str, typer.Option("--to", help="An ancestor: a kind (project) or a path.")],
    reason: ReasonOption = "", scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
    wait: WaitOption = True,
) -> None:
    """Move documents up the tree, all or none: `memory promote DOC… --to project --reason "…"`."""
    _move_scope(doc_ids, to, reason, scope, library, as_json, "up", wait)


@memory.command("demote")
def memory_demote(
    doc_ids: Annotated[list[str], typer.Argument(help="Documents (or folders, with their contents) to move.")],
    to: Annotated[str, typer.Option("--to", help="A descendant scope path, e.g. think-process/tp_12.")],
    reason: ReasonOption = "", scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
    wait: WaitOption = True,
) -> None:
    """Move documents down the tree, all or none: `memory demote DOC… --to think-process/tp_12`."""
    _move_scope(doc_ids, to, reason, scope, library, as_json, "down", wait)


@memory.command("request")
def memory_request(
    doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")],
    to: Annotated[str, typer.Option("--to", help="An ancestor: a kind (project) or a path.")] = "project",
    reason: Annotated[str | None, typer.Option("--reason", help="Why, shown in the review (required).")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Ask for a promotion to be reviewed later: `memory request DOC --to project --reason "…"`."""
    why = required_reason(reason, f"memory request {doc_id}")
    with open_library(library) as lib:
        _manageable(lib, doc_id, scope)
        request = review.request_promotion(lib, doc_id, to, reason=why)
        emit(as_json, request, lambda: render.requested([request]))


@memory.command("publish")
def memory_publish(
    think_process: Annotated[str, typer.Argument(help="The think process, e.g. think-process/tp_12.")],
    to: Annotated[str, typer.Option("--to", help="Where its results should go: a kind or a path above it.")
                  ] = "project",
    reason: Annotated[str, typer.Option("--reason", help="Why, shown in the review.")] = "",
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Ask for all results of a think process to be promoted: `memory publish think-process/tp_12`."""
    with open_library(library) as lib:
        path = scopes.resolve_scope(lib, think_process)
        _within_reach(lib, path, scope, path)
        made = review.publish_think_process(lib, think_process, to=to, reason=reason)
        emit(as_json, made, lambda: render.requested(made))


@memory.command("history")
def memory_history(
    doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """A document's audit trail (moves, requests, decisions: who, when, why) and its promotion requests."""
    with open_library(library) as lib:
        entries = audit.document_history(lib, doc_id)
        try:
            _manageable(lib, doc_id, scope)
        except DocumentNotFound:
            if not entries:  # the trail outlives a purge; an id without one is simply unknown
                raise
        asked = review.list_requests(lib, status=None, document_id=doc_id)
        emit(as_json, {"document_id": doc_id, "entries": entries, "requests": asked},
             lambda: render.history(entries, asked))


@scope_app.command("siblings")
def scope_siblings(
    path: Annotated[str, typer.Argument(help="A think process, e.g. think-process/tp_12.")],
    state: Annotated[Switch | None, typer.Argument(
        help="on: it also sees the results of its session's other think processes (in search and by id); "
             "off (the default): it does not. Leave it out to show the current setting.", show_default=False,
    )] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Let a think process see its sibling think processes' results, or not: `scope siblings TP [on|off]`."""
    with open_library(library) as lib:
        if state is None:
            info = scopes.get_scope(lib, path)
            if info.kind is not ScopeKind.THINK_PROCESS:
                raise InvalidInput(f"{info.path} is not a think process: only think processes can see their "
                                   "siblings' results")
        else:
            info = scopes.set_sibling_results_visible(lib, path, state is Switch.ON)
        emit(as_json, info, lambda: out.print(
            f"{info.path} {'sees' if info.sibling_results_visible else 'does not see'} the results of its "
            "sibling think processes", markup=False))


@scope_app.command("rules")
def scope_rules(
    path: Annotated[str | None, typer.Argument(help="Scope path (default: the current scope).")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """The auto-promote rules for documents in a scope: which tags ask for promotion, where, and how."""
    with open_library(library) as lib:
        where = scopes.resolve_scope(lib, path)
        rules = promotion_rules.effective_rules(lib, where)
        off = promotion_rules.switched_off_rules(lib, where)
        emit(as_json, {"scope": where, "rules": rules, "switched_off": off}, lambda: render.rules(where, rules, off))


@rule_app.command("set")
def scope_rule_set(
    tag: Annotated[str, typer.Argument(help="The tag, e.g. project-relevant.")],
    to: Annotated[str, typer.Option("--to", help="Where tagged documents should go: a kind (project: each "
                                    "document's own project) or a path.")] = "project",
    auto_approve: Annotated[bool, typer.Option("--auto-approve/--review", help="Move at once, or wait for "
                                               "review (the default).")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Make a tag ask for promotion in a scope and below: `scope rule set verified --to project`."""
    with open_library(library) as lib:
        rule = promotion_rules.set_rule(lib, scopes.resolve_scope(lib, scope), tag, target=to,
                                        auto_approve=auto_approve)
        emit(as_json, rule, lambda: out.print(f"{rule.defined_in}: #{rule.tag} → {rule.target} "
                                              f"({'approved at once' if rule.auto_approve else 'reviewed'})",
                                              markup=False))


@rule_app.command("off")
def scope_rule_off(tag: Annotated[str, typer.Argument(help="The tag.")], scope: ScopeOption = None,
                   library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Switch a rule off in a scope and below (a built-in or inherited one too)."""
    _change_rule(tag, scope, library, as_json, promotion_rules.remove_rule)


@rule_app.command("reset")
def scope_rule_reset(tag: Annotated[str, typer.Argument(help="The tag.")], scope: ScopeOption = None,
                     library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Drop a scope's own setting for a tag: the inherited or built-in rule applies again."""
    _change_rule(tag, scope, library, as_json, promotion_rules.reset_rule)


def _change_rule(tag: str, scope: str | None, library: Path | None, as_json: bool,
                 change: Callable[[Library, str, str], None]) -> None:
    with open_library(library) as lib:
        where = scopes.resolve_scope(lib, scope)
        change(lib, where, tag)
        rules = promotion_rules.effective_rules(lib, where)
        emit(as_json, rules, lambda: render.rules(where, rules))
