"""The Relations section of Details (issue 12): typed relations grouped by type, both ways, as links; loaded by
the window for the document it shows, as the current scope sees them."""

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.services import documents, graph
from vancetope_desktop.services.graph import DocumentRelations, RelatedDocument
from vancetope_desktop.ui.relations_view import RelationsView

WAIT = 15_000


def _related(doc_id, title, status="active"):
    return RelatedDocument(id=doc_id, title=title, type="note", scope="project/inbox", status=status)


def test_the_view_groups_by_type_escapes_titles_and_emits_clicks(qtbot):
    view = RelationsView()
    qtbot.addWidget(view)
    assert view.isHidden()  # no relations, no section
    view.set_relations(DocumentRelations(
        document_id="doc_b", outgoing={RelationType.UPDATES: [_related("doc_a", "Old <colours>", "archived")]},
        incoming={RelationType.CONTRADICTS: [_related("doc_c", "Other view")],
                  RelationType.LINKS_TO: [_related("doc_d", "A note")]}))  # shown under Backlinks
    view.show()
    assert view.shown() == [("updates", ["doc_a"]), ("contradicted by", ["doc_c"])]
    assert "Old &lt;colours&gt;" in view.rows_label.text() and "(archived)" in view.rows_label.text()
    with qtbot.waitSignal(view.document_link_activated) as clicked:
        view.rows_label.linkActivated.emit("doc_c")
    assert clicked.args == ["doc_c"]
    with qtbot.waitSignal(view.graph_requested) as asked:
        view.graph_link.linkActivated.emit("graph")
    assert asked.args == ["doc_b"]
    view.set_relations(DocumentRelations(document_id="doc_b", outgoing={
        RelationType.DERIVED_FROM: [_related("doc_p", "A paper")]}))  # Details' "Derived from" row lists it
    assert view.shown() == [] and view.isVisible() and view.rows_label.isHidden()  # the heading and Show graph
    view.set_relations(None)
    assert view.isHidden() and view.document_id() is None


def test_details_show_the_documents_relations_and_name_what_superseded_a_memory_once(qtbot, library, make_window):
    old = documents.add_text(library, "Colours use hex codes.", doc_type=DocumentType.NOTE, title="Hex")
    new = documents.add_text(library, "Colours use OKLCH tokens.", doc_type=DocumentType.NOTE, title="OKLCH")
    graph.relate(library, new.id, old.id, "updates")
    window = make_window(library)
    window.open_document(new.id)
    qtbot.waitUntil(lambda: window.details.relations.document_id() == new.id, timeout=WAIT)
    assert window.details.relations.shown() == [("updates", [old.id])]
    window.open_document(old.id)
    details = window.details
    qtbot.waitUntil(lambda: details.relations.document_id() == old.id and "OKLCH" in details.archived.label.text(),
                    timeout=WAIT)
    # "superseded by OKLCH" at the top, with Restore; not a second time as "updated by" under Relations.
    assert details.relations.shown() == [] and "OKLCH" not in details.relations.rows_label.text()
    assert details.relations.isVisibleTo(details)  # its heading keeps "Show graph"


def test_only_the_document_the_archived_notice_names_is_left_out_of_updated_by(qtbot):
    view = RelationsView()
    qtbot.addWidget(view)
    view.set_relations(DocumentRelations(document_id="doc_a", incoming={
        RelationType.UPDATES: [_related("doc_b", "Second"), _related("doc_c", "Third")],
        RelationType.SUPPORTS: [_related("doc_b", "Second")]}), named_above="doc_c")
    assert view.shown() == [("updated by", ["doc_b"]), ("supported by", ["doc_b"])]


def test_details_show_the_relations_of_a_document_below_the_current_scope(qtbot, library, make_window):
    from vancetope_desktop.services import scopes

    scopes.create_scope(library, "session", "s_1", parent="project/inbox")
    claim = documents.add_text(library, "Claim below.", doc_type=DocumentType.NOTE, title="Claim", scope="session/s_1")
    proof = documents.add_text(library, "Proof below.", doc_type=DocumentType.NOTE, title="Proof", scope="session/s_1")
    graph.relate(library, proof.id, claim.id, "supports", scope="session/s_1")
    window = make_window(library)  # the current scope, project/inbox, cannot read them by the rule
    window.open_document(claim.id)
    qtbot.waitUntil(lambda: window.details.relations.document_id() == claim.id, timeout=WAIT)
    assert window.details.relations.shown() == [("supported by", [proof.id])]
