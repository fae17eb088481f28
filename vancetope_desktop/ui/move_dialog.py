"""Moving documents between scopes (issue 4): where a move may go, the menu offering it, the confirmation.

A document moves only along its branch of the scope tree: up to an ancestor (promote) or down to a
descendant (demote), as ``services.moves`` enforces. Before every move the user sees what moves, from
where to where, which scopes will newly see it and which will stop seeing it (``moves.visibility_change``),
and may give a reason for the audit trail. :mod:`.scope_move_flow` runs that sequence (preview on the
read lane, dialog, move on the write lane); :mod:`.publish_dialog` words its confirmation like this one.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentType
from ..core.scope_info import ScopeInfo
from ..core.scopes import ScopeKind
from ..services import documents, folders, moves, scopes
from ..services.library import Library
from ..store.db import read_session
from .dnd import scope_chain

LISTED_TITLES = 5  # titles named in the dialog before "and N more"
LISTED_SCOPES = 4  # scopes named before a summary by kind
_PLURALS = {ScopeKind.GROUP: "project groups", ScopeKind.PROJECT: "projects", ScopeKind.SESSION: "sessions",
            ScopeKind.THINK_PROCESS: "think processes", ScopeKind.AGENT: "agents"}


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
        ids: the documents (or folders) that change scope: those asked to move, less those in ``target``.
        titles: their titles, in the same order.
        folders: how many of them are folders; ``inside``: the items moving along inside those folders.
        sources: the scopes they are in now (never ``target``); ``target``: where they go.
        direction: ``up`` (promote), ``down`` (demote), ``mixed`` or ``none`` (all there already).
        gains / loses: scopes that will newly see them / will no longer see them (tree order).
        already: ids of the documents asked to move that are in ``target`` already (they stay).
        already_titles: their titles, in the same order.
        topics / subtopics / atoms: how many of them are topics, and what those carry along (their topics below
            and the atoms in them, ``moves.topic_carries``): a topic moves with its subtree.
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
    already: tuple[str, ...] = ()
    already_titles: tuple[str, ...] = ()
    topics: int = 0
    subtopics: int = 0
    atoms: int = 0


def load_move_preview(lib: Library, ids: Sequence[str], target: str) -> MovePreview:
    """Load what moving ``ids`` to scope ``target`` would change (runs on a worker thread).

    Documents already in ``target`` are set apart (:attr:`MovePreview.already`): they neither move nor
    count as sources, so a selection from a think process and its project, moved to the project, reads
    as one promotion.

    Raises:
        DocumentNotFound. ScopeNotFound. ScopeError: ``target`` is on another branch of the tree. InvalidTopic: a
        topic tree's root (it stays with its scope; the service's message says what to move instead).
    """
    docs = [documents.get_document(lib, i) for i in dict.fromkeys(ids)]
    change = moves.visibility_change(lib, [d.id for d in docs], target)
    by_path = {s.path: s for s in scopes.list_scopes(lib, include_archived=True)}
    there = change.target_scope
    moving = [d for d in docs if d.scope != there]
    staying = [d for d in docs if d.scope == there]
    with read_session(lib.engine) as session:
        inside = sum(len(folders.with_contents(session, d.id)) - 1 for d in moving
                     if d.type == DocumentType.FOLDER)
    carried = [moves.topic_carries(lib, d.id) for d in moving if d.type == DocumentType.TOPIC]
    source_paths = list(dict.fromkeys(d.scope for d in moving))
    ups = {there in scopes.ancestry(lib, s) for s in source_paths}
    direction = "none" if not ups else "mixed" if len(ups) == 2 else "up" if ups == {True} else "down"
    return MovePreview(
        ids=tuple(d.id for d in moving), titles=tuple(d.title for d in moving),
        folders=sum(1 for d in moving if d.type == DocumentType.FOLDER), inside=inside,
        sources=tuple(by_path[s] for s in source_paths), target=by_path[there], direction=direction,
        gains=tuple(by_path[s] for s in change.gains if s in by_path),
        loses=tuple(by_path[s] for s in change.loses if s in by_path),
        already=tuple(d.id for d in staying), already_titles=tuple(d.title for d in staying),
        topics=len(carried), subtopics=sum(b for b, _ in carried), atoms=sum(a for _, a in carried),
    )


def visibility_texts(gains: Sequence[ScopeInfo], loses: Sequence[ScopeInfo], count: int = 1) -> tuple[str, str]:
    """The "will newly see" and "will no longer see" lines of the move and publish confirmations.

    Args:
        gains / loses: the scopes that gain / lose sight (tree order).
        count: how many documents move (``it`` or ``them``).

    Returns:
        ``(gains text, loses text)``: scope summaries (:func:`summarise_scopes`), or a sentence starting
        "None:" that says what an empty list means, worded alike for both.
    """
    it = "it" if count == 1 else "them"
    return (summarise_scopes(gains) or f"None: only the scopes that see {it} now will see {it}",
            summarise_scopes(loses) or f"None: every scope that sees {it} now still will")


def visibility_labels(count: int = 1) -> tuple[str, str]:
    """The form labels of those two lines: ``("Will newly see it:", "Will no longer see it:")``."""
    it = "it" if count == 1 else "them"
    return f"Will newly see {it}:", f"Will no longer see {it}:"


def already_there_text(preview: MovePreview) -> str:
    """What the status bar says when nothing needs to move ("“Notes” is already in …", "All 3 documents …")."""
    titles, name = preview.already_titles, preview.target.name
    if len(titles) == 1:
        return f"“{titles[0]}” is already in {name}"
    return f"All {len(titles)} documents are already in {name}" if titles else f"Already in {name}"


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
        self.heading = QLabel(f"<b>{html.escape(heading_text(preview, verb))}</b>")
        self.heading.setWordWrap(True)
        self.titles_label = QLabel(summarise_titles(preview.titles))
        self.titles_label.setWordWrap(True)
        # One title is in the heading already, unless the heading counts (some stay where they are).
        self.titles_label.setVisible(len(preview.titles) > 1 or (bool(preview.already) and bool(preview.titles)))
        self.titles_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.from_label = QLabel(", ".join(scope_label(s) for s in preview.sources))
        to = scope_label(preview.target) + (f" › {folder_title}" if folder_title else "")
        self.to_label = QLabel(to)
        count = len(preview.ids) + preview.inside + preview.subtopics + preview.atoms
        gains, loses = visibility_texts(preview.gains, preview.loses, count)
        self.gains_label = QLabel(gains)
        self.loses_label = QLabel(loses)
        for label in (self.from_label, self.to_label, self.gains_label, self.loses_label):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)  # scope names are the user's text
        self.loses_label.setProperty("role", "warning" if preview.loses else "")
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("Optional: kept in the document's history")
        form = QFormLayout()
        form.addRow("From:", self.from_label)
        form.addRow("To:", self.to_label)
        gains_label, loses_label = visibility_labels(count)
        form.addRow(gains_label, self.gains_label)
        form.addRow(loses_label, self.loses_label)
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


def heading_text(preview: MovePreview, verb: str | None = None) -> str:
    """The confirmation's question: "Promote “Title” to Project: X?", "Promote 1 document (1 is already in X) …"."""
    verb = verb or _VERBS[preview.direction]
    text = f"{verb} {_what(preview)} to {scope_label(preview.target)}?"
    if preview.already:
        n = len(preview.already)
        text = (f"{verb} {_what(preview, count_one=True)} ({n} {'is' if n == 1 else 'are'} already in "
                f"{preview.target.name}) to {scope_label(preview.target)}?")
    return text


def done_text(preview: MovePreview) -> str:
    """What a window says once the move is made: "Promoted the topic “Herons” with 1 subtopic and 4 atoms to …"."""
    verb = {"up": "Promoted", "down": "Demoted"}.get(preview.direction, "Moved")
    return f"{verb} {_what(preview)} to {scope_label(preview.target)}"


def _what(preview: MovePreview, *, count_one: bool = False) -> str:
    """ "“Title”", "3 documents", "the folder “Notes” with 4 items" for the dialog's heading.

    ``count_one``: one document reads "1 document" (beside a count of those staying), not its title.
    """
    count = len(preview.ids)
    if count == 1 and not count_one:
        title = f"“{preview.titles[0]}”"
        if preview.folders:
            return f"the folder {title} with {preview.inside} item{'s' if preview.inside != 1 else ''}"
        if preview.topics:
            return f"the topic {title}{_carried(preview)}"
        return title
    if preview.topics == count:
        return f"{count} topics{_carried(preview)}"
    noun = "item" if preview.folders else "document"
    text = f"{count} {noun}{'s' if count != 1 else ''}"
    if preview.inside:
        text += f" (and {preview.inside} inside {'its folder' if preview.folders == 1 else 'their folders'})"
    return text


def _carried(preview: MovePreview) -> str:
    """ " with 1 subtopic and 4 atoms": what moving topics carry along (empty when nothing)."""
    parts = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in ((preview.subtopics, "subtopic"),
                                                                  (preview.atoms, "atom")) if n]
    return f" with {' and '.join(parts)}" if parts else ""
