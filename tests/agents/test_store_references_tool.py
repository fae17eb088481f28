"""``memory_store`` of pasted BibTeX (issue 12 follow-up): every entry becomes a reference, and the tool user learns
every id (``entries``), with the promotion request and the relation applied to each, not to the first only."""

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, graph, review, scopes

BIBTEX = """@article{smith2020, title={Glacier retreat in the Alps}, author={Smith, Ann}, year={2020}, journal={Nature}}
@article{doe2021, title={Heron migration counts}, author={Doe, Jo}, year={2021}, journal={Ibis}}
@book{roe2019, title={A book on ice}, author={Roe, Richard}, year={2019}, publisher={CUP}}
"""


def test_every_entry_is_reported_promoted_and_related(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    plan = documents.add_text(library, "Reading list for the glacier review", doc_type=DocumentType.NOTE,
                              scope="session/s1")
    stored = MemoryTools(library, "session/s1").call("memory_store", {
        "content": BIBTEX, "type": "reference", "scope": "project", "reason": "the review cites them",
        "relates_to": {"target_id": plan.id, "type": "relates_to"}})
    titles = [documents.get_document(library, i).title for i in stored.entries]
    assert titles == ["Glacier retreat in the Alps", "Heron migration counts", "A book on ice"]
    assert stored.doc_id == stored.entries[0] and stored.promotion_status == "pending"
    asked = {r.document_id: r.target_scope for r in review.list_requests(library, status=None)}
    assert asked == dict.fromkeys(stored.entries, "project/inbox")
    assert [e.source_id for e in stored.relations] == stored.entries
    assert {d.id for d in graph.relations_of(library, plan.id, "session/s1").incoming["relates_to"]} == set(
        stored.entries)
