"""The Topics window's parts (issue 14): the tree view that takes drops and says why it refuses one, the atom list
that drags its rows as ids, the dialog asking a split's two labels, and the heading over a topic's atoms."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QMimeData, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.topics import Topic
from .dnd import start_id_drag
from .refusing_tree import DropRefusingTreeView
from .topic_model import TopicFilterProxy, TopicTreeModel


class TopicTreeView(DropRefusingTreeView):
    """The tree of topics: several selected for Merge, F2 renames in place, topics and atoms dropped on a topic
    (a refused drop says why: ``move_refused``)."""

    def __init__(self, model: TopicTreeModel, proxy: TopicFilterProxy, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.topic_model, self.proxy = model, proxy
        self.setModel(proxy)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDragDropOverwriteMode(True)  # a drop lands on a topic: there is no order among topics
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setAutoExpandDelay(600)
        self.setUniformRowHeights(True)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        indexes = [i for i in self.selectedIndexes() if i.column() == 0 and i.flags() & Qt.ItemFlag.ItemIsDragEnabled]
        if indexes:
            start_id_drag(self, self.proxy.mimeData(indexes), len(indexes), "topic")

    def drop_refusal_at(self, mime: QMimeData, index: QModelIndex) -> str | None:
        """The topic model's refusal (the root, the same topic, an ancestor's tree, a topic below itself)."""
        return self.topic_model.drop_refusal(mime, self.proxy.mapToSource(index))


class AtomListView(QTableView):
    """A topic's atoms: several may be selected and dragged (with a "3 atoms" badge) onto a topic of the tree."""

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        rows = self.selectionModel().selectedRows()
        model = self.model()
        if rows and model.flags(rows[0]) & Qt.ItemFlag.ItemIsDragEnabled:
            start_id_drag(self, model.mimeData(rows), len(rows), "atom")


class SplitDialog(QDialog):
    """Asks the labels of the two subtopics a split makes: one for the selected atoms, one for the others."""

    def __init__(self, label: str, picked: int, rest: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Split topic")
        self.first = QLineEdit(self)
        self.first.setPlaceholderText("a label for them")
        self.second = QLineEdit(f"{label} (other)", self)
        form = QFormLayout()
        form.addRow(f"The {picked} selected atom{'s' if picked != 1 else ''}:", self.first)
        form.addRow(f"The other {rest}:", self.second)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        for edit in (self.first, self.second):
            edit.textChanged.connect(lambda _t: ok.setEnabled(all(self.labels())))
        ok.setEnabled(False)
        layout = QVBoxLayout(self)
        said = QLabel(f"Split “{label}” into two new subtopics of it:", self)
        said.setTextFormat(Qt.TextFormat.PlainText)  # a label is plain text, "<b>" and all
        layout.addWidget(said)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def labels(self) -> list[str]:
        """The two labels typed (blanks stripped)."""
        return [self.first.text().strip(), self.second.text().strip()]


def topic_heading(topic: Topic, model: TopicTreeModel) -> str:
    """The right side's heading: the topic's path, counts, surface words and summary (rich text)."""
    path = " › ".join(escape(p) for p in topic.path) or escape(topic.label)
    counts = f"{topic.atoms} atom{'s' if topic.atoms != 1 else ''}"
    if topic.children:
        counts += f" in it and its {len(topic.children)} subtopic{'s' if len(topic.children) != 1 else ''}"
        counts += f" ({topic.own_atoms} in the topic itself)" if topic.own_atoms else ""
    lines = [f"<b>{path}</b> · {counts}"]
    if topic.keywords:
        lines.append("<i>" + escape(", ".join(topic.keywords[:12])) + "</i>")
    if topic.summary:
        lines.append(escape(topic.summary))
    if model.is_inherited(topic.id):
        lines.append(f"<span style='color:gray'>From {escape(topic.scope)}, an ancestor scope: read-only here</span>")
    return "<br>".join(lines)
