"""The one door to PyMuPDF: ``from .mupdf import pymupdf``, never ``import pymupdf`` elsewhere.

PyMuPDF 2.0 ships its layout analyser (``pymupdf.layout``) and ``pymupdf4llm`` with it and imports
both on ``import pymupdf``; they load ONNX Runtime and its models (2.3 of the 3.6 s the import took,
measured here), and ONNX Runtime ≥ 1.29 starts its 1DS telemetry on Linux, whose threads looked up
``mobile.events.data.microsoft.com`` (12 DNS queries in one ``memory upload``, issue 10). The product reads
only text, boxes and metadata (``get_text``, ``metadata``), which need neither add-on, so both are
blocked before PyMuPDF is imported: PyMuPDF and pymupdf4llm catch the ``ImportError`` and run
without layout analysis (their own fallback). ``ORT_DISABLE_TELEMETRY=1`` (ONNX Runtime's documented
opt-out, read when it starts, inherited by worker processes) also covers any other path that loads
ONNX Runtime. ``tests/e2e/test_no_network.py`` checks that an upload and a search send nothing.

MuPDF's own complaints about a damaged file ("format error: non-page object in page tree") are
printed by PyMuPDF on standard output, where they broke the CLI's ``--json`` output; they go to the
``pymupdf`` logger instead (level INFO: the import outcome already says what went wrong).

Blocking only works when this module is imported before anything imports ``pymupdf``; the
import-linter contract "Only ingest.mupdf imports PyMuPDF" keeps it that way inside the product.
"""

from __future__ import annotations

import logging
import os
import sys

os.environ["ORT_DISABLE_TELEMETRY"] = "1"
for _addon in ("pymupdf.layout", "pymupdf4llm"):
    # None in sys.modules makes `import` raise ImportError; an add-on someone already imported stays.
    sys.modules.setdefault(_addon, None)  # type: ignore[arg-type]

import pymupdf  # noqa: E402  (after the blocks above, on purpose)

pymupdf.set_messages(pylogging_name="pymupdf", pylogging_level=logging.INFO)

__all__ = ["pymupdf"]
