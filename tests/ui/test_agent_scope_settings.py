"""The scope settings of an agent scope: a rule may promote only to a kind above the agent."""

from vancetope_desktop.services import scopes
from vancetope_desktop.ui.scope_settings_dialog import ScopeSettingsDialog, load_scope_settings


def _offered(dialog):
    model = dialog.target_combo.model()
    return [dialog.target_combo.itemData(r) for r in range(dialog.target_combo.count()) if model.item(r).isEnabled()]


def test_an_agent_s_rules_target_its_project_or_group_only(qtbot, library):
    scopes.create_scope(library, "agent", "tau", parent="project/inbox")
    scopes.create_scope(library, "agent", "pi", parent="group/default")
    under_project = ScopeSettingsDialog(load_scope_settings(library, "agent/tau"))
    qtbot.addWidget(under_project)
    assert _offered(under_project) == ["project", "group"]
    under_group = ScopeSettingsDialog(load_scope_settings(library, "agent/pi"))
    qtbot.addWidget(under_group)
    assert _offered(under_group) == ["group"]
