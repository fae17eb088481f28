"""The topic tree's words (issue 14): lexical surfaces (the keywords that route a query) and labels (the names
people read), both from the member atoms' statements. Pure text work over ``generation.keywords``.

A leaf's surface is its c-TF-IDF keywords against the other leaves (:func:`class_words`: class-based TF-IDF,
Grootendorst 2022: ``tf(t, c) × log(1 + A / f(t))``, ``tf`` the term's share of the leaf's terms, ``A`` the mean
terms per leaf, ``f(t)`` the term's count in all leaves), over the product's stemmed phrase keys (its stop words,
Snowball stems, runs of up to two content words), shown as first written but lower-cased unless an acronym,
mixed case or a proper noun. A parent's surface combines its children's (:func:`combine_surfaces`). The label
(:func:`label_of`; for people, kept apart from the surface) is the first :data:`LABEL_TERMS` surface terms, nouns
before the members' verbs ("Sleep · memory · REM"); the summary (:func:`summary_of`) the member statement nearest
the centroid, shortened.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..core.topics import KEYWORDS_SHOWN
from ..generation.keywords import STOP_WORDS, overlaps, stemmer, written_phrases
from ..store.fulltext import CJK_RUN, text_tokens
from ..store.fulltext import STOP_WORDS as QUERY_STOP_WORDS

PHRASE_WORDS = 2
"""Surface terms are single words or two-word phrases ("stem cells", "signaling pathways" on SciFact); a
phrase must occur twice in a leaf to count, which three-word runs of a leaf's few statements seldom do."""


LABEL_TERMS = 3
"""A label is the first three surface terms ("methylation, epigenetic, DNA" on SciFact, "camping, nature, kids"
on LoCoMo): one line of the Topics pane, and enough words to tell sibling topics apart."""


LABEL_JOIN = " · "
"""Between a label's terms ("Sleep · memory · REM"): a list of keywords, not a sentence, so no "and" (which
would also need the library's language); a term never holds it, where a comma may be read into a phrase."""


SUMMARY_CHARS = 140
"""A summary is cut at a word boundary before this many characters (one line of the Topics pane)."""


FILLER_WORDS = frozenset({
    "given", "exists", "exist", "existing", "true", "false", "doesn't", "don't", "isn't", "aren't",
    "make", "makes", "making", "made", "get", "gets", "getting", "got", "take", "takes", "taking", "took", "need",
    "needs", "want", "wants", "say", "says", "said", "know", "knows", "think", "thinks", "look", "looks", "come",
    "comes", "goes", "going", "gone", "try", "tries", "tried", "seems", "seem", "means", "mean", "allows", "allow",
    "lets", "gives", "give", "puts", "put", "keeps", "keep", "shows", "show", "works", "work", "happens", "holds",
    "good", "bad", "new", "old", "great", "little", "big", "small", "large", "different", "same", "certain",
    "possible", "able", "actually", "probably", "simply", "usually", "basically", "generally", "especially",
    "instead", "maybe", "perhaps", "sure", "right", "real", "whole", "general", "particular", "specific",
    "important", "main", "simple", "easy", "hard", "long", "short", "high", "low", "lot", "lots", "kind",
    "sort", "example", "case", "cases", "way", "ways", "yes", "okay", "ok",
})
"""Words a label leaves out though they pass the stop words (``generation.keywords.STOP_WORDS``,
``store.fulltext.STOP_WORDS``): very common verbs, adverbs and adjectives a cluster's statements share without
naming what it is about ("Given · forces · exists", "Sums · partial · true" in a new user's trial on the
corpus notes). Contractions ("doesn't") are left out by their apostrophe."""


CJK_PARTICLES = frozenset("のはがをにへとでもやかなねよ")
"""Japanese particles: a lone ideograph followed by one is a noun ("桜は"); followed by other hiragana it is a
verb's or an adjective's stem ("咲き", "多く")."""


_HIRAGANA = re.compile("[\u3040-\u309f]+")


_KANA = re.compile("[\u3040-\u30ff]")


_IDEOGRAPH = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


_CHINESE_FUNCTION = re.compile("[的是了在和与及或也就而之其这那个有不]+")
"""Where a Chinese clause (no kana: no spaces, no particles to cut it at) is cut; in Japanese text these
characters are parts of words (存在, 有名, 平和), so only text without kana is cut at them."""


def cjk_terms(text: str) -> list[str]:
    """The CJK terms of ``text`` for labels. Japanese (text holding kana): each run of CJK characters cut at
    hiragana (particles and verb endings: "リンク先に複数の" → "リンク先", "複数"); a piece of 2 to 4 characters
    is a term, and so is a lone ideograph followed by a particle or nothing ("桜は", not the verb stem "咲き").
    Chinese: each run cut at :data:`_CHINESE_FUNCTION`; a piece of 2 to 4 characters is a term, a longer one
    (a clause) gives the overlapping bigrams the product's index makes of it (``store.fulltext.text_tokens``)."""
    japanese = _KANA.search(text) is not None
    out: list[str] = []
    for run in CJK_RUN.finditer(text):
        chars = run.group()
        if japanese:
            at = 0
            for gap in [*_HIRAGANA.finditer(chars), None]:
                end = gap.start() if gap else len(chars)
                word, after = chars[at:end], chars[end:end + 1]
                if 2 <= len(word) <= 4 or (len(word) == 1 and _IDEOGRAPH.match(word)
                                           and (not after or after in CJK_PARTICLES)):
                    out.append(word)
                at = gap.end() if gap else end
            continue
        for word in _CHINESE_FUNCTION.split(chars):
            if 2 <= len(word) <= 4:
                out.append(word)
            elif len(word) > 4:
                out.extend(token for token, _, _ in text_tokens(word))
    return out


def _cjk(text: str) -> bool:
    return CJK_RUN.search(text) is not None


def _label_phrases(text: str) -> list[tuple[str, str]]:
    """``written_phrases`` of ``text`` for topic words, with CJK words replaced by :func:`cjk_terms` (a CJK run
    the keyword step keeps is a particle or a whole clause: "や", "で囲み")."""
    pairs = [(key, form) for key, form in written_phrases(text, PHRASE_WORDS) if not _cjk(form)]
    return pairs + [(term, term) for term in cjk_terms(text)]


def class_words(texts_by_class: Sequence[Sequence[str]], terms: int) -> list[tuple[str, ...]]:
    """Each class's ``terms`` best c-TF-IDF keywords (written forms), best first (see the module doc)."""
    phrases = [[pair for text in texts for pair in _label_phrases(text)] for texts in texts_by_class]
    # A word's case is judged over every class: a name that only opens the statements of one leaf ("Caroline: …")
    # is still a name.
    seen = _casing(text for texts in texts_by_class for text in texts)
    counts = [Counter(key for key, _ in pairs) for pairs in phrases]
    overall: Counter[str] = Counter()
    for counter in counts:
        overall.update(counter)
    mean_terms = sum(overall.values()) / max(1, len(counts))
    out = []
    for pairs, counter in zip(phrases, counts, strict=True):
        total = sum(counter.values())
        forms: dict[str, str] = {}
        for key, form in pairs:
            forms.setdefault(key, form)
        order = {key: i for i, key in enumerate(forms)}
        scored = sorted(
            (-(count / total) * math.log(1 + mean_terms / overall[key]), order.get(key, 0), key)
            for key, count in counter.items()
            # A phrase said once is a coincidence of words, not a key phrase (generation.keywords' rule).
            if " " not in key or count >= 2
        )
        chosen: list[str] = []
        taken: list[set[str]] = []
        for _, _, key in scored:
            if overlaps(key, taken):
                continue
            chosen.append(" ".join(_cased(word, seen) for word in forms.get(key, key).split()))
            taken.append(set(key.split()))
            if len(chosen) == terms:
                break
        out.append(tuple(chosen))
    return out


_TOKEN = re.compile(r"[^\W_][\w'’-]*")


_SENTENCE_END = re.compile(r"[.!?…:;]\s*$")


_VERB_CUES = frozenset({"to", "can", "could", "may", "might", "will", "would", "should", "must", "it", "they", "we",
                        "which", "that", "who", "also", "often", "not", "does", "do", "did"})
"""Words after which a word is a verb ("to improve", "it improves")."""


_OBJECT_WORDS = frozenset({"the", "a", "an", "this", "these", "those", "its", "their", "our", "his", "her"})
"""Words that open an object: a word before one is a verb ("Knead the dough")."""


def _cased(word: str, seen: Mapping[str, tuple[bool, bool]]) -> str:
    """``word`` lower-cased unless written in capitals or mixed case ("GPU", "FlashAttention", "mRNA") or
    capitalised everywhere the members write it, once at least not starting a sentence (a proper noun).
    ``seen``: lower-cased word → (always capitalised, seen inside a sentence), from :func:`_casing`."""
    if any(c.isupper() for c in word[1:]):
        return word
    always, inside = seen.get(word.casefold(), (False, False))
    return word if always and inside else word.lower()


def _casing(texts: Iterable[str]) -> dict[str, tuple[bool, bool]]:
    """Lower-cased word → (every occurrence starts with a capital, one of them is not a sentence's first word)."""
    seen: dict[str, tuple[bool, bool]] = {}
    for text in texts:
        for match in _TOKEN.finditer(text):
            word = match.group()
            first = not text[:match.start()].strip() or _SENTENCE_END.search(text[:match.start()]) is not None
            always, inside = seen.get(word.casefold(), (True, False))
            seen[word.casefold()] = (always and word[0].isupper(), inside or (not first and word[0].isupper()))
    return seen


def _verb_like(term: str, texts: Iterable[str]) -> bool:
    """Whether the single word ``term`` is used as a verb in most of its occurrences in ``texts``: after "to", a
    modal or a pronoun, before a determiner (an object: "Knead the dough", "by replaying the day"), or as
    "-s"/"-ed" between two content words ("Sleep consolidates memory"); any other use counts as a noun's. A
    heuristic (no tagger model ships), to put nouns first in a label."""
    target = term.casefold()
    if target in _VERB_CUES:
        return True  # "did", "does": an auxiliary the stop words let through
    votes = 0
    for text in texts:
        words = [w.casefold() for w in _TOKEN.findall(text)]
        for i, word in enumerate(words):
            if word != target:
                continue
            before = words[i - 1] if i else ""
            after = words[i + 1] if i + 1 < len(words) else ""
            inflected = (word.endswith("s") and not word.endswith(("ss", "us", "is"))) or word.endswith("ed")
            if before in _VERB_CUES or after in _OBJECT_WORDS or (
                    inflected and before and before not in STOP_WORDS and after and after not in STOP_WORDS):
                votes += 1
            else:
                votes -= 1
    return votes > 0


FALLBACK_WORDS = 6
"""A label made from a statement's first words takes this many (about one line of the Topics pane)."""


FALLBACK_LABEL = "Topic"
"""The label of a topic with no words at all (no surface, no member text): never empty, since a person must be
able to read, click and rename it."""


def _filler(term: str) -> bool:
    """Whether ``term`` says nothing as a label: a contraction, a word of :data:`FILLER_WORDS` or of the stop
    lists, a lone kana, a CJK term holding hiragana (a particle or an ending: "や", "で囲み", "例えば")."""
    words = term.casefold().split()
    if any("'" in w or "’" in w for w in words):
        return True
    if all(w in FILLER_WORDS or w in STOP_WORDS or w in QUERY_STOP_WORDS for w in words):
        return True
    # :func:`cjk_terms` never makes a term holding hiragana; a stored surface written before it may hold one.
    return _cjk(term) and ((len(term) == 1 and not _IDEOGRAPH.match(term)) or _HIRAGANA.search(term) is not None)


def label_of(surface: Sequence[str], texts: Sequence[str] = ()) -> str:
    """A topic's name for people, never empty: its first :data:`LABEL_TERMS` surface terms (of the head), filler
    left out (:data:`FILLER_WORDS`, contractions, CJK particles), single words used as verbs in ``texts`` (the members,
    when given) after the others, joined by :data:`LABEL_JOIN`, the first letter capitalised (unless its word is
    written in mixed case, "mRNA"). With no such term: the members' CJK terms (:func:`cjk_terms`), else the first
    :data:`FALLBACK_WORDS` words of the first member statement, else :data:`FALLBACK_LABEL`."""
    # The head only (``core.topics.KEYWORDS_SHOWN``): a routing surface of 150 terms holds nothing a three-term
    # label takes from past it, and judging each word a verb or not over every member cost a cold build 3x its time.
    terms = [t for t in surface[:KEYWORDS_SHOWN] if t.strip() and not _filler(t)]
    if not terms and texts:
        counts = Counter(t for text in texts for t in cjk_terms(text) if not _filler(t))
        terms = [t for t, _ in counts.most_common(LABEL_TERMS)]
    if not terms:
        first = next((" ".join(t.split()[:FALLBACK_WORDS])[:SUMMARY_CHARS // 2] for t in texts if t.strip()), "")
        return first[:1].upper() + first[1:] if first else FALLBACK_LABEL
    if texts:
        verbs = {t for t in terms if " " not in t and _verb_like(t, texts)}
        terms = [t for t in terms if t not in verbs] + [t for t in terms if t in verbs]
    chosen: list[str] = []
    for term in terms:
        # "HSCs" beside "HSC": the stemmer keeps an acronym's plural apart, a label says it once.
        # "深度 · 度学": overlapping bigrams of one Chinese word, said once.
        if _singular(term) not in {_singular(c) for c in chosen} \
                and not (_cjk(term) and any(set(term) & set(c) for c in chosen if _cjk(c))):
            chosen.append(term)
    label = LABEL_JOIN.join(chosen[:LABEL_TERMS])
    first = label.split(" ", 1)[0]
    return label[:1].upper() + label[1:] if first.islower() else label


def _singular(term: str) -> str:
    folded = term.casefold()
    return folded[:-1] if folded.endswith("s") and not folded.endswith("ss") else folded


def stem_key(term: str) -> str:
    stem = stemmer().stemWord
    return " ".join(stem(word.casefold()) for word in term.split())


def combine_surfaces(children: Sequence[tuple[Sequence[str], int]], terms: int) -> tuple[str, ...]:
    """A parent's surface from its children's: each child's term weighs its child's size times
    ``1 - rank / len(surface)`` (its first term 1, its last near 0), weights summed per stem key; the best
    ``terms``, shown as the heaviest child wrote them.

    Args:
        children: ``(surface, size)`` per child, ``size`` its atoms.
        terms: how many to keep.
    """
    weight: dict[str, float] = defaultdict(float)
    forms: dict[str, str] = {}
    first: dict[str, int] = {}
    for surface, size in sorted(children, key=lambda child: -child[1]):
        for rank, term in enumerate(surface):
            key = stem_key(term)
            weight[key] += max(size, 1) * (1 - rank / len(surface))
            forms.setdefault(key, term)
            first.setdefault(key, len(first))
    chosen: list[str] = []
    taken: list[set[str]] = []
    for key in sorted(weight, key=lambda k: (-weight[k], first[k])):
        if overlaps(key, taken):
            continue
        chosen.append(forms[key])
        taken.append(set(key.split()))
        if len(chosen) == terms:
            break
    return tuple(chosen)


def surface_overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """The share of the shorter surface head's stem keys the other head holds too (0 when either is empty); a head
    is a surface's first ``core.topics.KEYWORDS_SHOWN`` terms, what ``topic_revise.MERGE_OVERLAP`` was measured on
    (the routing terms past it are nearly every word of the atoms: two leaves share many of them by chance)."""
    keys_a, keys_b = {stem_key(t) for t in a[:KEYWORDS_SHOWN]}, {stem_key(t) for t in b[:KEYWORDS_SHOWN]}
    if not keys_a or not keys_b:
        return 0.0
    return len(keys_a & keys_b) / min(len(keys_a), len(keys_b))


def summary_of(texts: Sequence[str], vectors: np.ndarray, centroid: np.ndarray) -> str:
    """The member statement nearest ``centroid``, cut at a word before :data:`SUMMARY_CHARS`."""
    if not texts:
        return ""
    best = " ".join(texts[int(np.argmax(vectors @ centroid))].split())
    if len(best) <= SUMMARY_CHARS:
        return best
    cut = best[:SUMMARY_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"
