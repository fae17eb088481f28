"""BM25 search of chunks: the postings budget, light stemming, filtering after ranking."""

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.tags import TagIs
from vancetope_desktop.index.lexical import (
    keyword_ceiling,
    search_chunks,
    selective_terms,
    stem_prefix,
    term_frequencies,
)
from vancetope_desktop.services import documents
from vancetope_desktop.store.db import read_session
from vancetope_desktop.store.filters import SqlFilter


def test_rarest_terms_are_kept_within_the_budget_in_query_order():
    frequencies = {"the": 9000, "of": 8000, "amyloid": 40, "plaques": 300, "cells": 2500}
    kept = selective_terms(["the", "amyloid", "of", "plaques", "cells"], frequencies, max_postings=3000)
    assert kept == ["amyloid", "plaques", "cells"]


def test_the_rarest_term_is_kept_even_above_the_budget():
    assert selective_terms(["the", "of"], {"the": 9000, "of": 8000}, max_postings=100) == ["of"]


def test_terms_unknown_to_the_vocabulary_are_kept():
    assert selective_terms(["müller", "the"], {"the": 9000, "x": 1}, max_postings=10) == ["müller", "the"]


def test_a_small_library_keeps_every_term():
    frequencies = {"a": 3, "b": 2, "c": 1}
    assert selective_terms(["a", "b", "c"], frequencies, max_postings=20_000) == ["a", "b", "c"]


def test_stem_prefix_strips_plurals_and_leaves_short_and_foreign_words():
    assert stem_prefix("cells") == "cell*"
    assert stem_prefix("studies") == "study*"
    assert stem_prefix("causes") == "cause*"
    assert stem_prefix("stress") == "stress*"
    assert stem_prefix("virus") == "virus*"
    assert stem_prefix("does") == "does"  # the stem "doe" is too short: stays an exact word
    assert stem_prefix("age") == "age"
    assert stem_prefix("müller") == "müller"
    assert stem_prefix("covid19") == "covid19"


def _search(library, query, **options):
    where = SqlFilter().and_in("scope_path", ["project/inbox"]).and_in("status", ["active"])
    with read_session(library.engine) as session:
        return search_chunks(session, query, where, 5, **options)


def test_budget_leaves_out_frequent_terms_and_stemming_matches_inflections(library):
    for i in range(20):
        documents.add_text(library, f"common words only, number {i}", doc_type=DocumentType.NOTE)
    rare = documents.add_text(library, "common words and the rare cells", doc_type=DocumentType.NOTE).id
    assert {h.document_id for h in _search(library, "common cell", max_postings=5)} == {rare}
    assert len(_search(library, "common cell", max_postings=None)) == 5
    assert _search(library, "cell", stemming=False) == []
    assert [h.document_id for h in _search(library, "cell")] == [rare]


def test_a_narrow_filter_still_gets_its_best_chunks(library):
    for i in range(40):
        documents.add_text(library, f"alpha alpha alpha beta {i}", doc_type=DocumentType.NOTE)
    wanted = {documents.add_text(library, f"alpha gamma {i}", doc_type=DocumentType.NOTE, tags=["x"]).id
              for i in range(3)}
    where = SqlFilter().and_in("scope_path", ["project/inbox"]).and_tags(TagIs("x"))
    with read_session(library.engine) as session:
        hits = search_chunks(session, "alpha", where, 5)
    assert {h.document_id for h in hits} == wanted


def test_stop_words_are_dropped_from_queries_unless_nothing_else_is_left():
    from vancetope_desktop.store.fulltext import query_terms

    assert query_terms("How do I bake sourdough bread?") == ["bake", "sourdough", "bread"]
    assert query_terms("to be or not to be") == ["to", "be", "or", "not"]


def test_quoted_text_is_a_phrase_and_an_unpaired_quote_is_ignored():
    from vancetope_desktop.store.fulltext import ParsedQuery, parse_query

    assert parse_query('infant "Skimmed Milk Powder" formula') == ParsedQuery(
        words=("infant", "formula"), phrases=(("skimmed", "milk", "powder"),))
    assert parse_query("“to be or not to be”").phrases == (("to", "be", "or", "not", "to", "be"),)
    assert parse_query('"cells" divide') == ParsedQuery(words=("divide",), exact=("cells",))
    assert parse_query('"unbalanced quote') == ParsedQuery(words=("unbalanced", "quote"))
    assert not parse_query('"" " (*) "')


def test_matches_are_found_as_the_index_finds_them():
    from vancetope_desktop.index.lexical import find_matches

    def units(text, query):
        return [(m.unit, text[m.start:m.end]) for m in find_matches(text, query)]

    assert units("Skimmed milk powder; milk, skimmed-milk powder", '"skimmed milk powder"') == [
        ("skimmed milk powder", "Skimmed milk powder"), ("skimmed milk powder", "skimmed-milk powder")]
    assert units("Cell counts of the CELLS and cellar", "cells") == [("cells", "Cell"), ("cells", "CELLS"),
                                                                     ("cells", "cellar")]
    assert units("cells and cell", '"cells"') == [("cells", "cells")]  # quoted: as written, no stemming
    assert units("Müller's résumé", "muller resume") == [("muller", "Müller"), ("resume", "résumé")]
    assert units("日本語の文章", "日本語") == [("日本", "日本"), ("本語", "本語")]
    assert units("snake_case and snake case", "snake_case") == [("snake_case", "snake_case"),
                                                                ("snake_case", "snake case")]
    assert units("the of and", "the attention") == []  # stop words never match


def test_a_prefix_counted_in_more_chunks_than_there_are_still_scores(library):
    # "stress*" expands to stress, stressful, stresses…: their summed counts can exceed the chunks, which
    # once made the ceiling's logarithm fail ("math domain error") on a one-paper library.
    only = documents.add_text(library, "stress stressful stressed stresses stressor", doc_type=DocumentType.NOTE).id
    hits = _search(library, "stress")
    assert [h.document_id for h in hits] == [only] and 0 < hits[0].keyword <= 1


def test_term_counts_follow_every_change_of_the_index(library):
    # The counts are kept between searches (a frequent prefix costs milliseconds to count); a kept
    # count that outlived a change would misjudge the budget and the keyword ceiling.
    def counted(terms):
        with read_session(library.engine) as session:
            counts = term_frequencies(session, terms)
            return counts, keyword_ceiling(session, ["okapi"], counts)

    first = documents.add_text(library, "a zebra crossing", doc_type=DocumentType.NOTE)
    before, ceiling_before = counted(["zebra", "zebr*", "okapi"])
    assert before == {"zebra": 1, "zebr*": 1}
    assert counted(["zebra", "zebr*", "okapi"]) == (before, ceiling_before)  # kept: same answer
    documents.add_text(library, "zebras and an okapi", doc_type=DocumentType.NOTE)
    documents.add_text(library, "a giraffe", doc_type=DocumentType.NOTE)
    after, ceiling_after = counted(["zebra", "zebr*", "okapi"])
    assert after == {"zebra": 1, "zebr*": 2, "okapi": 1}
    assert ceiling_after > ceiling_before  # one chunk of three holds okapi now: its idf rose above the floor
    documents.update_document(library, first.id, title="Okapi")  # the title column alone changes
    assert counted(["okapi"])[0] == {"okapi": 2}
    documents.set_status(library, first.id, DocumentStatus.DELETED)
    documents.purge_document(library, first.id)
    assert counted(["zebra", "zebr*", "okapi"])[0] == {"zebr*": 1, "okapi": 1}
