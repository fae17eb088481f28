"""A document's stored file outside the app: open it in the system's viewer, show it in the file manager,
and drag it out as a file named after the document.

The library stores originals by content hash (``files/ab/ab12….pdf``). Another program gets a copy
named by the document's title (``Attention Is All You Need.pdf``) in a folder per stored file under the
system's temporary folder: a drop onto the desktop or a mail then carries a name people recognise,
and a program that saves changes in place edits the copy, never the library's original.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QMimeData, QProcess, QUrl
from PySide6.QtGui import QDesktopServices

from ..core.documents import DocumentInfo

EXPORT_FOLDER = "vancetope-files"
"""Under the system's temporary folder: one sub-folder per stored file holds its named copy."""
_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')
MAX_NAME = 120
"""Characters of a title kept in a file name (most file systems allow 255 bytes)."""


def stored_file(doc: DocumentInfo) -> Path | None:
    """The library's stored original of ``doc``, or None (a note, or the file is missing)."""
    if not doc.file_path:
        return None
    path = Path(doc.file_path)
    return path if path.is_file() else None


def file_name(doc: DocumentInfo) -> str:
    """A file name for ``doc``: its title made safe for every file system, with the stored file's suffix.

    ``Attention: Is All You Need?`` → ``Attention Is All You Need.pdf``; a blank title falls back to the
    original name of the imported file.
    """
    suffix = Path(doc.file_path or "").suffix or doc.metadata.get("file_suffix", "")
    stem = " ".join(_UNSAFE.sub(" ", doc.title).split()).strip(". ")[:MAX_NAME].strip()
    if not stem:
        stem = Path(str(doc.metadata.get("original_name") or "document")).stem
    return stem if stem.lower().endswith(suffix.lower()) else stem + suffix


def named_copy(doc: DocumentInfo, root: Path | None = None) -> Path | None:
    """A read-only copy of ``doc``'s stored file named by :func:`file_name`, made once per stored file
    and title (a hard link when the file system allows, else a copy); None when there is no file.

    Raises:
        OSError: the copy cannot be written (disk full, no permission).
    """
    source = stored_file(doc)
    if source is None:
        return None
    folder = (root or Path(tempfile.gettempdir()) / EXPORT_FOLDER) / source.stem
    target = folder / file_name(doc)
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)  # no bytes copied; the blob is never modified, so sharing it is safe
    except OSError:
        shutil.copyfile(source, target)
        target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return target


def open_in_system_viewer(doc: DocumentInfo) -> str | None:
    """Open ``doc``'s file (its named copy) with the program the system associates with it.

    Returns:
        None when the system accepted it, else a sentence saying why not (for the status bar).
    """
    try:
        path = named_copy(doc)
    except OSError as error:
        return f"Could not prepare {doc.title} for another program: {error.strerror or error}"
    if path is None:
        return f"{doc.title} has no file to open outside the app"
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return f"No program is set up to open {path.suffix or 'such'} files"
    return None


def show_in_file_manager(doc: DocumentInfo) -> str | None:
    """Show the folder holding ``doc``'s stored file, with the file selected where the platform allows
    (Explorer, Finder, and Linux file managers speaking the freedesktop FileManager1 interface).

    Returns:
        None when done, else a sentence saying why not.
    """
    path = stored_file(doc)
    if path is None:
        return f"{doc.title} has no stored file"
    if sys.platform == "win32":
        started = QProcess.startDetached("explorer.exe", [f"/select,{path}"])
    elif sys.platform == "darwin":
        started = QProcess.startDetached("open", ["-R", str(path)])
    else:
        # Waits for the reply (at most a second) to know whether a file manager took it.
        started = bool(shutil.which("dbus-send")) and QProcess.execute("dbus-send", [
            "--session", "--print-reply", "--reply-timeout=1000", "--dest=org.freedesktop.FileManager1",
            "/org/freedesktop/FileManager1", "org.freedesktop.FileManager1.ShowItems",
            f"array:string:{QUrl.fromLocalFile(str(path)).toString()}", "string:"]) == 0
    if not started and not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent))):
        return f"Could not open the folder {path.parent}"
    return None


def add_file_urls(mime: QMimeData, docs: Iterable[DocumentInfo]) -> QMimeData:
    """Add the named copies of ``docs``' files to ``mime`` as file URLs (documents without a file are
    left out; a copy that cannot be made is skipped), so a drop outside the app receives files."""
    urls = []
    for doc in docs:
        try:
            path = named_copy(doc)
        except OSError:
            continue
        if path is not None:
            urls.append(QUrl.fromLocalFile(str(path)))
    if urls:
        mime.setUrls(urls)
    return mime
