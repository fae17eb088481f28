"""How the app starts a worker process, from a source checkout or from a frozen bundle (issue 16).

From a checkout or an installed wheel, ``sys.executable`` is Python: a worker runs as ``python -m
vancetope_desktop.workers.<name> …``. In a PyInstaller bundle, ``sys.executable`` is the app itself and has no
``-m``: the worker runs as ``vancetope-desktop --worker <name> …``, which ``app.main`` hands to
:func:`run_worker` before Qt is imported. :func:`worker_command` gives the command line either way.

The extraction workers (``ingest/process_pool.py``) need no flag: they are started by ``multiprocessing`` with
the ``spawn`` method, which a frozen bundle serves through ``multiprocessing.freeze_support()``, called first
thing by the bundle's entry script (``installer/entry.py``).
"""

from __future__ import annotations

import importlib
import sys

WORKER_FLAG = "--worker"
WORKERS = ("index_worker",)
"""The modules of this package that run as worker processes, each with a ``main(argv) -> int``."""


def is_frozen() -> bool:
    """True inside a PyInstaller bundle (it sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def worker_command(module: str, *args: str) -> list[str]:
    """The program and arguments that start the worker ``module`` with ``args``.

    Args:
        module: the worker module's full name (``index_worker.__name__``, so the caller imports it and the
            import linter sees that dependency).
        args: the worker's own arguments (``"--library", PATH``).

    Returns:
        ``[sys.executable, "-m", module, *args]``, or in a frozen bundle ``[sys.executable, "--worker", NAME,
        *args]`` with ``NAME`` the module's last part.

    Raises:
        ValueError: ``module`` is not one of :data:`WORKERS` in this package.
    """
    name = _worker_name(module)
    if is_frozen():
        return [sys.executable, WORKER_FLAG, name, *args]
    return [sys.executable, "-m", module, *args]


def run_worker(argv: list[str]) -> int:
    """Run the worker named by ``argv[0]`` (``index_worker``) with the rest of ``argv``; its exit status.

    Raises:
        SystemExit: with a message when ``argv`` names no worker of :data:`WORKERS`.
    """
    if not argv or argv[0] not in WORKERS:
        raise SystemExit(f"{WORKER_FLAG} needs one of: {', '.join(WORKERS)}")
    worker = importlib.import_module(f"{__package__}.{argv[0]}")
    return worker.main(argv[1:])


def _worker_name(module: str) -> str:
    package, _, name = module.rpartition(".")
    if package != __package__ or name not in WORKERS:
        raise ValueError(f"{module} is not a worker module (one of {', '.join(WORKERS)} in {__package__})")
    return name
