"""The search index's health in the window: a damaged or incomplete vector store is shown, and rebuilt on request.

Thin over ``services.indexing`` (the same functions as ``vancetope index status`` and ``index rebuild``):
:meth:`IndexHealth.check` runs ``index_status`` at start-up and whenever the indexing process fails; a
problem becomes a failed "Search index" task in the Tasks panel and a status-bar notice: an embedding model
that cannot run here (its Retry checks again, once the model is installed or the setting changed), else the
vector store's problems (its Retry rebuilds the index). :meth:`IndexHealth.rebuild` is the File ▸ Rebuild
Search Index action.

One cause, one failed task: while the model cannot run, the other tasks it makes fail (loading the query
encoder, indexing, installing the demo) are folded into the "Search index" task, named in its messages. When the
model works again (it loads, a drain embeds documents, a search by meaning answers: :meth:`model_works`), that
task turns done and :attr:`IndexHealth.model_recovered` tells the search pane.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from ..services import indexing
from .task_text import TaskMessage
from .tasks import Task, TaskState
from .workbench import Workbench

TASK_TITLE = "Search index"
MODEL_TASKS = frozenset({"Loading the embedding model", "Indexing"})
"""Tasks (``ui/indexer.py``'s titles) that fail whenever the model cannot run: folded into the model's task."""


class IndexHealth(QObject):
    """Checks the library's vector store and rebuilds it, reporting through the workbench's tasks.

    Signals:
        problem_found(str): the check found something wrong (the first problem, for the status bar).
        model_recovered(): the embedding model works again after a problem was shown.
    """

    problem_found = Signal(str)
    model_recovered = Signal()

    def __init__(self, workbench: Workbench) -> None:
        super().__init__(workbench)
        self._workbench = workbench
        self._task: Task | None = None  # the failed "Search index" task shown now, if any
        self._model_problem: str | None = None  # the model's problem that task shows, None when it works
        indexer = workbench.indexer
        indexer.finished.connect(self._drained)
        indexer.model_failed.connect(lambda _reason: self.check())
        indexer.model_ready.connect(self.model_works)
        # Folded once the failure is recorded (other slots of this signal still see the task listed).
        workbench.tasks.task_changed.connect(lambda task: QTimer.singleShot(0, lambda: self._fold(task)))

    def check(self) -> Task:
        """Check the model and compare the vector store with the library in the background (``index_status``);
        show what is wrong, if anything."""
        lib = self._workbench.lib
        return self._workbench.read(lambda _context: indexing.index_status(lib), self._checked)

    def _checked(self, status: indexing.IndexStatus) -> None:
        if status.model_problem is not None:
            self._model_problem = status.model_problem
            self._show([status.model_problem, "Retry checks again once the model is there; keyword search works "
                        "meanwhile."], self.check,
                       "Search by meaning is unavailable: the embedding model cannot run here (Tasks ▸ Search index).")
            for task in list(self._workbench.tasks.tasks):
                self._fold(task)
            return
        problems = status.problems
        if problems:
            self._show([*problems, "Retry rebuilds the search index from the library (File ▸ Rebuild Search "
                        "Index); keyword search works meanwhile."], self.rebuild,
                       f"The search index needs a rebuild: {problems[0]}")
        else:
            self.model_works()

    def model_works(self) -> None:
        """The embedding model ran (it loaded, a drain embedded documents, a search by meaning answered): the
        model's failed "Search index" task turns done and :attr:`model_recovered` is emitted; nothing when no
        model problem is shown."""
        if self._model_problem is None:
            return
        self._model_problem = None
        task = self._task
        if task is not None and task.state == TaskState.FAILED and task.retry == self.check:
            task.retry = None
            task.messages = [*task.messages, TaskMessage("The embedding model works again.", problem=False)]
            self._workbench.tasks.finish(task, TaskState.DONE)
        self.model_recovered.emit()

    def _drained(self, report: dict | None) -> None:
        """The indexing process's drain ended: a failure is checked (the model? the store?), embedded documents
        prove the model works."""
        if report is None:
            self.check()
        elif report.get("indexed") and not report.get("cancelled"):
            self.model_works()

    def _fold(self, task: Task) -> None:
        """A task failed because the model cannot run (one of :data:`MODEL_TASKS`, or its error quotes the
        model's problem) leaves the list: the "Search index" task names it instead."""
        shown, problem = self._task, self._model_problem
        if (problem is None or shown is None or task is shown or task.state != TaskState.FAILED
                or (task.title not in MODEL_TASKS and problem not in task.error)):
            return
        self._workbench.tasks.remove(task)
        shown.messages = [*shown.messages, f"{task.title} failed for this reason too."]
        self._workbench.tasks.task_changed.emit(shown)

    def _show(self, lines: list[str], retry: Callable[[], Task], notice: str) -> None:
        """A failed "Search index" task: ``lines[0]`` its error, the rest its messages; once per problem."""
        tasks = self._workbench.tasks
        shown = self._task
        if shown in tasks.tasks and shown.state == TaskState.FAILED and shown.error == lines[0]:  # type: ignore[union-attr]
            return  # already in the Tasks panel
        task = tasks.track(TASK_TITLE, lambda: None)
        task.messages = lines[1:]
        task.retry = retry
        tasks.finish(task, TaskState.FAILED, lines[0])
        self._task = task
        self.problem_found.emit(notice)

    def rebuild(self) -> Task:
        """Rebuild the search index from the library (:meth:`Workbench.rebuild_index`); a failed "Search
        index" task shown then turns done."""

        def done(report: indexing.RebuildReport) -> None:
            if self._task is not None and self._task.state == TaskState.FAILED:
                self._task.retry = None
                self._task.messages = [TaskMessage(f"Rebuilt: {report.queued} documents to embed.", problem=False)]
                self._workbench.tasks.finish(self._task, TaskState.DONE)
            kept = f"; the damaged store is kept in {report.moved_aside}" if report.moved_aside else ""
            self._workbench.notice.emit(f"Rebuilding the search index: {report.queued} documents to embed{kept}")

        return self._workbench.rebuild_index(on_done=done)
