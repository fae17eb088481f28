"""Moving documents between scopes (issue 4): where a move may go, the menu offering it, the confirmation.

A document moves only along its branch of the scope tree: up to an ancestor (promote) or down to a
descendant (demote), as ``services.moves`` enforces. Before every move the user sees what moves, from
where to where, which scopes will newly see it and which will stop seeing it (``moves.visibility_change``),
and may give a reason for the audit trail. :class:`ScopeMoveFlow` runs that sequence through the
window's :class:`~.workbench.Workbench`: preview on the read lane, dialog, move on the write lane. It also
runs "publish to project" (``review.publish_think_process``) behind a short confirmation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentStatus, DocumentType
from ..core.scope_info import ScopeInfo
from ..core.scopes import ScopeKind
from ..services import documents, moves, scopes
from ..services.library import Library
from ..store.db import read_session
from .dnd import scope_chain
from .folder_model import FolderTarget

if TYPE_CHECKING:
    from .workbench import Workbench

LISTED_TITLES = 5  # titles named in the dialog before "and N more"
LISTED_SCOPES = 4  # scopes named before a summary by kind
_PLURALS = {ScopeKind.GROUP: "project groups", ScopeKind.PROJECT: "projects", ScopeKind.SESSION: "sessions",
            ScopeKind.THINK_PROCESS: "think processes"}


def scope_label(scope: ScopeInfo) -> str:
    """A scope as people read it: ``Think Process: Hypothesis Check``."""
    return f"{scope.kind.label}: {scope.name}"


def summarise_scopes(found: Sequence[ScopeInfo], limit: int = LISTED_SCOPES) -> str:
    """Scope labels joined by commas; past ``limit``, the rest counted by kind ("and 5 more: 2 sessions, …")."""
    if len(found) <= limit + 1:  # "and 1 more" would be longer than the name itself
        return ", ".join(scope_label(s) for s in found)
    rest = Counter(s.kind for s in found[limit:])
    kinds = ", ".join(f"{n} {_PLURALS[k] if n != 1 else k.label.lower()}" for k, n in rest.items())
    return ", ".join(scope_label(s) for s in found[:limit]) + f" and {len(found) - limit} more ({kinds})"


def summarise_titles(titles: Sequence[str], limit: int = LISTED_TITLES) -> str:
    """Quoted titles, one a line, with "and N more" past ``limit``."""
    shown = [f"“{t}”" for t in titles[:limit]]
    if len(titles) > limit:
        shown.append(f"and {len(titles) - limit} more")
    return "\n".join(shown)


# --- where a move may go ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveTargets:
    """The scopes documents from some sources may move to, in tree order.

    Attributes:
        promote: ancestors of every source (top of the tree first).
        demote: descendants of every source, with their depth below the sources (1: a child).
        other: scopes on every source's branch that are neither (a selection from several scopes).
    """

    promote: list[ScopeInfo]
    demote: list[tuple[ScopeInfo, int]]
    other: list[ScopeInfo]

    def __bool__(self) -> bool:
        return bool(self.promote or self.demote or self.other)

    def paths(self) -> list[str]:
        """Every target's path, promotions first."""
        return [s.path for s in self.promote] + [s.path for s, _ in self.demote] + [s.path for s in self.other]


def move_targets(all_scopes: Sequence[ScopeInfo], sources: Sequence[str]) -> MoveTargets:
    """The scopes of ``all_scopes`` (parents before children) that documents in ``sources`` may move to.

    A target must be an ancestor or a descendant of every source (``services.moves.check_move``); the
    sources' own scope is left out when they all share it.
    """
    parents = {s.path: s.parent for s in all_scopes}
    chains = {source: scope_chain(parents, source) for source in set(sources)}
    promote, demote, other = [], [], []
    for scope in all_scopes:
        if set(chains) == {scope.path}:
            continue
        own = scope_chain(parents, scope.path)
        above = [scope.path in chain for chain in chains.values()]
        below = [source in own for source in chains]
        if not chains or not all(a or b for a, b in zip(above, below, strict=True)):
            continue
        if all(above):
            promote.append(scope)
        elif all(below):
            depth = min(own.index(source) for source in chains)
            demote.append((scope, depth))
        else:
            other.append(scope)
    return MoveTargets(promote, demote, other)


def fill_move_menu(menu: QMenu, all_scopes: Sequence[ScopeInfo], sources: Sequence[str],
                   on_pick: Callable[[str], None]) -> bool:
    """Fill ``menu`` with the scopes documents in ``sources`` may move to; returns whether there is one.

    Promotions come first (↑, the group at the top), then demotions (↓, indented like the tree). Picking
    an entry calls ``on_pick(scope path)``.
    """
    menu.clear()
    targets = move_targets(all_scopes, sources)
    if not sources or not targets:
        menu.addAction("No other scope on this branch").setEnabled(False)
        return False

    def add(text: str, scope: ScopeInfo, tip: str) -> None:
        action = menu.addAction(text)
        action.setToolTip(f"{tip} {scope_label(scope)} ({scope.path})")
        action.triggered.connect(lambda _checked=False, path=scope.path: on_pick(path))

    for scope in targets.promote:
        add(f"↑ {scope_label(scope)}", scope, "Promote to")
    if targets.promote and (targets.demote or targets.other):
        menu.addSeparator()
    for scope, depth in targets.demote:
        add(f"↓ {'    ' * (depth - 1)}{scope_label(scope)}", scope, "Demote to")
    if targets.other and targets.demote:
        menu.addSeparator()
    for scope in targets.other:
        add(f"↕ {scope_label(scope)}", scope, "Move to")
    menu.setToolTipsVisible(True)
    return True


# --- what a move changes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MovePreview:
    """What the confirmation shows, loaded on a worker thread by :func:`load_move_preview`.

    Attributes:
        ids: the documents (or folders) asked to move.
        titles: their titles, in the same order.
        folders: how many of them are folders; ``inside``: the items moving along inside those folders.
        sources: the scopes they are in now; ``target``: where they go.
        direction: ``up`` (promote), ``down`` (demote), ``mixed`` or ``none`` (all there already).
        gains / loses: scopes that will newly see them / will no longer see them (tree order).
    """

    ids: tuple[str, ...]
    titles: tuple[str, ...]
    folders: int
    inside: int
    sources: tuple[ScopeInfo, ...]
    target: ScopeInfo
    direction: str
    gains: tuple[ScopeInfo, ...]
    loses: tuple[ScopeInfo, ...]


def load_move_preview(lib: Library, ids: Sequence[str], target: str) -> MovePreview:
    """Load what moving ``ids`` to scope ``target`` would change (runs on a worker thread).

    Raises:
        DocumentNotFound. ScopeNotFound. ScopeError: ``target`` is on another branch of the tree.
    """
    docs = [documents.get_document(lib, i) for i in dict.fromkeys(ids)]
    change = moves.visibility_change(lib, [d.id for d in docs], target)
    by_path = {s.path: s for s in scopes.list_scopes(lib, include_archived=True)}
    with read_session(lib.engine) as session:
        inside = sum(len(documents.with_contents(session, d.id)) - 1 for d in docs if d.type == DocumentType.FOLDER)
    source_paths = list(dict.fromkeys(d.scope for d in docs))
    ups = {change.target_scope in scopes.ancestry(lib, s) for s in source_paths if s != change.target_scope}
    direction = "none" if not ups else "mixed" if len(ups) == 2 else "up" if ups == {True} else "down"
    return MovePreview(
        ids=tuple(d.id for d in docs), titles=tuple(d.title for d in docs),
        folders=sum(1 for d in docs if d.type == DocumentType.FOLDER), inside=inside,
        sources=tuple(by_path[s] for s in source_paths), target=by_path[change.target_scope], direction=direction,
        gains=tuple(by_path[s] for s in change.gains if s in by_path),
        loses=tuple(by_path[s] for s in change.loses if s in by_path),
    )


_VERBS = {"up": "Promote", "down": "Demote", "mixed": "Move", "none": "Move"}


class MoveDialog(QDialog):
    """The confirmation of a move between scopes: what, from → to, who gains and loses sight, a reason.

    Accepting it means "move"; :meth:`reason` is the text for the audit trail.
    """

    def __init__(self, preview: MovePreview, parent: QWidget | None = None, *, folder_title: str | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        verb = _VERBS[preview.direction]
        self.setWindowTitle(f"{verb} to {preview.target.name}")
        self.setMinimumWidth(520)
        what = _what(preview)
        self.heading = QLabel(f"<b>{verb} {what} to {scope_label(preview.target)}?</b>")
        self.heading.setWordWrap(True)
        self.titles_label = QLabel(summarise_titles(preview.titles))
        self.titles_label.setWordWrap(True)
        self.titles_label.setVisible(len(preview.titles) > 1)  # one title is in the heading already
        self.titles_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.from_label = QLabel(", ".join(scope_label(s) for s in preview.sources))
        to = scope_label(preview.target) + (f" › {folder_title}" if folder_title else "")
        self.to_label = QLabel(to)
        self.gains_label = QLabel(summarise_scopes(preview.gains) or "No new scope")
        self.loses_label = QLabel(summarise_scopes(preview.loses) or "None: every scope that sees it now still will")
        for label in (self.from_label, self.to_label, self.gains_label, self.loses_label):
            label.setWordWrap(True)
        self.loses_label.setProperty("role", "warning" if preview.loses else "")
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("Optional: kept in the document's history")
        form = QFormLayout()
        form.addRow("From:", self.from_label)
        form.addRow("To:", self.to_label)
        form.addRow("Will newly see it:", self.gains_label)
        form.addRow("Will no longer see it:", self.loses_label)
        form.addRow("Reason:", self.reason_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.move_button = self.buttons.addButton(verb, QDialogButtonBox.ButtonRole.AcceptRole)
        self.move_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.titles_label)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.reason_edit.setFocus()

    def reason(self) -> str:
        """The reason typed (stripped; may be empty)."""
        return self.reason_edit.text().strip()


def _what(preview: MovePreview) -> str:
    """ "“Title”", "3 documents", "the folder “Notes” with 4 items" for the dialog's heading."""
    count = len(preview.ids)
    if count == 1:
        title = f"“{preview.titles[0]}”"
        if preview.folders:
            return f"the folder {title} with {preview.inside} item{'s' if preview.inside != 1 else ''}"
        return title
    text = f"{count} items" if preview.folders else f"{count} documents"
    if preview.inside:
        text += f" (and {preview.inside} inside their folders)"
    return text


# --- publishing a think process -----------------------------------------------------------------------


@dataclass(frozen=True)
class PublishPreview:
    """What "publish to project" would ask for: the think process, its live results, the project."""

    think_process: ScopeInfo
    results: int
    target: ScopeInfo


def load_publish_preview(lib: Library, think_process: str) -> PublishPreview:
    """Count a think process's live results and find its project (runs on a worker thread).

    Raises:
        ScopeNotFound. ScopeError: it has no project above it.
    """
    target = moves.check_move(lib, think_process, "project", "up")
    results = documents.list_documents(lib, scope=think_process, include_ancestors=False,
                                       types=(DocumentType.RESULT,),
                                       statuses=(DocumentStatus.ACTIVE, DocumentStatus.STALE))
    return PublishPreview(scopes.get_scope(lib, think_process), len(results), scopes.get_scope(lib, target))


def publish_question(preview: PublishPreview) -> str:
    """The confirmation's sentence ("Request promotion of 4 results of Paper Analysis to project …?")."""
    noun = "result" if preview.results == 1 else "results"
    return (f"Request promotion of {preview.results} {noun} of {preview.think_process.name} to project "
            f"{preview.target.name}? They go to the review queue.")


# --- the flow -----------------------------------------------------------------------------------------


class ScopeMoveFlow(QObject):
    """Runs moves between scopes and publishing for the main window, through its workbench.

    ``request_move`` loads a :class:`MovePreview`, opens a :class:`MoveDialog` (window-modal, not blocking
    the event loop) and, when accepted, moves on the write lane. Failures reach the user as the
    workbench's ``failed`` messages, like every other action. ``dialog`` is the last dialog opened.
    """

    def __init__(self, workbench: Workbench, window: QWidget) -> None:
        super().__init__(window)
        self.workbench = workbench
        self.window = window
        self.dialog: QDialog | None = None

    def request_move(self, ids: Sequence[str], target: str, folder_id: str | None = None) -> None:
        """Ask to move ``ids`` to scope ``target`` (into ``folder_id`` of it, when given)."""
        wanted, lib = list(ids), self.workbench.lib
        if not wanted:
            return
        self.workbench.prepare("Move", lambda _c: load_move_preview(lib, wanted, target),
                               lambda preview: self._confirm_move(preview, folder_id))

    def request_drop(self, ids: Sequence[str], target: FolderTarget) -> None:
        """Documents dropped on a scope root or a folder of another scope than (some of) theirs."""
        self.request_move(ids, target.scope, target.key if target.kind == "folder" else None)

    def _confirm_move(self, preview: MovePreview, folder_id: str | None) -> None:
        if preview.direction == "none" and folder_id is None:
            self.workbench.notice.emit(f"Already in {preview.target.name}")
            return
        snapshot = self.workbench.snapshot
        folder = next((f.title for f in snapshot.folders if f.id == folder_id), None) if snapshot else None
        dialog = MoveDialog(preview, self.window, folder_title=folder)
        dialog.accepted.connect(lambda: self.workbench.move_to_scope(
            preview.ids, preview.target.path, reason=dialog.reason(), folder_id=folder_id,
            target_name=preview.target.name))
        self._show(dialog)

    def request_publish(self, think_process: str) -> None:
        """Ask to request promotion of every result of ``think_process`` to its project."""
        lib = self.workbench.lib
        self.workbench.prepare("Publish", lambda _c: load_publish_preview(lib, think_process), self._confirm_publish)

    def _confirm_publish(self, preview: PublishPreview) -> None:
        if not preview.results:
            box = QMessageBox(QMessageBox.Icon.Information, "Publish to project",
                              f"{preview.think_process.name} has no results to publish yet.",
                              QMessageBox.StandardButton.Ok, self.window)
            self._show(box)
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Publish to project", publish_question(preview),
                          QMessageBox.StandardButton.Cancel, self.window)
        publish = box.addButton("Request promotion", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(publish)
        box.finished.connect(lambda _result: box.clickedButton() is publish and self.workbench.publish_think_process(
            preview.think_process.path, name=preview.think_process.name, target_name=preview.target.name))
        self._show(box)

    def _show(self, dialog: QDialog) -> None:
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.finished.connect(lambda _result: self._closed(dialog))
        self.dialog = dialog
        dialog.open()

    def _closed(self, dialog: QDialog) -> None:
        if dialog is self.dialog:
            self.dialog = None
        dialog.deleteLater()
