"""Search through the topic tree (issue 14, seed 002 "Topic Tree Search"): ``mode = auto | tree | flat``.

* **tree**: the trees of the scopes searched (the acting scope's and its ancestors', never a sibling's: the
  cascade of seed 000) are read into one in-memory :class:`~..index.topic_beam.TopicIndex` (a forest whose roots
  are each tree's first-level topics; cached, rebuilt when the library changes), the query is encoded once and
  routed down it by the global beam (``index/topic_beam.beam_search``); the atoms under the surviving paths, the
  atoms no topic holds yet (added since the last digest) are then ranked by the product's hybrid search restricted
  to them (``search(..., within=ids, within_types=atom types)``), so its scoring, scope weights, relevance cut and
  explanations apply unchanged; when the type filter admits other documents (notes, papers, results: the tree
  holds atoms only) they are ranked beside the atoms as in a flat search, never dropped.
* **flat**: the ordinary search (seed 002's cold start: "search effectively degenerates to the full atom set").
* **auto**: tree once a tree searched is consolidated (``Settings.topic_consolidate_at`` atoms, set by the digest,
  ``services.topic_upkeep``) and the filters admit atoms, else flat.

The cost of a tree search is the beam's (topics, not atoms) plus the atoms it hands on: those under the paths kept
and those in no topic. The latter are few between two digests of a consolidated tree; a scope searched that has no
tree yet hands on all of its atoms (it is searched flat, as its cold start asks).

Every hit carries the topic paths its atom is in as breadcrumbs (the beam's path first), its source and page, and
in tree mode an explanation line naming the path and the surface words that routed the query to it. The response
counts the topics scored, the atoms handed to the ranking and the atoms the scopes hold (their share is the
search's cost against a flat search).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import text

from ..core.atoms import AtomType
from ..core.documents import DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import InvalidInput, VancetopeError
from ..core.memories import MemoryType
from ..core.relations import RelationType
from ..core.tags import TagFilter
from ..index.topic_beam import BeamParams, BeamResult, TopicIndex, TopicNode, beam_search
from ..store.db import read_session
from ..store.dialect_sql import SqlForms
from ..store.fulltext import parse_query
from . import records, topics
from .library import Library
from .scopes import session_resolve_scope, session_visible_scopes
from .search import SearchHit, SearchResponse, search

SearchMode = Literal["auto", "tree", "flat"]
SEARCH_MODES: tuple[str, ...] = ("auto", "tree", "flat")
"""The search modes every face offers (``--mode``, the tools' ``mode``, the search pane's selector)."""
ATOM_TYPES: tuple[DocumentType, ...] = tuple(DocumentType(t.value) for t in AtomType)
"""The document types that are atoms (``services.atoms.ATOM_DOCUMENT_TYPES``, which sits above this module)."""
CRUMB = f" {topics.PATH_MARK} "
"""Between the labels of a breadcrumb (``Travel › Hiking``), as the Topics pane writes a path (a label never
holds the mark: ``topics.hand_label``)."""


def parse_mode(value: str | None) -> SearchMode:
    """``value`` as a search mode (case and blanks ignored; None: ``auto``).

    Raises:
        InvalidInput: anything else, naming the three modes.
    """
    mode = "auto" if value is None else str(value).strip().lower()
    if mode not in SEARCH_MODES:
        raise InvalidInput(f"unknown search mode {value!r}: use auto, tree or flat")
    return mode  # type: ignore[return-value]


class TopicPath(BaseModel):
    """A path of a topic tree: a breadcrumb, and for a path the beam kept, why.

    Attributes:
        scope: the tree's scope. topic_ids / labels: from the tree's first level down (the root is left out,
            as in ``core.topics.Topic.path``).
        score: the beam's path score, 0-1 (None for a breadcrumb the beam did not walk).
        words: the query's words the surfaces along the path matched (empty: routed by meaning alone).
    """

    scope: str
    topic_ids: list[str]
    labels: list[str]
    score: float | None = None
    words: list[str] = Field(default_factory=list)

    @property
    def breadcrumb(self) -> str:
        """``Travel › Hiking › Alps``."""
        return CRUMB.join(self.labels)


class TopicHit(SearchHit):
    """A search hit with its place in the topic tree.

    Attributes:
        paths: every topic path the atom is in (the beam's path that reached it first, in tree mode); empty for a
            document that is no atom or an atom in no topic yet.
        source_id / source_title / source_page: the source an atom was read from and the page (PDFs); None for
            other documents and atoms written directly.
    """

    paths: list[TopicPath] = Field(default_factory=list)
    source_id: str | None = None
    source_title: str | None = None
    source_page: int | None = None

    @property
    def breadcrumbs(self) -> list[str]:
        """Each path as ``Travel › Hiking``."""
        return [p.breadcrumb for p in self.paths]


class TopicSearchResponse(SearchResponse):
    """A search response with how the tree was used.

    Attributes:
        mode: what ran (``tree`` or ``flat``); requested_mode: what was asked; mode_reason: why, in a sentence.
        trees: the scopes whose trees were walked (tree mode) or exist (flat mode), nearest first.
        paths: the paths the beam kept, best first (tree mode).
        topics / topics_scored: topics in the trees walked, and those the beam scored.
        atoms / atoms_scored: live atoms of the scopes searched, and those handed to the ranking (the atoms under
            the paths kept and the atoms in no topic; in flat mode every atom).
    """

    hits: list[TopicHit] = Field(default_factory=list)  # type: ignore[assignment]
    mode: Literal["tree", "flat"] = "flat"
    requested_mode: SearchMode = "auto"
    mode_reason: str = ""
    trees: list[str] = Field(default_factory=list)
    paths: list[TopicPath] = Field(default_factory=list)
    topics: int = 0
    topics_scored: int = 0
    atoms: int = 0
    atoms_scored: int = 0

    @property
    def share(self) -> float:
        """``atoms_scored / atoms``, 0-1 (0 when the scopes hold no atom)."""
        return self.atoms_scored / self.atoms if self.atoms else 0.0


def topic_search(lib: Library, query: str, *, scope: str | None = None, mode: str | None = "auto", limit: int = 10,
                 types: Sequence[DocumentType] | None = ATOM_TYPES, tag_filter: TagFilter | None = None,
                 statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,), scopes: Sequence[str] | None = None,
                 memory_types: Sequence[MemoryType] = (), beam: BeamParams | None = None) -> TopicSearchResponse:
    """Search what ``scope`` sees, through its topic trees or flat (see the module's note).

    Args:
        query: any text (as ``services.search.search``).
        scope: the acting scope (default: the current one).
        mode: ``auto`` (default), ``tree`` or ``flat`` (:func:`parse_mode`). ``tree`` with no tree to walk searches
            flat and says so in ``warnings``.
        limit: the most hits returned.
        types: the document types ranked; default the atom types (``vancetope topics search``); None or empty: every
            type, as ``memory_query`` and the search pane ask (in tree mode: the atoms under the paths, and the
            other documents as in a flat search).
        tag_filter / statuses / scopes / memory_types: as ``services.search.search`` (``scopes`` also limits the
            trees walked).
        beam: the beam's width and pruning (default ``BeamParams.from_settings(lib.settings)``).

    Returns:
        A :class:`TopicSearchResponse`.

    Raises:
        InvalidInput: an unknown mode. ScopeNotFound: an unknown scope.
    """
    requested = parse_mode(mode)
    types = tuple(types or ())
    with read_session(lib.engine) as session:
        acting = session_resolve_scope(session, scope)
        visible = session_visible_scopes(session, acting, lib.settings.scope_weights)
        wanted = None if scopes is None else set(scopes)
        # The cascade: the acting scope's and its ancestors' trees (and its agent's); a sibling think process seen
        # through the results setting lends its results, never its tree.
        searched = [v.path for v in visible if not v.results_only and (wanted is None or v.path in wanted)]
    forest = _forest(lib, acting, searched)
    admits_atoms = (not types or any(t in ATOM_TYPES for t in types)) and not memory_types
    chosen, reason = _choose(requested, forest, admits_atoms)
    common = {"scope": acting, "tag_filter": tag_filter, "types": types, "statuses": statuses, "scopes": scopes,
              "limit": limit, "memory_types": memory_types}
    atoms_total = sum(forest.atoms.get(s.value, 0) for s in statuses)
    warnings = [reason] if requested == "tree" and chosen == "flat" else []
    if chosen == "flat":
        response = search(lib, query, **common)
        return _respond(lib, response, forest, None, "flat", requested, reason, warnings, atoms_total, atoms_total)
    vector, why_not = _encode(lib, query)
    warnings += [why_not] if why_not else []
    routing = vector
    if vector is not None and forest.index.dim not in (None, vector.size):
        # Centroids of another model (the library's model changed since the tree was built): the words still route;
        # the ranking below uses the vector as always.
        routing = None
        warnings.append(f"the topic centroids have {forest.index.dim} dimensions, the model's queries {vector.size}: "
                        "the topics were routed by their words only until the digest rebuilds them")
    parsed = parse_query(query)
    if not parsed and routing is None:
        result = BeamResult()
    else:
        result = beam_search(forest.index, parsed, routing, beam or BeamParams.from_settings(lib.settings))
    within = set(result.atoms) | forest.unplaced
    # The tree holds atoms only: it narrows them to the paths kept; notes, papers and results (when the types
    # admit them, as memory_query and the search pane ask) are ranked beside them as in a flat search, so a
    # document with no atoms is never lost to a tree search.
    response = search(lib, query, within=within, within_types=ATOM_TYPES, query_vector=vector, **common)
    scored = len(within)
    return _respond(lib, response, forest, result, "tree", requested, reason, warnings, atoms_total, scored)


# -- the forest of trees searched, cached -------------------------------------------------------


@dataclass(frozen=True)
class _Forest:
    """The trees of some scopes, read once: the beam's index and what hits and counters need."""

    trees: tuple[str, ...]  # scopes with a tree, in the order searched (nearest first)
    consolidated: tuple[str, ...]  # those whose tree is consolidated
    index: TopicIndex
    labels: dict[str, str]  # topic id → label
    parents: dict[str, str | None]  # topic id → parent topic id (None for a first-level topic)
    scope_of: dict[str, str]  # topic id → its tree's scope
    member_of: dict[str, tuple[str, ...]]  # atom id → the topics holding it
    unplaced: frozenset[str]  # live atoms of the scopes in no topic (new since the last digest)
    atoms: dict[str, int]  # document status → atoms of the scopes in it

    def path(self, topic_id: str) -> TopicPath:
        """The breadcrumb of ``topic_id``."""
        chain: list[str] = []
        current: str | None = topic_id
        while current is not None and current in self.labels:
            chain.append(current)
            current = self.parents.get(current)
        chain.reverse()
        return TopicPath(scope=self.scope_of.get(topic_id, ""), topic_ids=chain, labels=[self.labels[t] for t in chain])


_CACHE: weakref.WeakKeyDictionary[Library, tuple[int, dict[tuple[str, ...], _Forest]]] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def _forest(lib: Library, acting: str, scopes: Sequence[str]) -> _Forest:
    """The forest of ``scopes``' trees (seen from ``acting``), from the cache while the library's change counter
    stands still.

    Every document and relation write bumps that counter (``records.bump_change_counter``), the digest's tree
    upkeep and a person's topic edits included, in any process: a cached forest is never stale. Any write
    empties the cache, which is coarser than needed (an agent's new note costs the next search a rebuild,
    O(topics + memberships)), but needs no bookkeeping of its own.
    """
    counter = lib.change_counter()
    key = tuple(scopes)
    with _CACHE_LOCK:
        cached_counter, forests = _CACHE.get(lib, (None, {}))
        if cached_counter == counter and key in forests:
            return forests[key]
    forest = _read_forest(lib, acting, key)
    with _CACHE_LOCK:
        cached_counter, forests = _CACHE.get(lib, (None, {}))
        forests = dict(forests) if cached_counter == counter else {}
        forests[key] = forest
        _CACHE[lib] = (counter, forests)
    return forest


def _read_forest(lib: Library, acting: str, scopes: tuple[str, ...]) -> _Forest:
    """Read the trees of ``scopes`` (``topics.visible_trees``), their centroids and members, the atoms in no topic
    and the scopes' atom counts.

    The counts come first, in one read session with whether the scopes hold any active topic at all: a library
    whose scopes have no tree (every library until its first digest) is answered by that session alone, rather than
    the 17 statements in five sessions of reading each scope's (empty) tree (a think process's four scopes).
    """
    params = {"scopes": json.dumps(list(scopes)), "types": json.dumps([t.value for t in ATOM_TYPES])}
    with read_session(lib.engine) as session:
        forms = SqlForms.of(session)
        counts = dict(session.exec(text(
            f"SELECT d.status, COUNT(*) FROM document d WHERE d.scope_path IN ({forms.rows('scopes')}) "
            f"AND d.type IN ({forms.rows('types')}) GROUP BY d.status"), params=params).all())
        any_topic = session.exec(text(
            f"SELECT 1 FROM document d WHERE d.scope_path IN ({forms.rows('scopes')}) AND d.type = :topic "
            "AND d.status = :active LIMIT 1"),
            params={**params, "topic": DocumentType.TOPIC.value, "active": DocumentStatus.ACTIVE.value}).first()
    by_status = {str(k): int(v) for k, v in counts.items()}
    if any_topic is None:  # no tree without an active topic (its root): nothing else to read
        return _Forest(trees=(), consolidated=(), index=TopicIndex([]), labels={}, parents={}, scope_of={},
                       member_of={}, unplaced=frozenset(), atoms=by_status)
    trees = [v.tree for v in topics.visible_trees(lib, acting) if v.scope in scopes]
    shown = [t for tree in trees for t in tree.topics if not t.is_root]
    roots = {tree.root_id for tree in trees}
    vectors = topics.centroids(lib, [t.id for t in shown])
    with read_session(lib.engine) as session:
        own = topics.members(session, [t.id for t in shown])
        forms = SqlForms.of(session)
        # Atoms in none of the scopes' topics: stored since the last digest placed them, or of a scope with no
        # tree. The tree search ranks them too, so nothing is lost between digests.
        unplaced = frozenset(row[0] for row in session.exec(text(
            f"SELECT d.id FROM document d WHERE d.scope_path IN ({forms.rows('scopes')}) "
            f"AND d.type IN ({forms.rows('types')}) AND d.status IN ('active', 'stale') "
            "AND NOT EXISTS (SELECT 1 FROM relation r JOIN document t ON t.id = r.target_id WHERE r.source_id = d.id "
            "AND r.type = :in_topic AND t.status = 'active')"),
            params={**params, "in_topic": RelationType.IN_TOPIC.value}).all()) if shown else frozenset()
    nodes = [TopicNode(id=t.id, parent_id=None if t.parent_id in roots else t.parent_id, surface=t.surface,
                       centroid=vectors.get(t.id), atoms=tuple(own.get(t.id, ()))) for t in shown]
    member_of: dict[str, list[str]] = {}
    for topic_id, atoms in own.items():
        for atom in atoms:
            member_of.setdefault(atom, []).append(topic_id)
    return _Forest(trees=tuple(tree.scope for tree in trees),
                   consolidated=tuple(tree.scope for tree in trees if tree.consolidated),
                   index=TopicIndex(nodes), labels={t.id: t.label for t in shown},
                   parents={n.id: n.parent_id for n in nodes}, scope_of={t.id: t.scope for t in shown},
                   member_of={atom: tuple(found) for atom, found in member_of.items()},
                   unplaced=unplaced, atoms=by_status)


# -- mode, vector, sources, hits ------------------------------------------------------------------


def _choose(requested: SearchMode, forest: _Forest, admits_atoms: bool) -> tuple[Literal["tree", "flat"], str]:
    """The mode that runs and why (a sentence for the response and the faces, naming the mode: the CLI prints it
    as the header alone)."""
    if requested == "flat":
        return "flat", "flat search, as asked"
    if not forest.trees or not forest.labels:
        return "flat", "no topic tree yet in the scopes searched: flat search over everything"
    if requested == "tree":
        return "tree", f"tree search, as asked, through the tree{'s' if len(forest.trees) > 1 else ''} of " \
                       f"{', '.join(forest.trees)}"
    if not admits_atoms:
        return "flat", "the filters leave atoms out: flat search"
    if not forest.consolidated:
        return "flat", "cold start (no tree searched is consolidated yet): flat search over every atom"
    return "tree", f"{', '.join(forest.consolidated)}'s tree is consolidated: tree search"


def _encode(lib: Library, query: str) -> tuple[np.ndarray | None, str | None]:
    """The query's vector, shared by the beam and the ranking; None and why when the model is unavailable."""
    if not query.strip():
        return None, None
    try:
        return lib.embedder().encode_query(query), None
    except VancetopeError as error:
        return None, f"the topics were routed by their words only (no query vector: {error})"


def _respond(lib: Library, response: SearchResponse, forest: _Forest, result: BeamResult | None,
             mode: Literal["tree", "flat"], requested: SearchMode, reason: str, warnings: list[str],
             atoms_total: int, atoms_scored: int) -> TopicSearchResponse:
    """``response``'s hits with their paths, sources, pages and (tree mode) the path in the explanation."""
    walked: list[TopicPath] = []
    if result is not None:
        for path in result.paths:
            crumb = forest.path(path.topics[-1])
            walked.append(crumb.model_copy(update={"score": path.score, "words": list(path.words)}))
    atoms = [h.document for h in response.hits if h.document.type in ATOM_TYPES]
    cards = {card.id: card for card in records.atom_cards(lib, atoms)} if atoms else {}
    hits = []
    for hit in response.hits:
        doc = hit.document
        paths = [forest.path(t) for t in forest.member_of.get(doc.id, ())]
        reached = walked[result.atom_paths[doc.id]] if result is not None and doc.id in result.atom_paths else None
        if reached is not None:
            # The atom's own topics, those on the path that reached it (or under its end) first: an atom of an inner
            # topic reached through its leaf shows where it is, the explanation the path that led there.
            on_path = set(reached.topic_ids)
            paths.sort(key=lambda p: not (p.topic_ids[-1] in on_path or reached.topic_ids[-1] in p.topic_ids))
        card = cards.get(doc.id)
        explanation = hit.explanation
        if mode == "tree":
            explanation = f"{_route(reached, doc, forest)}\n{explanation}"
        hits.append(TopicHit(**{**dict(hit), "explanation": explanation}, paths=paths,
                             source_id=card.source_id if card else None,
                             source_title=card.source_title if card else None,
                             source_page=card.span.page if card and card.span else None))
    return TopicSearchResponse(
        **{k: v for k, v in dict(response).items() if k not in ("hits", "warnings")}, hits=hits, mode=mode,
        requested_mode=requested, mode_reason=reason, warnings=[*response.warnings, *warnings],
        trees=list(forest.trees), paths=walked, topics=forest.index.size,
        topics_scored=result.topics_scored if result is not None else 0, atoms=atoms_total, atoms_scored=atoms_scored)


def _route(path: TopicPath | None, doc: DocumentInfo, forest: _Forest) -> str:
    """The explanation's first line in tree mode: which path reached the hit, by which words."""
    if path is not None:
        words = f"surface words {', '.join(path.words)}" if path.words else "meaning only (no surface word matched)"
        return f"topic path {path.breadcrumb} (path score {path.score:.2f}; {words})"
    if doc.id in forest.unplaced:
        return "in no topic yet (added since the last digest): ranked with the paths' atoms"
    return "not an atom: ranked as in a flat search (the tree routes atoms only)"
