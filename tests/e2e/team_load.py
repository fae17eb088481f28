"""The team library's load (issue 17): eight real processes at once on one team library, each running mixed
operations and logging each one's outcome as a JSON line; then what the logs say is checked against the database
and the Chroma server. Shared by tests/e2e/test_team_load.py (8 × N) and tests/benchmarks/bench_team_load.py
(8 × 1,000).

The processes (``python -m tests.e2e.team_load ROLE NAME[,NAME…] LIBRARY RUN_FOLDER N SEED``, :func:`main`):

- ``cli`` (3): one Python process invoking the real typer app in-process (``CliRunner``) for each operation, as many
  `vancetope` commands: each opens the library, acts and closes it (a `vancetope` process per operation would spend
  its time importing). Adds, ``edit --if-version`` on the shared facts (conflicts expected: counted, not errors),
  tags, searches by words and by meaning, ``updates`` relations, promotion requests, chat messages, uploads of
  the corpus notes, trash.
- ``mcp`` (3): a `vancetope mcp` server each, driven by the official ``mcp`` client over stdio: memory_store,
  memory_tag, memory_query, memory_relate, memory_request_promotion, chat_append. One client process drives the
  three servers at once (a session each, in one event loop): the servers are the processes under load, and a
  client process of its own for each cost 1.5 CPU s more apiece (Python, the SDK) for nothing the run checks.
- ``window`` (1): the MainWindow, offscreen, its indexer started (its indexing process drains the queue, its
  change listener hears the others); its operations go through the services on the window's library, on the GUI
  thread, as its actions do.
- ``writer`` (1): drains the queue (``indexing.try_drain``) until the others are done.

Each line: ``{"proc", "op", "outcome": ok|conflict|error, "ms", "created": [doc ids], "audit": {action: n},
"error"}``; ``audit`` is what the operation should have added to the audit trail. A process ends with a ``done``
line holding its CPU seconds.
"""

from __future__ import annotations

import gc
import json
import os
import random
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTES = Path(os.environ.get("VANCETOPE_SHARED", REPO.parent / "shared")) / "corpus" / "notes"
SHARED_FACTS = 4
"""Facts every editing process edits with ``--if-version``: few, so that edits race (facts: an edited note would
have its atoms read again, documents no log names)."""
STOP_FILE = "stop"
"""Created in the run's folder when the operating processes are done: the writer and the window then end."""
FINAL_DRAINS = 20
"""At most this many drains after the run (each takes what is left; one normally finds nothing)."""
ROLES = ("cli", "cli", "cli", "mcp", "mcp", "mcp", "window", "writer")
WORDS = ("glacier", "heron", "transformer", "sparse", "attention", "lichen", "tidal", "basalt", "orchid", "quasar",
         "enzyme", "delta", "monsoon", "fjord", "pollen", "kernel")
MEANINGS = ("how birds hunt near water", "ice sheets melting", "efficient attention for long sequences",
            "plants that grow on rocks", "weather of the rainy season")


def process_scope(name: str) -> str:
    """The think process a driver ``name`` (``cli0``, ``mcp1``, ``window``) acts in."""
    return f"think-process/tp_{name}"


def prepare(lib) -> dict[str, object]:
    """Make the run's scopes (session/load and one think process per driver) and the shared facts, indexed.

    Returns: ``{"shared": [doc ids]}``, handed to each driver."""
    from vancetope_desktop.core.documents import DocumentType
    from vancetope_desktop.services import documents, indexing, scopes

    scopes.create_scope(lib, "session", "load", parent="project/inbox")
    for name in ("cli0", "cli1", "cli2", "mcp0", "mcp1", "mcp2", "window"):
        scopes.create_scope(lib, "think-process", f"tp_{name}", parent="session/load")
    shared = [documents.add_text(lib, f"Shared fact {n}: the {WORDS[n]} line is edited by everyone.",
                                 doc_type=DocumentType.FACT, title=f"Shared fact {n}").id for n in range(SHARED_FACTS)]
    indexing.try_drain(lib)
    return {"shared": shared}


@dataclass
class Driver:
    """One process's state: its log, its documents (those it may tag, relate, request or trash) and the shared
    notes' versions as it last read them."""

    name: str
    log: Path
    seed: int
    shared: list[str]
    mine: list[str] = field(default_factory=list)
    requested: set[str] = field(default_factory=set)
    versions: dict[str, int] = field(default_factory=dict)
    uploads: list[Path] = field(default_factory=list)
    counter: int = 0

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        self._out = self.log.open("a", encoding="utf-8")

    def text(self) -> str:
        """A new fact's text: three words and a token of its own (a keyword search finds it, nothing else)."""
        self.counter += 1
        words = self.random.sample(WORDS, 3)
        return f"The {words[0]} and the {words[1]} share a {words[2]} (token {self.name}x{self.counter}q)."

    def record(self, op: str, act: Callable[[], tuple[str, list[str], dict[str, int]]]) -> None:
        """Run ``act`` (it returns the outcome, the documents created and the audit entries expected) and log it;
        an exception is logged as an error (the run goes on: the check counts them)."""
        started = time.perf_counter()
        try:
            outcome, created, audit = act()
            error = None
        except Exception as exc:  # every failure is logged: the check reports them
            outcome, created, audit, error = "error", [], {}, f"{type(exc).__name__}: {exc}"
        self.write(op, outcome, started, created, audit, error)

    def write(self, op: str, outcome: str, started: float, created: list[str], audit: dict[str, int],
              error: str | None) -> None:
        """Log one operation begun at ``started`` (``time.perf_counter()``)."""
        line = {"proc": self.name, "op": op, "outcome": outcome, "ms": round((time.perf_counter() - started) * 1000, 1),
                "created": created, "audit": audit, "error": error}
        self._out.write(json.dumps(line) + "\n")
        self._out.flush()

    def done(self, proc: str | None = None) -> None:
        """The closing line: this process's CPU seconds (and its children's: the window's indexing process, the MCP
        client's three servers), logged as ``proc`` (default: this driver's name)."""
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
        self._out.write(json.dumps({"proc": proc or self.name, "op": "done", "cpu_s": round(cpu, 2)}) + "\n")
        self._out.close()

    def close(self) -> None:
        """Close the log without a closing line (another driver of this process logs the process's CPU)."""
        self._out.close()

    def new_tag(self) -> str:
        """A tag no document has yet (a tag already there changes nothing, and records nothing)."""
        self.counter += 1
        return f"load/{self.name}/t{self.counter}"

    def pick_mine(self, exclude: set[str] = frozenset()) -> str | None:
        """One of this process's active documents (not in ``exclude``), or None."""
        choices = [doc for doc in self.mine if doc not in exclude]
        return self.random.choice(choices) if choices else None

    def next_upload(self) -> Path:
        """The next corpus note this process uploads (its own share of them; round again once done: a file
        already in the library is not imported twice)."""
        if not self.uploads:
            index = int(self.name[-1]) if self.name[-1].isdigit() else 3
            notes = [path for path in sorted(NOTES.glob("*.md")) if path.stat().st_size > 0]
            self.uploads = notes[index::4] or notes
        path = self.uploads.pop(0)
        self.uploads.append(path)
        return path


# --- cli ----------------------------------------------------------------------------------------------------------
CLI_MIX = {"add": 22, "edit": 14, "tag": 12, "search_words": 10, "search_meaning": 8, "relate": 8, "request": 6,
           "chat": 8, "upload": 4, "trash": 8}


def run_cli(driver: Driver, library: Path, count: int) -> None:
    """``count`` operations through the CLI's typer app, in this process (each invocation opens the library; the
    command tree is built once, as in a `vancetope` process: rebuilt at each invocation it took half the driver's
    CPU)."""
    from typer.testing import CliRunner

    from tests.cli_commands import build_cli_commands_once
    from vancetope_desktop.cli.main import app

    build_cli_commands_once()
    runner = CliRunner()
    scope = process_scope(driver.name)

    def cli(*args: str, code: int = 0) -> dict | list:
        result = runner.invoke(app, [*args, "--library", str(library), "--json"])
        if result.exit_code != code:
            raise RuntimeError(f"exit {result.exit_code}: {_said(result)} {result.exception!r}")
        return json.loads(result.stdout) if code == 0 else {}

    def add():
        doc = cli("memory", "add", driver.text(), "--scope", scope, "--no-wait")
        driver.mine.append(doc["id"])
        return "ok", [doc["id"]], {}

    def edit():
        doc_id = driver.random.choice(driver.shared)
        if doc_id not in driver.versions:
            driver.versions[doc_id] = cli("memory", "read", doc_id)["version"]
        result = runner.invoke(app, ["memory", "edit", doc_id, "--content", f"{driver.text()}\n", "--if-version",
                                     str(driver.versions[doc_id]), "--no-wait", "--library", str(library), "--json"])
        if result.exit_code == 6:  # another process edited it since: read it again for the next edit
            del driver.versions[doc_id]
            return "conflict", [], {}
        if result.exit_code != 0:
            raise RuntimeError(f"exit {result.exit_code}: {_said(result)}")
        driver.versions[doc_id] = json.loads(result.stdout)["version"]
        return "ok", [], {"edit": 1}

    def tag():
        doc_id = driver.pick_mine()
        if doc_id is None:
            return add()
        cli("memory", "tag", doc_id, "--add", driver.new_tag(), "--scope", scope,
            "--no-wait")
        return "ok", [], {"tag": 1}

    def search(question: str):
        cli("memory", "search", question, "--scope", scope, "--limit", "5")
        return "ok", [], {}

    def relate():
        old = driver.pick_mine()
        if old is None:
            return add()
        new = cli("memory", "add", driver.text(), "--scope", scope, "--no-wait")
        driver.mine.append(new["id"])
        cli("memory", "relate", new["id"], old, "--type", "updates", "--scope", scope)
        driver.mine.remove(old)  # archived
        return "ok", [new["id"]], {"relate": 1, "archive": 1}

    def request():
        doc_id = driver.pick_mine(exclude=driver.requested)
        if doc_id is None:
            return add()
        cli("memory", "request", doc_id, "--to", "project", "--reason", "the load test asks", "--scope", scope)
        driver.requested.add(doc_id)
        return "ok", [], {"request": 1}

    def chat():
        message = cli("chat", "append", scope, driver.text(), "--no-wait")
        return "ok", [message["id"]], {}

    def upload():
        path = driver.next_upload()
        done = cli("memory", "upload", str(path), "--scope", scope, "--no-wait")
        created = [item["document_id"] for item in done["outcomes"] if item["status"] == "imported"]
        atoms = [doc_id for item in done["atoms"]["outcomes"] for doc_id in item.get("added", [])]
        return "ok", created + atoms, {}

    def trash():
        doc_id = driver.pick_mine()
        if doc_id is None:
            return add()
        cli("memory", "delete", doc_id, "--scope", scope)
        driver.mine.remove(doc_id)
        return "ok", [], {"trash": 1} | ({"withdraw": 1} if doc_id in driver.requested else {})  # its request

    acts = {"add": add, "edit": edit, "tag": tag, "search_words": lambda: search(f"{driver.name}x{driver.counter}q"),
            "search_meaning": lambda: search(driver.random.choice(MEANINGS)), "relate": relate, "request": request,
            "chat": chat, "upload": upload, "trash": trash}
    for op in driver.random.choices(list(CLI_MIX), weights=list(CLI_MIX.values()), k=count):
        driver.record(op, acts[op])


def _said(result) -> str:
    """The end of what a CLI invocation printed, its standard error included (where the error is said)."""
    return f"{result.stdout.strip()[-300:]} {result.stderr.strip()[-300:]}".strip()


# --- mcp ----------------------------------------------------------------------------------------------------------
MCP_MIX = {"store": 30, "tag": 14, "query_words": 12, "query_meaning": 10, "relate": 10, "request": 8, "chat": 16}


def run_mcp(drivers: list[Driver], library: Path, count: int) -> None:
    """``count`` tool calls by each driver on a `vancetope mcp` server of its own acting in its think process, the
    servers at once, through the official MCP client over stdio (a server's standard error goes to the run's
    NAME.server.log)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def scenario(driver: Driver) -> None:
        params = StdioServerParameters(
            command=sys.executable, cwd=str(REPO), env=dict(os.environ),
            args=["-m", "vancetope_desktop.cli.main", "mcp", "--scope", process_scope(driver.name), "--library",
                  str(library)])
        with driver.log.with_suffix(".server.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for op in driver.random.choices(list(MCP_MIX), weights=list(MCP_MIX.values()), k=count):
                    started = time.perf_counter()
                    try:
                        outcome, created, audit = await _mcp_op(driver, session, op)
                        error = None
                    except Exception as exc:  # logged: the check reports it
                        outcome, created, audit, error = "error", [], {}, f"{type(exc).__name__}: {exc}"
                    driver.write(op, outcome, started, created, audit, error)

    async def all_at_once() -> None:
        async with anyio.create_task_group() as group:
            for driver in drivers:
                group.start_soon(scenario, driver)

    anyio.run(all_at_once)


async def _mcp_op(driver: Driver, session, op: str) -> tuple[str, list[str], dict[str, int]]:
    """One tool call of kind ``op``: its outcome, the documents it created and the audit entries it should add."""

    async def call(tool: str, arguments: dict) -> dict:
        result = await session.call_tool(tool, arguments)
        if result.is_error:
            raise RuntimeError(" ".join(part.text for part in result.content)[:400])
        return result.structured_content

    async def store() -> tuple[str, list[str], dict[str, int]]:
        doc = await call("memory_store", {"content": driver.text(), "type": "fact", "on_duplicate": "store",
                                          "tags": ["load"]})
        driver.mine.append(doc["doc_id"])
        return "ok", [doc["doc_id"]], {}

    if op == "store":
        return await store()
    if op in ("query_words", "query_meaning"):
        question = f"{driver.name}x{driver.counter}q" if op == "query_words" else driver.random.choice(MEANINGS)
        await call("memory_query", {"question": question, "limit": 5})
        return "ok", [], {}
    if op == "chat":
        message = await call("chat_append", {"content": driver.text()})
        return "ok", [message["id"]], {}
    exclude = driver.requested if op == "request" else set()
    doc_id = driver.pick_mine(exclude)
    if doc_id is None:
        return await store()
    if op == "tag":
        await call("memory_tag", {"doc_id": doc_id, "tags": [driver.new_tag()]})
        return "ok", [], {}  # an agent's tag is no user action: in the document's versions, not the audit trail
    if op == "request":
        await call("memory_request_promotion", {"doc_id": doc_id, "to": "project", "reason": "the load test asks"})
        driver.requested.add(doc_id)
        return "ok", [], {"request": 1}
    outcome, created, _ = await store()  # relate: a new fact that updates an older one (archived)
    await call("memory_relate", {"source_id": created[0], "target_id": doc_id, "type": "updates"})
    driver.mine.remove(doc_id)
    return outcome, created, {"relate": 1, "archive": 1}


# --- window and writer --------------------------------------------------------------------------------------------
WINDOW_MIX = {"add": 30, "edit": 15, "tag": 15, "search": 15, "chat": 10, "trash": 15}


def run_window(driver: Driver, library: Path, count: int) -> None:
    """The MainWindow (offscreen) on the team library, its indexer and change listener on; ``count`` operations
    through the services on the window's library, one per turn of its event loop; then it stays open, its indexing
    process draining, until the run's stop file appears."""
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from vancetope_desktop.core.documents import DocumentStatus, DocumentType
    from vancetope_desktop.core.errors import EditConflict
    from vancetope_desktop.services import conversations, documents, search, undo
    from vancetope_desktop.services.library import Library
    from vancetope_desktop.services.preferences import Preferences
    from vancetope_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    lib = Library.open(library)
    window = MainWindow(lib, settings=QSettings(str(driver.log.with_suffix(".ini")), QSettings.Format.IniFormat),
                        preferences=Preferences())
    window.show()
    scope = process_scope(driver.name)

    def add():
        doc = documents.add_text(lib, driver.text(), doc_type=DocumentType.FACT, scope=scope)
        driver.mine.append(doc.id)
        return "ok", [doc.id], {}

    def edit():
        doc_id = driver.random.choice(driver.shared)
        version = driver.versions.get(doc_id) or documents.get_document(lib, doc_id).version
        try:
            doc = documents.update_document(lib, doc_id, content=driver.text(), expected_version=version,
                                            user_action=undo.user_action(lib, "Edit", [doc_id]))
        except EditConflict:
            driver.versions.pop(doc_id, None)
            return "conflict", [], {}
        driver.versions[doc_id] = doc.version
        return "ok", [], {"edit": 1}

    def tag():
        doc_id = driver.pick_mine()
        if doc_id is None:
            return add()
        documents.tag_document(lib, doc_id, add=[driver.new_tag()],
                               user_action=undo.user_action(lib, "Tag", [doc_id]))
        return "ok", [], {"tag": 1}

    def trash():
        doc_id = driver.pick_mine()
        if doc_id is None:
            return add()
        documents.set_status(lib, doc_id, DocumentStatus.DELETED, user_action=undo.user_action(lib, "Trash", [doc_id]))
        driver.mine.remove(doc_id)
        return "ok", [], {"trash": 1}

    def find():
        search.search(lib, driver.random.choice((*MEANINGS, f"{driver.name}x{driver.counter}q")), scope=scope)
        return "ok", [], {}

    def chat():
        return "ok", [conversations.append(lib, scope, driver.text()).id], {}

    acts = {"add": add, "edit": edit, "tag": tag, "search": find, "chat": chat, "trash": trash}
    plan = driver.random.choices(list(WINDOW_MIX), weights=list(WINDOW_MIX.values()), k=count)
    stop = driver.log.parent / STOP_FILE

    def step() -> None:
        if plan:
            op = plan.pop(0)
            driver.record(op, acts[op])
            QTimer.singleShot(0, step)
            return
        driver.log.with_suffix(".finished").touch()
        if stop.exists():
            window.close()
            app.quit()
        else:
            QTimer.singleShot(100, step)

    QTimer.singleShot(0, step)
    app.exec()
    lib.close()


def run_writer(driver: Driver, library: Path, _count: int) -> None:
    """Drain the queue (``indexing.try_drain``) until the run's stop file appears, each drain logged."""
    from vancetope_desktop.services import indexing
    from vancetope_desktop.services.library import Library

    stop = driver.log.parent / STOP_FILE
    drained: list[int] = []  # documents indexed by each drain
    with Library.open(library) as lib:

        def drain():
            report = indexing.try_drain(lib)
            drained.append(len(report.indexed) if report else 0)
            return "ok", [], {}

        while not stop.exists():
            driver.record("drain", drain)
            if not drained[-1:] or not drained[-1]:  # nothing to do (or an error): look again shortly
                time.sleep(0.2)


# --- the run ------------------------------------------------------------------------------------------------------
def run_load(lib, folder: Path, count: int, seed: int = 17, timeout: float = 3600) -> float:
    """Prepare ``lib`` (an open team library), start the eight processes of :data:`ROLES` with ``count`` operations
    each (the writer none; the three MCP servers from one client process, ``mcp``), wait for them, and drain what is
    left in this process.

    Returns: the wall seconds from the processes' start to the end of the final drain.
    Raises: AssertionError if a process exits with an error (its stderr in the message)."""
    from vancetope_desktop.services import indexing

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prepared.json").write_text(json.dumps(prepare(lib)))
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen",
               VANCETOPE_CONFIG_DIR=str(folder / "config"))
    names = [f"{role}{ROLES[:n].count(role)}" if role in ("cli", "mcp") else role for n, role in enumerate(ROLES)]
    runs: dict[str, tuple[str, list[str], int]] = {}  # process → role, driver names, first seed (one a driver)
    for n, (role, name) in enumerate(zip(ROLES, names, strict=True)):
        process = "mcp" if role == "mcp" else name
        runs.setdefault(process, (role, [], seed + n))[1].append(name)
    started = time.monotonic()
    processes = {}
    for process, (role, drivers, first_seed) in runs.items():
        with (folder / f"{process}.stderr").open("w") as stderr:  # the child holds its own descriptor
            processes[process] = subprocess.Popen(
                [sys.executable, "-m", "tests.e2e.team_load", role, ",".join(drivers), str(lib.paths.root),
                 str(folder), str(count), str(first_seed)], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                stderr=stderr)
    deadline = started + timeout
    try:
        for name, process in processes.items():
            if name not in ("window", "writer"):
                process.wait(timeout=max(1.0, deadline - time.monotonic()))
        while not (folder / "window.finished").exists() and processes["window"].poll() is None:
            time.sleep(0.2)
        (folder / STOP_FILE).touch()
        for process in processes.values():
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:  # a run cut short (timeout, interrupt) leaves none of its processes behind
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    failed = {name: (folder / f"{name}.stderr").read_text()[-2000:] for name, process in processes.items()
              if process.returncode != 0}
    assert not failed, failed
    for _ in range(FINAL_DRAINS):  # until a drain finds nothing left
        report = indexing.try_drain(lib)
        if report is not None and not report.indexed and not report.failed:
            break
    return time.monotonic() - started


@dataclass
class LoadReport:
    """What the logs and the library say after a run.

    Attributes:
        ops: operations logged (the writer's drains apart), by kind; ``latencies``: their milliseconds by kind.
        errors: the logged errors (``proc op: message``); ``conflicts``: edits refused as stale (expected).
        cpu_s: each process's CPU seconds (its children's included).
        missing: created ids the library does not have; ``unlogged``: documents no log created (duplicates).
        not_indexed: documents not ``indexed`` after the final drain; ``jobs_left``: index jobs still queued.
        chunks, vectors: per scope, SQL's embedded chunks and the Chroma server's vectors.
        audit_expected, audit_found: audit entries by action, as the logs expect them and as stored.
    """

    ops: Counter
    latencies: dict[str, list[float]]
    errors: list[str]
    conflicts: int
    cpu_s: dict[str, float]
    missing: list[str]
    unlogged: list[str]
    not_indexed: list[str]
    jobs_left: int
    chunks: dict[str, int]
    vectors: dict[str, int]
    audit_expected: Counter
    audit_found: Counter


def read_logs(folder: Path) -> list[dict]:
    """Every JSON line of the run's logs."""
    return [json.loads(line) for log in sorted(folder.glob("*.jsonl")) for line in log.read_text().splitlines()]


def check(lib, folder: Path) -> LoadReport:
    """Compare the run's logs (``folder``) with the library ``lib``: see :class:`LoadReport`."""
    from sqlalchemy import func
    from sqlmodel import select

    from vancetope_desktop.index.writer import embedded_chunks
    from vancetope_desktop.store import tables
    from vancetope_desktop.store.db import read_session

    lines = read_logs(folder)
    ops = [line for line in lines if line["op"] not in ("done", "drain")]
    latencies: dict[str, list[float]] = {}
    for line in ops:
        latencies.setdefault(line["op"], []).append(line["ms"])
    created = [doc_id for line in ops for doc_id in line["created"]]
    audit_expected = Counter()
    for line in ops:
        audit_expected.update(line["audit"])
    shared = json.loads((folder / "prepared.json").read_text())["shared"]
    document, chunk = tables.DocumentRow, tables.ChunkRow
    with read_session(lib.engine) as session:
        stored = dict(session.exec(select(document.id, document.index_state).where(
            document.type != "folder")).all())
        jobs_left = session.exec(select(func.count()).select_from(tables.JobRow)).one()
        chunks = dict(session.exec(select(document.scope_path, func.count(chunk.id))
                                   .join(chunk, chunk.document_id == document.id)  # type: ignore[arg-type]
                                   .where(embedded_chunks()).group_by(document.scope_path)).all())
        audit_found = Counter(dict(session.exec(select(tables.AuditRow.action, func.count())
                                                .group_by(tables.AuditRow.action)).all()))
    return LoadReport(
        ops=Counter(line["op"] for line in ops), latencies=latencies,
        errors=[f"{line['proc']} {line['op']}: {line['error']}" for line in lines if line.get("outcome") == "error"],
        conflicts=sum(line["outcome"] == "conflict" for line in ops),
        cpu_s={line["proc"]: line["cpu_s"] for line in lines if line["op"] == "done"},
        missing=sorted(set(created) - set(stored)), unlogged=sorted(set(stored) - set(created) - set(shared)),
        not_indexed=sorted(doc_id for doc_id, state in stored.items() if state != "indexed"), jobs_left=jobs_left,
        chunks=chunks, vectors=lib.vectors.counts(sorted(chunks)), audit_expected=audit_expected,
        audit_found=audit_found)


def main(argv: list[str]) -> None:
    """``python -m tests.e2e.team_load ROLE NAME[,NAME…] LIBRARY RUN_FOLDER N SEED``: one process of the load; a
    driver's log is RUN_FOLDER/NAME.jsonl. Several names (``mcp``: ``mcp0,mcp1,mcp2``) are drivers of one process,
    seeded SEED, SEED + 1…; its CPU is logged once, as ROLE."""
    role, names, library, folder, count, seed = argv
    folder_path = Path(folder)
    shared = json.loads((folder_path / "prepared.json").read_text())["shared"]
    drivers = [Driver(name=name, log=folder_path / f"{name}.jsonl", seed=int(seed) + n, shared=shared)
               for n, name in enumerate(names.split(","))]
    if role == "mcp":
        run_mcp(drivers, Path(library), int(count))
        for driver in drivers[1:]:
            driver.close()
        drivers[0].done(proc=role)
        return
    [driver] = drivers
    runners = {"cli": run_cli, "window": run_window, "writer": run_writer}
    runners[role](driver, Path(library), int(count))
    driver.done()


if __name__ == "__main__":
    main(sys.argv[1:])
    # As `vancetope` does when a command is done (cli/main.py's run): the exit frees the objects left without the
    # collections of the interpreter's teardown (~1 s of CPU in a process that loaded the services and the window).
    gc.freeze()
