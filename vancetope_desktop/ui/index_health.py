"""The search index's health in the window: a damaged or incomplete vector store is shown, and rebuilt on request.

Thin over ``services.indexing`` (the same functions as ``vancetope index status`` and ``index rebuild``):
:meth:`IndexHealth.check` runs ``index_status`` at start-up and whenever the indexing process fails; a
problem becomes a failed "Search index" task in the Tasks panel and a status-bar notice: an embedding model
that cannot run here (its Retry checks again, once the model is installed or the setting changed), else the
vector store's problems (its Retry rebuilds the index). :meth:`IndexHealth.rebuild` is the File ▸ Rebuild
Search Index action.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from ..services import indexing
from .task_text import TaskMessage
from .tasks import Task, TaskState
from .workbench import Workbench

TASK_TITLE = "Search index"


class IndexHealth(QObject):
    """Checks the library's vector store and rebuilds it, reporting through the workbench's tasks.

    Signals:
        problem_found(str): the check found something wrong (the first problem, for the status bar).
    """

    problem_found = Signal(str)

    def __init__(self, workbench: Workbench) -> None:
        super().__init__(workbench)
        self._workbench = workbench
        self._task: Task | None = None  # the failed "Search index" task shown now, if any
        workbench.indexer.finished.connect(lambda report: self.check() if report is None else None)

    def check(self) -> Task:
        """Check the model and compare the vector store with the library in the background (``index_status``);
        show what is wrong, if anything."""
        lib = self._workbench.lib
        return self._workbench.read(lambda _context: indexing.index_status(lib), self._checked)

    def _checked(self, status: indexing.IndexStatus) -> None:
        if status.model_problem is not None:
            self._show([status.model_problem, "Retry checks again once the model is there; keyword search works "
                        "meanwhile."], self.check, f"Search by meaning is unavailable: {status.model_problem}")
            return
        problems = status.problems
        if problems:
            self._show([*problems, "Retry rebuilds the search index from the library (File ▸ Rebuild Search "
                        "Index); keyword search works meanwhile."], self.rebuild,
                       f"The search index needs a rebuild: {problems[0]}")
        elif self._task is not None and self._task.state == TaskState.FAILED and self._task.retry == self.check:
            self._task.retry = None  # the model is back
            self._workbench.tasks.finish(self._task, TaskState.DONE)

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
