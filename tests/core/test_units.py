"""Sizes as people read them: one helper for every place that shows a file size."""

import pytest

from vancetope_desktop.core.units import format_size


@pytest.mark.parametrize(("size", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1 KB"), (304_636, "297.5 KB"),
    (512 * 1024 * 1024, "512 MB"), (3 * 1024**3 + 1024**3 // 2, "3.5 GB"), (5 * 1024**5, "5120 TB"),
])
def test_format_size(size, text):
    assert format_size(size) == text
