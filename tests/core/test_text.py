"""Text from outside that is not Unicode (``core.text``): found by name, shown with its bytes, names made readable."""

import os

from vancetope_desktop.core.text import escaped, readable, undecodable_values


def test_undecodable_values_are_found_where_they_sit():
    values = {"question": "fine", "tags": ["ok", os.fsdecode(b"r\xe9sum\xe9")], "meta": {"year": "\ud800"}}
    assert [where for where, _ in undecodable_values(values)] == ["tags[1]", "meta.year"]
    assert undecodable_values({"question": "café 日本 😀"}) == []


def test_escaped_shows_the_bytes_and_readable_decodes_them_as_windows_1252():
    name = os.fsdecode(b"caf\xe9 \x80 notes \xff.txt")
    assert escaped(name) == "caf\\xe9 \\x80 notes \\xff.txt"
    assert readable(name) == "café € notes ÿ.txt"
    assert readable(os.fsdecode(b"na\xc3\xafve \x81.md")) == "naïve \ufffd.md"  # valid UTF-8 kept; 0x81 is unassigned
    assert readable("x\ud800y") == "x\ufffdy"
    assert readable("already fine ü") == "already fine ü"
