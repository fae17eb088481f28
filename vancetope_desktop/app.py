"""``vancetope-desktop``: the composition root of the app (paths → settings → services → UI).

Start-up stays light so the window appears within a second: only Qt, SQLite and the services' modules
load here; Chroma, sentence-transformers and the model load on worker threads once the window shows.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .workers import launch


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vancetope-desktop", description="Vancetope Desktop")
    parser.add_argument("--library", type=Path, default=None,
                        help="library folder (default: the one chosen in Settings, else the user's data folder)")
    parser.add_argument("--screenshots", type=Path, default=None, metavar="DIR",
                        help="save screenshots of the main screens into DIR and quit (the tour builds its own "
                             "library from the demo, in a temporary folder or an empty --library)")
    parser.add_argument("--startup-probe", action="store_true", help=argparse.SUPPRESS)
    # Installs the demo into an empty --library, lets the index worker embed it, searches, quits (ui/demo_probe.py).
    parser.add_argument("--demo-probe", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Open the library (``--library``, the preferences' choice, ``$VANCETOPE_LIBRARY`` or the default).

    ``--worker NAME …`` first runs a worker process instead, before Qt is imported: a frozen bundle starts its
    workers as itself (``workers/launch.py``).
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [launch.WORKER_FLAG]:
        return launch.run_worker(argv[1:])
    args, qt_args = _parser().parse_known_args(argv)

    # Imported here, not with the module: a worker process started with ``spawn`` (the app's uploads) imports the
    # main module again, and the services with their libraries cost it ~0.6 s of CPU for nothing.
    # The services before Qt: once PySide6.QtCore is imported, every later import of a module from source is read
    # again by PySide's import hook (``shibokensupport.feature``, looking for ``__feature__`` switches), which cost
    # the window's start ~0.45 s of CPU (of ~4.1 s of imports) for the services' libraries (SQLAlchemy, numpy, Chroma).
    from .core.errors import VancetopeError  # noqa: I001 (the services before Qt: see above)
    from .services.library import Library
    from .services.preferences import CONFIG_DIR_ENV, load_preferences

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .ui import themes
    from .ui.main_window import MainWindow

    scratch = None
    if args.screenshots is not None:
        # The tour adds annotations, notes and duplicates and changes preferences: never the user's.
        scratch = Path(tempfile.mkdtemp(prefix="vancetope-tour-"))
        os.environ[CONFIG_DIR_ENV] = str(scratch / "config")
        args.library = args.library or scratch / "library"
    app = QApplication([sys.argv[0], *qt_args])
    app.setApplicationName("Vancetope Desktop")
    app.setOrganizationName("Vancetope")
    app.setWindowIcon(themes.icon("app"))
    preferences = load_preferences()
    themes.apply_theme(app, preferences.theme)
    try:
        library = Library.open(args.library or preferences.library_path)
    except VancetopeError as error:
        QMessageBox.critical(None, "Vancetope Desktop", f"Cannot open the library:\n{error}")
        return 1
    window = MainWindow(library, preferences=preferences)
    window.show()
    if args.screenshots is None and not args.startup_probe and not args.demo_probe:
        window.workbench.run_pending_digests()  # the daily digest, in the background (issue 13)
        window.workbench.fill_missing_profiles()  # sources' summaries not written yet, also in the background
    if args.startup_probe:
        # For the start-up benchmark: report once the first frame is painted, then quit.
        QTimer.singleShot(0, lambda: (print("window shown", flush=True), window.close(), app.quit()))
    if args.demo_probe:
        from .ui.demo_probe import DemoProbe

        DemoProbe(window, app.exit).start()
    if args.screenshots is not None:
        from .ui.screenshots import ScreenshotTour

        tour = ScreenshotTour(window, args.screenshots)

        def report() -> None:
            for path in tour.saved:
                print(path, flush=True)
            for error in tour.errors:
                print(f"screenshots: {error}", file=sys.stderr, flush=True)
            window.close()
            app.exit(1 if tour.errors else 0)

        tour.finished.connect(report)
        tour.start()
    try:
        return app.exec()
    finally:
        library.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        # The window's objects frozen out of the garbage collector, as `vancetope` does (cli/main.py's run): the
        # interpreter's exit then frees them without the collections of its module teardown.
        gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
