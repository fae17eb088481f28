"""Per-scope settings (issue 4): a think process's view of its siblings' results, and auto-promote rules.

Seed §9 question 2: a think process may see the results its sibling think processes produced (off by
default, ``scopes.set_sibling_results_visible``). Seed §4.3 and §9 question 1: tagging a document with a
rule's tag asks to promote it, reviewed unless the rule approves by itself (``promotion_rules``). Rules
are inherited downwards; a scope can add, change, switch off or reset them. Every change runs through
the window's :class:`~.workbench.Workbench` and the dialog reloads what applies afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import InvalidInput
from ..core.promotion import PromotionRule
from ..core.scope_info import ScopeInfo
from ..core.scopes import ScopeKind, ScopePath
from ..core.tags import normalize_tag
from ..services import promotion_rules, scopes
from ..services.library import Library
from .move_dialog import scope_label

if TYPE_CHECKING:
    from .workbench import Workbench

TARGET_KINDS = (("project", "Its project"), ("session", "Its session"), ("group", "Its project group"))
"""(rule target, label) of the kinds a rule can promote to: that ancestor of each tagged document."""


@dataclass(frozen=True)
class ScopeSettings:
    """What the dialog shows, loaded on a worker thread by :func:`load_scope_settings`.

    Attributes:
        scope: the scope being configured.
        rules: the auto-promote rules that apply in it (own, inherited, built-in), by tag.
        switched_off: tags whose inherited or built-in rule this scope switches off.
        names: scope path → human name (for "set in" and path targets).
        session_name: a think process's session, named in the sibling setting's explanation.
    """

    scope: ScopeInfo
    rules: tuple[PromotionRule, ...]
    switched_off: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    session_name: str | None = None


def load_scope_settings(lib: Library, path: str) -> ScopeSettings:
    """Load the settings of scope ``path`` (runs on a worker thread). Raises ScopeNotFound."""
    scope = scopes.get_scope(lib, path)
    rules = promotion_rules.effective_rules(lib, path)
    above = promotion_rules.effective_rules(lib, scope.parent) if scope.parent else promotion_rules.DEFAULT_RULES
    # A rule that applies just above but not here was switched off in this very scope.
    off = sorted({r.tag for r in above} - {r.tag for r in rules})
    names = {s.path: s.name for s in scopes.list_scopes(lib, include_archived=True)}
    return ScopeSettings(scope=scope, rules=tuple(rules), switched_off=tuple(off), names=names,
                         session_name=names.get(scope.parent or "") if scope.kind == ScopeKind.THINK_PROCESS else None)


def target_text(target: str, names: dict[str, str]) -> str:
    """A rule's target as people read it: "Its project", or a scope's name for a full path."""
    return dict(TARGET_KINDS).get(target) or names.get(target, target)


class ScopeSettingsDialog(QDialog):
    """The settings of one scope; changes are asked for by signals and shown after :meth:`set_settings`.

    Signals:
        sibling_results_toggled(bool): the think process should (not) see its siblings' results.
        rule_set_requested(str, str, bool): add or change the rule for a tag: (tag, target, auto-approve).
        rule_removed_requested(str): switch off the rule for a tag here and below.
        rule_reset_requested(str): drop this scope's own setting for a tag.
    """

    sibling_results_toggled = Signal(bool)
    rule_set_requested = Signal(str, str, bool)
    rule_removed_requested = Signal(str)
    rule_reset_requested = Signal(str)

    def __init__(self, settings: ScopeSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumWidth(600)
        self.heading = QLabel()
        self.path_label = QLabel()
        self.path_label.setProperty("role", "hint")

        self.sibling_box = QGroupBox("Sibling think processes")
        self.sibling_check = QCheckBox("See the results of sibling think processes")
        self.sibling_check.toggled.connect(self.sibling_results_toggled)
        self.sibling_hint = QLabel()
        self.sibling_hint.setProperty("role", "hint")
        self.sibling_hint.setWordWrap(True)
        box = QVBoxLayout(self.sibling_box)
        box.addWidget(self.sibling_check)
        box.addWidget(self.sibling_hint)

        rules_box = QGroupBox("Auto-promote rules")
        hint = QLabel("Tagging a document here or below with one of these tags asks to promote it; the request "
                      "waits in the review queue unless the rule approves automatically.")
        hint.setProperty("role", "hint")
        hint.setWordWrap(True)
        self.rules_view = QTreeWidget()
        self.rules_view.setHeaderLabels(["Tag", "Promote to", "Approval", "Set in"])
        self.rules_view.setRootIsDecorated(False)
        self.rules_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.rules_view.currentItemChanged.connect(lambda _current, _previous: self._rule_picked())
        self.switch_off_button = QPushButton("Switch off")
        self.switch_off_button.setToolTip("Stop this rule here and in every scope below")
        self.switch_off_button.clicked.connect(lambda: self._emit_tag(self.rule_removed_requested))
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Forget this scope's own setting: the inherited or built-in rule applies")
        self.reset_button.clicked.connect(lambda: self._emit_tag(self.rule_reset_requested))
        row_buttons = QHBoxLayout()
        row_buttons.addStretch(1)
        row_buttons.addWidget(self.switch_off_button)
        row_buttons.addWidget(self.reset_button)

        self.tag_edit = QLineEdit()
        self.tag_edit.setPlaceholderText("tag, e.g. project-relevant")
        self.tag_edit.textChanged.connect(lambda _text: self._update_buttons())
        self.target_combo = QComboBox()
        for value, label in TARGET_KINDS:
            self.target_combo.addItem(label, value)
        self.auto_check = QCheckBox("Approve automatically (no review)")
        self.save_button = QPushButton("Add rule")
        self.save_button.clicked.connect(self._save_rule)
        form = QHBoxLayout()
        form.addWidget(QLabel("#"))
        form.addWidget(self.tag_edit, 1)
        form.addWidget(QLabel("to"))
        form.addWidget(self.target_combo)
        form.addWidget(self.auto_check)
        form.addWidget(self.save_button)
        layout = QVBoxLayout(rules_box)
        layout.addWidget(hint)
        layout.addWidget(self.rules_view)
        layout.addLayout(row_buttons)
        layout.addLayout(form)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        main = QVBoxLayout(self)
        main.addWidget(self.heading)
        main.addWidget(self.path_label)
        main.addWidget(self.sibling_box)
        main.addWidget(rules_box, 1)
        main.addWidget(buttons)
        self.settings = settings
        self.set_settings(settings)

    def set_settings(self, settings: ScopeSettings) -> None:
        """Show ``settings`` (after a change, reloaded); the picked rule stays picked."""
        picked = self.current_tag()
        self.settings = settings
        scope = settings.scope
        self.setWindowTitle(f"Scope Settings — {scope.name}")
        self.heading.setText(f"<b>{scope_label(scope)}</b>")
        self.path_label.setText(scope.path)
        is_tp = scope.kind == ScopeKind.THINK_PROCESS
        # An agent hangs beside the tree's levels: its rules reach the kinds above its parent's, inclusive.
        self._offer_targets_above(ScopePath.parse(scope.parent).kind if scope.kind is ScopeKind.AGENT and scope.parent
                                  else scope.kind)
        self.sibling_box.setVisible(is_tp)
        self.sibling_check.blockSignals(True)
        self.sibling_check.setChecked(scope.sibling_results_visible)
        self.sibling_check.blockSignals(False)
        session = settings.session_name or "its session"
        self.sibling_hint.setText(f"Off by default. When on, search and agents here also see the results (never "
                                  f"the notes) of the other think processes of {session}.")
        self.rules_view.clear()
        for rule in settings.rules:
            where = "built-in" if rule.defined_in is None else "this scope" if rule.defined_in == scope.path \
                else settings.names.get(rule.defined_in, rule.defined_in)
            item = QTreeWidgetItem([f"#{rule.tag}", target_text(rule.target, settings.names),
                                    "Automatic" if rule.auto_approve else "Review", where])
            item.setData(0, Qt.ItemDataRole.UserRole, rule.tag)
            self.rules_view.addTopLevelItem(item)
        for tag in settings.switched_off:
            item = QTreeWidgetItem([f"#{tag}", "—", "Switched off", "this scope"])
            item.setData(0, Qt.ItemDataRole.UserRole, tag)
            item.setForeground(0, self.palette().placeholderText())
            self.rules_view.addTopLevelItem(item)
        for column in range(4):
            self.rules_view.resizeColumnToContents(column)
        self.select_tag(picked)
        self._update_buttons()

    def current_tag(self) -> str | None:
        """The tag of the picked row, or None."""
        item = self.rules_view.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def select_tag(self, tag: str | None) -> bool:
        """Pick the row of ``tag``; returns whether it is listed."""
        for row in range(self.rules_view.topLevelItemCount()):
            item = self.rules_view.topLevelItem(row)
            if tag is not None and item.data(0, Qt.ItemDataRole.UserRole) == tag:
                self.rules_view.setCurrentItem(item)
                return True
        return False

    def _rule(self, tag: str | None) -> PromotionRule | None:
        return next((r for r in self.settings.rules if r.tag == tag), None)

    def _offer_targets_above(self, kind: ScopeKind) -> None:
        """Offer only the kinds at or above ``kind``: a rule's target must lie above its documents (a project
        group's rule cannot promote to "its project"); a full scope path stays offered."""
        order = list(ScopeKind)
        model = self.target_combo.model()
        assert isinstance(model, QStandardItemModel)  # a QComboBox's own model
        enabled = []
        for row in range(self.target_combo.count()):
            value = self.target_combo.itemData(row)
            allowed = value not in dict(TARGET_KINDS) or order.index(ScopeKind(value)) <= order.index(kind)
            model.item(row).setEnabled(allowed)
            enabled.append(allowed)
        if not enabled[self.target_combo.currentIndex()]:
            self.target_combo.setCurrentIndex(enabled.index(True))

    def _rule_picked(self) -> None:
        tag = self.current_tag()
        rule = self._rule(tag)
        if tag is not None:
            self.tag_edit.setText(tag)
        if rule is not None:
            index = self.target_combo.findData(rule.target)
            if index < 0:  # a rule to a full scope path
                self.target_combo.addItem(target_text(rule.target, self.settings.names), rule.target)
                index = self.target_combo.count() - 1
            self.target_combo.setCurrentIndex(index)
            self.auto_check.setChecked(rule.auto_approve)
        self._update_buttons()

    def _typed_tag(self) -> str | None:
        try:
            return normalize_tag(self.tag_edit.text().strip().lstrip("#"))
        except InvalidInput:
            return None

    def _update_buttons(self) -> None:
        tag = self.current_tag()
        rule = self._rule(tag)
        here = self.settings.scope.path
        self.switch_off_button.setEnabled(rule is not None)
        self.reset_button.setEnabled(tag in self.settings.switched_off
                                     or (rule is not None and rule.defined_in == here))
        typed = self._typed_tag()
        self.save_button.setEnabled(typed is not None)
        self.save_button.setText("Save rule" if self._rule(typed) is not None else "Add rule")

    def _save_rule(self) -> None:
        tag = self._typed_tag()
        if tag is not None:
            self.rule_set_requested.emit(tag, self.target_combo.currentData(), self.auto_check.isChecked())

    def _emit_tag(self, signal: Any) -> None:
        tag = self.current_tag()
        if tag is not None:
            signal.emit(tag)


class ScopeSettingsFlow(QObject):
    """Opens :class:`ScopeSettingsDialog` for a scope and carries its changes out through the workbench.

    ``dialog`` is the open dialog (None before the first). Errors reach the user as the workbench's
    ``failed`` messages; the dialog then still shows the last settings loaded.
    """

    def __init__(self, workbench: Workbench, window: QWidget) -> None:
        super().__init__(window)
        self.workbench = workbench
        self.window = window
        self.dialog: ScopeSettingsDialog | None = None

    def open(self, path: str) -> None:
        """Load the settings of scope ``path`` and show them."""
        lib = self.workbench.lib
        self.workbench.read(lambda _c: load_scope_settings(lib, path), self._show, title="Scope settings")

    def _show(self, settings: ScopeSettings) -> None:
        if self.dialog is not None and self.dialog.isVisible() and self.dialog.settings.scope.path == \
                settings.scope.path:
            self.dialog.set_settings(settings)
            self.dialog.raise_()
            return
        if self.dialog is not None:
            self.dialog.close()
        dialog = ScopeSettingsDialog(settings, self.window)
        path, wb = settings.scope.path, self.workbench
        dialog.sibling_results_toggled.connect(
            lambda on: wb.set_sibling_results_visible(path, on, on_done=self._reload))
        dialog.rule_set_requested.connect(lambda tag, target, auto: wb.set_promotion_rule(
            path, tag, target=target, auto_approve=auto, on_done=self._reload))
        dialog.rule_removed_requested.connect(lambda tag: wb.remove_promotion_rule(path, tag, on_done=self._reload))
        dialog.rule_reset_requested.connect(lambda tag: wb.reset_promotion_rule(path, tag, on_done=self._reload))
        dialog.finished.connect(lambda _result: self._closed(dialog))
        self.dialog = dialog
        dialog.open()

    def _reload(self, _result: object = None) -> None:
        dialog = self.dialog
        if dialog is None:
            return
        lib, path = self.workbench.lib, dialog.settings.scope.path
        self.workbench.read(lambda _c: load_scope_settings(lib, path),
                            lambda settings: dialog is self.dialog and dialog.set_settings(settings),
                            title="Scope settings")

    def _closed(self, dialog: ScopeSettingsDialog) -> None:
        if dialog is self.dialog:
            self.dialog = None
        dialog.deleteLater()
