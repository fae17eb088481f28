"""A stand-in for the open app in tests: holds the writer lock and drains the queue until killed."""

import sys
import time
from pathlib import Path

from vancetope_desktop.services import indexing
from vancetope_desktop.services.library import Library

if __name__ == "__main__":
    with Library.open(Path(sys.argv[1])) as lib:
        assert lib.writer_lock.try_acquire()
        lib.embedder().warm_up()
        print("ready", flush=True)
        while True:
            indexing.try_drain(lib)
            time.sleep(0.2)
