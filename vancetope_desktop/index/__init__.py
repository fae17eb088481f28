"""Embedding, the per-scope vector collections, the lexical ranking, fusion and the index writer."""
