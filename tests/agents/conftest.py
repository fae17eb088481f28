"""The agent tool suites on both backends: ``library`` is embedded, then a real team library (``each_library``)."""

import pytest


@pytest.fixture
def library(each_library):
    """``tests/conftest.py``'s ``each_library``: embedded, then a team library."""
    return each_library
