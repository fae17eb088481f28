"""Real PostgreSQL and Chroma servers for the test suite (issue 17: the team library's servers, tested for real).

Each server runs in a temporary folder of its own, listening only on 127.0.0.1 on a free port, and is stopped (its
folder removed) whatever happens: :meth:`TestServers.stop` from a ``finally``, SIGTERM turned into an exception by
:func:`exit_on_sigterm`, and the kernel's parent-death signal (:func:`die_with_parent`) when the process that
started them is killed outright. ``packaging/dev.py test`` starts both before pytest and passes their URLs in
:data:`POSTGRES_URL_VARIABLE` and :data:`CHROMA_URL_VARIABLE` (read by ``tests/servers.py``);
``packaging/dev.py servers`` (or ``python packaging/servers.py`` with the project's environment) starts them for
tests run by hand and prints the ``export`` lines. Only the standard library: dev.py runs on the system Python.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

POSTGRES_URL_VARIABLE = "VANCETOPE_TEST_POSTGRES_URL"
"""``postgresql://vancetope@127.0.0.1:PORT/postgres``: the test cluster's superuser on its maintenance database."""
CHROMA_URL_VARIABLE = "VANCETOPE_TEST_CHROMA_URL"
"""``http://127.0.0.1:PORT``: the test Chroma server."""
POSTGRES_MISSING = ("PostgreSQL's server is not installed (no initdb under /usr/lib/postgresql or on PATH): "
                    "install Debian's package, `apt-get install postgresql`")
SUPERUSER = "vancetope"
"""The test cluster's only role (initdb -U), trusted on loopback: the cluster lives for one test run."""
READY_SECONDS = 120.0
"""How long a server may take to answer (here and in the tests' fixtures): 1-2 s on this 2-core machine at load 2
(tests/benchmarks/bench_servers.py), many times that at load 10+."""
STOP_SECONDS = 15.0
"""How long a server may take to stop after its shutdown signal before it is killed."""


def postgres_bin_dir() -> Path | None:
    """The newest PostgreSQL server's programs: Debian's ``/usr/lib/postgresql/N/bin``, else ``initdb`` on PATH
    (symlinks resolved); ``None`` when no server is installed."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0)
    if versions:
        return versions[-1].parent
    found = shutil.which("initdb")
    return Path(found).resolve().parent if found else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def die_with_parent() -> None:
    """In the child, before exec: Linux sends it SIGKILL when the thread that started it ends, so a server never
    outlives a test command killed with SIGKILL (nothing else runs then). Throwaway data: no clean shutdown needed."""
    PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""An opener that ignores http_proxy and the like: the servers are on this machine."""


def chroma_answers(url: str) -> bool:
    """Whether the Chroma server at ``url`` (``http://127.0.0.1:P``) answers its heartbeat within 2 s."""
    try:
        with _DIRECT.open(f"{url}/api/v2/heartbeat", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def exit_on_sigterm() -> None:
    """Turn SIGTERM into ``SystemExit(143)``, so that ``finally`` blocks (stopping the servers) run, as on Ctrl-C."""

    def leave(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, leave)


def _tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class TestServers:
    """A PostgreSQL cluster (when installed) and a Chroma server, each in a temporary folder.

    ``start`` launches them without waiting; ``wait_ready`` waits until both answer; ``environment`` gives the
    variables for pytest; ``stop`` ends them and removes the folders. Errors: ``RuntimeError`` when a server exits
    or does not answer within :data:`READY_SECONDS` (with the end of its log).
    """

    __test__ = False  # not a pytest class, whatever the name

    def __init__(self, chroma: Path) -> None:
        """``chroma``: the ``chroma`` command of the environment with the pinned chromadb."""
        self.chroma_command = chroma
        self.processes: dict[str, tuple[subprocess.Popen, Path]] = {}  # name → (process, its log)
        self.folders: list[Path] = []
        self.postgres_port = self.chroma_port = 0
        self.postgres_bin = postgres_bin_dir()
        self.postgres_missing = self.postgres_bin is None

    def start(self) -> None:
        """Launch Chroma and PostgreSQL (its cluster's creation, then the server); neither is waited for."""
        folder = Path(tempfile.mkdtemp(prefix="vancetope-chroma-"))
        self.folders.append(folder)
        self.chroma_port = free_port()
        # Chroma's client-side product telemetry, off: nothing may touch the network in the tests.
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        self._launch("chroma", [self.chroma_command, "run", "--path", folder / "data", "--host", "127.0.0.1",
                                "--port", self.chroma_port], folder, env=env)
        if self.postgres_bin is not None:
            self._start_postgres()

    def _start_postgres(self) -> None:
        folder = Path(tempfile.mkdtemp(prefix="vancetope-pg-"))
        self.folders.append(folder)
        # PostgreSQL refuses to run as root: as root, the cluster belongs to the Debian package's `postgres` user.
        account = {}
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("PostgreSQL cannot run as root and there is no `postgres` user to run it as "
                                   "(Debian's postgresql package creates it)") from None
            os.chown(folder, user.pw_uid, user.pw_gid)
            account = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        # initdb (about 0.6 s) and then the server, in one shell that becomes the server (exec): the caller
        # does not wait for the cluster's creation. --no-sync, and fsync off: a throwaway cluster, nothing waits on
        # the disk.
        initdb = [self.postgres_bin / "initdb", "-D", folder / "data", "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"]
        self.postgres_port = free_port()
        server = [self.postgres_bin / "postgres", "-D", folder / "data", "-h", "127.0.0.1", "-p", self.postgres_port,
                  "-k", folder, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        script = f"{shlex.join(map(str, initdb))} && exec {shlex.join(map(str, server))}"
        self._launch("postgres", ["/bin/sh", "-c", script], folder, **account)

    def _launch(self, name: str, command: list, folder: Path, **kwargs) -> None:
        log = folder / f"{name}.log"
        with log.open("wb") as out:
            # A session of its own: Ctrl-C in the terminal reaches the test command, which stops the servers
            # after pytest's teardown (dropping its databases) instead of under it.
            process = subprocess.Popen([str(part) for part in command], stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=die_with_parent, **kwargs)
        self.processes[name] = (process, log)

    def wait_ready(self) -> None:
        """Wait until each started server answers (PostgreSQL's pg_isready, Chroma's heartbeat)."""
        deadline = time.monotonic() + READY_SECONDS
        for name, ready in (("chroma", self._chroma_ready), ("postgres", self._postgres_ready)):
            if name not in self.processes:
                continue
            process, log = self.processes[name]
            while not ready():
                if process.poll() is not None:
                    raise RuntimeError(f"the {name} server exited ({process.returncode}):\n{_tail(log)}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the {name} server did not answer within {READY_SECONDS:.0f} s:\n"
                                       f"{_tail(log)}")
                time.sleep(0.05)

    def _chroma_ready(self) -> bool:
        return chroma_answers(self.chroma_url)

    def _postgres_ready(self) -> bool:
        return subprocess.call([self.postgres_bin / "pg_isready", "-q", "-h", "127.0.0.1", "-p",
                                str(self.postgres_port), "-U", SUPERUSER, "-d", "postgres"]) == 0

    @property
    def chroma_url(self) -> str:
        """The Chroma server's base URL."""
        return f"http://127.0.0.1:{self.chroma_port}"

    @property
    def postgres_url(self) -> str:
        """The cluster's connection URL (superuser, maintenance database ``postgres``)."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.postgres_port}/postgres"

    def environment(self) -> dict[str, str]:
        """The variables that tell the tests where the started servers are (PostgreSQL's only when started)."""
        found = {CHROMA_URL_VARIABLE: self.chroma_url} if "chroma" in self.processes else {}
        if "postgres" in self.processes:
            found[POSTGRES_URL_VARIABLE] = self.postgres_url
        return found

    def stop(self) -> None:
        """Stop every started server (PostgreSQL's fast shutdown, Chroma's SIGTERM; SIGKILL after
        :data:`STOP_SECONDS`) and remove the folders; a server that had exited by itself is reported on stderr with
        the end of its log. Safe to call more than once, and after a failed start."""
        shutdown = {"postgres": signal.SIGINT, "chroma": signal.SIGTERM}
        for name, (process, log) in self.processes.items():
            if process.poll() is None:
                # The whole process group (its own session): an initdb still running with its shell goes too.
                with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                    os.killpg(process.pid, shutdown[name])
            else:
                print(f"the {name} server had exited ({process.returncode}):\n{_tail(log)}", file=sys.stderr)
        for process, _log in self.processes.values():
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.processes.clear()
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)
        self.folders.clear()


@contextlib.contextmanager
def running(chroma: Path):
    """Start the servers, wait until they answer, yield the :class:`TestServers`, stop them on the way out."""
    servers = TestServers(chroma)
    try:
        servers.start()
        servers.wait_ready()
        yield servers
    finally:
        servers.stop()


def serve(chroma: Path) -> int:
    """Run the servers until Ctrl-C or SIGTERM, after printing the ``export`` lines for a pytest run by hand;
    return the exit code (1 when a server stops by itself)."""
    exit_on_sigterm()
    try:
        with running(chroma) as servers:
            if servers.postgres_missing:
                print(f"# {POSTGRES_MISSING}", file=sys.stderr)
            for name, value in servers.environment().items():
                print(f"export {name}={value}")
            for name, (process, log) in servers.processes.items():
                print(f"# server {name}: pid {process.pid}, folder {log.parent}")
            print("# the servers run until Ctrl-C", flush=True)
            while all(process.poll() is None for process, _log in servers.processes.values()):
                time.sleep(0.5)
            print("a server stopped by itself", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):  # it takes no options: say what it does rather than start servers
        print((__doc__ or "").split("\n\n")[0] + "\n\nUsage: python packaging/servers.py (no options): starts both "
              "servers, prints the export lines, and runs until Ctrl-C.")
        sys.exit(0)
    sys.exit(serve(Path(sys.executable).parent / "chroma"))
