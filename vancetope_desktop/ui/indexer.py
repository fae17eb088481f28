"""Keeps the library's index up to date while the window is open.

Embedding runs in a child process (``workers/index_worker.py``, named by importing it so that the import
linter sees the dependency, and started by ``workers.launch``'s command line, which also works frozen), so
torch, the model and vector writes never hold this process's GIL while the user types. The child's JSON lines
become a visible, cancellable "Indexing" task. The query encoder (numpy, no torch) loads here in the background at
start-up; search shows "loading model…" until then. A poll of the library's change counter notices documents written by
other processes (the CLI, an agent over MCP); on a team library the database also announces each change
(``store/change_feed``: PostgreSQL's LISTEN/NOTIFY), which starts that poll at once, so another member's change shows
within a second, and a lost connection is said ("reconnecting…") until it is back.
"""

from __future__ import annotations

import json
import time

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QProcess, QTimer, Signal

from ..index.chroma_server import ServerVectorStore
from ..services import indexing
from ..services.library import Library
from ..store.change_feed import ChangeListener
from ..workers import index_worker, launch
from .tasks import Task, TaskContext, TaskManager, TaskState

POLL_MS = 1500
QUIT_WAIT_MS = 2000  # the worker exits within index_worker.EXIT_GRACE_SECONDS (1 s) of its stdin closing


class Indexer(QObject):
    """Runs the indexing process, shows its progress as a task, and watches for outside changes.

    Signals:
        model_ready(): the query encoder is loaded; searches are fast from now on.
        model_failed(str): the model could not be loaded (the reason).
        progressed(): the indexing process reported progress (documents' states may have changed).
        finished(object): a drain ended (its JSON report as a dict; None when it could not run).
        outside_change(): documents changed or vectors were written by another process.
        waiting_changed(int): documents queued for indexing, library-wide (from the change poll).
        connection_changed(str, object): a team library's server was lost — its part ("database", "vectors") and a
            sentence to show ("reconnecting to the database at …") — or is answering again (the part and None).
    """

    model_ready = Signal()
    model_failed = Signal(str)
    progressed = Signal()
    finished = Signal(object)
    outside_change = Signal()
    waiting_changed = Signal(int)
    connection_changed = Signal(str, object)
    _announced = Signal()  # from the change listener's thread: queued to this object's (the GUI) thread

    def __init__(self, lib: Library, tasks: TaskManager, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lib = lib
        self._tasks = tasks
        self._task: Task | None = None
        self._process: QProcess | None = None
        self._buffer = b""
        self.ready = False
        self.seen_counter = -1
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)
        self._polling = False
        self._started = False
        self._stopping = False
        self._asked = False
        self._rate_origin = (0.0, 0)  # (time, chunks done) of the drain's first report: the rate's start
        self.waiting = 0
        self._listener: ChangeListener | None = None
        self._announced.connect(self.poll)

    def start(self) -> None:
        """Load the query encoder, start the indexing process, and watch for outside changes."""
        self._started = True
        lib = self._lib

        def load(_context: TaskContext) -> None:
            lib.embedder().encode_query("warm up")

        self._tasks.submit("Loading the embedding model", load, lane="index", visible=True, cancellable=False,
                           on_result=lambda _: self._loaded(), on_error=lambda e: self.model_failed.emit(str(e)))
        self._ensure_process()
        self._timer.start()
        self.listen()

    def listen(self) -> None:
        """On a team library, listen to the changes its database announces (each starts a :meth:`poll`) and to the
        connection's state (``connection_changed``); nothing on an embedded library (the poll's timer covers it).
        :meth:`start` calls it; :meth:`stop` ends it."""
        lib = self._lib
        if self._listener is None and lib.engine.dialect.name == "postgresql":
            self._listener = ChangeListener(lib.engine, self._announced.emit,
                                            lambda state: self.connection_changed.emit("database", state))
            self._listener.start()
        if isinstance(lib.vectors, ServerVectorStore) and lib.vectors.on_retry is None:
            # Searches and the index's reads retry on the reading threads while the Chroma server is away.
            lib.vectors.on_retry = lambda state: self.connection_changed.emit(
                "vectors", None if state is None else state.split(";")[0].replace("cannot reach", "reconnecting to"))

    def stop(self) -> None:
        """Stop polling and tell the indexing process to end, without waiting for it.

        The worker reads the end of its stdin, stops after its current batch and exits within
        ``index_worker.EXIT_GRACE_SECONDS`` whatever it is doing; jobs not done stay queued (the queue is
        in SQLite) and the next window resumes them. Waiting here froze the closing window for as long
        as a niced process on a busy machine took to leave (20-30 s). The ``QProcess`` moves to the
        application, so that it outlives the window without being killed, and is deleted once it ends;
        if the application quits first, it waits up to :data:`QUIT_WAIT_MS` for it, the window gone.
        """
        self._stopping = True
        self._timer.stop()
        if self._listener is not None:
            self._listener.stop(wait=False)
            self._listener = None
        if isinstance(self._lib.vectors, ServerVectorStore):
            self._lib.vectors.on_retry = None
        process, self._process = self._process, None
        if process is None:
            return
        process.readyReadStandardOutput.disconnect(self._read)
        process.finished.disconnect(self._process_ended)
        process.closeWriteChannel()  # end of stdin: the worker cancels and exits
        application = QCoreApplication.instance()
        if process.state() != QProcess.ProcessState.NotRunning and application is not None:
            process.setParent(application)
            process.finished.connect(process.deleteLater)
            application.aboutToQuit.connect(lambda: _end_at_quit(process))
        else:
            process.deleteLater()
        if self._task is not None:
            self._tasks.finish(self._task, TaskState.CANCELLED)
            self._task = None

    @property
    def busy(self) -> bool:
        """True from a :meth:`kick` until the indexing process reports the drain ended."""
        return self._asked or self._task is not None

    def kick(self) -> None:
        """Ask the indexing process to drain now (new documents were queued).

        Does nothing before :meth:`start` (a window made with ``start_background=False``): the queue waits
        in SQLite for the next indexing process, as it does for a window that closes mid-drain. Starting
        a process here instead cost every window test that edits a document an import of torch and a
        model load (~5 s of CPU each) that nothing looked at.
        """
        if self._stopping or not self._started:
            return
        self._ensure_process()
        if self._process is not None:
            self._asked = True
            self._process.write(b"drain\n")

    def cancel(self) -> None:
        """Stop the running drain after its current batch."""
        if self._process is not None:
            self._process.write(b"cancel\n")

    # --- the child process -----------------------------------------------------------------------
    def _ensure_process(self) -> None:
        if self._process is not None or self._stopping:
            return
        process = QProcess(self)
        program, *arguments = launch.worker_command(index_worker.__name__, "--library", str(self._lib.paths.root))
        process.setProgram(program)
        process.setArguments(arguments)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        process.readyReadStandardOutput.connect(self._read)
        process.finished.connect(self._process_ended)
        self._process = process
        self._buffer = b""
        process.start()

    def _read(self) -> None:
        if self._process is None:
            return
        self._buffer += bytes(self._process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            self._handle(message)

    def _handle(self, message: dict) -> None:
        event = message.get("event")
        if event == "progress":
            if self._task is None:
                self._rate_origin = (time.monotonic(), message["done"])
            task = self._task or self._new_task()
            text = f"{message['documents_done']}/{message['documents_total']} documents"
            started, first = self._rate_origin
            left = time_left(message["done"] - first, message["total"] - first, time.monotonic() - started)
            if left:
                text += f" · {left}"
            if message.get("current"):
                text += f" · {message['current']}"
            self._tasks.update(task, message["done"], message["total"], text)
            self.progressed.emit()
        elif event == "drained":
            self._asked = False
            task, self._task = self._task, None
            if task is not None:
                task.messages = [f"{doc}: {reason}" for doc, reason in message.get("failed", [])]
                task.detail = f"{message.get('indexed', 0)} documents, {message.get('chunks', 0)} chunks"
                self._tasks.finish(task, TaskState.CANCELLED if message.get("cancelled") else TaskState.DONE)
            self.finished.emit(message)
        elif event == "error":
            self._fail(str(message.get("message")))

    def _new_task(self) -> Task:
        self._task = self._tasks.track("Indexing", self.cancel)
        return self._task

    def _process_ended(self, _code: int, _status) -> None:
        process, self._process = self._process, None
        if process is not None:
            error = bytes(process.readAllStandardError().data()).decode(errors="replace").strip()
            process.deleteLater()
            if not self._stopping:
                self._fail(error.splitlines()[-1] if error else "the indexing process ended")

    def _fail(self, reason: str) -> None:
        self._asked = False
        task, self._task = self._task, None
        if task is None:
            task = self._tasks.track("Indexing", self.cancel)
        task.retry = self.kick
        self._tasks.finish(task, TaskState.FAILED, reason)
        self.finished.emit(None)

    # --- start-up and polling ----------------------------------------------------------------------
    def _loaded(self) -> None:
        self.ready = True
        self.model_ready.emit()

    def note_counter(self, value: int) -> None:
        """Record the change counter + index generation the latest load saw (the poll ignores our own writes)."""
        self.seen_counter = max(self.seen_counter, value)

    def poll(self) -> None:
        """Read the change counter and the indexing queue's size now (the timer does it every
        :data:`POLL_MS`); :attr:`waiting` and ``waiting_changed`` carry the queue's size, the one figure the
        window shows for what waits to be indexed (``indexing.pending_work``, library-wide)."""
        if self._polling:
            return
        self._polling = True
        lib = self._lib
        # Documents changed, or vectors written (another process indexing): both change what panes show.
        # The queue's size tells the status bar what waits even while no drain reports (the model loading
        # in the indexing process, another process holding the writer lock).
        self._tasks.submit("poll", lambda _c: (lib.change_counter() + lib.index_generation(),
                                               indexing.pending_work(lib)[0]), lane="read",
                           on_result=lambda found: self._polled(*found), on_error=lambda _e: self._polled(None, None))

    def _polled(self, counter: int | None, waiting: int | None) -> None:
        self._polling = False
        if waiting is not None and waiting != self.waiting:
            self.waiting = waiting
            self.waiting_changed.emit(waiting)
        if counter is None or counter == self.seen_counter:
            return
        outside = self.seen_counter >= 0
        self.seen_counter = counter
        if outside:
            self.outside_change.emit()


def time_left(done: int, total: int, elapsed_s: float) -> str:
    """"about 4 min left" at the rate measured so far (``done`` of ``total`` units in ``elapsed_s`` seconds);
    empty until a rate exists (nothing done yet) or when nothing is left."""
    if done <= 0 or elapsed_s <= 0 or total <= done:
        return ""
    seconds = (total - done) * elapsed_s / done
    if seconds < 60:
        return "less than a minute left"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


def _end_at_quit(process: QProcess) -> None:
    """Give a stopped indexing process its grace to leave before the application (its parent) goes;
    Qt would otherwise kill it with a warning."""
    if shiboken6.isValid(process) and process.state() != QProcess.ProcessState.NotRunning \
            and not process.waitForFinished(QUIT_WAIT_MS):
        process.kill()
        process.waitForFinished(QUIT_WAIT_MS)
