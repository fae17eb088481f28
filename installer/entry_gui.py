"""The bundle's ``vancetope-desktop`` program (PyInstaller's entry script, ``installer/vancetope.spec``).

``multiprocessing.freeze_support()`` comes first: a frozen bundle starts its extraction workers
(``ingest/process_pool.py``, ``spawn``) as itself with ``--multiprocessing-fork``, and that call runs the
worker and exits before anything of the app loads. ``--worker NAME`` (the index worker) is ``app.main``'s.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from vancetope_desktop.app import main

    sys.exit(main())
