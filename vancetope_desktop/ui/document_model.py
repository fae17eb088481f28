"""The document table: a thin Qt model over ``DocumentInfo`` values, and its sort/quick-filter proxy.

The main window loads documents in a worker and hands them over with :meth:`DocumentTableModel.set_documents`;
this module never calls services. Rows are dragged as ids (:mod:`.dnd`); files dropped onto the table are
reported with :attr:`DocumentTableModel.files_dropped` for the main window to import.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, IndexState
from ..core.reading import READING_ORDER, reading_status_of
from ..resources import resource_path
from .dnd import DOCUMENT_MIME, URI_LIST_MIME, decode_document_ids, encode_document_ids, local_paths_from_mime
from .item_models import column_title
from .scope_text import ScopeRelation, badge_text, scope_relation, where_text

TAGS_ROLE = Qt.ItemDataRole.UserRole + 1
"""``list[str]``: the row's tags, for the chips delegate."""
DOC_ID_ROLE = Qt.ItemDataRole.UserRole + 2
"""``str``: the row's document id (any column)."""
SORT_ROLE = Qt.ItemDataRole.UserRole + 3
"""A sortable value: casefolded text, year as int, dates as POSIX timestamps; None when unknown."""
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 4
"""``str``: folded title, authors, tags and year of the row, for the quick filter (any column)."""

_AnyIndex = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index


class Column(IntEnum):
    """The table's columns, in order."""

    TITLE = 0
    AUTHORS = 1
    YEAR = 2
    TAGS = 3
    SCOPE = 4
    INDEX = 5
    ADDED = 6
    MODIFIED = 7
    JOURNAL = 8
    DOI = 9
    TYPE = 10
    PAGES = 11
    CITATION_KEY = 12
    READING = 13
    MEMORY_TYPE = 14


_HEADERS = ("Title", "Authors", "Year", "Tags", "Scope", "Index", "Added", "Modified",
            "Journal", "DOI", "Type", "Pages", "Citation key", "Reading", "Memory type")
_KIND_WORDS = {"pdf": "PDF", "structured": "Data"}
"""Type column words that are not the capitalised icon name (:func:`type_icon_name`)."""
_PAGE_RANGE = re.compile(r"\A\D*(\d+)\s*(?:[-–—]+\s*\D*(\d+))?")
_INDEX_WORDS = {
    IndexState.PENDING: "pending", IndexState.INDEXED: "indexed", IndexState.NEEDS_OCR: "needs OCR",
    IndexState.FAILED: "failed", IndexState.NOT_INDEXED: "—",
}
_INDEX_COLOURS = {
    IndexState.PENDING: "#d4a017", IndexState.INDEXED: "#3a9d5d", IndexState.NEEDS_OCR: "#e07b24",
    IndexState.FAILED: "#d64541",
}
_TYPE_FALLBACKS = {
    "pdf": QStyle.StandardPixmap.SP_FileIcon,
    "file": QStyle.StandardPixmap.SP_FileIcon,
    "note": QStyle.StandardPixmap.SP_FileDialogContentsView,
    "fact": QStyle.StandardPixmap.SP_MessageBoxInformation,
    "event": QStyle.StandardPixmap.SP_FileDialogListView,
    "plan": QStyle.StandardPixmap.SP_ArrowForward,
    "result": QStyle.StandardPixmap.SP_DialogApplyButton,
    "reference": QStyle.StandardPixmap.SP_FileDialogInfoView,
    "structured": QStyle.StandardPixmap.SP_FileDialogDetailedView,
    "folder": QStyle.StandardPixmap.SP_DirIcon,
    "annotation": QStyle.StandardPixmap.SP_FileDialogContentsView,
    "topic": QStyle.StandardPixmap.SP_DirIcon,
}
MAX_AUTHORS_SHOWN = 3
_NAME_PARTICLES = frozenset({"van", "von", "de", "der", "den", "del", "della", "di", "da", "du", "le", "la", "ter"})
_NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_BODY_WORDS = frozenset({"and", "&", "of", "on", "for", "the", "und", "für", "et", "pour"})
"""Words that join the parts of an organisation's name and never occur in a person's (particles such as
"de" or "van" do, so they are not here)."""
_icons: dict[str, QIcon] = {}


def themed_icon(name: str, fallback: QStyle.StandardPixmap) -> QIcon:
    """``resources/icons/<name>.svg`` when shipped, else the style's ``fallback`` icon.

    Icons are cached by name; the first call needs a QApplication.
    """
    icon = _icons.get(name)
    if icon is None:
        try:
            icon = QIcon(str(resource_path("icons", f"{name}.svg")))
        except FileNotFoundError:
            icon = QApplication.style().standardIcon(fallback)
        _icons[name] = icon
    return icon


def type_icon_name(doc: DocumentInfo) -> str:
    """The icon name of a document: its type, with ``pdf`` for PDF files."""
    if doc.type == DocumentType.FILE and doc.mime_type == "application/pdf":
        return "pdf"
    return doc.type.value


def type_icon(name: str) -> QIcon:
    """The icon of a document kind as the document list shows it (``note``, ``fact``, ``result``, ``file``,
    ``pdf``…: :func:`type_icon_name` or a ``DocumentType`` value); an unknown kind gets the file icon."""
    return themed_icon(name, _TYPE_FALLBACKS.get(name, QStyle.StandardPixmap.SP_FileIcon))


def muted_colour() -> QColor:
    """The colour for secondary text (inherited rows, counts): the palette's placeholder text colour."""
    return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)


def author_list(metadata: Mapping[str, Any]) -> list[str]:
    """``metadata["authors"]`` as a list of names: a list is kept, a string is split on ';' or ' and '."""
    value = metadata.get("authors")
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else value.split(" and ")
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return []


def surname(name: str) -> str:
    """A short name for a column: "Ashish Vaswani" → "Vaswani", "Curie, Marie" → "Curie",
    "Ludwig van Beethoven" → "van Beethoven"; collaborations, bodies and one-word names stay whole.

    A body is a name with a connecting word ("National Research Council Committee on Science,
    Technology, and Law", "Centre for Disease Control"): no part of it is a surname.
    """
    words = name.split()
    if len(words) < 2 or any(w.casefold().startswith(("collab", "consort")) for w in words) \
            or any(w.casefold() in _BODY_WORDS for w in words):
        return name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    while len(words) > 1 and words[-1].casefold() in _NAME_SUFFIXES:
        words.pop()
    start = len(words) - 1
    while start > 1 and words[start - 1].casefold() in _NAME_PARTICLES:
        start -= 1
    return " ".join(words[start:])


def format_authors(names: Sequence[str]) -> str:
    """Surnames of the first three authors, then "… +N" for the rest: "Vaswani, Shazeer, Parmar, … +5"."""
    shown = ", ".join(surname(n) for n in names[:MAX_AUTHORS_SHOWN])
    rest = len(names) - MAX_AUTHORS_SHOWN
    return f"{shown}, … +{rest}" if rest > 0 else shown


def year_of(metadata: Mapping[str, Any]) -> int | None:
    """``metadata["year"]`` as an int ("2017", 2017, "2017-05" → 2017); None when absent or not a year."""
    value = metadata.get("year")
    text = str(value).strip()[:4] if value is not None else ""
    return int(text) if text.isdigit() else None


def meta_text(metadata: Mapping[str, Any], *keys: str) -> str:
    """The first of ``keys`` with a non-blank value in ``metadata``, as stripped text ("" when none)."""
    for key in keys:
        value = metadata.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return ""


def kind_text(doc: DocumentInfo) -> str:
    """The Type column: "PDF", "Note", "Fact"…, with a reference's entry type: "Reference (article)"."""
    name = type_icon_name(doc)
    word = _KIND_WORDS.get(name, name.capitalize())
    entry = meta_text(doc.metadata, "entry_type") if doc.type == DocumentType.REFERENCE else ""
    return f"{word} ({entry})" if entry else word


def pages_text(metadata: Mapping[str, Any]) -> str:
    """The Pages column: a reference's page range as written ("123–145"), else a file's page count."""
    return meta_text(metadata, "pages", "page_count")


def page_length(metadata: Mapping[str, Any]) -> int | None:
    """How many pages a document spans, for sorting the Pages column: a range "123-145" spans 23, a
    single page "e1002" 1, a PDF its ``page_count``; None when unknown or unreadable."""
    if meta_text(metadata, "pages"):
        match = _PAGE_RANGE.match(meta_text(metadata, "pages"))
        if match is None:
            return None
        first, last = int(match[1]), int(match[2]) if match[2] else None
        return last - first + 1 if last is not None and last >= first else 1
    count = meta_text(metadata, "page_count")
    return int(count) if count.isdigit() else None


def local_time(moment: datetime) -> datetime:
    """A stored time in the local zone (naive values are UTC, as the store writes them)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone()


def fold(text: str) -> str:
    """Text for accent- and case-insensitive matching: NFKD without combining marks, casefolded.

    "Müller" and "Mu\\u0308ller" both fold to "muller"; German transliteration ("mueller") is
    added by :func:`search_text`.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def search_text(doc: DocumentInfo) -> str:
    """Folded title, authors, tags and year of ``doc``, also in German transliteration (ü → ue)."""
    year = year_of(doc.metadata)
    raw = " ".join([doc.title, *author_list(doc.metadata), *(f"#{t}" for t in doc.tags), str(year or "")])
    composed = unicodedata.normalize("NFC", raw)
    folded = fold(composed)
    german = fold(composed.translate(_GERMAN))
    return folded if german == folded else f"{folded}\n{german}"


def _dot_icon(colour: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawEllipse(2, 2, 8, 8)
    painter.end()
    return QIcon(pixmap)


_COLUMNS = tuple(Column)  # by number: ``Column(n)`` costs an enum lookup on every cell painted or sorted
_COLUMN_COUNT = len(_COLUMNS)
# Combined once: views ask every cell for its flags, and or-ing Qt's enums costs more than the rest of the call.
_ROW_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
              | Qt.ItemFlag.ItemIsDropEnabled | Qt.ItemFlag.ItemNeverHasChildren)


class DocumentTableModel(QAbstractTableModel):
    """Rows of documents, columns :class:`Column`; drags ids, accepts dropped files.

    Signals:
        files_dropped(list[Path]): local files dropped onto the table (import into the current folder).
        drop_refused(str): one message per dropped item that cannot be imported (web link, missing file).
    """

    files_dropped = Signal(list)
    drop_refused = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._docs: list[DocumentInfo] = []
        self._rows: dict[str, int] = {}
        self._current_scope = ""
        self._scope_names: dict[str, str] = {}
        self._siblings: frozenset[str] = frozenset()
        self._superseded: dict[str, str | None] = {}
        self._agents: frozenset[str] = frozenset()
        self._search: dict[str, str] = {}
        self._sort_values: dict[tuple[int, int], Any] = {}  # (row, column) → SORT_ROLE value, until the rows change
        self._dots: dict[IndexState, QIcon] = {}

    # -- feeding -------------------------------------------------------------------------------------

    def set_documents(
        self, docs: Sequence[DocumentInfo], *, current_scope: str, scope_names: Mapping[str, str],
        sibling_scopes: Collection[str] = (), superseded: Mapping[str, str | None] | None = None,
        agent_scopes: Collection[str] = (),
    ) -> None:
        """Replace all rows.

        Args:
            docs: the documents to show, in the order given (the proxy sorts).
            current_scope: the acting scope's path; documents of other scopes are shown as inherited
                ("↑"), or as shared by a sibling think process ("↔") when their scope is in ``sibling_scopes``.
            scope_names: scope path → human name; a missing path shows its key.
            sibling_scopes: the sibling think processes ``current_scope`` sees the results of
                (``VisibleScope.results_only``).
            agent_scopes: the agent scope that runs ``current_scope`` (``VisibleScope.via_agent``): its
                memories are marked as the agent's ("⚙"), not as inherited.
            superseded: archived id → the title of the document that superseded it, None when not for
                these eyes (``services.lifecycle.superseded_titles``): its title says "superseded by …".
        """
        shown = (list(docs), current_scope, dict(scope_names), frozenset(sibling_scopes), dict(superseded or {}),
                 frozenset(agent_scopes))
        if shown == (self._docs, self._current_scope, self._scope_names, self._siblings, self._superseded,
                     self._agents):
            # Most snapshots change nothing the list shows (an indexing step, a review, another pane's
            # action): a reset re-sorted and repainted every row and re-selected the selection for nothing.
            return
        self.beginResetModel()
        self._docs, self._current_scope, self._scope_names, self._siblings, self._superseded, self._agents = shown
        self._rows = {d.id: row for row, d in enumerate(self._docs)}
        self._search.clear()
        self._sort_values.clear()
        self.endResetModel()

    def update_document(self, doc: DocumentInfo) -> bool:
        """Replace the row of ``doc.id`` if shown (emits dataChanged); returns whether it was shown."""
        row = self._rows.get(doc.id)
        if row is None:
            return False
        self._docs[row] = doc
        self._search.pop(doc.id, None)
        self._sort_values = {key: value for key, value in self._sort_values.items() if key[0] != row}
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(Column) - 1))
        return True

    def document(self, row: int) -> DocumentInfo:
        """The document of ``row``. Raises IndexError for a row out of range."""
        if not 0 <= row < len(self._docs):
            raise IndexError(f"no row {row} (the table has {len(self._docs)})")
        return self._docs[row]

    def row_for(self, doc_id: str) -> int | None:
        """The row showing ``doc_id``, or None."""
        return self._rows.get(doc_id)

    def documents(self) -> list[DocumentInfo]:
        """All rows' documents, in model order."""
        return list(self._docs)

    def relation(self, doc: DocumentInfo) -> ScopeRelation:
        """Whether ``doc`` is the current scope's own, inherited from an ancestor, a sibling's result, or a
        memory of the agent that runs the current scope."""
        return scope_relation(doc.scope, self._current_scope, self._siblings, agents=self._agents)

    def is_inherited(self, doc: DocumentInfo) -> bool:
        """Whether ``doc`` lives in an ancestor scope rather than the current one."""
        return self.relation(doc) is ScopeRelation.INHERITED

    def scope_name(self, path: str) -> str:
        """The human name of a scope path (its key when unknown)."""
        return self._scope_names.get(path) or path.partition("/")[2] or path

    # -- Qt model API --------------------------------------------------------------------------------

    def rowCount(self, parent: _AnyIndex = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._docs)

    def columnCount(self, parent: _AnyIndex = _NO_PARENT) -> int:
        return 0 if parent.isValid() else _COLUMN_COUNT

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(_HEADERS, section, orientation, role)

    def flags(self, index: _AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled  # files dropped on the empty area below the rows
        return _ROW_FLAGS

    def data(self, index: _AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Checked by hand: QAbstractItemModel.checkIndex calls back into rowCount and columnCount and was a
        # third of the time a refresh spent painting and sorting the table.
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._docs) and 0 <= col < _COLUMN_COUNT and index.model() is self):
            return None
        if role == SORT_ROLE:
            return self.sort_value(row, col)
        doc, column = self._docs[row], _COLUMNS[col]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(doc, column)
        if role == DOC_ID_ROLE:
            return doc.id
        if role == TAGS_ROLE:
            return list(doc.tags)
        if role == SEARCH_ROLE:
            return self._search_text(doc)
        if role == Qt.ItemDataRole.DecorationRole:
            return self._decoration(doc, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(doc, column)
        if role == Qt.ItemDataRole.ForegroundRole and column == Column.SCOPE and self.relation(doc).read_only:
            return QBrush(muted_colour())
        return None

    # -- cell values ---------------------------------------------------------------------------------

    def _display(self, doc: DocumentInfo, column: Column) -> str:
        match column:
            case Column.TITLE:
                return doc.title + self._superseded_note(doc)
            case Column.AUTHORS:
                return format_authors(author_list(doc.metadata))
            case Column.YEAR:
                year = year_of(doc.metadata)
                return str(year) if year is not None else ""
            case Column.TAGS:
                return " ".join(f"#{t}" for t in doc.tags)
            case Column.SCOPE:
                return badge_text(self.scope_name(doc.scope), self.relation(doc))
            case Column.INDEX:
                words = _INDEX_WORDS.get(doc.index_state, doc.index_state.value)
                return f"stale · {words}" if doc.status == DocumentStatus.STALE else words
            case Column.ADDED:
                return local_time(doc.created_at).strftime("%Y-%m-%d %H:%M")
            case Column.MODIFIED:
                return local_time(doc.updated_at).strftime("%Y-%m-%d %H:%M")
            case Column.JOURNAL:
                return meta_text(doc.metadata, "journal", "venue")
            case Column.DOI:
                return meta_text(doc.metadata, "doi")
            case Column.TYPE:
                return kind_text(doc)
            case Column.PAGES:
                return pages_text(doc.metadata)
            case Column.CITATION_KEY:
                return meta_text(doc.metadata, "citation_key")
            case Column.READING:  # files and references are unread until marked otherwise
                status = reading_status_of(doc.type, doc.metadata)
                return status.value if status is not None else ""
            case Column.MEMORY_TYPE:  # what an agent's memory is for (core.memories), never the document type
                return doc.memory_type.value if doc.memory_type else ""

    def sort_value(self, row: int, column: int) -> Any:
        """The :data:`SORT_ROLE` value of a cell (``row`` and ``column`` in range), kept until the rows change: the
        proxy asks for each row's value at every comparison of a sort."""
        key = (row, column)
        if key not in self._sort_values:
            self._sort_values[key] = self._sort_value(self._docs[row], _COLUMNS[column])
        return self._sort_values[key]

    def _sort_value(self, doc: DocumentInfo, column: Column) -> Any:
        match column:
            case Column.YEAR:
                return year_of(doc.metadata)
            case Column.ADDED:
                return local_time(doc.created_at).timestamp()
            case Column.MODIFIED:
                return local_time(doc.updated_at).timestamp()
            case Column.AUTHORS:
                names = author_list(doc.metadata)
                return fold(surname(names[0])) if names else None
            case Column.PAGES:
                return page_length(doc.metadata)
            case Column.READING:  # unread, reading, read: the order of progress, not of the alphabet
                status = reading_status_of(doc.type, doc.metadata)
                return READING_ORDER.index(status) if status is not None else None
            case _:
                return fold(self._display(doc, column)) or None

    def _decoration(self, doc: DocumentInfo, column: Column) -> QIcon | None:
        if column == Column.TITLE:
            return type_icon(type_icon_name(doc))
        if column == Column.INDEX and doc.index_state in _INDEX_COLOURS:
            if doc.index_state not in self._dots:
                self._dots[doc.index_state] = _dot_icon(_INDEX_COLOURS[doc.index_state])
            return self._dots[doc.index_state]
        return None

    def _tooltip(self, doc: DocumentInfo, column: Column) -> str | None:
        match column:
            case Column.TITLE:
                return doc.title + self._superseded_note(doc) + (f"\n{doc.file_path}" if doc.file_path else "")
            case Column.AUTHORS:
                return "\n".join(author_list(doc.metadata)) or None
            case Column.SCOPE:
                return self._scope_tooltip(doc)
            case Column.INDEX:
                word = _INDEX_WORDS.get(doc.index_state, doc.index_state.value)
                return f"{word}: {doc.index_error}" if doc.index_error else word
            case Column.JOURNAL | Column.CITATION_KEY:  # long venues are elided in the cell
                return self._display(doc, column) or None
            case _:
                return None

    def _superseded_note(self, doc: DocumentInfo) -> str:
        """" · superseded by “Newer”" for a superseded memory (issue 12's lifecycle), else ""."""
        if doc.id not in self._superseded:
            return ""
        newer = self._superseded[doc.id]
        return f"  · superseded by “{newer}”" if newer else "  · superseded by a newer document"

    def _scope_tooltip(self, doc: DocumentInfo) -> str:
        relation, name = self.relation(doc), self.scope_name(doc.scope)
        if relation is ScopeRelation.SIBLING:
            return f"a result of {where_text(name, relation)} ({doc.scope}), shared with this one: read-only here"
        if relation is ScopeRelation.INHERITED:
            return f"inherited from {name} ({doc.scope}): read-only here"
        if relation is ScopeRelation.AGENT:
            return f"a memory of {where_text(name, relation)} ({doc.scope}), which runs this scope: read-only here"
        return doc.scope

    def _search_text(self, doc: DocumentInfo) -> str:
        text = self._search.get(doc.id)
        if text is None:
            text = self._search[doc.id] = search_text(doc)
        return text

    # -- drag and drop -------------------------------------------------------------------------------

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [DOCUMENT_MIME, URI_LIST_MIME, "text/plain"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The ids of the rows touched by ``indexes`` (row order, once each) as :data:`DOCUMENT_MIME`."""
        rows = sorted({i.row() for i in indexes if i.isValid() and i.model() is self})
        return encode_document_ids(self._docs[r].id for r in rows)

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _AnyIndex
    ) -> bool:
        # Documents dragged within the table have nowhere to go; files (and links, refused with a
        # message in dropMimeData) are accepted anywhere on the table.
        if not action & (Qt.DropAction.CopyAction | Qt.DropAction.MoveAction):
            return False
        if decode_document_ids(data):
            return False
        paths, refused = local_paths_from_mime(data)
        return bool(paths or refused)

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _AnyIndex) -> bool:
        """Report dropped files with :attr:`files_dropped` and refusals with :attr:`drop_refused`.

        Signals are emitted on the next event-loop turn so that a slot opening a dialog does not run
        inside the platform's drag loop.
        """
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        paths, refused = local_paths_from_mime(data)
        for message in refused:
            QTimer.singleShot(0, self, lambda m=message: self.drop_refused.emit(m))
        if paths:
            QTimer.singleShot(0, self, lambda: self.files_dropped.emit(paths))
        return bool(paths)


class DocumentFilterProxy(QSortFilterProxyModel):
    """Sorts by :data:`SORT_ROLE` (unknown values last) and filters by a quick-filter text and a memory type.

    The quick filter keeps rows whose folded title, authors, tags and year contain every word of the
    text (case- and accent-insensitive, both Unicode normal forms; "mueller" also finds "Müller").
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._words: list[str] = []
        self._memory_type: str | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_quick_filter(self, text: str) -> None:
        """Filter by ``text`` (blank: show all)."""
        words = fold(unicodedata.normalize("NFC", text)).split()
        if words != self._words:
            self.beginFilterChange()
            self._words = words
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def quick_filter_words(self) -> list[str]:
        """The folded words the filter is looking for."""
        return list(self._words)

    def set_memory_type_filter(self, memory_type: str | None) -> None:
        """Show only memories of ``memory_type`` (a ``core.memories.MemoryType`` value; None: every row)."""
        if memory_type != self._memory_type:
            self.beginFilterChange()
            self._memory_type = memory_type
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _AnyIndex) -> bool:
        model = self.sourceModel()
        if self._memory_type is not None and \
                model.data(model.index(source_row, Column.MEMORY_TYPE, source_parent)) != self._memory_type:
            return False
        if not self._words:
            return True
        haystack = model.data(model.index(source_row, 0, source_parent), SEARCH_ROLE) or ""
        return all(word in haystack for word in self._words)

    def lessThan(self, source_left: _AnyIndex, source_right: _AnyIndex) -> bool:
        # Qt sorts descending by calling lessThan(right, left); the checks of the sort order below keep
        # unknown values last and ties in title order both ways, as spreadsheets do.
        # The values come straight from the model's cache (not through QModelIndex.data): a sort compares
        # each row about log2(rows) times.
        descending = self.sortOrder() == Qt.SortOrder.DescendingOrder
        model: DocumentTableModel = self.sourceModel()
        left_row, right_row = source_left.row(), source_right.row()
        left = model.sort_value(left_row, source_left.column())
        right = model.sort_value(right_row, source_right.column())
        if (left is None) != (right is None):
            return (left is None) == descending
        if left is not None and left != right:
            return left < right
        left_title = model.sort_value(left_row, Column.TITLE) or ""
        right_title = model.sort_value(right_row, Column.TITLE) or ""
        return right_title < left_title if descending else left_title < right_title
