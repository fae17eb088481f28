"""PDF password preparation (kept apart from the PDF extractor so the app's viewer can use it without
importing PyMuPDF)."""

from __future__ import annotations

import stringprep
import unicodedata


def saslprep(password: str) -> str:
    """RFC 4013 SASLprep mapping, which PDF 2.0 (AES-256, R6) applies to passwords before hashing.

    Non-ASCII spaces become spaces, "commonly mapped to nothing" characters (soft hyphen, zero-width
    joiners…) are removed, then NFKC: ``"S\\u00aaSL\\u00adprep"`` → ``"SaSLprep"``. Prohibited-output
    checks are skipped: a password that fails them simply does not authenticate.
    """
    mapped = "".join(
        " " if stringprep.in_table_c12(ch) else "" if stringprep.in_table_b1(ch) else ch for ch in password
    )
    return unicodedata.normalize("NFKC", mapped)
