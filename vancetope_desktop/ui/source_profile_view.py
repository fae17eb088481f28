"""The Summary section of the details panel (issue 13) and the row menu's "Write Summaries".

:class:`ProfileSection` shows a source's profile (``core.profiles``: made at import by
``services.source_profile``): its summary, its keywords, and its suggested topics as links, each adding itself as
a tag in one click (``topic_added``, which the panel sends on as ``tag_added``: the workbench's ``add_tag``); a
topic the document carries stops being suggested. A source without a profile, or whose text changed since, offers
"Write summary". A pure widget fed by the panel with the document it shows (the profile is in its metadata: no
read of its own).

:class:`ProfileActions` adds "Write Summaries" to the document list's row menu and hands the section's request to
the workbench (``Workbench.make_profiles``: a task with progress and cancel on the import lane).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QLabel, QMenu, QSizePolicy, QVBoxLayout, QWidget

from ..core.documents import DocumentInfo
from ..core.profiles import is_current, is_source, profile_of, suggested_topics

if TYPE_CHECKING:
    from .document_table import DocumentTableView
    from .workbench import Workbench

WRITE_LINK = "write-summary"
"""The link of "Write summary" (topics' links are ``topic:<tag>``)."""


def _label(*, rich: bool = False) -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    if rich:
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    else:
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ProfileSection(QWidget):
    """A source's summary, keywords and suggested topics; hidden for documents that are not sources.

    Signals:
        topic_added(str): a suggested topic was clicked (the tag to add to the document shown).
        profile_requested(str): "Write summary" was clicked (the document's id).
    """

    topic_added = Signal(str)
    profile_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Summary")
        font = QFont(self.heading.font())
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(0, 8, 0, 0)
        self.summary_label = _label()
        self.keywords_label = _label()
        self.keywords_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.topics_label = _label(rich=True)
        self.topics_label.linkActivated.connect(self._activated)
        self.note_label = _label(rich=True)
        self.note_label.linkActivated.connect(self._activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for widget in (self.heading, self.summary_label, self.keywords_label, self.topics_label, self.note_label):
            layout.addWidget(widget)
        self._doc_id: str | None = None
        self._topics: list[str] = []
        self.setVisible(False)

    def show_document(self, doc: DocumentInfo | None, *, read_only: bool = False) -> None:
        """Show ``doc``'s profile (None, or a document that is not a source: hidden). ``read_only``: a document
        of another scope: its topics are listed, not offered, and no summary is offered to be written."""
        self._doc_id = doc.id if doc is not None else None
        if doc is None or not is_source(doc.type, doc.metadata, doc.status):
            self._topics = []
            self.setVisible(False)
            return
        profile = profile_of(doc.metadata)
        self._topics = suggested_topics(profile, doc.tags)
        self.summary_label.setText(profile.summary if profile and profile.summary else "")
        self.summary_label.setVisible(bool(profile and profile.summary))
        keywords = "; ".join(profile.keywords) if profile else ""
        self.keywords_label.setText(f"Keywords: {keywords}" if keywords else "")
        self.keywords_label.setVisible(bool(keywords))
        if self._topics and not read_only:
            self.topics_label.setText("Suggested topics: " + " ".join(
                f'<a href="topic:{html.escape(t)}">+{html.escape(t)}</a>' for t in self._topics))
            self.topics_label.setToolTip("Click a topic to add it as a tag")
        else:
            self.topics_label.setText(f"Suggested topics: {html.escape(', '.join(self._topics))}"
                                      if self._topics else "")
            self.topics_label.setToolTip("")
        self.topics_label.setVisible(bool(self._topics))
        self.note_label.setText(self._note(doc, read_only))
        self.note_label.setVisible(bool(self.note_label.text()))
        self.setVisible(profile is not None or bool(self.note_label.text()))

    def _note(self, doc: DocumentInfo, read_only: bool) -> str:
        """What is said under the profile: who wrote it, or that it is missing or describes older text."""
        profile = profile_of(doc.metadata)
        offer = "" if read_only else f' <a href="{WRITE_LINK}">Write summary</a>'
        if profile is None:
            return f"<i>No summary yet.</i>{offer}" if (doc.content or "").strip() else ""
        if not is_current(profile, doc.content_hash):
            return f"<i>Written for version {profile.from_version}; the text changed since.</i>{offer}"
        fallback = " (the built-in generator answered for the model)" if profile.fallback else ""
        writer = "built-in" if profile.generator == "builtin" else profile.generator
        return f"<i>Written by the {html.escape(writer)} generator{fallback}.</i>"

    def topics(self) -> list[str]:
        """The topics suggested now (for tests and accessibility checks)."""
        return list(self._topics)

    def _activated(self, link: str) -> None:
        if self._doc_id is None:
            return
        if link == WRITE_LINK:
            self.profile_requested.emit(self._doc_id)
        elif link.startswith("topic:"):
            self.topic_added.emit(link.removeprefix("topic:"))


class ProfileActions(QObject):
    """Adds "Write Summaries" to ``table``'s row menu and sends it, and the Summary section's "Write summary",
    to ``workbench.make_profiles``."""

    def __init__(self, workbench: Workbench, table: DocumentTableView, section: ProfileSection) -> None:
        super().__init__(table)
        self.workbench, self.table = workbench, table
        table.menu_extension_requested.connect(self.extend_menu)
        section.profile_requested.connect(lambda doc_id: workbench.make_profiles([doc_id]))

    def extend_menu(self, menu: QMenu) -> None:
        """Add the entry for the selection (not in the trash view, whose documents are not sources)."""
        if self.table.trash_action not in menu.actions():
            return
        ids = self.table.selected_ids()
        action = menu.addAction("Write Summaries", lambda: self.workbench.make_profiles(ids))
        action.setToolTip("Summary, keywords and suggested topics of the selected sources, by the library's "
                          "generator (Settings ▸ Generator)")
        action.setEnabled(bool(ids))
