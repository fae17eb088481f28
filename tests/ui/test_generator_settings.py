"""Settings ▸ Generator: the library's generator, its model file or endpoint, checked as the CLI checks them."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox

from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.settings_dialog import SettingsDialog


def _dialog(qtbot, settings: Settings) -> SettingsDialog:
    dialog = SettingsDialog(settings, Preferences())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _ok(dialog: SettingsDialog) -> None:
    dialog.button_box.button(QDialogButtonBox.StandardButton.Ok).click()


def test_the_generator_tab_chooses_an_endpoint_and_hands_the_key_out(qtbot):
    dialog = _dialog(qtbot, Settings())
    page = dialog.generator_page
    assert page.kind_combo.currentData() == "builtin"
    page.kind_combo.setCurrentIndex(page.kind_combo.findData("endpoint"))
    _ok(dialog)  # no URL yet: refused on the Generator tab
    assert dialog.error_label.isVisible() and "URL and a model name" in dialog.error_label.text()
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Generator"
    page.url_edit.setText("http://127.0.0.1:11434/v1/")
    page.endpoint_model_edit.setText("llama3.2")
    page.key_edit.setText("sk-local")
    page.timeout_spin.setValue(20)
    _ok(dialog)
    chosen = dialog.result_settings()
    assert (chosen.generator, chosen.generator_endpoint_url, chosen.generator_endpoint_model,
            chosen.generator_timeout_s) == ("endpoint", "http://127.0.0.1:11434/v1", "llama3.2", 20)
    assert "sk-local" not in chosen.model_dump_json()  # the key is no setting: it goes to the keyring
    assert dialog.endpoint_key() == "sk-local"


def test_a_file_that_is_not_gguf_is_refused(qtbot, tmp_path):
    dialog = _dialog(qtbot, Settings())
    page = dialog.generator_page
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 a zip")
    page.kind_combo.setCurrentIndex(page.kind_combo.findData("local"))
    page.model_path_edit.setText(str(fake))
    _ok(dialog)
    assert "not a GGUF" in dialog.error_label.text()
    page.model_path_edit.clear()  # the bundled SmolLM2
    _ok(dialog)
    assert dialog.result_settings().generator == "local" and dialog.endpoint_key() is None
