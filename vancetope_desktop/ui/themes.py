"""Light and dark themes: the Fusion style, a full palette per theme, a small stylesheet, and icons.

Fusion draws everything from the palette, so one palette per theme gives a consistent look on every
platform. The colours keep WCAG AA contrast (4.5:1) for text on windows, fields, selections and
tooltips; disabled text is deliberately dimmer but still legible. The stylesheets in
``resources/styles/`` only add what a palette cannot say: splitter handles, dock titles, the status
bar, the rounded search box (``QLineEdit`` with ``setProperty("role", "search")``) and label roles
``hint``, ``warning`` and ``error``.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from ..resources import resource_path

THEMES = ("system", "light", "dark")
_THEME_PROPERTY = "vancetope_theme"
_HOOKED_PROPERTY = "vancetope_theme_hooked"

Role = QPalette.ColorRole

# role -> (normal colour, disabled colour or None to keep the normal one)
_DARK: dict[QPalette.ColorRole, tuple[str, str | None]] = {
    Role.Window: ("#2b2d31", None),
    Role.WindowText: ("#e3e5e8", "#7d828a"),
    Role.Base: ("#1f2023", "#26282b"),
    Role.AlternateBase: ("#25272b", None),
    Role.ToolTipBase: ("#3b3e44", None),
    Role.ToolTipText: ("#f2f3f5", None),
    Role.PlaceholderText: ("#8b9099", "#62666d"),
    Role.Text: ("#e3e5e8", "#7d828a"),
    Role.Button: ("#35383d", "#2e3034"),
    Role.ButtonText: ("#e3e5e8", "#7d828a"),
    Role.BrightText: ("#ff7b72", None),
    Role.Light: ("#4a4d54", None),
    Role.Midlight: ("#3d4046", None),
    Role.Mid: ("#232427", None),
    Role.Dark: ("#18191b", None),
    Role.Shadow: ("#0d0d0f", None),
    Role.Highlight: ("#2f6bc4", "#3b3e44"),
    Role.HighlightedText: ("#ffffff", "#9a9ea6"),
    Role.Link: ("#75b6ff", "#5d7a99"),
    Role.LinkVisited: ("#c3a6ff", "#7d6f99"),
    Role.Accent: ("#2f6bc4", "#3b3e44"),
}

_LIGHT: dict[QPalette.ColorRole, tuple[str, str | None]] = {
    Role.Window: ("#f3f4f6", None),
    Role.WindowText: ("#1f2328", "#7f858d"),
    Role.Base: ("#ffffff", "#f3f4f6"),
    Role.AlternateBase: ("#f6f7f9", None),
    Role.ToolTipBase: ("#ffffff", None),
    Role.ToolTipText: ("#1f2328", None),
    Role.PlaceholderText: ("#6e7781", "#a3a9b1"),
    Role.Text: ("#1f2328", "#7f858d"),
    Role.Button: ("#f8f9fa", "#eef0f2"),
    Role.ButtonText: ("#1f2328", "#7f858d"),
    Role.BrightText: ("#c62828", None),
    Role.Light: ("#ffffff", None),
    Role.Midlight: ("#e6e8eb", None),
    Role.Mid: ("#b6bbc2", None),
    Role.Dark: ("#9aa0a8", None),
    Role.Shadow: ("#5c6066", None),
    Role.Highlight: ("#2f6bc4", "#dfe2e6"),
    Role.HighlightedText: ("#ffffff", "#7f858d"),
    Role.Link: ("#0b5cc6", "#7a99c2"),
    Role.LinkVisited: ("#6f42c1", "#9c88c2"),
    Role.Accent: ("#2f6bc4", "#dfe2e6"),
}

SEVERITY_COLORS = {"minor": "#5b8a72", "major": "#c7802a", "critical": "#c62828"}
"""An episode's severity badge (background; the text on it is white): calm green, amber, the themes' red
(``BrightText`` of the light theme). Chosen to read on both themes' table bases."""


def make_palette(dark: bool) -> QPalette:
    """The complete palette of the dark or the light theme (every role, every colour group)."""
    palette = QPalette()
    for role, (normal, disabled) in (_DARK if dark else _LIGHT).items():
        palette.setColor(role, QColor(normal))  # all groups; inactive stays equal so selections stay readable
        if disabled is not None:
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(disabled))
    return palette


def stylesheet(dark: bool) -> str:
    """``common.qss`` followed by ``dark.qss`` or ``light.qss`` from ``resources/styles/``, with
    ``{icons}`` replaced by the icons folder.

    Raises:
        FileNotFoundError: a stylesheet is missing (a broken install).
    """
    names = ("common.qss", "dark.qss" if dark else "light.qss")
    text = "\n".join(resource_path("styles", name).read_text(encoding="utf-8") for name in names)
    # Qt resolves url() against the working directory: images are named by absolute path.
    return text.replace("{icons}", resource_path("icons").as_posix())


def system_prefers_dark() -> bool:
    """Whether the desktop asks for a dark colour scheme (False when it does not say)."""
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, theme: str) -> bool:
    """Give ``app`` the Fusion style with the palette and stylesheet of ``theme``.

    Args:
        app: The application.
        theme: ``"light"``, ``"dark"``, or ``"system"`` (light or dark as the desktop's colour scheme
            says, and followed live when the desktop switches). Anything else counts as ``"system"``.

    Returns:
        Whether the dark theme is now active.
    """
    theme = theme if theme in THEMES else "system"
    app.setProperty(_THEME_PROPERTY, theme)
    hints = app.styleHints()
    if hasattr(hints, "setColorScheme"):  # Qt >= 6.8: native title bars and dialogs follow the choice too
        if theme == "system":
            hints.unsetColorScheme()
        else:
            hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
    if not app.property(_HOOKED_PROPERTY):
        app.setProperty(_HOOKED_PROPERTY, True)
        hints.colorSchemeChanged.connect(lambda _scheme: _follow_system(app))
    dark = theme == "dark" or (theme == "system" and system_prefers_dark())
    # Always set: under a stylesheet app.style() is Qt's stylesheet wrapper, which hides the base style's name.
    app.setStyle("Fusion")
    app.setPalette(make_palette(dark))
    app.setStyleSheet(stylesheet(dark))
    return dark


def _follow_system(app: QApplication) -> None:
    """Re-apply the theme when the desktop's colour scheme changes and the user chose "system"."""
    if app.property(_THEME_PROPERTY) == "system" and is_dark(app) != system_prefers_dark():
        apply_theme(app, "system")


def is_dark(app: QApplication) -> bool:
    """Whether ``app`` currently looks dark: its window colour is darker than its text colour."""
    palette = app.palette()
    return palette.color(Role.Window).lightness() < palette.color(Role.WindowText).lightness()


@cache
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg``: ``"app"`` or a document/file kind (``pdf``, ``note``,
    ``fact``, ``result``, ``reference``, ``structured``, ``folder``, ``file``, ``image``), ``scope``, ``pin`` (a
    conversation's pinned message) or a folder-tree entry (``smart-all``, ``smart-unfiled``, ``smart-recent``,
    ``smart-problems``, ``smart-archived``, ``smart-trash``).

    Raises:
        FileNotFoundError: no such icon.
    """
    return QIcon(str(resource_path("icons", f"{name}.svg")))


def small_font(font: QFont) -> QFont:
    """A copy of ``font`` at 0.9 of its size, for the secondary lines of a list's item (a hit's path and scope, a
    message's header); a font sized in pixels (point size -1) is kept as it is."""
    small = QFont(font)
    if small.pointSizeF() > 0:
        small.setPointSizeF(small.pointSizeF() * 0.9)
    return small
