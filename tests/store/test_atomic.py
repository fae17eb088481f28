"""Whole-file writes: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import pytest

from vancetope_desktop.store.atomic import replace_atomically, write_text_atomic


def test_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "notes.md"
    target.write_text("old", encoding="utf-8")
    write_text_atomic(target, "new — ünïcode\r\nline two")
    assert target.read_bytes() == "new — ünïcode\r\nline two".encode()  # newlines kept as given
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_a_write_failing_half_way_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "notes.md"
    target.write_text("old", encoding="utf-8")

    def half(file) -> None:
        file.write(b"half of the new")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        replace_atomically(target, half)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "naïve", encoding="ascii")
    assert target.read_text(encoding="utf-8") == "old"


def test_a_missing_folder_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        write_text_atomic(tmp_path / "absent" / "notes.md", "text")
