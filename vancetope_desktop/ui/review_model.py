"""Item models of the review queue: pending requests grouped by think process, and decided ones.

Both models hold request ids and the immutable :class:`PromotionRequest` values the snapshot loaded;
they never call services. :func:`load_review_details` is the read the pane's detail area needs (the
document, its inputs and, for an update, the document it would update); it runs on a worker thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum
from functools import cache
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRectF,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from ..core.documents import DocumentInfo, DocumentType
from ..core.errors import VancetopeError
from ..core.promotion import PromotionRequest, RequesterKind, RequestStatus, requester_kind
from ..services import review
from ..services.library import Library
from . import themes
from .diff_view import DiffRow, align
from .document_model import type_icon
from .item_models import column_title
from .scope_text import name_scope_paths

_Index = QModelIndex | QPersistentModelIndex


class ReviewRole(IntEnum):
    """Data roles of both review models."""

    REQUEST_ID = Qt.ItemDataRole.UserRole + 1  # str on request rows (every column), None on group rows
    GROUP_KEY = Qt.ItemDataRole.UserRole + 2  # str on group rows: the think process or source scope path
    SORT = Qt.ItemDataRole.UserRole + 3  # a sortable value (timestamps for dates)


@dataclass(frozen=True)
class Approval:
    """What the reviewer decided to approve: requests, optional other target, title and tag edits."""

    request_ids: tuple[str, ...]
    to: str | None = None
    title: str | None = None
    add_tags: tuple[str, ...] = ()
    remove_tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReviewDetails:
    """What the detail area shows of one request (loaded off the UI thread).

    Attributes:
        request: the request.
        document: the document to promote (None when it was purged).
        derived_from: ``(id, title)`` of its inputs that still exist.
        updates: the document in the target scope the approval would update, if any.
        diff_rows: its content aligned with the document's (:func:`diff_view.align`), for an update.
    """

    request: PromotionRequest
    document: DocumentInfo | None
    derived_from: list[tuple[str, str]] = field(default_factory=list)
    updates: DocumentInfo | None = None
    diff_rows: list[DiffRow] | None = None


def load_review_details(lib: Library, request: PromotionRequest) -> ReviewDetails:
    """``review.request_detail`` of ``request`` with the diff aligned for the side-by-side view (worker thread)."""
    try:
        detail = review.request_detail(lib, request.id)
    except VancetopeError:  # decided and purged meanwhile: the next refresh drops it
        return ReviewDetails(request, None)
    inputs = [(d.id, d.title) for d in detail.derived_from if d.title is not None]
    rows = None
    if detail.updates is not None and detail.document is not None:
        rows = align(detail.updates.content or "", detail.document.content or "")
    return ReviewDetails(detail.request, detail.document, inputs, detail.updates, rows)


# --- labels -----------------------------------------------------------------------------------------

def actor_label(actor: str | None, scope_names: Mapping[str, str], me: str = "") -> str:
    """How the app names an actor, the same in every view: a person's name (``Ada Tester (you)`` for ``me``), a
    think process's name, or ``rule #tag``; "" for None. ``me`` is the current person's actor string
    (``services.identity.current_user``)."""
    if not actor:
        return ""
    kind = requester_kind(actor)
    if kind is RequesterKind.RULE:
        return f"rule #{actor.removeprefix('rule:')}"
    if kind is RequesterKind.THINK_PROCESS:
        return scope_names.get(actor) or actor.removeprefix("think-process/")
    name = actor.removeprefix("user:")
    return f"{name} (you)" if me and actor == me else name


def requester_text(request: PromotionRequest, scope_names: Mapping[str, str], me: str = "") -> str:
    """The "Requested by" cell: the actor named, with its kind for think processes."""
    name = actor_label(request.requested_by, scope_names, me)
    return f"{name} (think process)" if request.requester is RequesterKind.THINK_PROCESS else name


def scope_name(path: str | None, scope_names: Mapping[str, str]) -> str:
    """A scope's human name, or its path when unknown (archived)."""
    return "" if path is None else scope_names.get(path, path)


def age_text(when: datetime, now: datetime | None = None) -> str:
    """A compact age: ``just now``, ``12 min``, ``3 h``, ``2 d``, ``5 wk``, then the date."""
    now = now or datetime.now(UTC)
    when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    seconds = max((now - when).total_seconds(), 0)
    if seconds < 60:
        return "just now"
    # (unit, its length in seconds, the age from which the next unit reads better)
    for unit, size, until in (("min", 60, 3600), ("h", 3600, 86400), ("d", 86400, 7 * 86400),
                              ("wk", 7 * 86400, 63 * 86400)):
        if seconds < until:
            return f"{int(seconds // size)} {unit}"
    return f"{when.astimezone():%Y-%m-%d}"


def local_time(when: datetime | None) -> str:
    """``2026-05-01 14:30`` in local time (empty for None)."""
    if when is None:
        return ""
    when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return f"{when.astimezone():%Y-%m-%d %H:%M}"


_KIND_STYLE = {RequesterKind.USER: ("#2f6bc4", "U"), RequesterKind.THINK_PROCESS: ("#8250df", "T"),
               RequesterKind.RULE: ("#b35900", "R")}
_STATUS_STYLE = {RequestStatus.APPROVED: ("#1a7f37", "✓"), RequestStatus.REJECTED: ("#cf222e", "✕"),
                 RequestStatus.WITHDRAWN: ("#6e7781", "–"), RequestStatus.PENDING: ("#9a6700", "…")}


@cache
def badge_icon(color: str, letter: str) -> QIcon:
    """A small filled circle with a white letter (requester kinds, decisions); readable on any theme."""
    pixmap = QPixmap(32, 32)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(color))
    painter.drawEllipse(QRectF(1, 1, 30, 30))
    font = QFont()
    font.setPixelSize(19)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    painter.drawText(QRectF(0, 0, 32, 32), Qt.AlignmentFlag.AlignCenter, letter)
    painter.end()
    return QIcon(pixmap)


def request_icon(request: PromotionRequest) -> QIcon:
    """The icon of the request's document, by its type as the document list shows it (note, fact, result…);
    the result icon while the type is unknown (a purged document, or a request made before types were kept)."""
    doc_type = getattr(request, "document_type", None)
    if doc_type is None:
        return type_icon(DocumentType.RESULT.value)
    return type_icon(doc_type.value if isinstance(doc_type, DocumentType) else str(doc_type))


def requester_icon(kind: RequesterKind) -> QIcon:
    """The badge of a requester kind: U (user), T (think process), R (rule)."""
    return badge_icon(*_KIND_STYLE[kind])


def status_icon(status: RequestStatus) -> QIcon:
    """The badge of a decision: ✓ approved, ✕ rejected, – withdrawn."""
    return badge_icon(*_STATUS_STYLE[status])


STATUS_TEXT = {RequestStatus.APPROVED: "Approved", RequestStatus.REJECTED: "Rejected",
               RequestStatus.WITHDRAWN: "Withdrawn", RequestStatus.PENDING: "Pending"}


# --- the pending queue ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Group:
    key: str  # the think process path, or the source scope of requests without one
    is_think_process: bool
    request_ids: tuple[str, ...]


def group_requests(requests: Iterable[PromotionRequest]) -> list[_Group]:
    """Group by think process (else by source scope), groups in the order of their oldest request."""
    order: dict[tuple[bool, str], list[str]] = {}
    for request in requests:
        key = (True, request.think_process) if request.think_process else (False, request.source_scope)
        order.setdefault(key, []).append(request.id)
    return [_Group(key, is_tp, tuple(ids)) for (is_tp, key), ids in order.items()]


class ReviewQueueModel(QAbstractItemModel):
    """Pending requests as a two-level tree: group rows (think process or source scope) and requests.

    Columns: Request (title), Requested by, From → To, Reason, Age. Group rows carry their text in
    column 0 (the view spans it) and :attr:`ReviewRole.GROUP_KEY`; request rows carry
    :attr:`ReviewRole.REQUEST_ID` in every column. An index's internal id is 0 for a group and the
    group's row + 1 for a request, so no index points at a Python object.
    """

    COLUMNS = ("Request", "Requested by", "From → To", "Reason", "Age")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._groups: list[_Group] = []
        self._requests: dict[str, PromotionRequest] = {}
        self._names: dict[str, str] = {}
        self._me = ""
        self._now: datetime | None = None
        self._bold: QFont | None = None

    # data in

    def set_requests(self, requests: Sequence[PromotionRequest], scope_names: Mapping[str, str], me: str = "",
                     now: datetime | None = None) -> bool:
        """Show these pending requests (oldest first); returns False (and keeps the rows) when nothing changed.

        ``now`` fixes the clock the ages are measured against (tests); default the real time.
        """
        wanted = {r.id: r for r in requests}
        if wanted == self._requests and dict(scope_names) == self._names and me == self._me and now == self._now:
            return False
        self.beginResetModel()
        self._requests, self._names, self._me, self._now = wanted, dict(scope_names), me, now
        self._groups = group_requests(requests)
        self.endResetModel()
        return True

    # lookups

    def request(self, request_id: str) -> PromotionRequest | None:
        """The request with this id, or None."""
        return self._requests.get(request_id)

    def requests(self) -> list[PromotionRequest]:
        """Every request shown, in display order."""
        return [self._requests[i] for g in self._groups for i in g.request_ids]

    def request_count(self) -> int:
        """How many requests are shown."""
        return len(self._requests)

    def index_of(self, request_id: str, column: int = 0) -> QModelIndex:
        """The index of a request (invalid when absent)."""
        for row, group in enumerate(self._groups):
            if request_id in group.request_ids:
                return self.createIndex(group.request_ids.index(request_id), column, row + 1)
        return QModelIndex()

    def group_index(self, key: str) -> QModelIndex:
        """The index of a group row by its key (invalid when absent)."""
        for row, group in enumerate(self._groups):
            if group.key == key:
                return self.createIndex(row, 0, 0)
        return QModelIndex()

    def request_ids_of(self, indexes: Iterable[_Index]) -> list[str]:
        """The request ids selected by ``indexes``: a group row stands for all its requests (no repeats)."""
        found: dict[str, None] = {}
        for index in indexes:
            if not index.isValid():
                continue
            if index.internalId() == 0:
                found.update(dict.fromkeys(self._groups[index.row()].request_ids))
            else:
                found[self._groups[index.internalId() - 1].request_ids[index.row()]] = None
        return list(found)

    # QAbstractItemModel

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._groups)
        if parent.column() != 0 or parent.internalId() != 0:
            return 0
        return len(self._groups[parent.row()].request_ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(self.COLUMNS, section, orientation, role)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == 0:
            return self._group_data(self._groups[index.row()], index.column(), role)
        request = self._requests[self._groups[index.internalId() - 1].request_ids[index.row()]]
        return self._request_data(request, index.column(), role)

    def _group_data(self, group: _Group, column: int, role: int) -> Any:
        if role == ReviewRole.GROUP_KEY:
            return group.key
        if column != 0:
            return None
        count = len(group.request_ids)
        if role == Qt.ItemDataRole.DisplayRole:
            name = scope_name(group.key, self._names)
            prefix = "" if group.is_think_process else "From "
            return f"{prefix}{name}  ·  {group.key}  ·  {count} pending"
        if role == Qt.ItemDataRole.ToolTipRole:
            what = "think process" if group.is_think_process else "scope"
            return f"{count} request{'s' if count != 1 else ''} from the {what} {group.key}"
        if role == Qt.ItemDataRole.DecorationRole:
            return themes.icon("result" if group.is_think_process else "scope")
        if role == Qt.ItemDataRole.FontRole:
            if self._bold is None:
                self._bold = QFont()
                self._bold.setBold(True)
            return self._bold
        return None

    def _request_data(self, request: PromotionRequest, column: int, role: int) -> Any:
        if role == ReviewRole.REQUEST_ID:
            return request.id
        if role == ReviewRole.SORT:
            return request.created_at.timestamp() if column == 4 else self._text(request, column)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(request, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(request, column)
        if role == Qt.ItemDataRole.DecorationRole:
            if column == 0:
                return request_icon(request)
            if column == 1:
                return requester_icon(request.requester)
        return None

    def _text(self, request: PromotionRequest, column: int) -> str:
        names = self._names
        if column == 0:
            return request.title
        if column == 1:
            return requester_text(request, names, self._me)
        if column == 2:
            arrow = f"{scope_name(request.source_scope, names)} → {scope_name(request.target_scope, names)}"
            return f"{arrow} (update)" if request.updates else arrow
        if column == 3:
            return name_scope_paths(request.reason, names)
        return age_text(request.created_at, self._now)

    def _tooltip(self, request: PromotionRequest, column: int) -> str:
        if column == 2:
            text = f"{request.source_scope} → {request.target_scope}"
            if request.updates:
                text += "\nApproving writes a new version of the copy already there (see the diff)."
            return text
        if column == 4:
            return f"Requested {local_time(request.created_at)}"
        if column == 1:
            return request.requested_by
        return self._text(request, column)


# --- the history ----------------------------------------------------------------------------------------

class ReviewHistoryModel(QAbstractTableModel):
    """Decided requests, most recently decided first.

    Columns: Request, Decision, Decided by, When, Scope (where an approved document went, else its
    target), Reason (the decision's reason, else the request's). :attr:`ReviewRole.SORT` gives
    sortable values (timestamps for When).
    """

    COLUMNS = ("Request", "Decision", "Decided by", "When", "Scope", "Reason")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[PromotionRequest] = []
        self._names: dict[str, str] = {}
        self._me = ""

    def set_requests(self, requests: Sequence[PromotionRequest], scope_names: Mapping[str, str],
                     me: str = "") -> bool:
        """Show these decided requests; returns False when nothing changed."""
        rows = list(requests)
        if rows == self._rows and dict(scope_names) == self._names and me == self._me:
            return False
        self.beginResetModel()
        self._rows, self._names, self._me = rows, dict(scope_names), me
        self.endResetModel()
        return True

    def request_at(self, row: int) -> PromotionRequest | None:
        """The request of a row, or None."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(self.COLUMNS, section, orientation, role)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        request, column = self._rows[index.row()], index.column()
        if role == ReviewRole.REQUEST_ID:
            return request.id
        if role == ReviewRole.SORT:
            when = request.decided_at or request.created_at
            return when.timestamp() if column == 3 else self._text(request, column)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(request, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 4:
                return request.final_scope or request.target_scope
            return self._text(request, column)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return request_icon(request)
        if role == Qt.ItemDataRole.DecorationRole and column == 1:
            return status_icon(request.status)
        return None

    def _text(self, request: PromotionRequest, column: int) -> str:
        if column == 0:
            return request.title
        if column == 1:
            return STATUS_TEXT[request.status]
        if column == 2:
            return actor_label(request.decided_by, self._names, self._me)
        if column == 3:
            return local_time(request.decided_at)
        if column == 4:
            if request.status is RequestStatus.APPROVED:
                return scope_name(request.final_scope, self._names)
            return f"stayed in {scope_name(request.source_scope, self._names)}"
        return name_scope_paths(request.decision_reason or request.reason, self._names)
