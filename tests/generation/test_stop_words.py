"""What the built-in generator keeps of scikit-learn as its own code: the English stop words
(``generation/stop_words.py``) and the TF-IDF rows of the summaries (``summary.tfidf_rows``) are scikit-learn's;
and the processes that parse arguments, serve tools or summarise import neither scikit-learn (for them) nor PyMuPDF
(for the annotation services) before they need them."""

import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

from vancetope_desktop.generation.sentences import split_sentences
from vancetope_desktop.generation.stop_words import ENGLISH_STOP_WORDS as OURS
from vancetope_desktop.generation.summary import _stems, tfidf_rows

REPO = Path(__file__).resolve().parents[2]


def test_the_stop_words_are_scikit_learns():
    assert OURS == ENGLISH_STOP_WORDS and len(OURS) == 318


def test_the_tfidf_rows_are_scikit_learns(corpus):
    """Every corpus note's sentences (with a line that has no content word): the same cosines; no rows, for a note
    without any content word (the empty note), where scikit-learn refuses."""
    notes = sorted((corpus / "notes").glob("*.md"))
    assert len(notes) >= 20
    for note in notes:
        texts = [s.text for s in split_sentences(note.read_text(encoding="utf-8", errors="replace"))][:400]
        texts.append("and the of")
        ours = tfidf_rows(texts)
        try:
            reference = TfidfVectorizer(analyzer=_stems).fit_transform(texts).toarray()
        except ValueError:  # "empty vocabulary"
            assert ours.shape == (len(texts), 0), note.name
            continue
        assert ours.shape == reference.shape  # as many terms (the columns' order differs)
        assert np.abs(ours @ ours.T - reference @ reference.T).max() < 1e-12, note.name


def test_the_cli_and_the_mcp_server_start_and_summarise_without_scikit_learn_or_pymupdf():
    """scikit-learn (and SciPy with it) took 2.1-2.6 of the 4.2-4.8 s of CPU the CLI's import took, a usage error's
    too; PyMuPDF 0.2-0.4 s more, and 0.6 s to tear down at exit. Summaries and keywords took scikit-learn's
    vectorizers: 1.2 s of CPU to import in each process that uploaded a file."""
    probe = ("import sys, vancetope_desktop.cli.main, vancetope_desktop.agents.mcp_server\n"
             "from vancetope_desktop.generation.builtin import BuiltinGenerator\n"
             "text = 'Herons nest in colonies. Colonies of herons grow near lakes. Lakes freeze in winter.'\n"
             "assert BuiltinGenerator().summarize(text, 8) and BuiltinGenerator().keywords(text, 3)\n"
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'pymupdf'}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=300,
                            check=True)
    assert result.stdout.strip() == "[]", result.stderr
