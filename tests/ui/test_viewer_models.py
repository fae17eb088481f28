"""The data viewer's item models pass qtmodeltester on real corpus files and on edge values."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt

from vancetope_desktop.ui.viewer import data_models
from vancetope_desktop.ui.viewer.data_files import read_structured, read_table
from vancetope_desktop.ui.viewer.data_models import TableModel, TreeModel


@pytest.mark.parametrize("name", ["penguins.csv", "semicolon-delimited.csv", "inconsistent-header.csv"])
def test_table_model(qtmodeltester, corpus, name):
    table = read_table(corpus / "data" / name)
    model = TableModel(table)
    qtmodeltester.check(model)
    assert model.rowCount() == len(table.rows)
    assert model.columnCount() == len(table.header)
    assert model.headerData(0, Qt.Orientation.Horizontal) == table.header[0]
    assert model.headerData(0, Qt.Orientation.Vertical) == "1"
    assert model.data(model.index(0, 0)) == table.rows[0][0]


@pytest.mark.parametrize("name", ["napari-citation.cff.yaml", "zotero-library-dump.yaml"])
def test_tree_model_on_yaml(qtmodeltester, corpus, name):
    value, _notes = read_structured(corpus / "data" / name)
    model = TreeModel(value)
    qtmodeltester.check(model)
    assert model.rowCount() == len(value)


def test_tree_model_on_geojson(qtmodeltester, corpus):
    value, _notes = read_structured(corpus / "data" / "earthquakes-usgs-week.geojson.json")
    model = TreeModel(value)
    keys = [model.data(model.index(row, 0)) for row in range(model.rowCount())]
    assert keys == list(value)
    features = model.index(keys.index("features"), 0)
    assert model.data(features.siblingAtColumn(1)) == f"[{len(value['features']):,} items]"
    assert model.data(features.siblingAtColumn(2)) == "list"
    first = model.index(0, 0, features)
    assert model.data(first) == "[0]"
    assert model.parent(first) == features
    # the whole 1.2 MB file through the tester is slow; a feature subtree exercises the same code
    qtmodeltester.check(TreeModel({"features": value["features"][:3], "metadata": value["metadata"]}))


def test_tree_model_edge_values(qtmodeltester, monkeypatch):
    monkeypatch.setattr(data_models, "MAX_CHILDREN", 5)
    model = TreeModel({"empty": {}, "none": None, "flag": True, "many": list(range(8)), "s": "x" * 500})
    qtmodeltester.check(model)
    values = {model.data(model.index(r, 0)): model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert values["none"] == "null" and values["flag"] == "true" and values["empty"] == "{0 keys}"
    assert values["s"].endswith("…")
    many = model.index(list(values).index("many"), 0)
    assert model.rowCount(many) == 6  # five items and "… 3 more not shown"
    assert model.data(model.index(5, 1, many)) == "3 more not shown"
    scalar = TreeModel(42)
    qtmodeltester.check(scalar)
    assert scalar.data(scalar.index(0, 1)) == "42"
    assert not scalar.hasChildren(scalar.index(0, 0)) and scalar.rowCount(QModelIndex()) == 1
