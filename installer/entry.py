"""The entry script of the bundle's programs (PyInstaller, ``installer/vancetope.spec``).

One script serves both programs, told apart by the name they are started as: ``vancetope`` is the command line
(so ``vancetope mcp`` works from the bundle), any other name (``vancetope-desktop``) the window. On Linux the
bundle holds one executable and ``vancetope`` is a link to it (one copy of the Python modules instead of two).

``multiprocessing.freeze_support()`` comes first: a frozen program starts its extraction workers
(``ingest/process_pool.py``, ``spawn``) as itself with ``--multiprocessing-fork``, and that call runs the worker
and exits before anything of the app loads. ``--worker NAME`` (the index worker) is ``app.main``'s.
"""

import multiprocessing
import sys
from pathlib import Path

CLI_NAME = "vancetope"

if __name__ == "__main__":
    multiprocessing.freeze_support()
    if Path(sys.argv[0]).stem == CLI_NAME:
        from vancetope_desktop.cli.main import run

        sys.exit(run())
    from vancetope_desktop.app import main

    sys.exit(main())
