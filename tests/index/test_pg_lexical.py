"""Keyword search on PostgreSQL (issue 17) against FTS5's on the same chunks: scores, stems, accents, CJK, quotes.

Each library is built through the services on SQLite (FTS5), then its documents and chunks are copied into a fresh
PostgreSQL database on the test server (tests/pg_lexical_copy.py) and searched there with ``index/pg_lexical``; the
behaviour tests run on both (``keyword`` fixture).
"""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import Session

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.tags import TagIs
from vancetope_desktop.index import lexical, pg_lexical
from vancetope_desktop.services import documents
from vancetope_desktop.store import pg_fulltext
from vancetope_desktop.store.db import read_session
from vancetope_desktop.store.filters import SqlFilter
from vancetope_desktop.store.fulltext import parse_query

from ..pg_lexical_copy import copy_library, postgres_engine

INBOX = SqlFilter().and_in("scope_path", ["project/inbox"]).and_in("status", ["active"])


class Keyword:
    """A library's keyword search through FTS5 (``engine`` None) or through PostgreSQL (its chunks copied first)."""

    def __init__(self, library, engine=None) -> None:
        self.library, self.engine = library, engine

    def add(self, content: str, title: str | None = None, tags: tuple[str, ...] = ()) -> str:
        """A note added through the services; its document id."""
        return documents.add_text(self.library, content, doc_type=DocumentType.NOTE, title=title, tags=tags).id

    def _session(self):
        if self.engine is None:
            return read_session(self.library.engine)
        copy_library(self.library.engine, self.engine)
        return Session(self.engine)

    def search(self, query: str, where: SqlFilter = INBOX, limit: int = 5, **options) -> list[lexical.LexicalHit]:
        """``search_chunks`` of the backend."""
        module = lexical if self.engine is None else pg_lexical
        with self._session() as session:
            return module.search_chunks(session, query, where, limit, **options)

    def quoted(self, query: str) -> set[str] | None:
        """``documents_with_quoted`` of the backend."""
        module = lexical if self.engine is None else pg_lexical
        with self._session() as session:
            return module.documents_with_quoted(session, parse_query(query))


@pytest.fixture(scope="module")
def pg_engine(postgres_url):
    """An engine on the module's PostgreSQL database, with the tables created."""
    engine = postgres_engine(postgres_url)
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def keyword(request, library) -> Keyword:
    """The library's keyword search on FTS5, then on PostgreSQL."""
    return Keyword(library, request.getfixturevalue("pg_engine") if request.param == "postgresql" else None)


def test_budget_leaves_out_frequent_terms_and_stemming_matches_inflections(keyword):
    for i in range(20):
        keyword.add(f"common words only, number {i}")
    rare = keyword.add("common words and the rare cells")
    assert {h.document_id for h in keyword.search("common cell", max_postings=5)} == {rare}
    assert len(keyword.search("common cell", max_postings=None)) == 5
    assert keyword.search("cell", stemming=False) == []
    assert [h.document_id for h in keyword.search("cell")] == [rare]


def test_a_narrow_filter_still_gets_its_best_chunks(keyword):
    for i in range(40):
        keyword.add(f"alpha alpha alpha beta {i}")
    wanted = {keyword.add(f"alpha gamma {i}", tags=("x",)) for i in range(3)}
    where = SqlFilter().and_in("scope_path", ["project/inbox"]).and_tags(TagIs("x"))
    assert {h.document_id for h in keyword.search("alpha", where)} == wanted


def test_a_prefix_counted_in_more_chunks_than_there_are_still_scores(keyword):
    only = keyword.add("stress stressful stressed stresses stressor")
    hits = keyword.search("stress")
    assert [h.document_id for h in hits] == [only] and 0 < hits[0].keyword <= 1


def test_accents_are_folded_both_ways(keyword):
    muller = keyword.add("Herr Müller schrieb ein Résumé", title="Brief")
    keyword.add("Herr Miller schrieb nichts", title="Brief")
    for query in ("muller", "Müller", "MÜLLER resume", '"müller"'):
        assert [h.document_id for h in keyword.search(query)] == [muller], query


def test_cjk_text_is_found_by_its_bigrams(keyword):
    japanese = keyword.add("日本語の文章を書く", title="ノート")
    keyword.add("中国的文化", title="笔记")
    assert [h.document_id for h in keyword.search("日本語")] == [japanese]
    assert [h.document_id for h in keyword.search("文章")] == [japanese]
    assert keyword.quoted('"日本語"') == {japanese}


def test_a_quoted_phrase_needs_its_words_in_order(keyword):
    phrase = keyword.add("a spoon of skimmed milk powder", title="Recipe one")
    keyword.add("the powder of skimmed milk", title="Recipe two")
    assert keyword.quoted('"skimmed milk powder"') == {phrase}
    assert [h.document_id for h in keyword.search('"skimmed milk powder"')] == [phrase]
    assert keyword.quoted('"skimmed milk powder" "nowhere"') == set()
    assert keyword.quoted("skimmed milk") is None


HOSTILE = [
    "", " ", '"', '""', "'", "''", "\\", "a & b | !c <-> d:*", "NEAR(a b) AND c* OR -d ^e col:f", "((((", "):*",
    "'; DROP TABLE chunk; --", '"unbalanced quote', "\x00 null", "🙂 emoji", "x" * 10_000, "word " * 2_000,
    '"' + "y" * 3_000 + '"', "a:* & b:A", "$$ $1 %s %(x)s {}",
]


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_never_raise(keyword, query):
    keyword.add("word y yy cells", title="Any title")
    hits = keyword.search(query)
    assert all(0 <= h.keyword <= 1 for h in hits)
    assert keyword.quoted(query) is None or isinstance(keyword.quoted(query), set)


def test_postgresql_scores_are_fts5s_bm25(library, pg_engine):
    # The same chunks on both: the BM25 and the 0-1 keyword score the fusion reads must be FTS5's, not near it.
    sqlite, postgres = Keyword(library), Keyword(library, pg_engine)
    for title, body in [("Cell division", "Cells divide by mitosis; the cell cycle has four phases."),
                        ("Stress and ageing", "Chronic stress shortens telomeres in dividing cells."),
                        ("Müller's notes", "Résumé of the division of labour, and of stressed cells."),
                        ("Mitosis", "Mitosis mitosis mitosis: a long paragraph about nothing else " * 5)]:
        sqlite.add(body, title=title)
    for query in ("cell division", "stress", "mitosis cells", "muller labour", "cells", "the division"):
        for options in ({}, {"title_weight": 1.0}, {"stemming": False}):
            expected = sqlite.search(query, limit=10, **options)
            found = postgres.search(query, limit=10, **options)
            assert [h.chunk_id for h in found] == [h.chunk_id for h in expected], (query, options)
            for got, want in zip(found, expected, strict=True):
                assert got.score == pytest.approx(want.score, rel=1e-9), (query, options)
                assert got.keyword == pytest.approx(want.keyword, rel=1e-9), (query, options)
                assert (got.role, got.in_text) == (want.role, want.in_text)


def test_the_index_holds_fts5s_tokens_and_follows_renames_and_removals(library, pg_engine):
    postgres = Keyword(library, pg_engine)
    doc = postgres.add("Müller measured covid-19 cases in 3.5 days (snake_case)", title="Old name")
    assert pg_fulltext.tokens("Müller covid-19 3.5 snake_case") == ["muller", "covid", "19", "3", "5", "snake", "case"]
    assert postgres.search("zebra") == []
    with Session(pg_engine) as session:
        vector = session.exec(text("SELECT tsv::text FROM chunk_lexical")).one()[0]
        assert "'muller':" in vector and "'19':" in vector and "'name':" in vector
        pg_fulltext.retitle_document(session, doc, "Zebra crossing")
        session.commit()
        assert [h.document_id for h in pg_lexical.search_chunks(session, "zebra", INBOX, 5)] == [doc]
        assert pg_lexical.search_chunks(session, "name", INBOX, 5) == []
        assert pg_lexical.term_frequencies(session, ["zebra", "zebr*", "muller", "okapi"]) == {
            "zebra": 1, "zebr*": 1, "muller": 1}
        pg_fulltext.unindex_document(session, doc)
        session.commit()
        assert pg_lexical.search_chunks(session, "zebra", INBOX, 5) == []
        assert pg_lexical.index_size(session)[0] == 0
