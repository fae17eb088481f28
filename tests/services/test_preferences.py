"""Per-user preferences: file location, round trip, recovery from a broken file, library location checks."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.services.preferences import (
    CONFIG_DIR_ENV,
    DEFAULT_CONTEXT_WINDOW,
    MAX_RECENT,
    Preferences,
    check_library_location,
    load_preferences,
    preferences_path,
    save_preferences,
)


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv(CONFIG_DIR_ENV, str(folder))
    return folder


def test_env_overrides_the_config_dir(config_dir, monkeypatch):
    assert preferences_path() == config_dir / "preferences.json"
    monkeypatch.delenv(CONFIG_DIR_ENV)
    default = preferences_path()
    assert default.name == "preferences.json"
    assert default.parent.name == "vancetope-desktop"


def test_missing_file_gives_defaults():
    prefs = load_preferences()
    assert prefs == Preferences()
    assert prefs.library_path is None
    assert prefs.theme == "system"
    assert prefs.recent_libraries == []


def test_round_trip_through_the_default_path(config_dir, tmp_path):
    prefs = Preferences(library_path=tmp_path / "Libraries" / "Über", theme="dark",
                        recent_libraries=[tmp_path / "a", tmp_path / "b"])
    save_preferences(prefs)
    assert (config_dir / "preferences.json").is_file()
    assert load_preferences() == prefs
    # Atomic write: no temporary file is left behind.
    assert [p.name for p in config_dir.iterdir()] == ["preferences.json"]


def test_save_replaces_the_previous_file(tmp_path):
    path = tmp_path / "p.json"
    save_preferences(Preferences(theme="dark"), path)
    save_preferences(Preferences(theme="light"), path)
    assert load_preferences(path).theme == "light"


@pytest.mark.parametrize("content", [b"{not json", b"", b"\xff\xfe\x00garbage", b'{"theme": "purple"}', b"[1, 2]"])
def test_corrupt_file_gives_defaults_and_a_warning(config_dir, caplog, content):
    config_dir.mkdir()
    (config_dir / "preferences.json").write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.services.preferences"):
        assert load_preferences() == Preferences()
    assert "preferences" in caplog.text


def test_unknown_keys_are_ignored(config_dir):
    config_dir.mkdir()
    (config_dir / "preferences.json").write_text('{"theme": "light", "from_the_future": 1}', encoding="utf-8")
    assert load_preferences().theme == "light"


def test_recent_libraries_move_to_front_without_duplicates(tmp_path):
    prefs = Preferences()
    for name in ["a", "b", "a"]:
        prefs = prefs.with_recent(tmp_path / name)
    assert prefs.recent_libraries == [tmp_path / "a", tmp_path / "b"]
    for index in range(MAX_RECENT + 5):
        prefs = prefs.with_recent(tmp_path / f"lib{index}")
    assert len(prefs.recent_libraries) == MAX_RECENT
    assert prefs.recent_libraries[0] == tmp_path / f"lib{MAX_RECENT + 4}"


def test_the_context_window_is_remembered_per_library(config_dir, tmp_path):
    """The Conversation window's context window: the default until chosen, then that library's own."""
    prefs = Preferences()
    assert prefs.context_window(tmp_path / "a") == DEFAULT_CONTEXT_WINDOW == 8192
    save_preferences(prefs.with_context_window(tmp_path / "a", 32_768))
    loaded = load_preferences()
    assert loaded.context_window(tmp_path / "a") == 32_768
    assert loaded.context_window(tmp_path / "b") == DEFAULT_CONTEXT_WINDOW

def test_library_location_accepts_existing_and_creatable_folders(tmp_path):
    assert check_library_location(str(tmp_path)) == tmp_path
    assert check_library_location(f"  {tmp_path / 'new' / 'deeper'}  ") == tmp_path / "new" / "deeper"


@pytest.mark.parametrize("text", ["", "   ", "relative/library"])
def test_library_location_refuses_empty_and_relative(text):
    with pytest.raises(InvalidInput):
        check_library_location(text)


def test_library_location_refuses_a_file(tmp_path):
    file = tmp_path / "file.txt"
    file.write_text("x", encoding="utf-8")
    with pytest.raises(InvalidInput, match="is a file"):
        check_library_location(file)
    with pytest.raises(InvalidInput, match="is a file"):
        check_library_location(file / "library")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_library_location_refuses_an_unwritable_folder(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(InvalidInput, match="cannot write"):
            check_library_location(locked / "library")
    finally:
        locked.chmod(0o700)
