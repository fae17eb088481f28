"""The search pane's data side: the request it emits, query-word highlighting, and the results item model.

Nothing here calls a service: the pane emits a :class:`SearchRequest`, the main window runs
``services.search.search`` off the UI thread and hands the ``SearchResponse`` back.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ..core.documents import ChunkRole, DocumentType
from ..core.memories import MemoryType
from ..core.tags import TagFilter, all_of, any_of
from ..index.lexical import find_matches
from ..services.search import SearchHit, SearchResponse
from ..services.topic_search import TopicHit
from .scope_text import ScopeRelation

HIGHLIGHT_CLASS = "hit"
"""CSS class of the highlighted query words; the delegate styles it for the current palette."""
CRUMB_CLASS = "crumb"
"""CSS class of an atom's topic path above its snippet (``Outdoors › Hiking``); the delegate styles it."""


@dataclass(frozen=True)
class SearchRequest:
    """One search the pane asks for; the main window turns it into a ``services.search.search`` call.

    Attributes:
        request_id: increases with every request; only the answer to the latest one is shown.
        query: the text typed (never blank).
        tags: normalised tag filters; empty means no tag restriction.
        tag_mode: ``"all"`` (every tag) or ``"any"`` (at least one).
        types: document types wanted; empty means every type.
        scopes: the visible scope paths to search, or None for all of them.
        limit: number of documents wanted.
        scope: the acting scope given to ``set_visible_scopes`` (None: the library's current scope).
        memory_types: agent memory types wanted (``core.memories``); empty means any document, memory or not.
        mode: ``auto``, ``tree`` or ``flat`` (``services.topic_search``): through the topic trees or over everything.
    """

    request_id: int
    query: str
    tags: tuple[str, ...] = ()
    tag_mode: str = "all"
    types: tuple[DocumentType, ...] = ()
    scopes: tuple[str, ...] | None = None
    limit: int = 30
    scope: str | None = None
    memory_types: tuple[MemoryType, ...] = ()
    mode: str = "auto"

    def tag_filter(self) -> TagFilter | None:
        """The tags as a ``core.tags`` filter for ``search(tag_filter=…)``; None without tags."""
        if not self.tags:
            return None
        return any_of(self.tags) if self.tag_mode == "any" else all_of(self.tags)


def highlight_html(text: str, query: str, css_class: str = HIGHLIGHT_CLASS) -> str:
    """``text`` as HTML with each match of the query's words and quoted phrases wrapped in ``<b class=…>``.

    Matches are found the way the keyword search matched them (``index.lexical.find_matches``): case-
    and accent-insensitive, free words by their stem ("requirements" lights "requirement", "resume"
    lights "Résumés"), a quoted phrase only where its words stand together, stop words never.
    Everything else is HTML-escaped, so markup in documents shows literally.

    Returns:
        An HTML fragment (no ``<html>``/``<body>``).
    """
    text = unicodedata.normalize("NFC", text)  # decomposed accents would split words
    spans: list[list[int]] = []
    for match in find_matches(text, query) if query.strip() else ():
        if spans and match.start < spans[-1][1]:  # overlapping matches (CJK bigrams): one highlight
            spans[-1][1] = max(spans[-1][1], match.end)
        else:
            spans.append([match.start, match.end])
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(html.escape(text[pos:start], quote=False))
        out.append(f'<b class="{css_class}">{html.escape(text[start:end], quote=False)}</b>')
        pos = end
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


class ResultRole(IntEnum):
    """Item data roles of :class:`SearchResultsModel` (``DisplayRole`` is the title too)."""

    TITLE = Qt.ItemDataRole.UserRole + 1
    SNIPPET_HTML = Qt.ItemDataRole.UserRole + 2
    PAGE = Qt.ItemDataRole.UserRole + 3
    SCOPE = Qt.ItemDataRole.UserRole + 4
    SCOPE_NAME = Qt.ItemDataRole.UserRole + 5
    INHERITED = Qt.ItemDataRole.UserRole + 6
    SCORE = Qt.ItemDataRole.UserRole + 7
    DOCUMENT_ID = Qt.ItemDataRole.UserRole + 8
    HIT = Qt.ItemDataRole.UserRole + 9
    SIBLING = Qt.ItemDataRole.UserRole + 10
    """``bool``: the hit is a result of a sibling think process (not inherited, though not the acting scope's)."""
    RELATION = Qt.ItemDataRole.UserRole + 11
    """``ScopeRelation``: own, inherited, a sibling's result, or a memory of the agent that runs the acting scope
    (``AGENT``: neither inherited nor a sibling's)."""
    BREADCRUMBS = Qt.ItemDataRole.UserRole + 12
    """``list[str]``: an atom's topic paths (``Outdoors › Hiking``), the one the tree search took first; empty for
    other documents (``services.topic_search.TopicHit``)."""


def scope_label(path: str) -> str:
    """A short name for a scope path when no human name is known: its key (``project/inbox`` → ``inbox``)."""
    return path.split("/", 1)[-1] if "/" in path else path


class SearchResultsModel(QAbstractListModel):
    """One row per :class:`SearchHit` of the latest response, in rank order.

    Holds the hits (detached pydantic values) and the query they answer; the snippet HTML is
    built once per response. ``scope_names`` maps scope paths to human names for the badges.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []
        self._snippets: list[str] = []
        self._query = ""
        self._scope_names: dict[str, str] = {}
        self._siblings: frozenset[str] = frozenset()
        self._agents: frozenset[str] = frozenset()

    def set_response(self, response: SearchResponse) -> None:
        """Replace the rows with ``response.hits``, highlighting ``response.query`` in the snippets."""
        self.beginResetModel()
        self._query = response.query
        self._hits = list(response.hits)
        self._snippets = [_crumbs_html(h) + highlight_html(h.snippet, response.query) for h in self._hits]
        self.endResetModel()

    def clear(self) -> None:
        """Remove every row."""
        self.beginResetModel()
        self._hits, self._snippets, self._query = [], [], ""
        self.endResetModel()

    def set_scope_names(self, names: dict[str, str]) -> None:
        """Scope path → human name, shown in the badges; unknown paths show their key."""
        self._scope_names = dict(names)
        if self._hits:
            self.dataChanged.emit(self.index(0), self.index(len(self._hits) - 1), [ResultRole.SCOPE_NAME])

    def set_sibling_scopes(self, paths: Iterable[str]) -> None:
        """The sibling think processes seen for their results (``VisibleScope.results_only``): their hits
        are marked ``SIBLING``, not ``INHERITED``."""
        self._siblings = frozenset(paths)
        if self._hits:
            self.dataChanged.emit(self.index(0), self.index(len(self._hits) - 1),
                                  [ResultRole.INHERITED, ResultRole.SIBLING, ResultRole.RELATION])

    def set_agent_scopes(self, paths: Iterable[str]) -> None:
        """The agent scope that runs the acting scope (``VisibleScope.via_agent``): its hits are marked ``AGENT``,
        not ``INHERITED``."""
        self._agents = frozenset(paths)
        if self._hits:
            self.dataChanged.emit(self.index(0), self.index(len(self._hits) - 1),
                                  [ResultRole.INHERITED, ResultRole.RELATION])

    @property
    def query(self) -> str:
        """The query of the response shown ("" when empty)."""
        return self._query

    def hit(self, row: int) -> SearchHit:
        """The hit at ``row``. Raises IndexError."""
        return self._hits[row]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Number of hits; a list has no children, so 0 under any valid parent."""
        return 0 if parent.isValid() else len(self._hits)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        """Results are selectable, never editable, and have no children."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The value of ``role`` (see :class:`ResultRole`) for the hit at ``index``; None otherwise."""
        if not index.isValid() or not 0 <= index.row() < len(self._hits) or index.column() != 0:
            return None
        hit = self._hits[index.row()]
        match role:
            case Qt.ItemDataRole.DisplayRole | ResultRole.TITLE:
                return hit.document.title
            case Qt.ItemDataRole.ToolTipRole:
                return self._tooltip(hit)
            case ResultRole.SNIPPET_HTML:
                return self._snippets[index.row()]
            case ResultRole.PAGE:
                return hit.page
            case ResultRole.SCOPE:
                return hit.document.scope
            case ResultRole.SCOPE_NAME:
                return self._scope_names.get(hit.document.scope) or scope_label(hit.document.scope)
            case ResultRole.INHERITED:
                return self._relation(hit) is ScopeRelation.INHERITED
            case ResultRole.SIBLING:
                return hit.document.scope in self._siblings
            case ResultRole.RELATION:
                return self._relation(hit)
            case ResultRole.SCORE:
                return hit.score
            case ResultRole.DOCUMENT_ID:
                return hit.document.id
            case ResultRole.HIT:
                return hit
            case ResultRole.BREADCRUMBS:
                return _breadcrumbs(hit)
        return None

    def roleNames(self) -> dict[int, bytes]:
        """Qt's role names plus ours (``title``, ``snippet_html``…), for introspection and QML."""
        names = dict(super().roleNames())
        names.update({int(r): r.name.lower().encode() for r in ResultRole})
        return names

    def _relation(self, hit: SearchHit) -> ScopeRelation:
        if hit.document.scope in self._siblings:
            return ScopeRelation.SIBLING
        if hit.document.scope in self._agents:
            return ScopeRelation.AGENT
        return ScopeRelation.INHERITED if hit.distance > 0 else ScopeRelation.OWN

    @staticmethod
    def _tooltip(hit: SearchHit) -> str:
        """Why the hit was found: the matched words, where the best passage lies, then how its score was made
        (``SearchHit.explanation``)."""
        words = f"matched: {', '.join(hit.matched)}" if hit.matched else "found by meaning (no query word in it)"
        if hit.unmatched and hit.matched:
            words += f" — not found: {', '.join(hit.unmatched)}"
        if hit.passages and hit.passages[0].role is not ChunkRole.BODY:
            words += f"\nbest passage: in its {hit.passages[0].role.value} (matched by words only)"
        topics = "".join(f"\ntopic: {crumb}" for crumb in _breadcrumbs(hit))
        return (f"{hit.document.title}\n{hit.document.type.value} in {hit.document.scope}{topics}\n{words}\n"
                f"{hit.explanation}")


def _breadcrumbs(hit: SearchHit) -> list[str]:
    """The hit's topic paths (a tree search's hit), else none."""
    return hit.breadcrumbs if isinstance(hit, TopicHit) else []


def _crumbs_html(hit: SearchHit) -> str:
    """The hit's first topic path as a line above its snippet (HTML), with the source's page for an atom read from a
    PDF; "" for a hit without either."""
    parts = _breadcrumbs(hit)[:1]
    if isinstance(hit, TopicHit) and hit.source_page:
        parts.append(f"p. {hit.source_page} of {hit.source_title or 'its source'}")
    return f'<span class="{CRUMB_CLASS}">{html.escape(" · ".join(parts), quote=False)}</span><br>' if parts else ""
