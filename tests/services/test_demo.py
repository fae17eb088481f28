"""The demo library (seed §8) installed into a real library, indexed with the real model, and searched."""

from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, IndexState, SourceType
from vancetope_desktop.core.errors import EmbeddingModelMissing, ScopeError
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.resources import resource_path
from vancetope_desktop.services import demo, documents, indexing, relations, review, scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.search import search
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session

HARDWARE_QUERY = "What are the hardware requirements of Flash Attention?"
OTHER_PROJECT = "project/other-review"
PROJECT_FOLDERS = {
    "Papers": {"vaswani2017.pdf", "dao2022_flashattention.pdf", "kitaev2020_reformer.pdf"},
    "Facts": {"Supervisor: Prof. Müller", "Deadline: 15.06.2026", "Focus: Inference efficiency, not Training"},
    "References": {"survey_overview.md"},
}
TP_FOLDERS = {
    "think-process/tp_12": {
        "Results": {"extraction_vaswani.md", "extraction_flash.md", "comparison_methods.md"},
        "Notes": {"Flash Attention optimizes IO, not Compute", "Reformer and Flash Attention are orthogonal"},
    },
    "think-process/tp_13": {
        "Results": {"counterarguments.md"},
        "Notes": {"Hypothesis 1 holds under restriction X"},
    },
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The demo installed and indexed once for the module (like the ``library`` fixture, module-scoped to
    embed the ~50 chunks once), plus a sibling project holding a near-copy of the FlashAttention facts."""
    lib = Library.open(tmp_path_factory.mktemp("demo") / "library")
    messages: list[str] = []
    report = demo.install_demo(lib, progress=messages.append)
    scopes.create_scope(lib, "project", "other-review", parent=demo.DEMO_GROUP, name="Other review")
    other = documents.add_text(
        lib, "Hardware requirements of Flash Attention: an NVIDIA A100 GPU with 192 KB of on-chip SRAM per "
        "streaming multiprocessor; FlashAttention tiles attention to reduce HBM reads and writes.",
        doc_type=DocumentType.NOTE, title="Flash Attention hardware requirements", scope=OTHER_PROJECT,
    )
    drained = indexing.try_drain(lib)
    assert drained is not None and not drained.failed
    yield lib, report, other.id, messages
    lib.close()


def _names_by_id(report: demo.DemoReport) -> dict[str, str]:
    return {doc_id: name for name, doc_id in report.documents.items()}


def test_manifest_agrees_with_constants_and_resources():
    manifest = demo.load_manifest()
    assert manifest.project == demo.DEMO_PROJECT
    assert manifest.scopes[0].path == demo.DEMO_GROUP and manifest.scopes[0].parent is None
    for spec in manifest.documents:
        if spec.file:
            assert resource_path("demo", spec.file).is_file()
        if spec.kind == "result":
            key = spec.scope.split("/", 1)[1]
            assert spec.source is not None and spec.source.think_process == key and spec.source.node
            assert {f"thinkProcess:{key}", f"auto:{spec.source.node}"} <= set(spec.tags)


def test_is_library_empty_counts_documents_in_any_status(library):
    assert demo.is_library_empty(library)
    fact = documents.add_text(library, "A fact")
    assert not demo.is_library_empty(library)
    documents.set_status(library, fact.id, DocumentStatus.DELETED)
    assert not demo.is_library_empty(library)


def test_cancel_before_writing_leaves_the_library_untouched(library):
    report = demo.install_demo(library, cancel=lambda: True)
    assert report.cancelled and not report.documents and not report.scopes
    assert demo.is_library_empty(library)
    assert all(not s.path.startswith(("group/ml-research", "project/transformer")) for s in scopes.list_scopes(library))
    assert demo.install_demo(library).documents  # nothing was left behind to block a real install


def test_a_library_without_its_model_refuses_the_demo_before_writing_anything(tmp_path):
    """The model a wheel install may lack (its package skipped): here a path that does not resolve."""
    missing = tmp_path / "no-such-model"
    with Library.open(tmp_path / "library", settings=Settings(embedding_model=str(missing))) as lib:
        assert lib.model_problem() is not None and str(missing) in lib.model_problem()
        with pytest.raises(EmbeddingModelMissing, match=r"nothing was installed.*settings set embedding_model"):
            demo.install_demo(lib)
        assert demo.is_library_empty(lib)
        assert not {s.path for s in scopes.list_scopes(lib)} & {s.path for s in demo.load_manifest().scopes}


class _Crash(Exception):
    """Stands for the process dying half-way through an install."""


def test_a_demo_left_half_installed_is_finished_by_installing_again(library):
    def crash_at_the_sixth_document(message: str) -> None:
        if message.startswith("Adding") and sum(m.startswith("Adding") for m in said) == 5:
            raise _Crash(message)
        said.append(message)

    said: list[str] = []
    with pytest.raises(_Crash):
        demo.install_demo(library, progress=crash_at_the_sixth_document)
    first = demo._installed_part(library, demo.load_manifest())[1]
    assert len(first) == 5
    with write_session(library.engine) as session:  # as an install from before the demo key left them
        for doc_id in first.values():
            row = session.get(tables.DocumentRow, doc_id)
            row.meta = {k: v for k, v in row.meta.items() if k != demo.DEMO_KEY}
            session.add(row)
    assert demo._installed_part(library, demo.load_manifest())[1] == first  # known by source path or content
    report = demo.install_demo(library)
    assert sorted(report.kept) == sorted(first) and not report.failures
    manifest = demo.load_manifest()
    assert set(report.documents) == {d.name for d in manifest.documents}
    assert {n: report.documents[n] for n in first} == first  # kept, not added twice
    own = documents.list_documents(library, scope=demo.DEMO_PROJECT, include_ancestors=False)
    assert sorted(d.title for d in own if d.type is DocumentType.FOLDER) == ["Facts", "Papers", "References"]
    assert len([d for d in own if d.type is not DocumentType.FOLDER]) == 7
    with pytest.raises(ScopeError, match="installed already"):
        demo.install_demo(library)


def test_an_edited_demo_document_is_still_the_demos(library):
    """A user's edit of a demo fact does not make the demo look unfinished: installing again is refused, no
    second copy of the fact is added."""
    report = demo.install_demo(library)
    deadline = report.documents["Deadline: 15.06.2026"]
    documents.update_document(library, deadline, content="Deadline: 30.06.2026")
    assert demo.is_installed(library)
    with pytest.raises(ScopeError, match="installed already"):
        demo.install_demo(library)
    facts = documents.list_documents(library, scope=demo.DEMO_PROJECT, include_ancestors=False,
                                     types=[DocumentType.FACT])
    assert sum("Deadline" in d.title for d in facts) == 1


def test_scope_tree_and_current_scope(installed):
    lib, report, _, messages = installed
    assert report.project == demo.DEMO_PROJECT and not report.failures and not report.cancelled
    assert report.think_processes == ["think-process/tp_12", "think-process/tp_13"]
    assert len(report.document_ids) == 14 and len(set(report.document_ids)) == 14
    expected = {
        demo.DEMO_GROUP: (None, "ML Research"),
        demo.DEMO_PROJECT: (demo.DEMO_GROUP, "Transformer Efficiency Review"),
        "session/review-2026": (demo.DEMO_PROJECT, "Literature review"),
        "think-process/tp_12": ("session/review-2026", "Paper Analysis"),
        "think-process/tp_13": ("session/review-2026", "Hypothesis Check"),
    }
    for path, (parent, name) in expected.items():
        info = scopes.get_scope(lib, path)
        assert (info.parent, info.name) == (parent, name)
    assert scopes.current_scope(lib) == demo.DEMO_PROJECT
    assert messages[-1] == "Demo library ready" and any("dao2022_flashattention.pdf" in m for m in messages)


def test_second_install_is_refused(installed):
    lib, _, _, _ = installed
    with pytest.raises(ScopeError, match="installed already"):
        demo.install_demo(lib)
    assert len(documents.list_documents(lib, scope=demo.DEMO_PROJECT, include_ancestors=False,
                                        types=[DocumentType.FILE])) == 3


def _folder_contents(lib: Library, scope: str, names: dict[str, str]) -> dict[str, set[str]]:
    own = documents.list_documents(lib, scope=scope, include_ancestors=False)
    result = {}
    for folder in (d for d in own if d.type is DocumentType.FOLDER):
        result[folder.title] = {names[d.id] for d in own if d.folder_id == folder.id}
    assert all(d.folder_id is not None for d in own if d.type is not DocumentType.FOLDER)
    return result


def test_folders_hold_the_seed_documents(installed):
    lib, report, _, _ = installed
    names = _names_by_id(report)
    assert _folder_contents(lib, demo.DEMO_PROJECT, names) == PROJECT_FOLDERS
    for scope, folders in TP_FOLDERS.items():
        assert _folder_contents(lib, scope, names) == folders
    assert documents.list_documents(lib, scope="session/review-2026", include_ancestors=False) == []


def test_papers_are_multi_page_pdfs_with_authors_year_and_tags(installed):
    lib, report, _, _ = installed
    expected = {
        "vaswani2017.pdf": ("Ashish Vaswani", 2017, {"foundational", "attention"}),
        "dao2022_flashattention.pdf": ("Tri Dao", 2022, {"efficiency", "hardware"}),
        "kitaev2020_reformer.pdf": ("Nikita Kitaev", 2020, {"efficiency", "sparse"}),
    }
    for name, (first_author, year, tags) in expected.items():
        doc = documents.get_document(lib, report.documents[name])
        assert doc.type is DocumentType.FILE and doc.mime_type == "application/pdf"
        assert doc.scope == demo.DEMO_PROJECT and doc.index_state is IndexState.INDEXED
        assert doc.source.type is SourceType.USER_UPLOAD and set(doc.tags) == tags
        assert doc.metadata["original_name"] == name and "(demo summary)" in doc.title
        assert doc.metadata["authors"][0] == first_author and doc.metadata["year"] == year
        assert doc.file_path is not None and Path(doc.file_path).is_file()
        # Rendered into a temporary folder deleted after the install: the source names the demo instead.
        assert doc.metadata["source_path"] == f"{demo.DEMO_SOURCE}: papers/{Path(name).stem}.md"
        assert doc.version == 1
        with pymupdf.open(doc.file_path) as pdf:
            assert pdf.page_count >= 2 and doc.metadata["page_count"] == pdf.page_count
            assert demo.DEMO_NOTICE in pdf[0].get_text().replace("\n", " ")
        chunks = documents.list_chunks(lib, doc.id)
        assert 4 <= len(chunks) <= 20 and {c.page for c in chunks} >= {1, 2}


def test_results_notes_and_facts_carry_types_tags_and_sources(installed):
    lib, report, _, _ = installed
    get = lambda name: documents.get_document(lib, report.documents[name])  # noqa: E731
    flash = get("extraction_flash.md")
    assert flash.type is DocumentType.RESULT and flash.scope == "think-process/tp_12"
    assert flash.title == "Extraction: FlashAttention" and flash.mime_type == "text/markdown"
    assert flash.source.type is SourceType.THINK_PROCESS_RESULT
    assert (flash.source.think_process_id, flash.source.node_id) == ("tp_12", "node_7_2")
    assert set(flash.tags) == {"extraction", "efficiency", "project-relevant", "thinkprocess:tp_12", "auto:node_7_2"}
    assert flash.metadata["node_type"] == "extract" and not flash.content.startswith("---")
    vaswani = get("extraction_vaswani.md")
    assert (vaswani.source.node_id, vaswani.metadata["year"]) == ("node_7_1", 2017)
    comparison = get("comparison_methods.md")
    assert "auto:node_7_3" in comparison.tags
    assert relations.derived_from(lib, comparison.id) == [report.documents[n] for n in (
        "extraction_vaswani.md", "extraction_flash.md", "kitaev2020_reformer.pdf")]
    assert relations.derived_from(lib, flash.id) == [report.documents["dao2022_flashattention.pdf"]]
    counter = get("counterarguments.md")
    assert counter.scope == "think-process/tp_13" and counter.source.think_process_id == "tp_13"
    assert {"verification", "hypothesis", "thinkprocess:tp_13"} <= set(counter.tags)
    note = get("Flash Attention optimizes IO, not Compute")
    assert note.type is DocumentType.NOTE and set(note.tags) == {"insight"} and note.scope == "think-process/tp_12"
    assert get("Hypothesis 1 holds under restriction X").tags == ["finding"]
    fact = get("Supervisor: Prof. Müller")
    assert fact.type is DocumentType.FACT and fact.content == "Supervisor: Prof. Müller"
    survey = get("survey_overview.md")
    assert survey.type is DocumentType.REFERENCE and set(survey.tags) == {"meta", "survey"}
    # The review queue holds seed §8's two ways up: the #project-relevant rule and a think process asking.
    pending = {r.document_id: r for r in review.list_requests(lib)}
    assert set(pending) == {flash.id, counter.id}
    assert pending[flash.id].requested_by == "rule:project-relevant"
    assert (pending[counter.id].requested_by, pending[counter.id].target_scope) == (
        "think-process/tp_13", demo.DEMO_PROJECT)
    assert all(get(n).index_state is IndexState.INDEXED for n in report.documents)


def test_seed_query_in_hypothesis_check_finds_the_flashattention_paper(installed):
    lib, report, other_id, _ = installed
    response = search(lib, HARDWARE_QUERY, scope="think-process/tp_13", limit=5)
    found = [h.document.id for h in response.hits]
    dao = report.documents["dao2022_flashattention.pdf"]
    assert response.vector_search and dao in found[:3]
    hit = next(h for h in response.hits if h.document.id == dao)
    assert hit.distance == 2 and hit.scope_weight == 0.5
    assert any("SRAM" in p.text or "GPU" in p.text for p in hit.passages)
    assert other_id not in found


def test_paper_analysis_results_stay_isolated_from_hypothesis_check(installed):
    lib, report, other_id, _ = installed
    tp_12 = {d.id for d in documents.list_documents(lib, scope="think-process/tp_12", include_ancestors=False)}
    queries = [HARDWARE_QUERY, "Extraction: FlashAttention hardware requirements as extracted",
               "Flash Attention optimizes IO, not Compute", "comparison of Transformer, FlashAttention and Reformer"]
    for query in queries:
        found = {h.document.id for h in search(lib, query, scope="think-process/tp_13", limit=50).hits}
        assert found and not found & tp_12, query
        assert other_id not in found
    visible = {d.id for d in documents.list_documents(lib, scope="think-process/tp_13")}
    assert not visible & tp_12 and other_id not in visible
    # The control: the same results are found from their own think process, and never the other project's note.
    own = [h.document.id for h in search(lib, HARDWARE_QUERY, scope="think-process/tp_12", limit=5).hits]
    assert report.documents["extraction_flash.md"] in own and other_id not in own
    from_project = {h.document.id for h in search(lib, HARDWARE_QUERY, scope=demo.DEMO_PROJECT, limit=50).hits}
    assert other_id not in from_project and not from_project & tp_12


def test_a_demo_note_links_to_another_and_shows_as_its_backlink(installed):
    from vancetope_desktop.services import notelinks

    lib, report, _, _ = installed
    source, target = (report.documents[n] for n in ("Reformer and Flash Attention are orthogonal",
                                                     "Flash Attention optimizes IO, not Compute"))
    assert relations.targets(lib, source, relations.LINKS_TO) == [target]
    assert [m.document.id for m in notelinks.backlinks(lib, target, scope="think-process/tp_12").linked] == [source]
