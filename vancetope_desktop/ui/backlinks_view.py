"""The Backlinks section of the details panel: what mentions the shown document, as Obsidian shows it.

Linked mentions are the documents whose ``[[…]]`` links resolve to it; unlinked mentions the documents
naming its title without a link, each with the text around (``services.notelinks.backlinks``). A pure
widget: the window loads the backlinks and feeds :meth:`BacklinksView.set_backlinks`; a click leaves as
``document_link_activated(doc_id)``.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..services.notelinks import Backlinks, Mention


class BacklinksView(QWidget):
    """Linked and unlinked mentions of one document, each a link to the mentioning document.

    Signals:
        document_link_activated(str): a mention was clicked (its document id).
    """

    document_link_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Backlinks")
        font = QFont(self.heading.font())
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(0, 8, 0, 0)
        self.linked_label = self._links_label()
        self.unlinked_label = self._links_label()
        self.empty_label = QLabel("No other document mentions this one")
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for widget in (self.heading, self.empty_label, self.linked_label, self.unlinked_label):
            layout.addWidget(widget)
        self._document_id: str | None = None
        self.set_backlinks(None)

    def _links_label(self) -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        label.linkActivated.connect(self.document_link_activated)
        return label

    def document_id(self) -> str | None:
        """The document whose backlinks are shown (None: nothing shown)."""
        return self._document_id

    def set_backlinks(self, found: Backlinks | None) -> None:
        """Show ``found`` (None: clear, e.g. while another document's are loading)."""
        self._document_id = found.document_id if found is not None else None
        linked = found.linked if found is not None else []
        unlinked = found.unlinked if found is not None else []
        self.linked_label.setText(_section(f"Linked mentions ({len(linked)})", linked, snippets=False))
        self.unlinked_label.setText(_section(f"Unlinked mentions ({len(unlinked)})", unlinked, snippets=True))
        self.linked_label.setVisible(bool(linked))
        self.unlinked_label.setVisible(bool(unlinked))
        self.empty_label.setVisible(found is not None and not (linked or unlinked))

    def mention_ids(self) -> tuple[list[str], list[str]]:
        """The ids shown as linked and as unlinked mentions (for tests and accessibility checks)."""
        return _ids(self.linked_label.text()), _ids(self.unlinked_label.text())


def _section(title: str, mentions: list[Mention], *, snippets: bool) -> str:
    rows = []
    for mention in mentions:
        link = f'<a href="{html.escape(mention.document.id)}">{html.escape(mention.document.title)}</a>'
        if snippets and mention.snippet:
            link += f'<br><span style="font-size: small;">{html.escape(mention.snippet)}</span>'
        rows.append(link)
    return f"<i>{html.escape(title)}</i><br>" + "<br>".join(rows)


def _ids(text: str) -> list[str]:
    return [part.split('"', 1)[0] for part in text.split('<a href="')[1:]]
