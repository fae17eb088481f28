"""Set up the development environment and run the app or the test suite.

Usage (from the repository root, with nothing but Python 3.11+ and pip)::

    python3 packaging/dev.py run     # create .venv on first use, launch the app
    python3 packaging/dev.py test    # create .venv on first use, ruff + import contracts + pytest
    python3 packaging/dev.py setup   # only create / refresh .venv
    python3 packaging/dev.py servers # the tests' PostgreSQL and Chroma servers until Ctrl-C, for pytest by hand

Extra arguments after ``run`` or ``test`` go to the app or to pytest (``-n 0`` runs the tests in one
process). The environment is rebuilt
when ``pyproject.toml`` or ``packaging/constraints.txt`` change. Only the standard library is used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import servers  # packaging/servers.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
CONSTRAINTS = ROOT / "packaging" / "constraints.txt"
STAMP = VENV / ".vancetope-installed"
# Wheels built from source once per machine (pyproject [tool.vancetope.setup] build-once), kept outside the
# checkout so that a fresh clone or CI environment reuses them instead of compiling again.
WHEELHOUSE = Path(os.environ.get("VANCETOPE_WHEELHOUSE") or Path.home() / ".cache" / "vancetope" / "wheels")


def _bin(name: str) -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    suffix = ".exe" if os.name == "nt" else ""
    return VENV / scripts / f"{name}{suffix}"


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", CONSTRAINTS):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _run(*args: object, **kwargs) -> None:
    subprocess.run([str(a) for a in args], check=True, **kwargs)


def setup() -> None:
    """Create .venv and install the project with its dev and bundle extras, torch first from the constraints, the
    packages of pyproject's ``[tool.vancetope.setup] build-once`` from wheels built once per machine
    (:data:`WHEELHOUSE`), then those of its ``no-deps`` without their dependencies."""
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may run on an older system Python
        sys.exit(f"Vancetope Desktop needs Python 3.11 or newer, this is {sys.version.split()[0]}.")
    if not _bin("python").exists():
        print(f"Creating {VENV} …", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [_bin("python"), "-m", "pip", "install", "--disable-pip-version-check"]
    # torch is installed alone and first, so that sentence-transformers finds the CPU build in place.
    torch_pin = [
        line.strip() for line in CONSTRAINTS.read_text().splitlines()
        if line.strip().startswith("torch")
    ]
    _run(*pip, *torch_pin)
    import tomllib  # here: an older Python must reach the version message above

    setup_table = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("tool", {}).get("vancetope", {}).get(
        "setup", {})
    # llama-cpp-python builds from source (no Linux wheel on PyPI): about 9 minutes of two cores, so it is built
    # once per machine into the wheelhouse, at the exact version pyproject names, and installed from there. Its
    # multimodal library (mtmd, about 30 % of the build) is never used here: left out unless CMAKE_ARGS says.
    build_env = dict(os.environ, CMAKE_ARGS=os.environ.get("CMAKE_ARGS", "-DLLAVA_BUILD=OFF"))
    build_once = setup_table.get("build-once", [])
    for spec in build_once:
        name, _, version = spec.partition("==")
        if not list(WHEELHOUSE.glob(f"{name.replace('-', '_')}-{version}-*.whl")):
            print(f"Building {spec} once for this machine (a few minutes) into {WHEELHOUSE} …", flush=True)
            _run(_bin("python"), "-m", "pip", "wheel", "--disable-pip-version-check", "--no-deps", "-w",
                 WHEELHOUSE, spec, env=build_env)
    # bundle: PyInstaller, for packaging/build_bundle.py and its test (tests/packaging/test_bundle.py).
    _run(*pip, "-c", CONSTRAINTS, "--find-links", WHEELHOUSE, "-e", f"{ROOT}[dev,bundle]", *build_once,
         env=build_env)
    # Packages wanted for a file they ship, not for their dependencies: pyproject [tool.vancetope.setup] no-deps.
    no_deps = setup_table.get("no-deps", [])
    if no_deps:
        _run(*pip, "--no-deps", *no_deps)
    STAMP.write_text(_fingerprint())


def run_app(extra: list[str]) -> int:
    """Launch the desktop app on the default (or ``VANCETOPE_LIBRARY``) library."""
    app = str(_bin("vancetope-desktop"))
    if os.name == "posix":  # become the app, so that signals sent to this process reach it
        os.execv(app, [app, *extra])
    return subprocess.call([app, *extra])


# pytest-xdist workers: one per core and one more, at most 4 (each takes up to ~1.9 GB with the embedding model and
# the libraries it builds). Much of the suite waits on child processes (the CLI, the MCP server, the indexing and
# extraction processes, PyInstaller) and on the test servers: measured on 2 cores (3 Dec 2026), the two workers sat
# idle for about a third of the run, which a third worker fills.
TEST_WORKERS = min(4, (os.cpu_count() or 1) + 1)


def run_tests(extra: list[str]) -> int:
    """Run ruff, the import-linter contracts and the whole pytest suite, with a real PostgreSQL and Chroma server
    (packaging/servers.py) started first and stopped at the end whatever happens; return the exit code.
    Servers named by the environment (both VANCETOPE_TEST_*_URL variables, as ``dev.py servers`` prints) are used
    instead of new ones."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # Let Python keep compiled modules and pytest its rewritten test modules (__pycache__/, ignored by git).
    # With PYTHONDONTWRITEBYTECODE set, as some shells and sandboxes do, each test worker rewrote and compiled
    # every test module at collection (14.7 s of CPU, 7.5 s from the cache) and each process the tests start
    # (CLI, MCP server, indexing process) compiled the package again (3.7 s of CPU, 2.9 s from the cache).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # A folder of its own for the run's temporary files: pytest's default (/tmp/pytest-of-USER/pytest-N) keeps
    # only the last three runs' folders, so a second pytest started meanwhile deleted this run's libraries
    # under its tests (a full run next to a few single tests ended with 40 errors).
    scratch = Path(tempfile.mkdtemp(prefix="vancetope-tests-"))
    given = any(arg == "--basetemp" or arg.startswith("--basetemp=") for arg in extra)
    own_temp = [] if given else [f"--basetemp={scratch / 'pytest'}"]
    steps = [
        [str(_bin("ruff")), "check", "vancetope_desktop", "tests", "packaging", "resources"],
        [str(_bin("lint-imports"))],
        # worksteal: the long end-to-end tests do not queue behind each other on one worker.
        [str(_bin("python")), "-m", "pytest", "-n", str(TEST_WORKERS), "--dist", "worksteal", *own_temp, *extra],
    ]
    given_servers = all(env.get(name) for name in (servers.POSTGRES_URL_VARIABLE, servers.CHROMA_URL_VARIABLE))
    test_servers = servers.TestServers(_bin("chroma"))
    servers.exit_on_sigterm()
    try:
        if not given_servers:
            test_servers.start()
            if test_servers.postgres_missing:
                print(f"{servers.POSTGRES_MISSING}; the tests that need it "
                      f"{'fail (CI=true)' if env.get('CI', '').lower() == 'true' else 'are skipped'}.", flush=True)
        # pytest starts without waiting for them: its fixtures wait until each server answers (tests/servers.py),
        # by which time collection has usually given them the 1-2 s they take.
        env.update(test_servers.environment())
        for step in steps:
            print("$", " ".join(step), flush=True)
            # Killed with the test command even by SIGKILL (no orphaned pytest holding the servers' port numbers);
            # Windows has no preexec_fn (and no such signal): a job object would be its way, not needed there yet.
            code = subprocess.call(step, cwd=ROOT, env=env,
                                   preexec_fn=servers.die_with_parent if os.name == "posix" else None)
            if code != 0:
                return code
        return 0
    finally:
        test_servers.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "setup", "servers"}:
        print(__doc__)
        return 2
    setup()
    if argv[0] == "run":
        return run_app(argv[1:])
    if argv[0] == "test":
        return run_tests(argv[1:])
    if argv[0] == "servers":
        return servers.serve(_bin("chroma"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
