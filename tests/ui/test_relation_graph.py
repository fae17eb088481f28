"""The relation picture (issue 12): a document's neighbourhood drawn as nodes and labelled edges, as the current
scope sees it (an invisible document is left out), faded when archived, a click opening the document, depth 1
or 2; opened from Details' "Show graph" and the list's row menu."""

import pytest
from PySide6.QtCore import QPointF, Qt

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, graph, scopes
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.ui.relation_graph import FADED, lay_out
from vancetope_desktop.ui.relation_graph_pane import RelationGraphPane

WAIT = 15_000
S, TP1, TP2 = "session/s_1", "think-process/tp_1", "think-process/tp_2"


@pytest.fixture
def memories(library):
    """A decision in the project, updated by a newer one; a finding of tp_1 extending the newer one and one of
    tp_2 (a sibling: invisible from tp_1) contradicting it; a paper the older decision cites."""
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    scopes.create_scope(library, "think-process", "tp_1", parent=S)
    scopes.create_scope(library, "think-process", "tp_2", parent=S)

    def note(title, scope=None, memory_type="project"):
        return documents.add_text(library, title + ".", doc_type=DocumentType.NOTE, title=title, scope=scope,
                                  memory_type=memory_type).id

    ids = {"old": note("Colours are hex"), "new": note("Colours are OKLCH"),
           "finding": note("OKLCH passes contrast", TP1, "feedback"), "secret": note("OKLCH fails", TP2, None),
           "paper": documents.add_text(library, "Lee, A. (2021). Perceptual colour spaces. J. Vis.",
                                        doc_type=DocumentType.REFERENCE, title="Colour paper").id}
    graph.relate(library, ids["old"], ids["paper"], "cites")
    graph.relate(library, ids["new"], ids["old"], "updates")
    graph.relate(library, ids["finding"], ids["new"], "extends", scope=TP1)
    graph.relate(library, ids["secret"], ids["new"], "contradicts", scope=TP2)
    return ids


def _click(qtbot, view, doc_id):
    item = view.node_items[doc_id]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(item.scenePos()))


def test_the_pane_draws_what_the_scope_sees_and_emits_clicks_and_depth(qtbot, library, memories):
    pane = RelationGraphPane()
    qtbot.addWidget(pane)
    pane.resize(900, 600)
    pane.show()
    ids = memories
    picture = lay_out(graph.neighbourhood(library, ids["new"], 1, TP1))
    pane.set_picture(picture, "Colours are OKLCH")
    view = pane.view
    assert set(view.node_items) == {ids["new"], ids["old"], ids["finding"]}  # tp_2's contradiction left out
    assert len(view.edge_items) == 2 and picture.node(ids["new"]).x == picture.node(ids["new"]).y == 0
    assert view.node_items[ids["old"]].opacity() == FADED and view.node_items[ids["new"]].opacity() == 1
    assert view.label_items[ids["old"]].text() == "Colours are hex (superseded)"
    assert pane.legend.entries == ["note", "feedback", "project", "updates", "extends", "archived / stale"]
    labels = {c.text() for e in view.edge_items for c in e.childItems()}
    assert labels == {"updates", "extends"}
    with qtbot.waitSignal(pane.document_open_requested) as opened:
        _click(qtbot, view, ids["finding"])
    assert opened.args == [ids["finding"]]
    at = view.mapFromScene(view.node_items[ids["finding"]].scenePos())
    with qtbot.assertNotEmitted(pane.document_open_requested):  # dragging from a node pans, opens nothing
        qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=at)
        title = view.mapFromScene(view.label_items[ids["finding"]].sceneBoundingRect().center())  # still the node
        qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=title)
    with qtbot.assertNotEmitted(pane.document_open_requested):  # the empty background pans, opens nothing
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(QPointF(-400, -400)))
    with qtbot.waitSignal(pane.depth_changed) as changed:
        pane.depth.setCurrentIndex(1)
    assert changed.args == [2]
    deeper = lay_out(graph.neighbourhood(library, ids["new"], 2, TP1))
    pane.set_picture(deeper, "Colours are OKLCH")
    assert set(view.node_items) == {ids["new"], ids["old"], ids["finding"], ids["paper"]}
    assert pane.note.text() == ""


def test_a_large_neighbourhood_is_capped_with_a_note(qtbot, library):
    hub = documents.add_text(library, "Hub.", doc_type=DocumentType.NOTE, title="Hub").id
    for n in range(12):
        other = documents.add_text(library, f"Spoke {n}.", doc_type=DocumentType.NOTE, title=f"Spoke {n}").id
        graph.relate(library, other, hub, "supports")
    picture = lay_out(graph.neighbourhood(library, hub, 1), max_shown=8)
    assert len(picture.nodes) == 8 and picture.hidden == 5 and picture.node(hub) is not None
    pane = RelationGraphPane()
    qtbot.addWidget(pane)
    pane.set_picture(picture, "Hub")
    assert len(pane.view.edge_items) == 7
    assert pane.note.text().startswith("+5 more not shown")


def test_the_window_opens_the_picture_from_details_and_the_row_menu(qtbot, library, memories, make_window):
    ids = memories
    window = make_window(library)
    window.open_document(ids["new"])
    relations = window.details.relations
    qtbot.waitUntil(lambda: relations.document_id() == ids["new"], timeout=WAIT)
    relations.graph_link.linkActivated.emit("graph")  # "Show graph"
    flow = window.relation_graph
    qtbot.waitUntil(lambda: flow.pane is not None and flow.pane.picture is not None, timeout=WAIT)
    assert set(flow.pane.view.node_items) == {ids["new"], ids["old"]}  # project/inbox sees neither finding
    flow.pane.depth.setCurrentIndex(1)
    qtbot.waitUntil(lambda: flow.pane.picture.depth == 2, timeout=WAIT)
    assert set(flow.pane.view.node_items) == {ids["new"], ids["old"], ids["paper"]}
    _click(qtbot, flow.pane.view, ids["paper"])
    qtbot.waitUntil(lambda: window.details.document_id() == ids["paper"], timeout=WAIT)
    window.table.select_ids([ids["paper"]])
    qtbot.waitUntil(lambda: window.table.selected_ids() == [ids["paper"]], timeout=WAIT)
    entry = next(a for a in window.table.context_menu().actions() if a.text() == "Relations Graph…")
    entry.trigger()
    qtbot.waitUntil(lambda: flow.pane.picture.center == ids["paper"], timeout=WAIT)
    assert flow.dialog.windowTitle() == "Relations — Colour paper"
