"""Ranking on real stores with the real model: keyword hits without vectors, chunk roles, the relevance
cut-off, explanations and quoted phrases (issue 10, "Ranking")."""

import pytest
from sqlalchemy import text

from tests.library_copies import build_template, copied_library
from vancetope_desktop.core.documents import ChunkRole, DocumentType
from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services.search import search
from vancetope_desktop.store.db import write_session

TOPICS = [
    "Sourdough bread rises slowly because wild yeast ferments the dough overnight.",
    "The Andromeda galaxy will merge with the Milky Way in about four billion years.",
    "Marathon runners load carbohydrates in the days before a race.",
    "Honeybees communicate the direction of flowers with a waggle dance.",
    "Rust's borrow checker rejects two mutable references to the same value.",
    "The Treaty of Westphalia ended the Thirty Years' War in 1648.",
    "Tomato plants need staking once the first fruit sets.",
    "Glaciers carve U-shaped valleys as they move downhill.",
    "A sonnet has fourteen lines and a fixed rhyme scheme.",
    "Octopuses can change the colour and texture of their skin in a fraction of a second.",
    "Compound interest grows savings exponentially over decades.",
    "Volcanic ash can ground aircraft across a whole continent.",
    "Chess openings are catalogued by the ECO codes A00 to E99.",
]


def _note(library, content, title=None):
    return documents.add_text(library, content, doc_type=DocumentType.NOTE, title=title).id


def test_a_note_whose_vectors_are_pending_ranks_by_the_word_it_holds(library):
    # The case: 13 notes embedded, the one holding "ligature" still waiting for its vectors.
    for content in TOPICS:
        _note(library, content)
    indexing.try_drain(library)
    pending = _note(library, "Typesetting notes: the fi ligature joins f and i into one glyph.")
    response = search(library, "ligature")
    assert response.vector_search
    assert response.hits[0].document.id == pending
    assert response.hits[0].score > 0
    assert response.hits[0].meaning_basis == "estimate" and "no vectors" in response.hits[0].explanation


def test_a_single_keyword_hit_without_any_vectors_scores_what_it_matches(library):
    only = _note(library, "Typesetting notes: the fi ligature joins f and i into one glyph.")
    hits = search(library, "ligature").hits
    assert [h.document.id for h in hits] == [only] and hits[0].score > 0 and hits[0].keyword > 0


def _set_role(library, document_id: str, section: str, role: ChunkRole) -> None:
    """What an extractor does for a paper's reference list or author page (``ChunkDraft.role``)."""
    with write_session(library.engine) as session:
        changed = session.exec(text("UPDATE chunk SET role = :role WHERE document_id = :doc AND section = :section"),
                               params={"role": role.value, "doc": document_id, "section": section}).rowcount
    assert changed


REFERENCES = "\n".join(
    f"{i}. Author{i} A. Does stress cause dementia in old age? Stress, cortisol and dementia in old age. "
    f"J Aging Stud. 20{i:02d}." for i in range(1, 13))
AUTHORS = "\n".join(f"Name{i} Surname{i}, Dementia and Stress Research Unit, Old Age Psychiatry, City {i}"
                    for i in range(1, 41))


def _papers(library):
    ids = {
        "dementia": _note(library, "# Life events and later dementia\n\n## Findings\n\nOlder adults who went "
                          "through severe life events, such as losing a spouse, had a higher risk of developing "
                          "dementia over the following decades than those who did not.", title="Life events"),
        "sleep": _note(library, "# Sleep in mice\n\n## Findings\n\nMice deprived of sleep forgot the maze "
                       f"faster.\n\n## References\n\n{REFERENCES}", title="Sleep and memory in mice"),
        "consortium": _note(library, "# Protein folding consortium\n\n## Authors\n\n"
                            f"{AUTHORS}\n\n## Findings\n\nA new fold was found in yeast.", title="Folding"),
    }
    _set_role(library, ids["sleep"], "References", ChunkRole.REFERENCES)
    _set_role(library, ids["consortium"], "Authors", ChunkRole.AUTHORS)
    for content in TOPICS:
        _note(library, content)
    indexing.try_drain(library)
    return ids


@pytest.fixture(scope="module")
def papers_template(tmp_path_factory):
    return build_template(tmp_path_factory, _papers)


@pytest.fixture
def papers(papers_template, tmp_path):
    """Three papers (one with a reference list, one with an author page) among the topics, embedded once for
    the module; each test gets a copy."""
    template, ids = papers_template
    with copied_library(template, tmp_path / "library") as library:
        yield library, ids


def test_reference_lists_and_author_pages_rank_below_the_paper_about_it(papers):
    library, ids = papers
    hits = search(library, "does stress cause dementia in old age", limit=20).hits
    order = [h.document.id for h in hits]
    assert order[0] == ids["dementia"]
    for other in ("sleep", "consortium"):
        if ids[other] in order:
            hit = hits[order.index(ids[other])]
            # Found through its reference list or author page, weighed down, and said so.
            assert hit.role_weight < 1 and any(p.role is not ChunkRole.BODY for p in hit.passages)
            assert f"× {hit.role_weight:g} for" in hit.explanation


def test_a_name_found_only_in_a_reference_list_is_not_cut_off(papers):
    # The role weight ranks a reference list below body text; it must not push the only real match of
    # a cited author's name under the relevance cut-off (an 18-paper library returned nothing for
    # "Bratslavsky", cited only in the dementia paper's references).
    library, ids = papers
    (hit,) = search(library, "Author7", limit=10).hits
    assert hit.document.id == ids["sleep"] and hit.passages[0].role is ChunkRole.REFERENCES


def test_the_passage_shown_holds_the_words_not_a_short_chunk_matched_by_the_title(library):
    # FTS5's BM25 normalises by the whole row, title and text: a paper's two-word chunk "References 11"
    # matched "higgs boson mass measurement" through the title alone and outscored the passages holding
    # the words; with a reference list's short cited titles it filled the paper's three keyword chunks.
    filler = " ".join(f"word{i}" for i in range(150))
    paper = _note(library, "# Combined measurement\n\n## Results\n\nThe combined measurement of the Higgs "
                  f"boson mass gives 125.09 GeV with a precision of 0.2 per cent. {filler}\n\n## Tables\n\n"
                  "Table 11\n\n## References\n\n" + "\n".join(
                      f"{i}. Author{i}. Higgs boson mass measurement {i}. Phys Lett B {i}." for i in range(1, 6)),
                  title="Combined measurement of the Higgs boson mass")
    _set_role(library, paper, "References", ChunkRole.REFERENCES)
    for content in TOPICS:
        _note(library, content)
    indexing.try_drain(library)
    hit = search(library, "higgs boson mass measurement").hits[0]
    assert hit.document.id == paper
    chunks = {c.chunk_id: c for c in documents.list_chunks(library, paper)}
    assert chunks[hit.keyword_chunk].section == "Results" and hit.passages[0].section == "Results"
    assert hit.keyword > 0.5 and hit.role_weight == 1


def test_weak_matches_are_left_out_and_limit_is_an_upper_bound(library):
    for content in TOPICS:
        _note(library, content)
    wanted = _note(library, "Honeybee colonies collapse when varroa mites spread viruses between hives.")
    indexing.try_drain(library)
    response = search(library, "why do bee colonies collapse", limit=10)
    found = [h.document.id for h in response.hits]
    assert found[0] == wanted
    assert len(found) < 5 and response.cut > 0  # the galaxy, the sonnet and the chess openings stay out
    assert len(search(library, "honeybees", limit=1).hits) == 1
    assert search(library, "zzyzx qwfp").hits == []


def test_each_hit_says_which_words_matched_where_and_how_it_scored(library):
    for content in TOPICS:
        _note(library, content)
    wanted = _note(library, "Honeybee colonies collapse when varroa mites spread viruses between hives.")
    indexing.try_drain(library)
    hit = search(library, "varroa mites in bee hives").hits[0]
    assert hit.document.id == wanted
    assert hit.matched == ["varroa", "mites", "hives"] and hit.unmatched == ["bee"]
    assert hit.passages[0].matched == ["varroa", "mites", "hives"]
    assert hit.meaning_basis == hit.keyword_basis == "passage" and 0 < hit.meaning <= 1 and 0 < hit.keyword <= 1
    assert hit.relevance == pytest.approx(library.settings.dense_weight * hit.meaning
                                          + library.settings.lexical_weight * hit.keyword)
    assert hit.score == pytest.approx(hit.relevance * hit.scope_weight)
    for part in ("meaning", "keywords", "matched varroa, mites, hives", "scope weight", "score"):
        assert part in hit.explanation


MILK = {
    "phrase": "Infant formula is made from skimmed milk powder, vegetable oils and lactose.",
    "scattered": "Skimmed the report: milk prices rose while powder coatings fell.",
    "whole": "Whole milk powder keeps for a year when stored dry.",
}


def _milk(library):
    ids = {key: _note(library, content) for key, content in MILK.items()}
    indexing.try_drain(library)
    return ids


@pytest.fixture(scope="module")
def milk_template(tmp_path_factory):
    return build_template(tmp_path_factory, _milk)


@pytest.fixture
def milk(milk_template, tmp_path):
    """The three milk notes, embedded once for the module; each test gets a copy."""
    template, ids = milk_template
    with copied_library(template, tmp_path / "library") as library:
        yield library, ids


def test_a_quoted_phrase_matches_the_phrase_not_its_words(milk):
    library, ids = milk
    hits = search(library, '"skimmed milk powder"').hits
    assert [h.document.id for h in hits] == [ids["phrase"]]
    assert hits[0].matched == ["skimmed milk powder"]
    assert "skimmed milk powder" in hits[0].snippet
    assert [h.document.id for h in search(library, "“Skimmed Milk Powder”").hits] == [ids["phrase"]]


def test_a_phrase_mixed_with_free_words_requires_the_phrase(milk):
    library, ids = milk
    assert [h.document.id for h in search(library, 'lactose "milk powder" infants').hits][:1] == [ids["phrase"]]
    found = {h.document.id for h in search(library, 'stored dry "milk powder"').hits}
    assert ids["scattered"] not in found and ids["whole"] in found


@pytest.mark.parametrize("query", ['"skimmed milk', 'skimmed milk"', '""', '"', '" "', '"*"', '"AND" OR',
                                   '"milk" "powder"', 'a "b" c "', '"NEAR(milk powder)"', '"col:milk"',
                                   '"' * 101, "“unbalanced", "«milk» powder»"])
def test_odd_quotes_never_raise(milk, query):
    library, _ = milk
    assert isinstance(search(library, query).hits, list)


def test_a_word_in_the_title_is_not_reported_missing(library):
    # The keyword ranking matches titles; the explanation said "not found: phoenix" for a paper named
    # after Phoenix paludosa whose passages shown wrote "P. paludosa".
    doc = _note(library, "Leaves of P. paludosa were extracted with methanol and gave five flavonoids.",
                title="Phoenix paludosa leaves")
    (hit,) = search(library, "flavonoids in phoenix").hits
    assert hit.document.id == doc and hit.matched == ["flavonoids", "phoenix"] and hit.unmatched == []


def _chat(library):
    """Two sessions of a chat stored as source notes, with one turn of each stored as a memory derived from it:
    Caroline's turn matches "camping" twice, Melanie's once, but only Melanie's session is about the lake."""
    from vancetope_desktop.services import graph

    for content in TOPICS:  # other notes, so that "camping" is a rare word
        _note(library, content)
    lake = _note(library, "Melanie: We drove up to the lake on Friday.\n\nCaroline: Did you camp by the lake?\n\n"
                 "Melanie: The kids loved camping, we swam in the lake every morning.", title="Melanie and Caroline")
    shop = _note(library, "Caroline: I painted all weekend.\n\nMelanie: Any new pieces?\n\n"
                 "Caroline: Camping gear is expensive, my kids loved camping though.", title="Caroline and Melanie")
    melanie = _note(library, "Melanie: The kids loved camping.", title="Melanie")
    caroline = _note(library, "Caroline: Camping gear is expensive, my kids loved camping though.", title="Caroline")
    for part, source in ((melanie, lake), (caroline, shop)):
        graph.relate(library, part, source, "derived_from")
    return melanie, caroline, lake


def test_a_turn_ranks_up_by_the_relevance_of_the_session_it_was_said_in(library):
    melanie, caroline, lake = _chat(library)
    query = "camping at the lake"
    # Each turn judged alone (what main did): Caroline's says "camping" twice, and Melanie's, under 0.4 × the
    # relevance of her session (which names the lake), is cut.
    library.settings = library.settings.model_copy(update={"source_weight": 0.0})
    unweighted = [h.document.id for h in search(library, query).hits if h.document.id in (melanie, caroline)]
    assert unweighted == [caroline]
    library.settings = library.settings.model_copy(update={"source_weight": 0.3})
    hits = {h.document.id: h for h in search(library, query).hits}
    assert [d for d in hits if d in (melanie, caroline)] == [melanie, caroline]
    assert hits[melanie].source == lake and hits[melanie].source_relevance == pytest.approx(hits[lake].relevance)
    assert hits[melanie].score == pytest.approx(hits[melanie].relevance + 0.3 * hits[lake].relevance)
    assert "of its source" in hits[melanie].explanation
