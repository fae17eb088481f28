"""The bundle's ``vancetope`` program, the command line (PyInstaller's entry script, ``installer/vancetope.spec``).

``multiprocessing.freeze_support()`` comes first, as in ``entry_gui.py``: ``memory upload`` extracts files in
``spawn`` workers, which a frozen bundle starts as this very program.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from vancetope_desktop.cli.main import run

    sys.exit(run())
