"""The BM25 postings budget: which query terms are kept (plain functions, no database)."""

from vancetope_desktop.index.lexical import selective_terms


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
