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


def test_package_data_takes_the_schema_revisions(tmp_path, monkeypatch):
    """Alembic reads the revisions as files, so the wheel and the bundle must carry them as data."""
    package = REPO / "vancetope_desktop"
    taken = {path for pattern in SETUPTOOLS["package-data"]["vancetope_desktop"] for path in package.glob(pattern)}
    revisions = set((package / "store" / "migrations" / "versions").glob("*.py"))
    assert revisions and revisions <= taken
    # The bundle's app part (packaging/build_bundle.py) ships them as they are, the other modules compiled.
    monkeypatch.setenv("VANCETOPE_BUNDLE_ONNX", str(tmp_path / "no-graphs"))  # the graph is not what is checked
    monkeypatch.syspath_prepend(str(REPO / "packaging"))
    import build_bundle

    internal = tmp_path / "_internal"
    assert build_bundle.add_app(internal, tmp_path / "work", tmp_path / "graphs") > 100
    shipped = {path.relative_to(internal) for path in internal.rglob("*.py")}
    assert {path.relative_to(REPO) for path in revisions} <= shipped
    assert (internal / "vancetope_desktop" / "store" / "migrations" / "upgrade.pyc").exists()
