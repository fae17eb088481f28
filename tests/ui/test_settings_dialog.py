"""The Settings dialog: shows the current values, returns validated copies, refuses invalid input inline."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel

from vancetope_desktop.core.scopes import DEFAULT_PROXIMITY_WEIGHTS
from vancetope_desktop.core.settings import BUNDLED_MODEL, Settings
from vancetope_desktop.index.models import resolve_model
from vancetope_desktop.services.library import load_settings, save_settings
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.settings_dialog import SettingsDialog


@pytest.fixture
def open_dialog(qtbot):
    def make(settings: Settings | None = None, preferences: Preferences | None = None) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings(), preferences or Preferences())
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        return dialog

    return make


def _press_ok(dialog: SettingsDialog) -> None:
    dialog.button_box.button(QDialogButtonBox.StandardButton.Ok).click()


def _assert_refused(dialog: SettingsDialog, tab: str, words: str) -> None:
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.isVisible()
    assert dialog.error_label.isVisible()
    assert words in dialog.error_label.text()
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == tab
    with pytest.raises(RuntimeError):
        dialog.result_settings()


def test_shows_the_current_values(open_dialog, tmp_path):
    settings = Settings(scope_weights=(1.0, 0.6), min_relevance=0.25, embedding_batch_size=8)
    prefs = Preferences(theme="dark", library_path=tmp_path / "lib")
    dialog = open_dialog(settings, prefs)
    assert dialog.theme_combo.currentData() == "dark"
    assert dialog.library_edit.text() == str(tmp_path / "lib")
    # Short weight lists extend with their last weight, as core.scopes.proximity_weight reads them.
    assert [spin.value() for spin in dialog.weight_spins] == [1.0, 0.6, 0.6, 0.6]
    assert dialog.relevance_spin.value() == 0.25
    assert dialog.model_combo.currentText() == BUNDLED_MODEL
    assert dialog.batch_spin.value() == 8
    assert dialog.model_warning.text()


def test_accepts_changed_theme_weights_and_model(open_dialog, tmp_path):
    original_settings, original_prefs = Settings(), Preferences(recent_libraries=[tmp_path / "old"])
    dialog = open_dialog(original_settings, original_prefs)
    dialog.theme_combo.setCurrentIndex(dialog.theme_combo.findData("light"))
    dialog.library_edit.setText(str(tmp_path / "new library"))
    for spin, value in zip(dialog.weight_spins, (0.9, 0.7, 0.7, 0.1), strict=True):
        spin.setValue(value)
    dialog.relevance_spin.setValue(0.3)
    # A real model directory: the bundled model's own folder, named by path.
    model_dir = str(resolve_model(BUNDLED_MODEL).path)
    dialog.model_combo.setCurrentText(model_dir)
    dialog.batch_spin.setValue(16)
    dialog.extraction_timeout_spin.setValue(300)
    assert dialog.update_links_check.isChecked()  # "Update links when renaming" is on by default
    dialog.update_links_check.setChecked(False)
    assert dialog.bibliography_folder_check.isChecked()  # a .bib into a folder of its own, by default
    dialog.bibliography_folder_check.setChecked(False)
    _press_ok(dialog)

    assert dialog.result() == QDialog.DialogCode.Accepted
    settings, prefs = dialog.result_settings(), dialog.result_preferences()
    assert settings.scope_weights == (0.9, 0.7, 0.7, 0.1)
    assert settings.min_relevance == 0.3
    assert settings.embedding_model == model_dir
    assert settings.embedding_batch_size == 16
    assert settings.max_import_mb == original_settings.max_import_mb
    assert settings.extraction_timeout_s == 300
    assert settings.update_links_on_rename is False and settings.bibliography_folder is False
    assert dialog.model_changed()
    assert prefs.theme == "light"
    assert prefs.library_path == tmp_path / "new library"
    assert prefs.recent_libraries == [tmp_path / "old"]
    # New objects: the inputs are untouched.
    assert original_settings == Settings() and original_prefs.theme == "system"


def test_embedding_precision_and_runtime(open_dialog):
    """Shown as set; a new precision re-indexes like a new model (the vectors differ), a new runtime does not."""
    dialog = open_dialog(Settings(embedding_precision="int8", embedding_runtime="onnx"))
    assert dialog.precision_combo.currentData() == "int8" and dialog.runtime_combo.currentData() == "onnx"
    dialog.runtime_combo.setCurrentIndex(dialog.runtime_combo.findData("auto"))
    _press_ok(dialog)
    assert dialog.result_settings().embedding_runtime == "auto" and not dialog.model_changed()

    dialog = open_dialog(Settings())
    assert dialog.precision_combo.currentData() == "int8"  # the default
    dialog.precision_combo.setCurrentIndex(dialog.precision_combo.findData("fp32"))
    _press_ok(dialog)
    assert dialog.result_settings().embedding_precision == "fp32" and dialog.model_changed()


def test_results_round_trip_through_the_library_settings_file(open_dialog, tmp_path):
    dialog = open_dialog()
    dialog.weight_spins[3].setValue(0.2)
    _press_ok(dialog)
    path = tmp_path / "settings.json"
    save_settings(path, dialog.result_settings())
    assert load_settings(path).scope_weights == (1.0, 0.8, 0.5, 0.2)


def test_empty_library_folder_means_the_default(open_dialog, tmp_path):
    dialog = open_dialog(preferences=Preferences(library_path=tmp_path))
    dialog.library_edit.clear()
    _press_ok(dialog)
    assert dialog.result_preferences().library_path is None
    assert not dialog.model_changed()


def test_restore_defaults(open_dialog):
    dialog = open_dialog(Settings(scope_weights=(0.5, 0.1), min_relevance=0.5))
    dialog.restore_defaults_button.click()
    assert tuple(spin.value() for spin in dialog.weight_spins) == DEFAULT_PROXIMITY_WEIGHTS
    assert dialog.relevance_spin.value() == Settings().min_relevance


@pytest.mark.parametrize(
    ("weights", "words"),
    [((0.0, 0.0, 0.0, 0.0), "above 0"), ((1.0, 0.5, 0.8, 0.3), "cannot weigh more")],
)
def test_refuses_invalid_weights(open_dialog, weights, words):
    dialog = open_dialog()
    for spin, value in zip(dialog.weight_spins, weights, strict=True):
        spin.setValue(value)
    _press_ok(dialog)
    _assert_refused(dialog, "Search", words)


@pytest.mark.parametrize("model", ["", "   ", "/no/such/model/dir", "no-such-model-anywhere-xyz", "bundled:nope"])
def test_refuses_invalid_models(open_dialog, model):
    dialog = open_dialog()
    dialog.model_combo.setCurrentText(model)
    _press_ok(dialog)
    _assert_refused(dialog, "Indexing", "Indexing:")


def test_a_model_that_does_not_resolve_is_warned_about_on_the_indexing_tab(open_dialog):
    dialog = open_dialog(Settings(embedding_model="/models/gone"))
    dialog.tabs.setCurrentIndex(next(i for i in range(dialog.tabs.count()) if dialog.tabs.tabText(i) == "Indexing"))
    warning = dialog.model_problem_label
    assert warning.isVisible() and warning.property("role") == "error"
    assert warning.text().startswith("This model cannot be used here: ") and "/models/gone" in warning.text()
    dialog.model_combo.setCurrentText(BUNDLED_MODEL)  # the bundled one resolves: the warning goes
    assert not warning.isVisible() and warning.text() == ""


def test_an_unchanged_broken_model_does_not_block_other_changes(open_dialog):
    dialog = open_dialog(Settings(embedding_model="/models/gone"))
    dialog.batch_spin.setValue(4)
    _press_ok(dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.result_settings().embedding_model == "/models/gone"


def test_refuses_a_library_folder_inside_a_file(open_dialog, tmp_path):
    file = tmp_path / "notes.txt"
    file.write_text("x", encoding="utf-8")
    dialog = open_dialog()
    dialog.tabs.setCurrentIndex(2)
    dialog.library_edit.setText(str(file / "library"))
    _press_ok(dialog)
    _assert_refused(dialog, "General", "Library folder")
    # Fixing the input lets it through and clears the error.
    dialog.library_edit.setText(str(tmp_path / "library"))
    _press_ok(dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert not dialog.error_label.isVisible()


def test_cancel_gives_no_results(open_dialog):
    dialog = open_dialog()
    dialog.button_box.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert dialog.result() == QDialog.DialogCode.Rejected
    with pytest.raises(RuntimeError):
        dialog.result_preferences()


def test_your_name_is_a_preference_checked_before_it_is_kept(open_dialog, monkeypatch):
    monkeypatch.delenv("VANCETOPE_IDENTITY", raising=False)
    dialog = open_dialog(preferences=Preferences(identity="Ada"))
    assert dialog.identity_edit.text() == "Ada" and dialog.tabs.currentIndex() == 0
    dialog.identity_edit.setText("Ada\tLovelace")
    _press_ok(dialog)
    _assert_refused(dialog, "General", "Your name: an identity is one line")
    dialog.identity_edit.setText("  Ada Lovelace ")
    _press_ok(dialog)
    assert dialog.result_preferences().identity == "Ada Lovelace"
    cleared = open_dialog(preferences=Preferences(identity="Ada"))
    cleared.identity_edit.clear()
    _press_ok(cleared)
    assert cleared.result_preferences().identity is None  # back to the login name


def test_a_name_set_in_the_environment_is_said_to_win(open_dialog, monkeypatch):
    monkeypatch.setenv("VANCETOPE_IDENTITY", "service:nightly")
    dialog = open_dialog(preferences=Preferences(identity="Ada"))
    hints = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("$VANCETOPE_IDENTITY is set" in text and "service:nightly" in text for text in hints)
