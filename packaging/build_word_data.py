"""Build ``vancetope_desktop/ingest/data/words.json.gz``: the word knowledge the ingest layer ships.

Two sources, both under permissive licences, both read from disk (nothing is fetched by this script):

* **Character trigrams per language** from the language profiles of ``langdetect`` 1.0.9
  (Nakatani Shuyo's language-detection, Cybozu Labs, Apache-2.0; counts made on Wikipedia abstracts).
  Each profile already keeps only its language's frequent n-grams (≈1,600–2,800 trigrams); they are
  lower-cased and merged. The English profile's counts are also kept as they are (case and all), for
  deciphering fonts without a Unicode map (:mod:`vancetope_desktop.ingest.fontcipher`). The CJK
  profiles (zh-cn, zh-tw, ja, ko) are left out: langdetect folds ideographs into classes, so their
  trigrams are not characters a page contains.
* **English words** from SCOWL (Spell Checker Oriented Word Lists, Kevin Atkinson; size 50, as
  Debian's ``wamerican`` and ``wbritish`` 2020.12.07 install them in ``/usr/share/dict``; licence:
  the notice in :data:`SCOWL_NOTICE`): the entries written in lower-case ASCII letters (≈65,000
  words), and apart the proper nouns written as one capital and lower-case letters (≈10,000 names,
  stored lower-cased); possessives and abbreviations are left out.
  The bundled model's vocabulary was tried first: at 21,700 words it lacks "compile", "sepsis",
  "questionnaires", so "com-⏎pile" kept its hyphen.

Usage (from the repository root, Debian or Ubuntu)::

    apt-get install wamerican wbritish
    pip download --no-deps --no-binary :all: langdetect==1.0.9 -d /tmp/ld
    tar xzf /tmp/ld/langdetect-1.0.9.tar.gz -C /tmp/ld
    python packaging/build_word_data.py /tmp/ld/langdetect-1.0.9/langdetect/profiles

The output is deterministic (sorted keys, gzip without a timestamp), so a rebuild that changes
nothing leaves git clean.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "vancetope_desktop" / "ingest" / "data" / "words.json.gz"
SKIPPED_PROFILES = {"zh-cn", "zh-tw", "ja", "ko"}
WORD_LISTS = (Path("/usr/share/dict/american-english"), Path("/usr/share/dict/british-english"))
_ENGLISH_WORD = re.compile("[a-z]+")
_ENGLISH_NAME = re.compile("[A-Z][a-z]+")
SCOWL_NOTICE = """English words: SCOWL (Spell Checker Oriented Word Lists), http://wordlist.aspell.net/
Copyright 2000-2011 by Kevin Atkinson
Permission to use, copy, modify, distribute and sell these word lists, the associated scripts, the
output created from the scripts, and its documentation for any purpose is hereby granted without fee,
provided that the above copyright notice appears in all copies and that both that copyright notice
and this permission notice appear in supporting documentation. Kevin Atkinson makes no
representations about the suitability of this array for any purpose. It is provided "as is" without
express or implied warranty. (Parts of SCOWL come from public-domain lists: Moby Words II, Brian
Kelk's UK English Wordlist; see the SCOWL README.)"""
LANGDETECT_NOTICE = """Character trigrams: langdetect 1.0.9 profiles, from language-detection
Copyright (c) 2010-2014 Cybozu Labs, Inc. Licensed under the Apache License, Version 2.0:
http://www.apache.org/licenses/LICENSE-2.0"""


def trigrams_by_language(profiles: Path) -> dict[str, str]:
    """Each language's trigrams, lower-cased, concatenated into one string (3 characters each)."""
    out = {}
    for path in sorted(profiles.iterdir()):
        if path.name in SKIPPED_PROFILES:
            continue
        counts: dict[str, int] = {}
        for gram, count in json.loads(path.read_text(encoding="utf-8"))["freq"].items():
            if len(gram) == 3:
                gram = gram.lower()
                if len(gram) == 3:  # lower() may lengthen a character ("İ")
                    counts[gram] = counts.get(gram, 0) + count
        out[path.name] = "".join(sorted(counts))
    return out


def english_ngrams(profiles: Path) -> dict[str, int]:
    """The English profile's counts of letter 1-, 2- and 3-grams (case kept; a space marks a word edge),
    for deciphering fonts without a Unicode map."""
    counts = json.loads((profiles / "en").read_text(encoding="utf-8"))["freq"]
    return {gram: n for gram, n in sorted(counts.items()) if all(ch == " " or "a" <= ch.lower() <= "z" for ch in gram)}


def english_entries(pattern: re.Pattern[str]) -> list[str]:
    """The SCOWL entries of :data:`WORD_LISTS` that ``pattern`` matches in full, lower-cased."""
    words: set[str] = set()
    for path in WORD_LISTS:
        words.update(w.lower() for w in path.read_text(encoding="utf-8").split("\n") if pattern.fullmatch(w))
    return sorted(words)


def main(profiles: Path) -> None:
    data = {
        "about": {
            "trigrams": "langdetect 1.0.9 profiles, lower-cased",
            "english_words": "SCOWL size 50 (Debian wamerican + wbritish 2020.12.07), lower-case entries",
            "english_names": "the same lists' capitalised entries (proper nouns), lower-cased",
            "english_ngrams": "langdetect 1.0.9 English profile: counts of letter 1- to 3-grams",
            "built_by": "packaging/build_word_data.py",
            "notices": [LANGDETECT_NOTICE, SCOWL_NOTICE],
        },
        "trigrams": trigrams_by_language(profiles),
        "english_words": english_entries(_ENGLISH_WORD),
        "english_names": english_entries(_ENGLISH_NAME),
        "english_ngrams": english_ngrams(profiles),
    }
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    print(
        f"{OUTPUT.relative_to(ROOT)}: {len(data['trigrams'])} languages, "
        f"{len(data['english_words'])} English words, {len(data['english_names'])} names, "
        f"{OUTPUT.stat().st_size / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
