"""A Think Process writes through `vancetope mcp` while the desktop app has the same library open: the
document appears in the open window within seconds, and the app's indexing process embeds it."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from PySide6.QtCore import QSettings

from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.services import scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.main_window import MainWindow

REPO = Path(__file__).resolve().parents[2]
TP = "think-process/tp_12"

pytestmark = pytest.mark.slow


def _store_through_mcp(root: Path, log: Path, outcome: dict) -> None:
    """Runs on a thread (its own event loop): one memory_store call through the real server."""

    async def scenario() -> None:
        params = StdioServerParameters(
            command=sys.executable, cwd=str(REPO), env=dict(os.environ),
            args=["-m", "vancetope_desktop.cli.main", "mcp", "--scope", TP, "--library", str(root)])
        with log.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("memory_store", {
                    "content": "Flash Attention is IO-aware: it tiles attention to stay in on-chip SRAM.",
                    "tags": ["insight"], "type": "note", "title": "Flash Attention is IO-aware"})
                outcome["error"] = result.is_error
                outcome["doc"] = (result.structured_content or {}).get("doc_id")

    try:
        anyio.run(scenario)
    except BaseException as error:  # reported to the test thread
        outcome["exception"] = repr(error)


def test_a_document_stored_over_mcp_appears_in_the_open_app(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    root = tmp_path / "library"
    lib = Library.open(root)
    scopes.create_scope(lib, "session", "s1", parent="project/inbox")
    scopes.create_scope(lib, "think-process", "tp_12", parent="session/s1", name="Paper Analysis")
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(lib, settings=settings, preferences=Preferences())
    qtbot.addWidget(window)
    window.show()
    window.workbench.set_scope(TP)
    qtbot.waitUntil(lambda: window.workbench.snapshot is not None
                    and window.workbench.snapshot.state.scope == TP, timeout=10_000)

    outcome: dict = {}
    writer = threading.Thread(target=_store_through_mcp, args=(root, tmp_path / "server.log", outcome))
    writer.start()
    qtbot.waitUntil(lambda: not writer.is_alive(), timeout=60_000)
    assert "exception" not in outcome, outcome
    assert outcome["error"] is False and outcome["doc"].startswith("doc_")

    def listed():
        return next((d for d in window.workbench.snapshot.documents if d.id == outcome["doc"]), None)

    qtbot.waitUntil(lambda: listed() is not None, timeout=10_000)  # the change-counter poll: 1.5 s
    assert listed().tags == ["insight", "thinkprocess:tp_12"]
    qtbot.waitUntil(lambda: listed().index_state == IndexState.INDEXED, timeout=120_000)
    window.close()
    lib.close()
