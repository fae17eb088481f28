"""Task-tree memory (seed §7): a task node's inputs, its stored result, and stale marks when a task changes.

A think process runs a tree of task nodes. Each node reads input documents (§7.1: by id, by hybrid
search, by tag filter), and its output is saved as a result document (§7.2) carrying the lineage
``derived_from`` its inputs. When a task changes, its results and everything derived from them are
marked stale (§6.2) until re-run; a re-run replaces the content as a new version.

Everything goes through the services (``services/documents.py``, ``search.py``, ``relations.py``), as the
CLI and the app do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, Source, SourceType
from ..core.errors import DocumentNotFound, InvalidInput, NotFound, ScopeNotVisible
from ..core.scopes import ScopeKind
from ..core.tags import all_of, normalize_tags
from ..generation.base import Generator
from ..services import atom_extraction, documents, folders, records, relations, sharing, stale
from ..services.library import Library
from ..services.scopes import resolve_scope
from ..services.search import search
from ..store.db import write_session

"""The folder of a think process scope that holds its task results (seed §3.2)."""


class NodeType(StrEnum):
    """What a task node does (seed §7.3); decides the automatic tag of its result."""

    EXTRACT = "extract"
    ANALYZE = "analyze"
    VERIFY = "verify"
    SYNTHESIZE = "synthesize"
    OTHER = "other"


NODE_TYPE_TAGS: dict[NodeType, str] = {
    NodeType.EXTRACT: "extraction", NodeType.ANALYZE: "analysis",
    NodeType.VERIFY: "verification", NodeType.SYNTHESIZE: "synthesis",
}
"""Seed §6.2 auto-tagging by node type (``other`` gets no type tag)."""


def think_process_scope(think_process_id: str) -> str:
    """The scope path of a think process: ``tp_12`` → ``think-process/tp_12``."""
    return f"{ScopeKind.THINK_PROCESS.value}/{think_process_id}"


class TaskNode(BaseModel):
    """A task node as the tree describes it (seed §7.1).

    Attributes:
        node_id: the node's id in the tree, e.g. ``extract_paper_1``.
        think_process_id: the think process running the tree, e.g. ``tp_12``.
        scope: the scope the node acts from; defaults to ``think-process/<think_process_id>``.
        input_docs: explicit input document ids (each must be visible from ``scope``).
        input_query: a hybrid search over what ``scope`` sees.
        input_tags: a tag filter (documents carrying all of them).
    """

    model_config = ConfigDict(frozen=True)

    node_id: str = Field(min_length=1)
    node_type: NodeType = NodeType.OTHER
    think_process_id: str = Field(min_length=1)
    scope: str = ""
    input_docs: list[str] = Field(default_factory=list)
    input_query: str | None = None
    input_tags: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _default_scope(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("scope") and data.get("think_process_id"):
            data = {**data, "scope": think_process_scope(data["think_process_id"])}
        return data


def resolve_inputs(lib: Library, node: TaskNode, *, limit: int = 10) -> list[DocumentInfo]:
    """A node's input documents: its explicit ids, then search hits for its query, then tag matches.

    De-duplicated, in that order. Explicit ids are always all returned; ``limit`` bounds the search
    hits and the tag matches each. Search and tag matches are active documents visible from the
    node's scope (its own and its ancestors'), never folders.

    Raises:
        ScopeNotVisible: an explicit input the node's scope may not read by id — seed §4.2: its own
            scope and its ancestors', or a document the user shared with it (``services.sharing``);
            never a sibling think process's, another session's or project's.
        DocumentNotFound: an unknown or trashed input id. ScopeNotFound: the node's scope does not exist.
        InvalidInput: a malformed tag.
    """
    scope = resolve_scope(lib, node.scope)
    found: dict[str, DocumentInfo] = {}
    for doc_id in node.input_docs:
        if doc_id not in found:
            found[doc_id] = _visible_input(lib, node, scope, doc_id)
    if node.input_query and node.input_query.strip():
        for hit in search(lib, node.input_query, scope=scope, limit=limit).hits:
            found.setdefault(hit.document.id, hit.document)
    if node.input_tags:
        for doc in documents.list_documents(lib, scope=scope, tag_filter=all_of(node.input_tags),
                                            types=documents.CONTENT_TYPES, limit=limit):
            found.setdefault(doc.id, doc)
    return list(found.values())


def _visible_input(lib: Library, node: TaskNode, scope: str, doc_id: str) -> DocumentInfo:
    """``doc_id`` if the node's scope may read it by id (own, ancestor, or shared by the user), else raise."""
    doc = documents.get_document(lib, doc_id)
    if doc.status == DocumentStatus.DELETED:
        raise DocumentNotFound(f"input {doc_id} of node {node.node_id} is in the trash")
    try:
        sharing.check_read(lib, scope, doc)
    except ScopeNotVisible as error:
        raise ScopeNotVisible(f"input {doc_id} of node {node.node_id}: {error}") from error
    return doc


def result_tags(think_process_id: str, node_id: str, node_type: NodeType | str,
                tags: Iterable[str] = ()) -> list[str]:
    """The tags of a node's result, normalised: ``thinkprocess:<id>``, ``auto:<node>``, the type tag, then ``tags``.

    Raises:
        InvalidInput: an id or tag that cannot be a tag (commas, quotes, parentheses, empty levels).
    """
    type_tag = NODE_TYPE_TAGS.get(NodeType(node_type))
    return normalize_tags([f"thinkProcess:{think_process_id}", f"auto:{node_id}",
                           *([type_tag] if type_tag else []), *tags])


def memory_store_result(lib: Library, node_id: str, node_type: NodeType | str, title: str, content: str,
                        derived_from: Sequence[str] = (), *, think_process_id: str, scope: str | None = None,
                        tags: Iterable[str] = (), generator: Generator | None = None) -> DocumentInfo:
    """Save a task node's output as a result document (seed §7.2), or replace it when the node re-runs.

    The document has type ``result``, source ``{think_process_result, think_process_id, node_id}``, the
    tags of :func:`result_tags`, ``derived_from`` edges to its inputs, and lives in the
    ``Results`` folder of ``scope`` (created when missing). Its atoms are read (``services.atom_extraction``):
    after a re-run only the new statements are added, and the atoms whose statement left it are marked stale.

    A re-run (the node already has a result in ``scope``) updates that document: the content, title and
    ``derived_from`` become a new version (the previous one stays in its history), missing tags are
    added (a changed node type swaps the type tag), and a stale mark is cleared. A copy promoted to
    another scope is left alone (it stays stale until the user reviews it).

    Args:
        node_type: ``extract`` / ``analyze`` / ``verify`` / ``synthesize`` / ``other``.
        derived_from: ids of the inputs; each must exist and be readable from ``scope`` (as in
            :func:`resolve_inputs`).
        scope: default ``think-process/<think_process_id>``.
        tags: further tags (topics such as ``attention``).
        generator: what reads the result's atoms (``services.atom_extraction``; default: the library's).

    Raises:
        InvalidInput: blank content or title, a bad node type or tag. ScopeNotFound.
        DocumentNotFound / ScopeNotVisible: an input in ``derived_from``.
    """
    if not content.strip():
        raise InvalidInput("the result's content is empty")
    if not title.strip():
        raise InvalidInput("a result needs a title")
    try:
        node_kind = NodeType(node_type)
    except ValueError as error:
        raise InvalidInput(f"unknown node type {node_type!r} (use {', '.join(NodeType)})") from error
    scope_path = resolve_scope(lib, scope or think_process_scope(think_process_id))
    wanted_tags = result_tags(think_process_id, node_id, node_kind, tags)
    inputs = list(dict.fromkeys(derived_from))
    for doc_id in inputs:
        sharing.check_read(lib, scope_path, documents.get_document(lib, doc_id))
    metadata = {"node_type": node_kind.value}
    existing = relations.node_results(lib, think_process_id, node_id, scope=scope_path)
    if not existing:
        stored = documents.add_text(
            lib, content, doc_type=DocumentType.RESULT, title=title, tags=wanted_tags, scope=scope_path,
            folder_id=_results_folder(lib, scope_path), metadata=metadata, derived_from=inputs,
            source=Source(type=SourceType.THINK_PROCESS_RESULT, think_process_id=think_process_id, node_id=node_id),
        )
        atom_extraction.extract_at_import(lib, [stored.id], generator=generator)
        return stored
    doc_id = existing[-1].id
    # Clear the mark first, so the version kept by the update is the stale content without the #stale tag.
    stale.set_stale(lib, [doc_id], stale=False)
    author = records.creator(think_process_id)
    documents.update_document(lib, doc_id, title=title, content=content, metadata=metadata,
                              derived_from=[i for i in inputs if i != doc_id], reason=f"re-run of node {node_id}",
                              author=author)
    atom_extraction.extract_at_import(lib, [doc_id], generator=generator)  # the re-run's new statements
    other_type_tags = [t for k, t in NODE_TYPE_TAGS.items() if k != node_kind]
    return documents.tag_document(lib, doc_id, add=wanted_tags, remove=other_type_tags,
                                  reason=f"tags of node {node_id}", author=author)


def _results_folder(lib: Library, scope_path: str) -> str:
    """The id of ``scope_path``'s top-level Results folder, created when missing."""
    with write_session(lib.engine) as session:
        return folders.ensure_folder(session, scope_path, folders.RESULTS_FOLDER, None).id


def mark_task_changed(lib: Library, node_id: str, *, think_process_id: str) -> list[str]:
    """Mark a changed task's results, and everything derived from them transitively, stale (seed §6.2).

    The node's results are found by their source (in any scope, promoted copies included); then the
    ``derived_from`` relation is followed downstream, each document once (cycles end the walk). Each
    active or already stale document gets status ``stale`` and the tag ``#stale``; archived and
    trashed ones are left as they are.

    Returns:
        The ids now stale: the node's results first, then their descendants breadth first.

    Raises:
        NotFound: the node has no result (a mistyped node id must not pass as "nothing to do").
    """
    roots = [d.id for d in relations.node_results(lib, think_process_id, node_id)]
    if not roots:
        raise NotFound(f"think process {think_process_id} has no result for node {node_id!r}: "
                       "nothing to mark changed (check the node id)")
    return stale.set_stale(lib, relations.derivation_closure(lib, roots), stale=True)
