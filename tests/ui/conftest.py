"""Fixtures for the window tests: a real MainWindow on a real library, with its settings in tmp."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QProcess, QSettings

from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.indexer import QUIT_WAIT_MS
from vancetope_desktop.ui.main_window import MainWindow

WINDOW_WAIT_MS = 30_000


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    """``make(library, scope=None, size=(1400, 900))`` opens a main window without the background indexing
    process (``size=None``: the size it restores), waits for its first snapshot (and for ``scope``, when
    given), and closes it after the test."""
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    made = []

    def make(library, scope: str | None = None, size: tuple[int, int] | None = (1400, 900)) -> MainWindow:
        settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
        window = MainWindow(library, settings=settings, preferences=Preferences(), start_background=False)
        qtbot.addWidget(window)
        if size is not None:
            window.resize(*size)
        window.show()
        qtbot.waitUntil(lambda: window.workbench.snapshot is not None, timeout=WINDOW_WAIT_MS)
        if scope is not None:
            window.workbench.set_scope(scope)
            qtbot.waitUntil(lambda: window.workbench.snapshot.state.scope == scope, timeout=WINDOW_WAIT_MS)
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()
    # A closed window leaves its indexing process to the application, which waits for it at quit
    # (``Indexer.stop``); a test run never quits the application, so wait here as the app would: else the
    # process outlives its library's temporary folder and Python's exit destroys it running.
    application = QCoreApplication.instance()
    for process in application.findChildren(QProcess) if application is not None else []:
        process.waitForFinished(QUIT_WAIT_MS)
