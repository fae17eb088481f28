"""The Settings dialog: the user's preferences (theme, library location) and the library's settings.

The dialog edits copies and never saves or applies anything itself. After ``exec()`` returns
``Accepted`` the caller takes :meth:`SettingsDialog.result_settings` and
:meth:`SettingsDialog.result_preferences`, saves them (``library.save_settings``,
``preferences.save_preferences``) and applies them (``themes.apply_theme``; a re-index when the
embedding model changed). Invalid input shows an inline error and keeps the dialog open.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import IndexUnavailable, InvalidInput
from ..core.scopes import DEFAULT_PROXIMITY_WEIGHTS, proximity_weight
from ..core.settings import BUNDLED_MODEL, Settings
from ..index.models import resolve_model
from ..services import identity
from ..services.library import default_library_path
from ..services.preferences import Preferences, check_library_location
from .generator_settings import GeneratorPage

THEME_CHOICES = (("system", "System"), ("light", "Light"), ("dark", "Dark"))
WEIGHT_LABELS = ("Own scope", "Parent scope", "Two levels up", "Three levels up")
PRECISION_LABELS = {"fp32": "fp32 (the model's own vectors)", "int8": "int8 (faster indexing, close vectors)"}
"""``Settings.embedding_precision`` values and how the Indexing tab names them."""
RUNTIME_LABELS = {"auto": "Automatic (no torch)", "onnx": "ONNX Runtime", "numpy": "numpy (fp32 only)",
                  "sentence-transformers": "sentence-transformers (torch)"}
"""``Settings.embedding_runtime`` values and how the Indexing tab names them."""


def _role_label(text: str, role: str) -> QLabel:
    """A word-wrapped label styled by the theme's ``QLabel[role=...]`` rule (hint, warning, error)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("role", role)
    return label


def _fixed_width(widget: QWidget) -> None:
    """Keep a number field at its natural width instead of stretching across the form."""
    widget.setSizePolicy(QSizePolicy.Policy.Fixed, widget.sizePolicy().verticalPolicy())
    widget.setMinimumWidth(110)


class _InputError(Exception):
    """Invalid input on one tab: the message to show and the widget to focus."""

    def __init__(self, message: str, widget: QWidget) -> None:
        super().__init__(message)
        self.widget = widget


class SettingsDialog(QDialog):
    """Edit :class:`Preferences` and :class:`Settings` on four tabs: General, Search, Indexing and Generator.

    Args:
        settings: The library's current settings (not modified).
        preferences: The user's current preferences (not modified).
        parent: The owning window.
        open_library: The folder of the library open now (from ``--library``, ``$VANCETOPE_LIBRARY`` or the
            preference), shown beside the preference: they differ when the app was started on another one.
    """

    def __init__(self, settings: Settings, preferences: Preferences, parent: QWidget | None = None, *,
                 open_library: Path | None = None) -> None:
        super().__init__(parent)
        self._open_library = open_library
        self.setWindowTitle("Settings")
        self.setMinimumWidth(520)
        self._settings = settings
        self._preferences = preferences
        self._result: tuple[Settings, Preferences] | None = None

        self.tabs = QTabWidget()
        self.tabs.addTab(self._general_tab(), "General")
        self.tabs.addTab(self._search_tab(), "Search")
        self.tabs.addTab(self._indexing_tab(), "Indexing")
        self.generator_page = GeneratorPage(settings)
        self.tabs.addTab(self.generator_page, "Generator")
        self.error_label = _role_label("", "error")
        self.error_label.hide()
        self.button_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.error_label)
        layout.addWidget(self.button_box)

    # --- tabs -------------------------------------------------------------------------------------

    def _general_tab(self) -> QWidget:
        self.theme_combo = QComboBox()
        for value, label in THEME_CHOICES:
            self.theme_combo.addItem(label, value)
        self.theme_combo.setCurrentIndex(self.theme_combo.findData(self._preferences.theme))

        self.library_edit = QLineEdit(str(self._preferences.library_path or ""))
        self.library_edit.setPlaceholderText(f"Default: {default_library_path()}")
        self.library_edit.setToolTip(f"The default is {default_library_path()}")
        self.library_edit.setClearButtonEnabled(True)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self._browse_library)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.library_edit, 1)
        row.addWidget(self.browse_button)

        self.update_links_check = QCheckBox("Update links when renaming")
        self.update_links_check.setChecked(self._settings.update_links_on_rename)
        self.update_links_check.setToolTip("Renaming a document rewrites the [[Old title]] links of the notes that "
                                           "led to it (one undo step with the rename)")

        self.bibliography_folder_check = QCheckBox("Import a bibliography file into a new folder named after it")
        self.bibliography_folder_check.setChecked(self._settings.bibliography_folder)
        self.bibliography_folder_check.setToolTip("As Zotero does: a .bib, .ris or CSL-JSON file imported by itself "
                                                  "brings its references into a folder of their own")

        # Who this person's changes are recorded as (services.identity): a name follows the person, so it is a
        # preference, not a library setting.
        self.identity_edit = QLineEdit(self._preferences.identity or "")
        self.identity_edit.setPlaceholderText("Your login name")
        self.identity_edit.setClearButtonEnabled(True)
        self.identity_edit.setMaxLength(identity.MAX_NAME)
        acting = identity.current_identity(self._preferences)
        identity_hint = (f"${identity.IDENTITY_ENV} is set: your changes are recorded as {acting.actor} while it is"
                         if acting.origin == "environment" else
                         "Recorded with your edits, in the history and in promotion requests. Empty: your login.")

        form = QFormLayout()
        form.addRow("Your name:", self.identity_edit)
        form.addRow("", _role_label(identity_hint, "hint"))
        form.addRow("Theme:", self.theme_combo)
        form.addRow("Library folder:", row)
        if self._open_library is not None:
            self.open_library_label = QLabel(str(self._open_library))
            self.open_library_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.open_library_label.setWordWrap(True)
            form.addRow("Open now:", self.open_library_label)
        form.addRow("", _role_label("Leave empty for the default folder. A new location takes effect when "
                                    "Vancetope Desktop restarts.", "hint"))
        form.addRow("Links:", self.update_links_check)
        form.addRow("Bibliographies:", self.bibliography_folder_check)
        return self._page(form)

    def _search_tab(self) -> QWidget:
        self.weight_spins: list[QDoubleSpinBox] = []
        form = QFormLayout()
        form.addRow(_role_label("How much a match counts by where its document lives: in the scope you work in, "
                                "or further up the tree. Nearer scopes weigh at least as much as farther ones.",
                                "hint"))
        for distance, label in enumerate(WEIGHT_LABELS):
            spin = QDoubleSpinBox()
            spin.setRange(0.0, 1.0)
            spin.setDecimals(2)
            spin.setSingleStep(0.05)
            spin.setValue(proximity_weight(distance, self._settings.scope_weights))
            _fixed_width(spin)
            self.weight_spins.append(spin)
            form.addRow(f"{label}:", spin)

        self.relevance_spin = QDoubleSpinBox()
        self.relevance_spin.setRange(0.0, 1.0)
        self.relevance_spin.setDecimals(2)
        self.relevance_spin.setSingleStep(0.05)
        self.relevance_spin.setValue(self._settings.min_relevance)
        self.relevance_spin.setToolTip("A result's relevance runs from 0 to 1 (meaning and keywords combined, "
                                       "before the scope weight); weaker results are left out. 0 keeps them all.")
        _fixed_width(self.relevance_spin)
        form.addRow("Leave out results less relevant than:", self.relevance_spin)

        self.restore_defaults_button = QPushButton("Restore defaults")
        self.restore_defaults_button.clicked.connect(self.restore_search_defaults)
        page = self._page(form)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.restore_defaults_button)
        page.layout().addLayout(buttons)
        return page

    def _indexing_tab(self) -> QWidget:
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.addItem(BUNDLED_MODEL)
        if self._settings.embedding_model != BUNDLED_MODEL:
            self.model_combo.addItem(self._settings.embedding_model)
        self.model_combo.setCurrentText(self._settings.embedding_model)
        self.model_combo.lineEdit().setPlaceholderText("bundled:all-MiniLM-L6-v2, a model folder or a model name")
        self.model_combo.setToolTip("The bundled model, a folder holding a sentence-transformers model, or the "
                                    "name of a model already in the local Hugging Face cache. Nothing is "
                                    "ever downloaded.")
        self.model_warning = _role_label("Changing the model or the precision re-indexes the whole library: "
                                         "every document is embedded again. Keyword search keeps working "
                                         "meanwhile.", "warning")
        # The chosen model is checked as it is typed or picked (offline and cheap: its small JSON files): a model
        # that went missing is said here, with the reason, not only in the search pane and the Tasks.
        self.model_problem_label = _role_label("", "error")
        self.model_problem_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model_combo.currentTextChanged.connect(self._check_model)
        self._check_model(self.model_combo.currentText())

        self.precision_combo = QComboBox()
        for value, label in PRECISION_LABELS.items():
            self.precision_combo.addItem(label, value)
        self.precision_combo.setCurrentIndex(self.precision_combo.findData(self._settings.embedding_precision))
        self.precision_combo.setToolTip("int8 quantises the model's weights: documents are embedded faster and "
                                        "their vectors are close to, not equal to, the model's. Changing it "
                                        "re-indexes the library, as a model change does.")
        _fixed_width(self.precision_combo)
        self.runtime_combo = QComboBox()
        for value, label in RUNTIME_LABELS.items():
            self.runtime_combo.addItem(label, value)
        self.runtime_combo.setCurrentIndex(self.runtime_combo.findData(self._settings.embedding_runtime))
        self.runtime_combo.setToolTip("What computes the vectors. Automatic needs no torch for BERT models such "
                                      "as the bundled one; sentence-transformers needs the optional "
                                      "vancetope-desktop[torch] install. Changing it never re-indexes.")
        _fixed_width(self.runtime_combo)

        self.batch_spin = QSpinBox()
        self.batch_spin.setRange(1, 1024)
        self.batch_spin.setValue(self._settings.embedding_batch_size)
        _fixed_width(self.batch_spin)
        self.batch_spin.setToolTip("Passages embedded at once; larger is faster but needs more memory.")
        self.max_import_spin = QSpinBox()
        self.max_import_spin.setRange(1, 1_000_000)
        self.max_import_spin.setSuffix(" MB")
        self.max_import_spin.setValue(self._settings.max_import_mb)
        _fixed_width(self.max_import_spin)
        self.extraction_timeout_spin = QSpinBox()
        self.extraction_timeout_spin.setRange(1, 86_400)
        self.extraction_timeout_spin.setSuffix(" s")
        self.extraction_timeout_spin.setValue(round(self._settings.extraction_timeout_s))
        _fixed_width(self.extraction_timeout_spin)
        self.extraction_timeout_spin.setToolTip("Reading a file stops after this, plus 5 s per MB, and the file is "
                                                "reported as failed: a damaged or hostile PDF can make it loop.")

        form = QFormLayout()
        form.addRow("Embedding model:", self.model_combo)
        form.addRow("", self.model_problem_label)
        form.addRow("", self.model_warning)
        form.addRow("Embedding precision:", self.precision_combo)
        form.addRow("Embedding runtime:", self.runtime_combo)
        form.addRow("Batch size:", self.batch_spin)
        form.addRow("Largest file to import:", self.max_import_spin)
        form.addRow("Time limit to read a file:", self.extraction_timeout_spin)
        return self._page(form)

    def _check_model(self, text: str) -> None:
        """Show why the model ``text`` names cannot be used here (``index.models.resolve_model``'s reason), or
        nothing when it resolves."""
        problem = ""
        if text.strip():
            try:
                resolve_model(text)
            except IndexUnavailable as error:
                problem = f"This model cannot be used here: {error}"
        self.model_problem_label.setText(problem)
        self.model_problem_label.setVisible(bool(problem))

    @staticmethod
    def _page(form: QFormLayout) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addLayout(form)
        layout.addStretch(1)
        return page

    # --- actions ----------------------------------------------------------------------------------

    def restore_search_defaults(self) -> None:
        """Put the Search tab back to the defaults (proximity weights and the relevance cut-off)."""
        for distance, spin in enumerate(self.weight_spins):
            spin.setValue(proximity_weight(distance, DEFAULT_PROXIMITY_WEIGHTS))
        self.relevance_spin.setValue(Settings().min_relevance)

    def _browse_library(self) -> None:
        start = self.library_edit.text().strip() or str(default_library_path().parent)
        chosen = QFileDialog.getExistingDirectory(self, "Choose the library folder", start)
        if chosen:
            self.library_edit.setText(chosen)

    def accept(self) -> None:
        """Validate every tab; on success keep the results and close, otherwise show the error and stay."""
        try:
            result = (self._validated_settings(), self._validated_preferences())
        except _InputError as error:
            self.error_label.setText(str(error))
            self.error_label.show()
            page = error.widget.parentWidget()
            while page is not None and self.tabs.indexOf(page) < 0:
                page = page.parentWidget()
            if page is not None:
                self.tabs.setCurrentWidget(page)
            error.widget.setFocus()
            return
        self._result = result
        self.error_label.hide()
        super().accept()

    def _validated_preferences(self) -> Preferences:
        text = self.library_edit.text().strip()
        library_path: Path | None = None
        if text:
            try:
                library_path = check_library_location(text)
            except InvalidInput as error:
                raise _InputError(f"Library folder: {error}.", self.library_edit) from error
        name = self.identity_edit.text().strip() or None
        if name is not None:
            try:
                identity.check_name(name)
            except InvalidInput as error:
                raise _InputError(f"Your name: {error}.", self.identity_edit) from error
        return self._preferences.model_copy(
            update={"theme": self.theme_combo.currentData(), "library_path": library_path, "identity": name}
        )

    def _validated_settings(self) -> Settings:
        weights = tuple(round(spin.value(), 4) for spin in self.weight_spins)
        if weights[0] <= 0:
            raise _InputError("Search: the own scope's weight must be above 0.", self.weight_spins[0])
        for distance in range(1, len(weights)):
            if weights[distance] > weights[distance - 1]:
                raise _InputError(f"Search: '{WEIGHT_LABELS[distance]}' cannot weigh more than "
                                  f"'{WEIGHT_LABELS[distance - 1]}'.", self.weight_spins[distance])
        model = self.model_combo.currentText().strip()
        if not model:
            raise _InputError("Indexing: choose an embedding model.", self.model_combo)
        # Only a changed model is checked: a library whose model went missing can still save other settings.
        if model != self._settings.embedding_model:
            try:
                resolve_model(model)  # offline and cheap: reads the model's small JSON files
            except IndexUnavailable as error:
                raise _InputError(f"Indexing: {error}", self.model_combo) from error
        values = self._settings.model_dump()
        values.update(scope_weights=weights, min_relevance=self.relevance_spin.value(), embedding_model=model,
                      embedding_precision=self.precision_combo.currentData(),
                      embedding_runtime=self.runtime_combo.currentData(),
                      embedding_batch_size=self.batch_spin.value(), max_import_mb=self.max_import_spin.value(),
                      extraction_timeout_s=float(self.extraction_timeout_spin.value()),
                      update_links_on_rename=self.update_links_check.isChecked(),
                      bibliography_folder=self.bibliography_folder_check.isChecked())
        try:
            settings = Settings.model_validate(values)
        except ValidationError as error:  # the widgets' ranges should make this unreachable
            raise _InputError(f"Invalid settings: {error}", self.tabs) from error
        try:
            return self.generator_page.settings_with(settings)
        except InvalidInput as error:
            raise _InputError(f"Generator: {error}.", self.generator_page.kind_combo) from error

    # --- results ----------------------------------------------------------------------------------

    def result_settings(self) -> Settings:
        """The edited library settings, validated (a new object).

        Raises:
            RuntimeError: the dialog was not accepted.
        """
        if self._result is None:
            raise RuntimeError("the Settings dialog was not accepted")
        return self._result[0]

    def result_preferences(self) -> Preferences:
        """The edited user preferences, validated (a new object).

        Raises:
            RuntimeError: the dialog was not accepted.
        """
        if self._result is None:
            raise RuntimeError("the Settings dialog was not accepted")
        return self._result[1]

    def endpoint_key(self) -> str | None:
        """The endpoint API key typed on the Generator tab (for the system keyring), None when left empty."""
        return self.generator_page.endpoint_key()

    def model_changed(self) -> bool:
        """Whether the accepted settings name another embedding model or precision (the caller must re-index)."""
        result = self.result_settings()
        return (result.embedding_model, result.embedding_precision) != (
            self._settings.embedding_model, self._settings.embedding_precision)
