"""Markdown notes: rendered with front matter as properties, editable with a live preview.

Editing happens in a splitter (source left, preview right). The preview re-renders 300 ms after the
last keystroke, not on every one, so typing stays smooth in long notes. Saving only *asks*: it emits
``save_requested`` and the main window writes through the services in the background.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFontDatabase, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from . import keys
from .rendering import document_css, render_markdown, wikilink_target
from .text_marks import mark_passage

PREVIEW_DELAY_MS = 300


class MarkdownViewer(QWidget):
    """A QTextBrowser over the notes' CommonMark HTML (:func:`.rendering.render_markdown`), with an Edit
    mode for typed notes.

    Signals:
        save_requested(str, str): ``(document id, new text)`` when the user saves.
        editing_changed(bool): edit mode entered (True) or left (False).
        wikilink_activated(str, str): ``(document id, link inside)``: a ``[[Title|shown]]`` link was clicked
            (the inside is ``Title|shown``); the owner resolves it (``services.notelinks.resolve_link``).
    """

    save_requested = Signal(str, str)
    editing_changed = Signal(bool)
    wikilink_activated = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.browser = QTextBrowser()
        # Links are ours to follow: [[note links]] go to the window, web links to the system browser.
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow_link)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlaceholderText("Write markdown…")
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.editor)
        self.splitter.addWidget(self.browser)
        self.splitter.setChildrenCollapsible(False)
        self.edit_button = QPushButton("Edit")
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save (Ctrl+S)")
        self.cancel_button = QPushButton("Cancel")
        self.state_label = QLabel()
        self.bar = QWidget()
        bar = QHBoxLayout(self.bar)
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(self.state_label, 1)
        for button in (self.edit_button, self.save_button, self.cancel_button):
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(self.splitter, 1)
        self._preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self._render_preview)
        save = QShortcut(keys.SAVE, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        save.activated.connect(self.save)
        self.edit_button.clicked.connect(self.start_editing)
        self.save_button.clicked.connect(self.save)
        self.cancel_button.clicked.connect(self.cancel)
        self.editor.textChanged.connect(self._text_edited)
        self._text = ""
        self._document_id: str | None = None
        self._editable = False
        self._editing = False
        self._dark = False
        self._sync_controls()

    def show_markdown(self, text: str, *, document_id: str | None = None, editable: bool = False,
                      highlight: str | None = None) -> list[str]:
        """Render ``text`` (leaving edit mode); ``editable`` offers the Edit button.

        Args:
            text: markdown, possibly with front matter.
            document_id: the id carried by :attr:`save_requested`.
            editable: whether the user may edit (typed notes, not stored files).
            highlight: a passage or query words to mark and scroll to.

        Returns:
            Notes for a banner (e.g. front matter that is not valid YAML).
        """
        self._preview_timer.stop()
        self._text, self._document_id, self._editable = text, document_id, editable and document_id is not None
        self._set_editing(False)
        notes = self._render(text)
        if highlight and highlight.strip():
            mark_passage(self.browser, highlight)
        return notes

    def follow_link(self, url: QUrl) -> None:
        """Follow a clicked link: a ``[[…]]`` link is announced (:attr:`wikilink_activated`), an anchor in
        the note scrolls to it, anything else opens in the system's browser or mail program."""
        inside = wikilink_target(url.toString())
        if inside is not None:
            if self._document_id is not None:
                self.wikilink_activated.emit(self._document_id, inside)
        elif url.isRelative() and url.hasFragment():
            self.browser.scrollToAnchor(url.fragment())
        else:
            QDesktopServices.openUrl(url)

    def text(self) -> str:
        """The saved text (not the editor's unsaved draft)."""
        return self._text

    def is_editing(self) -> bool:
        """Whether the editor is open."""
        return self._editing

    def has_unsaved_changes(self) -> bool:
        """Whether the editor holds text that differs from the saved text."""
        return self._editing and self.editor.toPlainText() != self._text

    def start_editing(self) -> None:
        """Open the editor on the saved text, with the preview beside it."""
        if not self._editable or self._editing:
            return
        self.editor.setPlainText(self._text)
        self._set_editing(True)
        self.editor.setFocus()

    def save(self) -> None:
        """Emit :attr:`save_requested` with the editor's text and leave edit mode (no-op when not editing)."""
        if not self._editing or self._document_id is None:
            return
        self._preview_timer.stop()
        new_text = self.editor.toPlainText()
        changed = new_text != self._text
        self._text = new_text
        self._set_editing(False)
        self._render(new_text)
        if changed:
            self.save_requested.emit(self._document_id, new_text)

    def cancel(self) -> None:
        """Drop the draft and show the saved text again."""
        if not self._editing:
            return
        self._preview_timer.stop()
        self._set_editing(False)
        self._render(self._text)

    def set_dark(self, dark: bool) -> None:
        """Re-render with code colours and table rules for a dark (or light) theme."""
        if dark == self._dark:
            return
        self._dark = dark
        self._render(self.editor.toPlainText() if self._editing else self._text)

    def _render(self, text: str) -> list[str]:
        rendered = render_markdown(text, dark=self._dark)
        bar = self.browser.verticalScrollBar()
        keep = bar.value() / bar.maximum() if bar.maximum() else 0.0
        self.browser.document().setDefaultStyleSheet(document_css(self._dark))
        self.browser.setHtml(rendered.html)
        bar.setValue(round(keep * bar.maximum()))
        return rendered.notes

    def _render_preview(self) -> None:
        if self._editing:
            self._render(self.editor.toPlainText())

    def _text_edited(self) -> None:
        if self._editing:
            self._preview_timer.start()
            self._sync_controls()

    def _set_editing(self, editing: bool) -> None:
        changed = editing != self._editing
        self._editing = editing
        self.editor.setVisible(editing)
        if not editing:
            self.editor.clear()
        self._sync_controls()
        if changed:
            self.editing_changed.emit(editing)

    def _sync_controls(self) -> None:
        self.bar.setVisible(self._editable)
        self.edit_button.setVisible(self._editable and not self._editing)
        self.save_button.setVisible(self._editing)
        self.cancel_button.setVisible(self._editing)
        self.state_label.setText("Unsaved changes" if self.has_unsaved_changes() else "")
