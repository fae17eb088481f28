"""``vancetope-desktop``: the composition root of the app (paths → settings → services → UI)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .core.errors import VancetopeError
from .services.library import Library


def main(argv: list[str] | None = None) -> int:
    """Open the library (``--library PATH``, ``$VANCETOPE_LIBRARY`` or the default) and show the window."""
    parser = argparse.ArgumentParser(prog="vancetope-desktop", description="Vancetope Desktop")
    parser.add_argument("--library", type=Path, default=None, help="library folder")
    args, qt_args = parser.parse_known_args(argv)

    from PySide6.QtWidgets import QApplication, QMessageBox

    from .ui.main_window import MainWindow

    app = QApplication([sys.argv[0], *qt_args])
    app.setApplicationName("Vancetope Desktop")
    app.setOrganizationName("Vancetope")
    try:
        library = Library.open(args.library)
    except VancetopeError as error:
        QMessageBox.critical(None, "Vancetope Desktop", f"Cannot open the library:\n{error}")
        return 1
    window = MainWindow(library)
    window.show()
    try:
        return app.exec()
    finally:
        library.close()


if __name__ == "__main__":
    sys.exit(main())
