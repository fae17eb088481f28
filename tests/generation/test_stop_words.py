"""The English stop words kept as our own constant (``generation/stop_words.py``) are scikit-learn's, and the
processes that only parse arguments or serve tools import neither scikit-learn (for them) nor PyMuPDF (for the
annotation services) before they need them."""

import subprocess
import sys
from pathlib import Path

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from vancetope_desktop.generation.stop_words import ENGLISH_STOP_WORDS as OURS

REPO = Path(__file__).resolve().parents[2]


def test_the_stop_words_are_scikit_learns():
    assert OURS == ENGLISH_STOP_WORDS and len(OURS) == 318


def test_the_cli_and_the_mcp_server_start_without_scikit_learn_or_pymupdf():
    """scikit-learn (and SciPy with it) took 2.1-2.6 of the 4.2-4.8 s of CPU the CLI's import took, a usage error's
    too; PyMuPDF 0.2-0.4 s more, and 0.6 s to tear down at exit."""
    probe = ("import sys, vancetope_desktop.cli.main, vancetope_desktop.agents.mcp_server; "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'pymupdf'}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=300,
                            check=True)
    assert result.stdout.strip() == "[]", result.stderr
