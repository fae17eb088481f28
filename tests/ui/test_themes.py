"""Themes, stylesheets and icons: everything drawn from resources/."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QLineEdit,
    QMainWindow,
    QSplitter,
    QTextEdit,
)

from vancetope_desktop.ui import themes
from vancetope_desktop.ui.themes import apply_theme, icon, is_dark, make_palette, stylesheet, system_prefers_dark

Role = QPalette.ColorRole
ICONS = ("app", "pdf", "note", "fact", "event", "plan", "result", "reference", "structured", "folder", "file", "image",
         "scope", "smart-all", "smart-unfiled", "smart-recent", "smart-problems", "smart-archived", "smart-trash")


@pytest.fixture
def app(qapp):
    """The application, with its style, palette and stylesheet put back after the test."""
    style, palette, sheet = qapp.style().name(), QPalette(qapp.palette()), qapp.styleSheet()
    yield qapp
    apply_theme(qapp, "system")  # also resets the colour-scheme request
    qapp.setStyleSheet(sheet)
    qapp.setStyle(style)
    qapp.setPalette(palette)


def _sample_window(qtbot) -> QMainWindow:
    """A window using every widget the stylesheets style."""
    window = QMainWindow()
    search = QLineEdit()
    search.setProperty("role", "search")
    splitter = QSplitter()
    splitter.addWidget(search)
    splitter.addWidget(QTextEdit())
    window.setCentralWidget(splitter)
    dock = QDockWidget("Viewer")
    dock.setWidget(QLabel("text"))
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    for role in ("hint", "warning", "error"):
        label = QLabel(role)
        label.setProperty("role", role)
        window.statusBar().addWidget(label)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_dark_theme(app, qtbot):
    assert apply_theme(app, "dark") is True
    assert is_dark(app)
    window = _sample_window(qtbot)
    palette = window.palette()
    assert palette.color(Role.Window).lightness() < 100
    assert palette.color(Role.Base).lightness() < 100
    assert palette.color(Role.Text).lightness() > 200
    assert palette.color(Role.WindowText).lightness() > 200
    assert palette.color(Role.ToolTipText).lightness() > palette.color(Role.ToolTipBase).lightness() + 100
    assert palette.color(Role.Link).lightness() > 150  # readable on a dark page
    disabled = palette.color(QPalette.ColorGroup.Disabled, Role.Text).lightness()
    assert palette.color(Role.Window).lightness() + 40 < disabled < palette.color(Role.Text).lightness()
    app.setStyleSheet("")  # the stylesheet wrapper hides the base style's name
    assert app.style().name().lower() == "fusion"


def test_light_theme(app, qtbot):
    apply_theme(app, "dark")
    assert apply_theme(app, "light") is False
    assert not is_dark(app)
    window = _sample_window(qtbot)
    assert window.palette().color(Role.Window).lightness() > 200
    assert window.palette().color(Role.Text).lightness() < 60


def test_system_theme_follows_the_colour_scheme(app):
    assert apply_theme(app, "system") is system_prefers_dark()
    assert is_dark(app) is system_prefers_dark()
    # An unknown name counts as "system" rather than failing at start-up.
    assert apply_theme(app, "purple") is system_prefers_dark()


def test_palettes_set_every_role_in_every_group():
    for dark in (True, False):
        palette = make_palette(dark)
        for role in themes._DARK:
            assert palette.isBrushSet(QPalette.ColorGroup.Active, role)
            assert palette.isBrushSet(QPalette.ColorGroup.Disabled, role)
            assert palette.isBrushSet(QPalette.ColorGroup.Inactive, role)


def test_stylesheets_load_and_parse(app, qtbot, qtlog):
    for dark in (True, False):
        sheet = stylesheet(dark)
        assert "QSplitter::handle" in sheet
        assert 'QLineEdit[role="search"]' in sheet
        assert 'QLabel[role="error"]' in sheet
        apply_theme(app, "dark" if dark else "light")
        assert app.styleSheet() == sheet
        _sample_window(qtbot)
    # Qt reports a stylesheet it cannot parse as a warning when it polishes a widget.
    assert not [r for r in qtlog.records if "style" in r.message.lower()]


@pytest.mark.parametrize("name", ICONS)
def test_icons_render(qapp, name):
    pixmap = icon(name).pixmap(32, 32)
    assert not pixmap.isNull()
    image = pixmap.toImage()
    assert any(image.pixelColor(x, y).alpha() > 0 for x in range(32) for y in range(32))


def test_a_missing_icon_is_an_error(qapp):
    with pytest.raises(FileNotFoundError):
        icon("no-such-icon")
