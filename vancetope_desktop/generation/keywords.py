"""Keywords of one text: candidate phrases between stop words, weighted by TF-IDF over the text's sentences.

Candidates are runs of up to three content words inside a clause (RAKE's idea: stop words and punctuation
bound a phrase). Each is scored ``tf * log(1 + n_sentences / df) * words``, times 1.5 when a heading states
it: frequent phrases win, a phrase spread over every sentence is damped, and a repeated two-word phrase
beats its single words (weighting by ``1 + 0.5 * (words - 1)`` left the long notes' keywords all single
words: "sampling", "model", "generative"… where ``words`` finds "Flow Matching", "free energy").
Words are grouped by their Snowball stem, so "model" and "models" are one keyword, shown as first written.

Why not YAKE: the ``yake`` package is LGPLv3 with a GPLv3 classifier, a licence this proprietary product
avoids, and it brings click, tabulate, jellyfish and networkx along; the counts here are two ``Counter``s
(scikit-learn's ``CountVectorizer`` built them before: its import cost 1.2 s of CPU in every process).
Measured on the 24 corpus notes (top 10 each): YAKE 12.0 s, this 1.2 s;
YAKE ranks LaTeX commands first on the math notes ("varphi", "mathfrak", "bmatrix"), which masking code
and math spares this one; YAKE finds more multi-word names ("Diffusion Posterior Sampling").
A CJK run without spaces is one token, so Chinese or Japanese text gets keywords only from its words in
Latin script and its short runs (at most :data:`MAX_CJK_RUN` characters).
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence

import Stemmer

from .cues import CODE_OR_MATH, clean
from .sentences import BlockKind, Sentence
from .stop_words import ENGLISH_STOP_WORDS

MAX_PHRASE_WORDS = 3
MAX_CJK_RUN = 6
"""A longer run of ideographs or kana is a whole clause, not a keyword (there are no spaces to cut it at)."""
HEADING_BOOST = 1.5

FRENCH_STOP_WORDS = frozenset(
    [
        "au", "aux", "avec", "ce", "ces", "dans", "de", "des", "du", "elle", "en", "et", "eux", "il", "ils", "je",
        "la", "le", "les", "leur", "lui", "ma", "mais", "me", "même", "mes", "moi", "mon", "ne", "nos", "notre",
        "nous", "on", "ou", "où", "par", "pas", "pour", "qu", "que", "qui", "sa", "se", "ses", "son", "sur", "ta",
        "te", "tes", "toi", "ton", "tu", "un", "une", "vos", "votre", "vous", "c", "d", "j", "l", "à", "m", "n", "s",
        "t", "y", "été", "être", "avoir", "ai", "as", "avons", "avez", "ont", "est", "sont", "était", "cette", "cet",
        "très", "plus", "moins", "aussi", "comme", "donc", "alors", "si", "tout", "tous", "toute", "toutes"
    ])
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) | FRENCH_STOP_WORDS | frozenset(
    [
        "also", "however", "thus", "using", "used", "use", "e", "g", "i.e", "e.g", "etc", "et", "al", "via", "let",
        "like", "just", "really", "way", "things", "thing", "yes", "don't", "i'm", "it's", "that's", "there's",
        "can't"
    ])

_CLAUSE = re.compile(r"[,;:()\[\]{}\"“”«»!?。！？、.…/|=<>*_`$\\]+|\s[-–—]\s")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


_stemmers = threading.local()  # PyStemmer's Stemmer objects are not thread-safe (generation runs in workers)


def stemmer() -> Stemmer.Stemmer:
    """The English Snowball stemmer (PyStemmer), one per thread."""
    found = getattr(_stemmers, "english", None)
    if found is None:
        found = _stemmers.english = Stemmer.Stemmer("english")
    return found


def content_runs(text: str) -> Iterable[list[str]]:
    """Runs of content words (as written) of ``text``, cut at clause punctuation, at stop words, at line
    breaks and at any other character between two words ("BEGIN_SRC clojure" / "#+END_SRC" gives no phrase
    across them)."""
    # Code and math cut a clause too: "function $f$ given" holds no phrase "function given".
    for clause in _CLAUSE.split(clean(CODE_OR_MATH.sub(" , ", text.replace("\n", " , ")))):
        run: list[str] = []
        previous_end = 0
        for match in _WORD.finditer(clause):
            word = match.group().strip("'’-")
            lowered = word.casefold()
            cjk = _CJK.search(word) is not None
            joined = not clause[previous_end:match.start()].strip()
            previous_end = match.end()
            if lowered in STOP_WORDS or (cjk and len(word) > MAX_CJK_RUN) or (not cjk and len(word) < 3) \
                    or not joined:
                if run:
                    yield run
                run = []
            if lowered not in STOP_WORDS and (len(word) <= MAX_CJK_RUN if cjk else len(word) >= 3):
                run.append(word)
        if run:
            yield run


def written_phrases(text: str, max_words: int = MAX_PHRASE_WORDS) -> list[tuple[str, str]]:
    """The candidate phrases of ``text`` (runs of up to ``max_words`` content words), with repeats, each as its
    stem key (stems joined by spaces) and as written."""
    stem = stemmer().stemWord
    out = []
    for run in content_runs(text):
        stems = [stem(word.casefold()) for word in run]
        for size in range(1, max_words + 1):
            out.extend((" ".join(stems[i:i + size]), " ".join(run[i:i + size])) for i in range(len(run) - size + 1))
    return out


def phrase_keys(text: str, max_words: int = MAX_PHRASE_WORDS) -> list[str]:
    """The stem keys of :func:`written_phrases`, with repeats."""
    return [key for key, _ in written_phrases(text, max_words)]


def overlaps(key: str, taken: Iterable[set[str]]) -> bool:
    """Whether the stem key ``key`` says what one of the ``taken`` keys' word sets already says: "flow" beside
    "flow matching", "ipsum dolor sit" beside "lorem ipsum dolor" (one of them is enough in a keyword list)."""
    words = set(key.split())
    return any(words <= other or other <= words or len(words & other) >= 2 for other in taken)


def keywords(sentences: Sequence[Sentence], k: int) -> list[str]:
    """The ``k`` best keywords of a text given as its sentences (see the module doc), best first.

    Ties break by first appearance, so the answer is the same on every run.
    """
    # Each sentence's phrases are found once (the counts, the headings and the written forms all need them).
    phrases = [written_phrases(s.text) for s in sentences]
    tf: Counter[str] = Counter()  # times said in the text
    df: Counter[str] = Counter()  # sentences saying it
    for found in phrases:
        keys = [key for key, _ in found]
        tf.update(keys)
        df.update(set(keys))
    if not tf:  # no candidate phrase at all (symbols, numbers, stop words only)
        return []
    headings = {key for s, found in zip(sentences, phrases, strict=True) if s.kind is BlockKind.HEADING
                for key, _ in found}
    n = len(sentences)
    forms: dict[str, str] = {}  # each stem key → its first written form, in order of appearance
    for found in phrases:
        for key, form in found:
            forms.setdefault(key, form)
    order = {key: i for i, key in enumerate(forms)}
    scored = []
    for key in sorted(tf):
        words = key.count(" ") + 1
        score = tf[key] * math.log(1 + n / df[key]) * words
        if words > 1 and tf[key] < 2:
            continue  # a phrase said once is a coincidence of words, not a key phrase
        scored.append((-(score * (HEADING_BOOST if key in headings else 1.0)), order.get(key, 0), key))
    scored.sort()
    chosen: list[str] = []
    chosen_words: list[set[str]] = []
    for _, _, key in scored:
        if overlaps(key, chosen_words):
            continue
        chosen.append(forms.get(key, key))
        chosen_words.append(set(key.split()))
        if len(chosen) == k:
            break
    return chosen
