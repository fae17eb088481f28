"""Drag and drop: document ids in a private MIME type, and local files out of whatever the OS hands us.

Item models carry ids, never objects (STYLE.md pattern 3). A drag of documents also says which scopes
they come from, so a scope under the cursor can refuse a move across branches before the drop.
External drops arrive as ``QMimeData.urls()`` on every desktop; some sources (terminals, a few file
managers, browsers) only give ``text/uri-list`` or plain text, so those are read as a fallback. Paths
are used exactly as the OS spells them: a name stored in NFD (macOS, some archives) must be opened in
NFD. NFC is used only to compare and to show names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QMimeData, QModelIndex, QPoint, QRect, Qt, QUrl
from PySide6.QtGui import QColor, QDrag, QDragMoveEvent, QFontMetrics, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QWidget

DOCUMENT_MIME = "application/x-vancetope-document-ids"
SOURCE_SCOPES_MIME = "application/x-vancetope-source-scopes"
ATOM_MIME = "application/x-vancetope-atom-ids"
"""Atoms dragged out of the Topics window's list (ids): dropped on a topic they move there. Not
:data:`DOCUMENT_MIME`, which the folder tree and the scope switcher take as a move of documents."""
TOPIC_MIME = "application/x-vancetope-topic-ids"
"""Topics dragged in the Topics window's tree (ids): dropped on a topic they move under it."""
FROM_TOPIC_MIME = "application/x-vancetope-from-topic"
"""The topic dragged atoms come from (one id), so that a drop moves them out of it rather than adding them."""
URI_LIST_MIME = "text/uri-list"
_WEB_SCHEMES = frozenset({"http", "https", "ftp", "ftps"})


def encode_document_ids(ids: Iterable[str], kind: str = DOCUMENT_MIME) -> QMimeData:
    """Pack document ids into a new QMimeData.

    Args:
        ids: document (or folder) ids; duplicates are dropped, order kept.
        kind: the MIME type they travel as: :data:`DOCUMENT_MIME`, or :data:`ATOM_MIME` / :data:`TOPIC_MIME`
            for the Topics window's drags (documents too, but not to be moved between folders).

    Returns:
        QMimeData with ``kind`` (UTF-8, one id per line) and the same lines as plain text, so dropping onto a
        text editor or an agent prompt pastes the ids.
    """
    unique = list(dict.fromkeys(i for i in ids if i))
    mime = QMimeData()
    payload = "\n".join(unique)
    mime.setData(kind, payload.encode("utf-8"))
    mime.setText(payload)
    return mime


def decode_document_ids(mime: QMimeData, kind: str = DOCUMENT_MIME) -> list[str]:
    """The ids packed by :func:`encode_document_ids` as ``kind``, in order; [] when the data holds none."""
    if not mime.hasFormat(kind):
        return []
    text = bytes(mime.data(kind).data()).decode("utf-8", errors="replace")
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def add_source_scopes(mime: QMimeData, scopes: Iterable[str]) -> QMimeData:
    """Record in ``mime`` the scope paths the dragged documents live in (once each); returns ``mime``."""
    unique = list(dict.fromkeys(s for s in scopes if s))
    mime.setData(SOURCE_SCOPES_MIME, "\n".join(unique).encode("utf-8"))
    return mime


def decode_source_scopes(mime: QMimeData) -> list[str]:
    """The scope paths recorded by :func:`add_source_scopes`; [] when unknown (e.g. a drag from elsewhere)."""
    if not mime.hasFormat(SOURCE_SCOPES_MIME):
        return []
    text = bytes(mime.data(SOURCE_SCOPES_MIME).data()).decode("utf-8", errors="replace")
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def scope_chain(parents: Mapping[str, str | None], path: str) -> list[str]:
    """``path`` and its ancestors, nearest first, from a path → parent path mapping (stops at a cycle)."""
    chain: list[str] = []
    walker: str | None = path
    while walker and walker not in chain:
        chain.append(walker)
        walker = parents.get(walker)
    return chain


def on_same_branch(parents: Mapping[str, str | None], a: str, b: str) -> bool:
    """Whether one of two scopes is an ancestor of (or the same as) the other."""
    return a in scope_chain(parents, b) or b in scope_chain(parents, a)


def branch_refusal(parents: Mapping[str, str | None], sources: Sequence[str], target: str,
                   names: Mapping[str, str] | None = None) -> str | None:
    """Why documents from ``sources`` cannot move to scope ``target``; None when they can (as far as known).

    Documents move only up to an ancestor or down to a descendant (``services.moves.check_move``, seed
    §4.3). A scope missing from ``parents`` is left for the services to judge.
    """
    names = names or {}
    for source in sources:
        if source in parents and target in parents and not on_same_branch(parents, source, target):
            return (f"{names.get(target, target)} is on another branch than {names.get(source, source)}: "
                    "documents move only up (promote) or down (demote) their branch")
    return None


def has_droppable_urls(mime: QMimeData) -> bool:
    """Whether the data looks like a drop of files or links (it may still be refused with a message)."""
    return bool(_urls_of(mime))


def local_paths_from_mime(mime: QMimeData) -> tuple[list[Path], list[str]]:
    """Split dropped data into local paths to import and messages about what cannot be imported.

    Reads ``mime.urls()``; when that is empty, ``text/uri-list`` lines or plain-text lines that are
    ``file://`` (or web) URLs. Percent-encoded names (spaces, accents, CJK) are decoded by QUrl.

    Returns:
        (paths, messages): existing files and folders as the OS names them, without duplicates; one
        human sentence per refused item (a web link, a path that no longer exists, another scheme).
    """
    paths: list[Path] = []
    messages: list[str] = []
    seen: set[str] = set()
    for url in _urls_of(mime):
        if url.isLocalFile():
            wanted = Path(url.toLocalFile())
            found = find_on_disk(wanted)
            if found is None:
                messages.append(f"{display_name(wanted)} no longer exists (moved or deleted?)")
            elif str(found) not in seen:
                seen.add(str(found))
                paths.append(found)
        elif url.scheme().lower() in _WEB_SCHEMES:
            messages.append(f"{url.toDisplayString()} is a web link, not a file: download it first")
        else:
            messages.append(f"{url.toDisplayString()} is not a local file")
    return paths, messages


def find_on_disk(path: Path) -> Path | None:
    """``path`` if it exists, else the entry of its folder whose name matches in NFC, else None.

    The fallback covers a source that normalised the name (to NFC, say) while the file on disk is
    named in NFD: the entry is returned exactly as the OS lists it, so opening it works.
    """
    if path.exists():
        return path
    parent = path.parent
    wanted = unicodedata.normalize("NFC", path.name)
    try:
        for entry in parent.iterdir():
            if unicodedata.normalize("NFC", entry.name) == wanted:
                return entry
    except OSError:
        return None
    return None


def display_name(path: Path) -> str:
    """A path as people read it: NFC-normalised (never use the result to open the file)."""
    return unicodedata.normalize("NFC", str(path))


def _urls_of(mime: QMimeData) -> list[QUrl]:
    if mime.hasUrls():
        # QMimeData.urls() keeps RFC 2483 '#' comment lines as fragment-only URLs: skip them.
        return [u for u in mime.urls() if u.isValid() and not u.isEmpty() and (u.scheme() or u.path())]
    if mime.hasFormat(URI_LIST_MIME):
        text = bytes(mime.data(URI_LIST_MIME).data()).decode("utf-8", errors="replace")
        # RFC 2483: '#' lines are comments.
        return [u for u in _parse_url_lines(text, comments=True) if u.scheme()]
    if mime.hasText():
        return [u for u in _parse_url_lines(mime.text(), comments=False) if _looks_like_url_line(u)]
    return []


def _parse_url_lines(text: str, *, comments: bool) -> list[QUrl]:
    urls = []
    for line in text.splitlines():
        line = line.strip()
        if not line or (comments and line.startswith("#")):
            continue
        url = QUrl(line)
        if url.isValid():
            urls.append(url)
    return urls


def _looks_like_url_line(url: QUrl) -> bool:
    # Plain text is anything; only lines that are file or web URLs count as a drop of files.
    return url.isLocalFile() or url.scheme().lower() in _WEB_SCHEMES


def start_id_drag(source: QWidget, mime: QMimeData, count: int, noun: str = "document") -> Qt.DropAction:
    """Run a drag of ``mime`` from ``source`` with a small "3 documents" badge; returns the action taken.

    Views call this from ``startDrag`` instead of Qt's default, which after a move tries to remove or
    clear the dragged rows in the source model; here the main window reloads after the real move.
    """
    drag = QDrag(source)
    drag.setMimeData(mime)
    drag.setPixmap(drag_badge(source, f"{count} {noun}" + ("" if count == 1 else "s")))
    return drag.exec(Qt.DropAction.CopyAction | Qt.DropAction.MoveAction, Qt.DropAction.MoveAction)


def drag_badge(widget: QWidget, text: str) -> QPixmap:
    """A rounded label with ``text`` in the widget's highlight colours, used as the drag pixmap."""
    metrics = QFontMetrics(widget.font())
    rect = QRect(QPoint(0, 0), metrics.size(0, text)).adjusted(0, 0, 16, 8)
    ratio = widget.devicePixelRatioF()
    pixmap = QPixmap(rect.size() * ratio)
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    palette = widget.palette()
    painter.setBrush(palette.color(QPalette.ColorRole.Highlight))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(rect, 6, 6)
    painter.setPen(palette.color(QPalette.ColorRole.HighlightedText))
    painter.setFont(widget.font())
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def drag_move_refusal(view: QAbstractItemView, event: QDragMoveEvent, base_move: Callable[[QDragMoveEvent], None],
                      refusal_of: Callable[[QMimeData, QModelIndex], str | None]) -> str | None:
    """Run a view's own drag-move handling (``base_move``), then say why the drop is refused there.

    Qt keeps showing the last accepted node's drop indicator while the cursor is over a refusing one,
    so the indicator is hidden where the move is not accepted.

    Returns:
        ``refusal_of(mime, index under the cursor)`` when the move is refused, else None.
    """
    view.setDropIndicatorShown(True)
    base_move(event)
    view.setDropIndicatorShown(event.isAccepted())
    if event.isAccepted():
        return None
    return refusal_of(event.mimeData(), view.indexAt(event.position().toPoint()))
