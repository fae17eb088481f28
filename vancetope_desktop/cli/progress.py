"""Progress of long commands: a live bar on a terminal, plain lines when stderr goes to a file or a pipe.

rich draws nothing live when its console is not a terminal, so ``vancetope memory upload ... 2> log``
said nothing for minutes (issue 11). :func:`progress` returns rich's bar on a terminal and otherwise
a :class:`ProgressLines` with the part of rich's ``Progress`` interface the commands use.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class ProgressLines:
    """Prints ``label done/total: detail`` on its console each time a task's ``completed`` count moves
    (once per file imported, per batch embedded), and when its detail changes while the count stands still (a
    wait: "reconnecting to the database at …"), never the same line twice in a row. Use as a context manager,
    like rich's ``Progress``."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._tasks: dict[int, dict] = {}

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> int:
        """Start a task labelled ``description``; returns its id for :meth:`update`."""
        task_id = len(self._tasks)
        self._tasks[task_id] = {"label": description, "total": total, "completed": 0, "detail": ""}
        return task_id

    def update(self, task_id: int, *, completed: float | None = None, total: float | None = None,
               description: str | None = None) -> None:
        """Record progress; prints a line when ``completed`` moved or the detail (``description``) changed."""
        task = self._tasks[task_id]
        if total is not None:
            task["total"] = total
        said = False
        if description is not None:  # the label itself: no detail (a wait said before is over)
            detail = "" if description == task["label"] else description
            said, task["detail"] = detail != task["detail"], detail
        moved = completed is not None and completed != task["completed"]
        if not moved and not said:
            return
        if moved:
            task["completed"] = completed
        completed = task["completed"]
        count = f"{completed:g}/{task['total']:g}" if task["total"] else f"{completed:g}"
        self._console.print(f"{task['label']} {count}" + (f": {task['detail']}" if task["detail"] else ""),
                            markup=False, highlight=False)


def progress(console: Console) -> Progress | ProgressLines:
    """A progress display on ``console``: rich's bar on a terminal, :class:`ProgressLines` elsewhere."""
    if not console.is_terminal:
        return ProgressLines(console)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console, transient=True)
