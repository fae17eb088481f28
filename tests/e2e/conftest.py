"""End-to-end tests run real processes over real libraries: all of them are slow (``-m "not slow"`` skips them)."""

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in item.nodeid:
            item.add_marker(pytest.mark.slow)
