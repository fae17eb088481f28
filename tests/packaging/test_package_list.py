"""pyproject's package list and package data take in everything the app reads at run time, and no screenshot."""

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_of_the_source_tree_is_listed():
    inits = (REPO / "vancetope_desktop").rglob("__init__.py")
    found = {".".join(init.parent.relative_to(REPO).parts) for init in inits}
    listed = set(SETUPTOOLS["packages"])
    assert found - listed == set(), "packages missing from pyproject [tool.setuptools] packages"
    assert listed - found == {"vancetope_desktop.assets"}, "listed packages that the source tree does not hold"
    assert SETUPTOOLS["package-dir"] == {"vancetope_desktop.assets": "resources"}


def test_package_data_takes_every_resource_but_the_screenshots():
    resources = REPO / "resources"
    patterns = SETUPTOOLS["package-data"]["vancetope_desktop.assets"]
    taken = {path for pattern in patterns for path in resources.glob(pattern)}
    tracked = {path for path in resources.rglob("*") if path.is_file() and "__pycache__" not in path.parts
               and path.name != "__init__.py"}
    screenshots = {path for path in tracked if path.parts[len(resources.parts)] == "screenshots"}
    assert screenshots, "resources/screenshots holds README's pictures"
    assert sorted(p.relative_to(resources).as_posix() for p in tracked - screenshots - taken) == []
    assert taken & screenshots == set()


def test_package_data_takes_the_schema_revisions():
    """Alembic reads the revisions as files, so the wheel and the bundle must carry them as data."""
    package = REPO / "vancetope_desktop"
    taken = {path for pattern in SETUPTOOLS["package-data"]["vancetope_desktop"] for path in package.glob(pattern)}
    revisions = set((package / "store" / "migrations" / "versions").glob("*.py"))
    assert revisions and revisions <= taken
    spec = (REPO / "installer" / "vancetope.spec").read_text(encoding="utf-8")
    assert 'collect_data_files("vancetope_desktop.store.migrations", include_py_files=True' in spec
