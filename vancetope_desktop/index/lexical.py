"""BM25 ranking of chunks with SQLite FTS5, restricted to visible scopes and document filters.

The query is an OR of its terms, so FTS5 computes BM25 for every chunk holding any of them: with
frequent words ("the", "of", "cells") that is most of the index, and the cost grows with the
library (about 70 ms at 9,000 chunks, most of a second at 100,000). Two measures keep it bounded:

* **Postings budget.** Before querying, the document frequency of each query term is read from an
  ``fts5vocab`` table (a B-tree lookup per term). Terms are kept rarest first while their summed
  frequencies stay within ``max_postings``; the most frequent ones (lowest IDF, so the least
  weight in BM25) are left out. The rarest term is always kept, so is any term the vocabulary does
  not know. A library smaller than the budget is searched with every term, exactly as before.
* **Rank, then filter.** The best chunks of the whole index come from FTS5 alone (``ORDER BY
  rank LIMIT``), and only those are checked against the document filter. Joining the filter into
  the ranking query looked up every matching chunk's document row first, which cost more than the
  BM25 itself. When the filter leaves fewer than ``limit`` of them (a narrow tag filter, a small
  scope in a big library), the query runs again with the filter as a subquery over all matches.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

import Stemmer
from sqlalchemy import Engine, text
from sqlmodel import Session

from ..core.documents import ChunkRole
from ..store.filters import SqlFilter
from ..store.fulltext import CJK_RUN as _CJK_RUN
from ..store.fulltext import ParsedQuery, fold, fold_in_place, parse_query, text_tokens

DEFAULT_MAX_POSTINGS = 10_000
"""Default postings budget (see the module docstring); ``Settings.lexical_max_postings`` overrides it.

On SciFact train (9,140 chunks) it changes nothing measurable (hybrid nDCG@10 0.7334 without a
budget, 0.7335 with it); at 100,000 chunks it brings BM25's p95 from 75 ms (budget 20,000) to 22 ms.
"""
OVERFETCH = 4
"""Chunks ranked before filtering, per chunk wanted."""
PER_DOCUMENT = 3
"""Chunks of one document in the keyword ranking, at most: the fusion scores a document by its best
chunk and shows three passages (``index/fusion.fuse``), so more would only crowd other documents out
(a paper naming the Higgs boson on 100 chunks left every other paper without a keyword score)."""


BM25_K1 = 1.2
"""FTS5's ``bm25()`` constant k1 (fixed in SQLite's ``fts5_aux.c``): a term's part saturates at ``idf × (k1 + 1)``."""
BM25_B = 0.75
"""FTS5's ``bm25()`` constant b (fixed in ``fts5_aux.c``): how much a row's length, against the average, damps
a term's part (``index/topic_beam`` scores topic surfaces with the same formula in Python)."""


def bm25_idf(total: int, held: int) -> float:
    """FTS5's idf of a term held by ``held`` of ``total`` rows: ``ln((N - n + 0.5) / (n + 0.5))`` floored at 1e-6
    (``fts5_aux.c``), so a term in more than half the rows still counts a little, never negatively. ``held`` is
    capped at ``total``: a prefix's summed counts can exceed the rows."""
    held = min(held, total)
    return max(math.log((total - held + 0.5) / (held + 0.5)), 1e-6)


@dataclass(frozen=True)
class LexicalHit:
    """One chunk matched by the query.

    Attributes:
        score: its BM25 (FTS5's, sign flipped: higher is better; its scale depends on the query and
            the library).
        keyword: ``score`` on an absolute scale, ``score / ceiling`` in [0, 1]; the ceiling is the BM25
            of a chunk holding every queried term (or phrase) so often that each part saturates:
            ``Σ idf(term) × (k1 + 1)`` (see :func:`keyword_ceiling`). 1 would be every term, many times.
        role: the chunk's role (body text, a reference list…), for the ranking to weigh.
        in_text: whether the chunk's own text holds a query word; False when it matched through its
            document's title alone. FTS5's BM25 normalises by the length of the whole row, title and
            text, so a 2-word chunk ("References 11") matching by title outscored the passages that
            hold the words: such a chunk is not a passage to show.
    """

    chunk_id: str
    document_id: str
    score: float
    keyword: float
    role: ChunkRole = ChunkRole.BODY
    in_text: bool = True


def search_chunks(session: Session, query: str | ParsedQuery, document_filter: SqlFilter, limit: int,
                  title_weight: float = 2.0, body_weight: float = 1.0,
                  max_postings: int | None = DEFAULT_MAX_POSTINGS, stemming: bool = True,
                  per_document: int | None = PER_DOCUMENT) -> list[LexicalHit]:
    """Top ``limit`` chunks by BM25 for any query string; never raises on odd syntax.

    Free words match by stem (see :func:`stem_prefix`) and are OR-ed; a quoted phrase
    (``"skimmed milk powder"``) matches as one unit, its words next to each other, and a quoted single
    word matches as written (see ``store.fulltext.parse_query``). Requiring the quoted parts of a
    query is the caller's business (:func:`documents_with_quoted`): here they only rank.

    The chunk's document title is a second FTS column weighted ``title_weight`` (BM25F-style field
    weighting), so a query naming a paper ranks that paper's chunks up.

    Args:
        query: the user's text, or a query parsed already.
        max_postings: the postings budget for the query's free words (None: use every word).
        stemming: match English words by their stem as a prefix (see :func:`stem_prefix`).
        per_document: at most this many chunks of one document (None: no limit), so that a long
            paper matching every word does not fill the list and leave the other documents unscored.

    Returns:
        Hits best first; chunk ids are ``doc_id:ordinal`` like the vector store's. Fewer than
        ``limit`` only when fewer chunks match (within ``per_document``).
    """
    parsed = query if isinstance(query, ParsedQuery) else parse_query(query)
    words = [stem_prefix(term) for term in parsed.words] if stemming else list(parsed.words)
    units = list(dict.fromkeys([*words, *parsed.exact, *(" ".join(p) for p in parsed.phrases)]))  # cell, cells
    if not units:
        return []
    frequencies = term_frequencies(session, [*words, *parsed.exact, *(t for p in parsed.phrases for t in p)])
    if max_postings is not None and words:
        kept = set(selective_terms(words, frequencies, max_postings))
        units = [u for u in units if u in kept or u not in words]
    ceiling = keyword_ceiling(session, units, frequencies)
    expression = " OR ".join(_quoted(unit) for unit in units)
    weights = {"q": expression, "wt": title_weight, "wb": body_weight}
    fetch = limit * OVERFETCH
    ranked = session.exec(
        text("SELECT rowid, bm25(chunk_fts, :wt, :wb) AS rank, bm25(chunk_fts, 0.0, 1.0) AS body FROM chunk_fts "
             "WHERE chunk_fts MATCH :q ORDER BY rank LIMIT :m"),
        params={**weights, "m": fetch},
    ).all()
    if not ranked:
        return []
    allowed = {
        chunk_id: (doc, ordinal, role)
        for chunk_id, doc, ordinal, role in session.exec(
            # CROSS JOIN keeps SQLite's planner from walking every document of the scopes to find the
            # ranked chunks (3.9 s instead of 2 ms for 1,200 chunks on SciFact, once the role was selected).
            text("SELECT c.id, c.document_id, c.ordinal, c.role FROM json_each(:ids) AS j "
                 "CROSS JOIN chunk c ON c.id = j.value CROSS JOIN document d ON d.id = c.document_id "
                 f"WHERE {document_filter.row_sql}"),
            params={**document_filter.params, "ids": json.dumps([row[0] for row in ranked])},
        ).all()
    }
    hits = cap_per_document([(allowed[rowid], rank, body) for rowid, rank, body in ranked if rowid in allowed],
                   per_document)[:limit]
    if len(hits) < limit and len(ranked) == fetch:
        # The filter or the per-document cap removed too many: rank the allowed chunks only, each
        # document's best few (the window numbers every match, within the postings budget).
        rows = session.exec(
            text("WITH m AS MATERIALIZED (SELECT c.document_id, c.ordinal, c.role, bm25(chunk_fts, :wt, :wb) "
                 "AS rank, bm25(chunk_fts, 0.0, 1.0) AS body FROM chunk_fts JOIN chunk c ON c.id = chunk_fts.rowid "
                 f"WHERE chunk_fts MATCH :q AND c.document_id IN (SELECT d.id FROM document d WHERE "
                 f"{document_filter.sql})) SELECT document_id, ordinal, role, rank, body FROM (SELECT *, "
                 "row_number() OVER (PARTITION BY document_id ORDER BY body = 0, role != 'body', rank) AS place "
                 "FROM m) WHERE place <= :cap "
                 "ORDER BY rank LIMIT :n"),
            params={**document_filter.params, **weights, "n": limit, "cap": per_document or limit},
        ).all()
        hits = [((doc, ordinal, role), rank, body) for doc, ordinal, role, rank, body in rows]
    # bm25() is negative for a match and 0 without one: a title-only match has no body score.
    return [LexicalHit(f"{doc}:{ordinal}", doc, -float(rank), min(-float(rank) / ceiling, 1.0), ChunkRole(role),
                       in_text=float(body) < 0) for (doc, ordinal, role), rank, body in hits]


def cap_per_document(hits: list, per_document: int | None) -> list:
    """``hits`` (``((document, ordinal, role), rank, body)``, best first) with at most ``per_document`` per
    document, in the same order.

    A document's chunks are kept body text holding the words first, then reference lists and the
    like, then chunks matched through the title alone, each by rank: FTS5's BM25 favours short chunks,
    so a paper's two-word chunks and the cited titles of its reference list outranked the passages
    that answer the query, and kept them out.
    """
    if per_document is None:
        return hits
    by_document: dict[str, list] = {}
    for hit in hits:
        by_document.setdefault(hit[0][0], []).append(hit)
    kept = set()
    for chunks in by_document.values():
        preferred = sorted(chunks, key=lambda h: (float(h[2]) >= 0, h[0][2] != ChunkRole.BODY.value, h[1]))
        kept.update(id(h) for h in preferred[:per_document])
    return [hit for hit in hits if id(hit) in kept]


def documents_with_quoted(session: Session, query: ParsedQuery) -> set[str] | None:
    """The documents holding every quoted phrase and quoted word of ``query`` (anywhere in their chunks
    or title), or None when the query quotes nothing.

    Quotes mean "this, as written": a document without the phrase is not an answer, however close
    its meaning. Each quoted unit costs one FTS5 lookup of its postings.
    """
    quoted = [*query.exact, *(" ".join(p) for p in query.phrases)]
    if not quoted:
        return None
    found: set[str] | None = None
    for unit in quoted:
        documents = {row[0] for row in session.exec(
            text("SELECT DISTINCT c.document_id FROM chunk c "
                 "WHERE c.id IN (SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH :q)"),
            params={"q": _quoted(unit)},
        ).all()}
        found = documents if found is None else found & documents
        if not found:
            break
    return found or set()


def keyword_ceiling(session: Session, units: list[str], frequencies: dict[str, int]) -> float:
    """The BM25 a chunk would reach by holding every one of ``units`` to saturation: ``Σ idf × (k1 + 1)``.

    ``idf`` is FTS5's own, ``ln((N - n + 0.5) / (n + 0.5))`` floored at 1e-6, with ``N`` the indexed
    chunks and ``n`` the chunks holding the unit: from ``frequencies`` (see :func:`term_frequencies`);
    a prefix unit's count sums its expansions' (an overcount when a chunk holds two of them), a
    phrase's is its rarest word's (an upper bound): both make the ceiling a little low, so
    ``keyword`` is capped at 1. A unit the vocabulary lacks counts as held by one chunk.
    """
    return saturated_ceiling(_vocabulary(session).chunks, units, frequencies)


def saturated_ceiling(total: int, units: list[str], frequencies: dict[str, int]) -> float:
    """:func:`keyword_ceiling`'s arithmetic for an index of ``total`` chunks, whatever the database (FTS5's or
    PostgreSQL's, ``index/pg_lexical``): ``Σ idf × (k1 + 1)`` over ``units`` (a phrase's words space-separated, its
    count its rarest word's; a unit missing from ``frequencies`` counts as held by one chunk)."""
    total = total or 1
    ceiling = 0.0
    for unit in units:
        parts = unit.split(" ")
        # A prefix's summed count can exceed the chunks (several expansions in one chunk): bm25_idf caps it.
        ceiling += bm25_idf(total, min(frequencies.get(part, 1) for part in parts)) * (BM25_K1 + 1)
    return ceiling


_SUFFIXES = (("sses", "ss"), ("ies", "y"), ("es", "e"), ("s", ""))
_KEEP_ENDINGS = ("ss", "us", "is")
MIN_STEM = 4
"""Shorter stems stay exact words: a 3-letter prefix matches too much."""
MIN_SNOWBALL_STEM = 5
"""A Snowball stem shorter than this (``caus``, ``stud``) falls back to the plural rules: too broad a prefix."""
_stemmers = threading.local()  # PyStemmer's Stemmer objects are not thread-safe (the app searches in workers)


def stem_prefix(term: str) -> str:
    """``term`` as an FTS5 prefix query on its stem (``"reduced"`` → ``reduc*``), or unchanged.

    The index has no stemmer, so "reduced" would miss "reduce" and "reduction". The query word's
    English Snowball stem (PyStemmer) becomes a prefix: ``reduc*`` matches reduce, reduced, reduces,
    reduction. Snowball writes a final y as i (study → ``studi``), so that i is dropped. A stem of
    fewer than ``MIN_SNOWBALL_STEM`` letters would match too much, so the plural suffix is stripped
    instead (S-stemmer rules: ``causes`` → ``cause*``). Only ASCII letter words of at least
    ``MIN_STEM`` letters are changed (CJK bigrams, numbers, accented words and short words stay exact).

    Measured on the SciFact train split, BM25 alone, nDCG@10: 0.663 exact words, 0.686 plural rules
    only, 0.694 Snowball (test: 0.651, 0.667, 0.688). A prefix term is returned with a trailing ``*``.
    """
    if not (term.isascii() and term.isalpha()) or len(term) < MIN_STEM:
        return term
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = Stemmer.Stemmer("english")
    stem = stemmer.stemWord(term)
    if stem.endswith("i") and not term.endswith("i"):
        stem = stem[:-1]
    if len(stem) >= MIN_SNOWBALL_STEM:
        return stem + "*"
    stem = term
    if not term.endswith(_KEEP_ENDINGS):
        for suffix, replacement in _SUFFIXES:
            if term.endswith(suffix):
                stem = term[: -len(suffix)] + replacement
                break
    return stem + "*" if len(stem) >= MIN_STEM else term


@dataclass(frozen=True)
class TextMatch:
    """Where a query word or phrase occurs in a text: ``unit`` as the query wrote it, ``start``/``end``
    character offsets."""

    unit: str
    start: int
    end: int


class QueryMatcher:
    """A query's words and phrases, ready to be found in texts the way the keyword search matched them:
    folded case and accents, free words by stem prefix when ``stemming`` (:func:`stem_prefix`), quoted
    words as written, phrases word after word (see :func:`search_chunks`). Build it once per query."""

    def __init__(self, query: str | ParsedQuery, stemming: bool = True) -> None:
        parsed = query if isinstance(query, ParsedQuery) else parse_query(query)
        # Folded form → the query's word: whole tokens, and prefixes by length (a dict lookup per token
        # and length, not a comparison per token and word: snippets of ten hits hold thousands of tokens).
        self._exact: dict[str, str] = {}
        self._prefixes: dict[int, dict[str, str]] = {}
        self._sequences = [(" ".join(p), [fold(t) for t in p]) for p in parsed.phrases]
        for word in [*parsed.words, *parsed.exact]:
            if "_" in word:  # FTS5 reads snake_case as the phrase "snake case"
                self._sequences.append((word, [fold(part) for part in word.split("_") if part]))
                continue
            form = stem_prefix(word) if stemming and word in parsed.words else word
            if form.endswith("*"):
                stem = fold(form[:-1])
                self._prefixes.setdefault(len(stem), {}).setdefault(stem, word)
            else:
                self._exact.setdefault(fold(form), word)
        self._lengths = sorted(self._prefixes, reverse=True)  # the longest stem that fits names the match
        # The same search as one regular expression over the folded text (same offsets), for texts
        # without CJK: a Python loop over every token of every passage cost a search ~10 ms.
        stems = sorted((stem for forms in self._prefixes.values() for stem in forms), key=len, reverse=True)
        exact = sorted(self._exact, key=len, reverse=True)
        pieces = [f"(?:{'|'.join(map(re.escape, exact))})(?![^\\W_])"] if exact else []
        pieces += [f"(?:{'|'.join(map(re.escape, stems))})[^\\W_]*"] if stems else []
        self._words = re.compile(f"(?<![^\\W_])(?:{'|'.join(pieces)})") if pieces else None
        self._phrases = [(unit, re.compile("(?<![^\\W_])" + "[\\W_]+".join(map(re.escape, forms)) + "(?![^\\W_])"))
                         for unit, forms in self._sequences if forms]
        self._plain = not any(_CJK_RUN.search(form) for form in [*exact, *stems, *(f for _, fs in self._sequences
                                                                                        for f in fs)])

    def find(self, value: str) -> list[TextMatch]:
        """Every occurrence in ``value`` (NFC text) of the query's words and phrases, in text order."""
        if not self._exact and not self._prefixes and not self._sequences:
            return []
        folded = fold_in_place(value) if self._plain and not _CJK_RUN.search(value) else None
        found = self._by_tokens(value) if folded is None else self._by_pattern(folded)
        return sorted(found, key=lambda m: (m.start, -m.end))

    def _by_pattern(self, folded: str) -> list[TextMatch]:
        found: list[TextMatch] = []
        for match in self._words.finditer(folded) if self._words is not None else ():
            unit = self._unit(match.group())
            if unit is not None:
                found.append(TextMatch(unit, match.start(), match.end()))
        for unit, pattern in self._phrases:
            found += [TextMatch(unit, m.start(), m.end()) for m in pattern.finditer(folded)]
        return found

    def _by_tokens(self, value: str) -> list[TextMatch]:
        tokens = text_tokens(value)
        found = [TextMatch(unit, start, end) for token, start, end in tokens if (unit := self._unit(token))]
        for unit, forms in self._sequences:
            for i in range(len(tokens) - len(forms) + 1):
                if forms and all(tokens[i + j][0] == form for j, form in enumerate(forms)):
                    found.append(TextMatch(unit, tokens[i][1], tokens[i + len(forms) - 1][2]))
        return found

    def _unit(self, token: str) -> str | None:
        """The query word a folded token matches, if any (the longest fitting stem wins)."""
        unit = self._exact.get(token)
        for length in self._lengths if unit is None else ():
            unit = self._prefixes[length].get(token[:length]) if len(token) >= length else None
            if unit is not None:
                break
        return unit


def find_matches(value: str, query: str | ParsedQuery, stemming: bool = True) -> list[TextMatch]:
    """Every occurrence in ``value`` (NFC text) of the query's words and phrases, in text order (see
    :class:`QueryMatcher`, which saves the query's preparation when many texts are searched).

    Used to say which words a hit matched, to centre snippets and to highlight them.
    """
    return QueryMatcher(query, stemming).find(value)


def _quoted(unit: str) -> str:
    """One FTS5 phrase: ``"a b c"`` (words next to each other), a trailing ``*`` a prefix (``"cell" *``)."""
    return f'"{unit[:-1]}" *' if unit.endswith("*") else f'"{unit}"'


def term_frequencies(session: Session, terms: list[str]) -> dict[str, int]:
    """How many postings each term has (FTS5's own counts, from an ``fts5vocab`` table).

    Exact terms are looked up as given and with diacritics removed (the index folds them); a
    prefix term (``cell*``) counts the postings of every indexed term it matches. A term the
    vocabulary does not hold is absent from the result. Counts are kept while the index is unchanged
    (:func:`_vocabulary`).
    """
    vocabulary = _vocabulary(session)
    with _VOCABULARIES_MUTEX:
        out = {t: vocabulary.counts[t] for t in terms if t in vocabulary.counts}
    missing = [t for t in dict.fromkeys(terms) if t not in out]
    if not missing:
        return {t: n for t, n in out.items() if n is not None}
    session.exec(text(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_fts_vocab USING fts5vocab(main, 'chunk_fts', 'row')"
    ))
    exact = [t for t in missing if not t.endswith("*")]
    forms = {term: fold(term) for term in exact}
    wanted = sorted(set(exact) | set(forms.values()))
    found = dict(session.exec(
        text("SELECT term, doc FROM temp.chunk_fts_vocab WHERE term IN (SELECT value FROM json_each(:terms))"),
        params={"terms": json.dumps(wanted)},
    ).all()) if wanted else {}
    counted: dict[str, int | None] = {}
    for term, folded in forms.items():
        count = found.get(term, found.get(folded))
        counted[term] = None if count is None else int(count)
    for term in missing:
        if term.endswith("*"):
            # fts5vocab reads a term's whole posting list to count it: a frequent prefix (cell*) costs
            # milliseconds, which is why the counts are kept.
            stem = term[:-1]
            total = session.exec(
                text("SELECT sum(doc) FROM temp.chunk_fts_vocab WHERE term >= :low AND term < :high"),
                params={"low": stem, "high": stem[:-1] + chr(ord(stem[-1]) + 1)},
            ).one()[0]
            counted[term] = int(total) if total else None
    with _VOCABULARIES_MUTEX:
        if len(vocabulary.counts) + len(counted) > VOCABULARY_TERMS:
            vocabulary.counts.clear()
        vocabulary.counts.update(counted)
    out.update(counted)
    return {t: n for t, n in out.items() if n is not None}


VOCABULARY_TERMS = 50_000
"""Query terms whose counts are kept per index (about 5 MB at most); past it the counts start anew."""


@dataclass
class _Vocabulary:
    """What :func:`term_frequencies` and :func:`keyword_ceiling` read from one index at one state.

    Attributes:
        structure: the FTS5 structure record the counts belong to.
        chunks: the number of chunks.
        counts: query term → its postings, None when the vocabulary lacks it.
    """

    structure: bytes | None
    chunks: int
    counts: dict[str, int | None] = field(default_factory=dict)


_VOCABULARIES: WeakKeyDictionary[Engine, _Vocabulary] = WeakKeyDictionary()  # per open library
_VOCABULARIES_MUTEX = threading.Lock()


def _vocabulary(session: Session) -> _Vocabulary:
    """The counts kept for the session's database, as long as its full-text index has not changed.

    Every write to an FTS5 index rewrites its *structure record* (row 10 of ``chunk_fts_data``: the
    segments and a write counter), so an identical record means identical postings: one B-tree
    lookup decides whether the kept counts still hold. Reading a frequent prefix's count costs up to
    12 ms at 100,000 chunks and the chunk count 2 ms; the words of a field's queries recur.
    """
    row = session.exec(text("SELECT block FROM chunk_fts_data WHERE id = 10")).first()
    structure = None if row is None else bytes(row[0])
    key = session.get_bind()
    with _VOCABULARIES_MUTEX:
        kept = _VOCABULARIES.get(key)
        if kept is not None and structure is not None and kept.structure == structure:
            return kept
    kept = _Vocabulary(structure, int(session.exec(text("SELECT count(*) FROM chunk")).one()[0]))
    if structure is not None:
        with _VOCABULARIES_MUTEX:
            _VOCABULARIES[key] = kept
    return kept


def selective_terms(terms: list[str], frequencies: dict[str, int], max_postings: int) -> list[str]:
    """The terms to query: rarest first while their summed frequencies fit in ``max_postings``.

    The rarest term is always kept; terms missing from ``frequencies`` (unknown to the index's
    vocabulary, so cheap or absent) are always kept. The query's order is preserved.
    """
    known = sorted((t for t in terms if t in frequencies), key=lambda t: frequencies[t])
    kept: set[str] = set()
    total = 0
    for term in known:
        if kept and total + frequencies[term] > max_postings:
            break
        kept.add(term)
        total += frequencies[term]
    return [t for t in terms if t in kept or t not in frequencies]

