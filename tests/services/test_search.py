"""Hybrid scope-aware search on real stores with the real model, including the seed §8 scenario."""

import pytest

from tests.library_copies import build_template, copied_library
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.tags import all_of
from vancetope_desktop.services import documents, indexing, moves, scopes
from vancetope_desktop.services.search import make_snippet, passage_highlight, search


def _seed(library):
    """Seed §8: project 'Transformer Efficiency Review' with two think processes, plus another project."""
    scopes.create_scope(library, "group", "grp_1", name="Lab")
    scopes.create_scope(library, "project", "proj_5", parent="group/grp_1", name="Transformer Efficiency Review")
    scopes.create_scope(library, "project", "proj_9", parent="group/grp_1", name="Protein folding")
    scopes.create_scope(library, "session", "sess_7", parent="project/proj_5")
    scopes.create_scope(library, "think-process", "tp_analysis", parent="session/sess_7", name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_check", parent="session/sess_7", name="Hypothesis Check")
    add = documents.add_text
    ids = {
        "flash_paper": add(library, "FlashAttention: fast and memory-efficient exact attention with IO-awareness. "
                           "It needs GPUs with fast on-chip SRAM; tiling reduces HBM reads and writes.",
                           doc_type=DocumentType.NOTE, title="dao2022_flashattention", scope="project/proj_5",
                           tags=["efficiency", "hardware"]).id,
        "deadline": add(library, "Deadline: 15.06.2026", scope="project/proj_5").id,
        "extraction_flash": add(library, "Flash Attention optimises memory IO on GPU hardware, not compute; "
                                "hardware requirement: CUDA GPU with large shared memory.",
                                doc_type=DocumentType.RESULT,
                                title="extraction_flash", scope="think-process/tp_analysis",
                                tags=["extraction", "efficiency"]).id,
        "unpromoted": add(library, "Flash attention hardware notes: runs on A100 GPUs only in our tests.",
                          doc_type=DocumentType.NOTE, title="private analysis note",
                          scope="think-process/tp_analysis").id,
        "other_project": add(library, "Flash attention hardware requirements for protein language models on GPUs.",
                             doc_type=DocumentType.NOTE, title="other project note", scope="project/proj_9").id,
        "group_fact": add(library, "The lab owns four GPU servers with A100 hardware.", scope="group/grp_1").id,
    }
    indexing.try_drain(library)
    return ids


@pytest.fixture(scope="module")
def seed_template(tmp_path_factory):
    """The seed library built and embedded once for the module; each test gets a copy (``seed_library``)."""
    return build_template(tmp_path_factory, _seed)


@pytest.fixture
def seed_library(seed_template, tmp_path):
    template, ids = seed_template
    with copied_library(template, tmp_path / "library") as library:
        yield library, ids


def test_seed_scenario_hypothesis_check_sees_project_and_promoted_results_only(seed_library):
    library, ids = seed_library
    query = "What are the hardware requirements of Flash Attention?"
    found = [h.document.id for h in search(library, query, scope="think-process/tp_check").hits]
    assert ids["flash_paper"] in found[:3]
    assert ids["other_project"] not in found
    assert ids["unpromoted"] not in found and ids["extraction_flash"] not in found

    moves.move_to_scope(library, ids["extraction_flash"], "project")
    indexing.try_drain(library)
    response = search(library, query, scope="think-process/tp_check")
    found = [h.document.id for h in response.hits]
    assert ids["extraction_flash"] in found[:3]
    assert ids["unpromoted"] not in found and ids["other_project"] not in found
    assert response.vector_search
    hit = next(h for h in response.hits if h.document.id == ids["extraction_flash"])
    assert hit.scope_weight == 0.5 and hit.distance == 2 and hit.vector is not None and hit.lexical is not None


def test_scope_weight_orders_equal_matches(seed_library):
    library, _ = seed_library
    same = "Reformer and Flash Attention are orthogonal"
    near = documents.add_text(library, same, scope="think-process/tp_check").id
    far = documents.add_text(library, same, scope="group/grp_1").id
    indexing.try_drain(library)
    hits = search(library, same, scope="think-process/tp_check").hits
    order = [h.document.id for h in hits]
    assert order.index(near) < order.index(far)
    weights = {h.document.id: h.scope_weight for h in hits}
    assert weights[near] == 1.0 and weights[far] == 0.3


def test_tag_filter_needs_every_tag(seed_library):
    library, ids = seed_library
    hits = search(library, "flash attention", scope="think-process/tp_analysis",
                  tag_filter=all_of(["efficiency", "extraction"])).hits
    assert [h.document.id for h in hits] == [ids["extraction_flash"]]


def test_archived_and_deleted_are_left_out_unless_asked(seed_library):
    library, ids = seed_library
    documents.set_status(library, ids["flash_paper"], DocumentStatus.ARCHIVED)
    found = [h.document.id for h in search(library, "FlashAttention IO-awareness", scope="project/proj_5").hits]
    assert ids["flash_paper"] not in found
    found = [h.document.id for h in search(library, "FlashAttention IO-awareness", scope="project/proj_5",
                                           statuses=[DocumentStatus.ACTIVE, DocumentStatus.ARCHIVED]).hits]
    assert ids["flash_paper"] == found[0]


def test_within_ranks_only_the_documents_given(seed_library):
    library, ids = seed_library
    query = "What are the hardware requirements of Flash Attention?"
    unrestricted = [h.document.id for h in search(library, query, scope="think-process/tp_analysis").hits]
    assert unrestricted[0] != ids["group_fact"]  # the relevance cut leaves it out: the papers match better
    response = search(library, query, scope="think-process/tp_analysis", within={ids["group_fact"], ids["deadline"]})
    found = [h.document.id for h in response.hits]
    assert found[0] == ids["group_fact"] and set(found) <= {ids["group_fact"], ids["deadline"]}
    hit = response.hits[0]
    assert hit.vector is not None and hit.lexical is not None  # both sides ranked it: the vector query too
    # A caller that encoded the query already (the tree search) hands the vector over: the same ranking.
    again = search(library, query, scope="think-process/tp_analysis", within={ids["group_fact"], ids["deadline"]},
                   query_vector=library.embedder().encode_query(query))
    assert [(h.document.id, h.score) for h in again.hits] == [(h.document.id, h.score) for h in response.hits]
    # An id the scope cannot see stays out: within restricts, it never widens.
    assert search(library, query, scope="think-process/tp_analysis", within={ids["other_project"]}).hits == []
    assert search(library, query, scope="think-process/tp_analysis", within=set()).hits == []


@pytest.mark.parametrize("query", ["SARS-CoV-2", "state-of-the-art", "C++", '"unbalanced quote', "Smith's", "AND",
                                   "NOT", "*", "(", "", "   ", "a" * 5000, "日本語", "col:value", "^near"])
def test_any_query_string_returns_a_list(seed_library, query):
    library, _ = seed_library
    assert isinstance(search(library, query, scope="project/proj_5").hits, list)


def test_lexical_finds_diacritics_and_cjk(library):
    a = documents.add_text(library, "Die Müllerschen Gleichungen beschreiben Strömungen.").id
    b = documents.add_text(library, "自然言語処理の研究では日本語の形態素解析が重要です。").id
    assert search(library, "Mullerschen").hits[0].document.id == a  # vectors not drained: keyword path only
    assert search(library, "日本語").hits[0].document.id == b
    assert search(library, "形態素").hits[0].document.id == b


def test_snippet_centres_on_the_query_terms():
    text = "word " * 200 + "the flash attention kernel tiles the matrices " + "tail " * 200
    snippet = make_snippet(text, "flash", width=100)
    assert "flash attention" in snippet and snippet.startswith("…") and snippet.endswith("…")


HEADED_PASSAGE = ("Proceedings of Machine Learning for Healthcare 2016 JMLR W&C Track Volume 56 "
                  "An Improved Multi-Output Gaussian Process RNN with Real-Time Validation for Early Sepsis "
                  "Detection. Sepsis is a poorly understood and potentially life-threatening response.")


def test_a_hit_starts_at_the_quoted_phrase_or_a_query_word_not_at_the_passages_first_words():
    assert passage_highlight(HEADED_PASSAGE, '"multi-output Gaussian process"').startswith(
        "Multi-Output Gaussian Process RNN with")
    turned = passage_highlight(HEADED_PASSAGE, "sepsis detection models")
    assert turned.startswith("Detection. Sepsis is")  # the longest query word found, with what follows it
    assert turned.endswith("Real-Time Validation for Early Sepsis")  # the words before it kept, last
    assert sorted(turned.split()) == sorted(HEADED_PASSAGE.split())
    assert passage_highlight("A  hit by\nmeaning only.", "unrelated") == "A hit by meaning only."
