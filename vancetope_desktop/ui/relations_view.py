"""The Relations section of the details panel (issue 12): the shown document's typed relations, outgoing and
incoming, grouped by type ("updates", "updated by", "contradicts"…), each document a link.

A superseded memory's newer version is named once, by the archived notice at the top of Details
(``ui.archived_view``): its "updated by" line leaves that document out.

A pure widget fed with ``services.graph.relations_of`` (only documents the current scope may read); a click
leaves as ``document_link_activated(doc_id)``, "Show graph" as ``graph_requested(doc_id)`` (the picture:
``ui.relation_graph_flow``). :class:`RelationsFlow` loads it on the read lane whenever the panel shows a document.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..core.documents import DocumentStatus
from ..core.errors import DocumentNotFound, ScopeNotVisible
from ..core.relations import RelationType
from ..services import documents, graph
from ..services.graph import DocumentRelations
from ..services.lifecycle import SUPERSEDED_BY
from .details_section_flow import DetailsSectionFlow

if TYPE_CHECKING:


    pass

SHOWN_ELSEWHERE = ({RelationType.DERIVED_FROM, RelationType.LINKS_TO}, {RelationType.LINKS_TO})
"""(outgoing, incoming) types Details shows in rows of their own ("Derived from", "Links to", Backlinks)."""


class RelationsView(QWidget):
    """A document's typed relations as links, one line per type, and "Show graph"; hidden when it has none.
    Those with a row of their own in Details (:data:`SHOWN_ELSEWHERE`) are left out of the lines (a document
    with only those shows the heading and "Show graph").

    Signals:
        document_link_activated(str): a related document was clicked (its id).
        graph_requested(str): "Show graph" was clicked (the shown document's id).
    """

    document_link_activated = Signal(str)
    graph_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Relations")
        font = QFont(self.heading.font())
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(0, 8, 0, 0)
        self.graph_link = QLabel('<a href="graph">Show graph</a>')
        self.graph_link.setContentsMargins(0, 8, 0, 0)
        self.graph_link.setToolTip("Draw the documents around this one and how they relate")
        self.graph_link.linkActivated.connect(lambda _href: self.graph_requested.emit(self.document_id() or ""))
        heading_row = QHBoxLayout()
        heading_row.addWidget(self.heading)
        heading_row.addStretch(1)
        heading_row.addWidget(self.graph_link)
        self.rows_label = QLabel()
        self.rows_label.setWordWrap(True)
        self.rows_label.setTextFormat(Qt.TextFormat.RichText)
        self.rows_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.rows_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.rows_label.linkActivated.connect(self.document_link_activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(heading_row)
        layout.addWidget(self.rows_label)
        self._relations: DocumentRelations | None = None
        self.set_relations(None)

    def document_id(self) -> str | None:
        """The document whose relations are shown (None: nothing shown)."""
        return self._relations.document_id if self._relations is not None else None

    def set_relations(self, found: DocumentRelations | None, *, named_above: str | None = None) -> None:
        """Show ``found`` (None: clear, e.g. while another document's are loading). ``named_above``: the document
        the archived notice names as having superseded this one, left out of "updated by"."""
        related = found is not None and bool(found.outgoing or found.incoming)  # "Show graph" draws every type
        if found is not None:
            incoming = {t: [d for d in docs if not (t is RelationType.UPDATES and d.id == named_above)]
                        for t, docs in found.incoming.items() if t not in SHOWN_ELSEWHERE[1]}
            found = found.model_copy(update={
                "outgoing": {t: d for t, d in found.outgoing.items() if t not in SHOWN_ELSEWHERE[0]},
                "incoming": {t: d for t, d in incoming.items() if d}})
        self._relations = found
        rows = found.rows() if found is not None else []
        lines = []
        for label, docs in rows:
            links = ", ".join(f'<a href="{html.escape(d.id)}">{html.escape(d.title)}</a>'
                              + ("" if d.status == "active" else f" <i>({html.escape(d.status)})</i>") for d in docs)
            lines.append(f"<i>{html.escape(label)}</i>: {links}")
        self.rows_label.setText("<br>".join(lines))
        self.rows_label.setVisible(bool(rows))
        self.setVisible(related)

    def shown(self) -> list[tuple[str, list[str]]]:
        """``(label, ids)`` of each line shown (for tests and accessibility checks)."""
        return [(label, [d.id for d in docs]) for label, docs in (self._relations.rows() if self._relations else [])]


class RelationsFlow(DetailsSectionFlow[RelationsView]):
    """Loads the details panel's Relations section for each document it shows, as the current scope sees it."""

    def load(self, doc_id: str) -> None:
        """Read ``doc_id``'s relations on the read lane and show them if the panel still shows it: as the current
        scope sees them, or, for a document below it, as the document's own scope does."""
        lib, scope, view = self.workbench.lib, self.workbench.state.scope, self.view

        def read(_context: object) -> tuple[DocumentRelations | None, str | None]:
            try:
                doc = documents.get_document(lib, doc_id)
                try:
                    found = graph.relations_of(lib, doc_id, scope)
                except ScopeNotVisible:  # a document below the current scope (the app shows them): as its scope sees it
                    found = graph.relations_of(lib, doc_id, doc.scope)
            except DocumentNotFound:  # purged meanwhile: nothing to show
                return None, None
            newer = doc.metadata.get(SUPERSEDED_BY) if doc.status is DocumentStatus.ARCHIVED else None
            return found, newer if isinstance(newer, str) else None  # the archived notice names it

        def shown(result: tuple[DocumentRelations | None, str | None]) -> None:
            view.set_relations(result[0], named_above=result[1])

        if view.document_id() != doc_id:
            view.set_relations(None)
        self.read_then_show(doc_id, read, shown, title="Loading relations")
