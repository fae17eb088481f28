"""A parent for the extraction worker in tests: starts it on a file, prints the worker's pid, waits to be killed.

Usage: ``python extractor_parent.py FILE`` — "busy" when FILE keeps MuPDF looping, "idle" when it is
read at once. Prints ``<worker pid>`` once the worker runs (after the file is read, when it can be).
"""

import multiprocessing
import sys
import threading
import time
from pathlib import Path

from vancetope_desktop.ingest.process_pool import ProcessExtractor

if __name__ == "__main__":
    extractor = ProcessExtractor(timeout_s=3600)
    done = threading.Event()
    # From a short-lived thread, as the app's task pool calls it: the worker must outlive the thread.
    reader = threading.Thread(target=lambda: (extractor(Path(sys.argv[1])), done.set()), daemon=True)
    reader.start()
    while not multiprocessing.active_children():
        time.sleep(0.05)
    done.wait(timeout=5)
    print(multiprocessing.active_children()[0].pid, flush=True)
    time.sleep(3600)
