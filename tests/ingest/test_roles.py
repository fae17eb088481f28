"""Reference lists, author lists and acknowledgements of real papers get their own chunks and roles;
abstracts, conclusions, boxes among the references and appendices after them stay body."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.ingest.base import Extraction
from vancetope_desktop.ingest.chunking import split_to_token_limit
from vancetope_desktop.ingest.roles import Section, page_roles

BODY, REFERENCES, AUTHORS, THANKS = (ChunkRole.BODY, ChunkRole.REFERENCES, ChunkRole.AUTHORS,
                                     ChunkRole.ACKNOWLEDGEMENTS)

# paper (in corpus/papers) → text found in its chunks → the role of the chunk holding it.
EXPECTED: dict[str, dict[str, ChunkRole]] = {
    "stressful-life-events-dementia-psychogeriatrics": {
        "The impact of stressful life events as a risk factor of dementia": BODY,  # abstract
        "In conclusion, we find no association between life events": BODY,
        "Anna Sundström,1 Michael Rönnlund,2": AUTHORS,
        "Conflict of interest": THANKS,
        "The Betula project is supported by a grant": THANKS,
        "Disease International. (2009)": REFERENCES,  # p. 7: the page that outranked the paper
        "Betula: a prospective cohort study on memory": REFERENCES,
    },
    "higgs-boson-mass-atlas-cms-arxiv1503.07589": {
        "A measurement of the Higgs boson mass is presented": BODY,
        "In summary, a combined measurement of the Higgs boson mass": BODY,
        "We thank CERN for the very successful operation": THANKS,
        "Broken symmetry and the mass of gauge vector mesons": REFERENCES,
        "G. Aad85, B. Abbott113": AUTHORS,
        "1 Yerevan Physics Institute, Yerevan, Armenia": AUTHORS,
    },
    "iron-deficiency-anaemia-helicobacter-pylori-meta-analysis": {
        "In conclusion, on the basis of the best available evidence": BODY,
        "DerSimonian R, Laird N. Meta analysis in clinical trials": REFERENCES,
        # A box printed after the references heading, in reading order.
        "Main messages": BODY,
        "H pylori eradication (plus iron administration) therapy is more": BODY,
    },
    "healthcare-quality-improvement-barriers-bmc": {
        "Knowledge regarding the best approaches to improving the quality": BODY,
        "Competing interests The authors declare": THANKS,
        "Author details": AUTHORS,
        "Ovretveit J, Serouri A": REFERENCES,
    },
    "apparent-average-accelerations-universe-jcap2008": {
        "There are three arbitrary functions of the radial coordinate": BODY,  # appendix after the thanks
        "Perlmutter S et al, 1997 Astrophys. J. 483 565": REFERENCES,
    },
    "isolated-nuclear-recoils-neutron-capture-arxiv2110.02751": {
        "Low-energy nuclear recoils (NRs) are hard to measure": BODY,
        "Phys. Rev. D 102, 091101 (2020)": REFERENCES,  # a Physical Review list has no heading
    },
    "s2orc-open-research-corpus-acl2020": {
        "Citeseer: an automatic citation indexing system": REFERENCES,
        "In this work, we distinguish between bibliography entries and inline citations": BODY,  # appendix
    },
    "multi-lexsum-civil-rights-summaries-arxiv2206.10883": {
        "Longformer: The long-document transformer": REFERENCES,
        "The dataset source files are stored in JSON format": BODY,  # appendix after the references
    },
    "timp-r-package-spectroscopy-jss2007": {
        "Converting a Large R Package to S4 Classes and Methods": REFERENCES,
        "This appendix considers in detail the memory requirements": BODY,
    },
}


@pytest.fixture(scope="module")
def papers(paper_extractions: dict[str, Extraction]) -> dict[str, Extraction]:
    return {Path(name).stem: extraction for name, extraction in paper_extractions.items()}


@pytest.mark.slow
def test_each_part_of_the_papers_gets_its_role(papers: dict[str, Extraction]) -> None:
    wrong = []
    for stem, expected in EXPECTED.items():
        for phrase, role in expected.items():
            found = {c.role for c in papers[stem].chunks if phrase in c.text}
            if found != {role}:
                wrong.append(f"{stem}: {phrase!r} is {sorted(found) or 'missing'}, expected {role}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_a_collaboration_list_is_authors_to_the_last_page(papers: dict[str, Extraction]) -> None:
    higgs = papers["higgs-boson-mass-atlas-cms-arxiv1503.07589"].chunks
    assert {c.role for c in higgs if c.page is not None and c.page >= 17} == {AUTHORS}  # pp. 17–47
    assert {c.role for c in higgs if c.page is not None and 14 <= c.page <= 16} == {REFERENCES}


@pytest.mark.slow
def test_every_paper_has_its_references_apart_and_a_third_of_the_embedding_is_saved(
        papers: dict[str, Extraction], count_tokens: Callable[[str], int]) -> None:
    tokens: Counter[ChunkRole] = Counter()
    for stem, extraction in papers.items():
        assert any(c.role is REFERENCES for c in extraction.chunks), stem
        for chunk in split_to_token_limit(extraction.chunks, count_tokens, 250):
            tokens[chunk.role] += count_tokens(chunk.text) + 2  # [CLS] and [SEP]: what the model runs on
    # Measured: 38 % of the 18 papers' word pieces are references, author lists and thanks (the
    # ATLAS/CMS author pages alone are 31 of the Higgs paper's 47 pages).
    assert 1 - tokens[BODY] / sum(tokens.values()) >= 0.30


@pytest.mark.slow
def test_a_chunk_never_mixes_roles(papers: dict[str, Extraction]) -> None:
    # Page 7 of the dementia paper: conclusion, conflict of interest, thanks, references.
    page = [c for c in papers["stressful-life-events-dementia-psychogeriatrics"].chunks if c.page == 7]
    conclusion = next(c for c in page if "In conclusion, we find no association" in c.text)
    assert "Conflict of interest" not in conclusion.text and "References" not in conclusion.text
    assert [c.role for c in page] == sorted((c.role for c in page), key=[BODY, THANKS, REFERENCES].index)


def test_a_page_is_read_section_by_section() -> None:
    paragraphs = ["We find no association between life events and dementia.", "Acknowledgments",
                  "The Betula project is supported by a grant from the Swedish Science Council.", "References",
                  "Persson, G. and Skoog, I. (1996). A prospective population study. Int J Geriatr Psychiatry, 11, 15."]
    roles, section = page_roles(paragraphs, page=7)
    assert roles == [BODY, THANKS, THANKS, REFERENCES, REFERENCES]
    assert section == Section(REFERENCES, references_seen=True)


def test_headings_are_told_from_sentences_and_contents_lines() -> None:
    roles, _ = page_roles(["Contents", "References 14", "Acknowledgments 11",
                           "References to tables and figures are resolved by the parser.",
                           "Funding agencies increasingly require open data."], page=2)
    assert roles == [BODY] * 5


def test_the_list_goes_on_over_the_page_and_ends_at_an_appendix() -> None:
    _, section = page_roles(["References", "[1] F. Englert and R. Brout, Phys. Rev. Lett. 13 (1964) 321."], page=9)
    roles, section = page_roles([
        "[2] P. W. Higgs, “Broken symmetries, massless particles and gauge fields”, Phys. Lett. 12",
        "(1964) 132, doi:10.1016/0031-9163(64)91136-9.",
        "Appendix A. Proof of the main result",
        "We first show that the estimator is unbiased, then that its variance is bounded by the sum of the terms.",
    ], page=10, section=section)
    assert roles == [REFERENCES, REFERENCES, BODY, BODY]
    assert section.role is BODY


def test_a_hostile_page_is_read_in_linear_time() -> None:
    # Unbounded runs in the patterns once made a page of 2 × 100,000 digits cost more than ten minutes
    # (quadratic backtracking); bounded, it takes a second, and the suite's timeout catches a relapse.
    for run in ("1" * 50_000, "A" * 50_000, "a." * 25_000, "{a," * 17_000, "1-" * 25_000):
        roles, _ = page_roles([run, "References", run], page=9)
        assert len(roles) == 3
