"""The Atoms section of the details panel (issue 13): for a source, the atoms read from it (each a link, with its
kind, time or due date and status); for an atom, its own when, due date and status, and whether its source is gone.

A pure widget fed with ``services.atoms`` (``atoms_of_source`` as the current scope sees it, or the atom's card);
a click leaves as ``document_link_activated(doc_id)``. :class:`SourceAtomsFlow` loads it on the read lane whenever
the panel shows a document.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..core.atoms import Atom
from ..core.errors import DocumentNotFound, ScopeNotVisible
from ..services import atoms, documents
from .atoms_view import status_text, time_text
from .details_section_flow import DetailsSectionFlow

if TYPE_CHECKING:


    pass


class SourceAtomsView(QWidget):
    """A source's atoms as links, or an atom's own fields; hidden when there is nothing to say.

    Signals:
        document_link_activated(str): an atom or source was clicked (its id).
    """

    document_link_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Atoms")
        font = QFont(self.heading.font())
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setContentsMargins(0, 8, 0, 0)
        self.rows_label = QLabel()
        self.rows_label.setWordWrap(True)
        self.rows_label.setTextFormat(Qt.TextFormat.RichText)
        self.rows_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.rows_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.rows_label.linkActivated.connect(self.document_link_activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.rows_label)
        self._for: str | None = None
        self._shown: list[Atom] = []
        self.clear()

    def document_id(self) -> str | None:
        """The document whose atoms (or atom fields) are shown, or None."""
        return self._for

    def clear(self) -> None:
        """Show nothing (e.g. while another document's atoms load)."""
        self._for, self._shown = None, []
        self.rows_label.clear()
        self.setVisible(False)

    def set_source_atoms(self, document_id: str, found: list[Atom]) -> None:
        """Show the atoms read from the source ``document_id`` (none: hidden)."""
        self._for, self._shown = document_id, list(found)
        self.heading.setText(f"Atoms ({len(found)})")
        self.rows_label.setText("<br>".join(
            f"{html.escape(a.type.value)}: <a href=\"{html.escape(a.id)}\">{html.escape(a.title)}</a>"
            + _about(a) for a in found))
        self.setVisible(bool(found))

    def set_atom(self, found: Atom) -> None:
        """Show an atom's own fields: kind, time or due date, status, and its source (or that it is gone)."""
        self._for, self._shown = found.id, [found]
        self.heading.setText(f"Atom: {found.type.value}")
        lines = [html.escape(line) for line in (time_text(found), status_text(found)) if line]
        if found.source_gone:
            lines.append(f"<i>its source ({html.escape(found.source_id or '')}) was deleted; the atom keeps its "
                         "text</i>")
        elif found.source_id:
            lines.append(f'read from <a href="{html.escape(found.source_id)}">'
                         f'{html.escape(found.source_title or found.source_id)}</a>')
        if found.edited_by_person:
            lines.append("edited by a person: a digest leaves it as it is")
        self.rows_label.setText("<br>".join(lines))
        self.setVisible(True)

    def shown(self) -> list[str]:
        """The ids of the atoms shown (for tests and accessibility checks)."""
        return [a.id for a in self._shown]


def _about(found: Atom) -> str:
    parts = [p for p in (time_text(found), status_text(found)) if p]
    return f" <i>({html.escape(' · '.join(parts))})</i>" if parts else ""


class SourceAtomsFlow(DetailsSectionFlow[SourceAtomsView]):
    """Loads the details panel's Atoms section for each document it shows, as the current scope sees it."""

    def load(self, doc_id: str) -> None:
        """Read ``doc_id``'s atoms (or, for an atom, its card) on the read lane and show them if the panel still
        shows it."""
        lib, scope, view = self.workbench.lib, self.workbench.state.scope, self.view

        def read(_context: object) -> Atom | list[Atom] | None:
            try:
                doc = documents.get_document(lib, doc_id)
                if doc.type in atoms.ATOM_DOCUMENT_TYPES:
                    return atoms.card(lib, doc)
                return atoms.atoms_of_source(lib, doc_id, scope=scope)
            except (DocumentNotFound, ScopeNotVisible):  # purged meanwhile, or out of sight: nothing to show
                return None

        def shown(found: Atom | list[Atom] | None) -> None:
            if isinstance(found, Atom):
                view.set_atom(found)
            elif found:
                view.set_source_atoms(doc_id, found)
            else:
                view.clear()

        if view.document_id() != doc_id:
            view.clear()
        self.read_then_show(doc_id, read, shown, title="Loading atoms")
