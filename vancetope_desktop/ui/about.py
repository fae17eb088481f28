"""The About box (Help ▸ About Vancetope Desktop): name, version, licence, the Qt it runs on, the open library,
and the bundled components with their licences (``services.licenses``, as ``vancetope about`` prints them)."""

from __future__ import annotations

import html
from pathlib import Path

import PySide6
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..services.licenses import APP_NAME, app_license, app_version, bundled_components

DESCRIPTION = "A local-first knowledge workbench: scoped document memory for scientists and Think Processes."
COLUMNS = ("Component", "Version", "Licence", "What it is")
NAME_WIDTH = 240
"""Pixels the component column takes at most when the box opens."""


def about_text(library_path: Path | None = None, backend: str | None = None) -> str:
    """The About box's heading (HTML): name and version, what the app is, its licence, the Qt it runs on;
    ``library_path`` adds a line naming the open library, ``backend`` one saying where a team library's parts are
    (``Library.describe``)."""
    lines = [
        f"<h3>{APP_NAME} {html.escape(app_version())}</h3>",
        f"<p>{html.escape(DESCRIPTION)}</p>",
        f"<p>Free software under the GNU Affero General Public License, version 3 or later "
        f"(<code>{html.escape(app_license())}</code>), without any warranty.</p>",
        f"<p>Qt {html.escape(qVersion())} · PySide6 {html.escape(PySide6.__version__)}</p>",
    ]
    if library_path is not None:
        lines.append(f"<p>Library: <code>{html.escape(str(library_path))}</code></p>")
    if backend is not None:
        lines.append(f"<p>{html.escape(backend[:1].upper() + backend[1:])}</p>")
    return "\n".join(lines)


class AboutDialog(QDialog):
    """The About box: :func:`about_text` over a table of :func:`bundled_components` but the application itself."""

    def __init__(self, parent: QWidget | None = None, library_path: Path | None = None,
                 backend: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"About {APP_NAME}")
        heading = QLabel(about_text(library_path, backend), self)
        heading.setTextFormat(Qt.TextFormat.RichText)
        heading.setWordWrap(True)
        heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.heading = heading
        components = [c for c in bundled_components() if c.kind != "application"]
        table = QTableWidget(len(components), len(COLUMNS), self)
        table.setHorizontalHeaderLabels(COLUMNS)
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setWordWrap(False)
        for row, component in enumerate(components):
            for column, text in enumerate((component.name, component.version, component.license,
                                           component.role)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                table.setItem(row, column, item)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)  # a listing: compact rows
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        # Some distribution names run to 40 characters: the name column stops at NAME_WIDTH (a tooltip shows it
        # whole) so that the licence, the column people come for, keeps the room.
        table.setColumnWidth(0, min(table.columnWidth(0), NAME_WIDTH))
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addSpacing(6)
        layout.addWidget(QLabel(f"Bundled components and their licences ({len(components)}):", self))
        layout.addWidget(table, 1)
        layout.addWidget(buttons)
        self.resize(980, 620)


def show_about(parent: QWidget | None, library_path: Path | None = None, backend: str | None = None) -> None:
    """Show the modal About box over ``parent`` (its icon is the application's window icon); ``backend``: see
    :func:`about_text`."""
    dialog = AboutDialog(parent, library_path, backend)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.exec()
