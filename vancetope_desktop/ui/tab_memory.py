"""Viewer tabs remembered across restarts, per library: the open documents, the current one, the PDF page.

The main window writes :func:`open_tabs` of its tab widget with :func:`save_tabs` when it closes, and on
the next start reads :func:`load_tabs` and looks the documents up with :func:`reopenable` (on its read
lane) before opening them again. Documents purged or trashed since then are skipped silently: a tab
that cannot come back is not worth a message at start-up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTabWidget

from ..core.documents import DocumentInfo, DocumentStatus
from ..core.errors import DocumentNotFound
from ..services import documents
from ..services.library import Library
from .viewer import DocumentViewer, PdfViewer


@dataclass(frozen=True)
class OpenTab:
    """One viewer tab: its document's id and, for a PDF on screen, the page shown (1-based)."""

    doc_id: str
    page: int | None = None


def open_tabs(tabs: QTabWidget) -> tuple[list[OpenTab], str | None]:
    """The document tabs of ``tabs`` in tab order, and the id of the current one (None: another tab,
    such as the library, is current). Tabs showing no document are left out."""
    found: list[OpenTab] = []
    for index in range(tabs.count()):
        viewer = tabs.widget(index)
        doc_id = viewer.current_document_id() if isinstance(viewer, DocumentViewer) else None
        if doc_id is None:
            continue
        pdf = viewer.viewer(PdfViewer)
        page = pdf.current_page() if pdf is not None and viewer.current_widget() is pdf else 0
        found.append(OpenTab(doc_id, page or None))
    current = tabs.currentWidget()
    return found, current.current_document_id() if isinstance(current, DocumentViewer) else None


def save_tabs(settings: QSettings, key: str, tabs: Sequence[OpenTab], current: str | None) -> None:
    """Write ``tabs`` and the ``current`` document id under ``key`` (JSON; an empty list forgets them)."""
    settings.setValue(key, json.dumps({"tabs": [[t.doc_id, t.page] for t in tabs], "current": current}))


def load_tabs(settings: QSettings, key: str) -> tuple[list[OpenTab], str | None]:
    """What :func:`save_tabs` wrote under ``key``; nothing (``[], None``) when absent or unreadable."""
    try:
        saved = json.loads(str(settings.value(key, "{}")))
        tabs = [OpenTab(str(doc_id), page if isinstance(page, int) and page > 0 else None)
                for doc_id, page in saved.get("tabs", [])]
    except (ValueError, TypeError, AttributeError):  # an edited or foreign value: start without tabs
        return [], None
    current = saved.get("current")
    return tabs, current if isinstance(current, str) else None


def reopenable(lib: Library, tabs: Sequence[OpenTab]) -> list[tuple[DocumentInfo, int | None]]:
    """The documents of ``tabs`` that still exist and are not in the trash, with their pages, in order.

    Reads the library (run it off the UI thread).
    """
    found = []
    for tab in tabs:
        try:
            doc = documents.get_document(lib, tab.doc_id)
        except DocumentNotFound:
            continue
        if doc.status != DocumentStatus.DELETED:
            found.append((doc, tab.page))
    return found
