"""The one door to PyMuPDF: ``from .mupdf import pymupdf``, never ``import pymupdf`` elsewhere.

PyMuPDF 2.0 ships its layout analyser (``pymupdf.layout``) and ``pymupdf4llm`` with it and imports
both on ``import pymupdf``; they load ONNX Runtime and its models (2.3 of the 3.6 s the import took,
measured here), and ONNX Runtime ≥ 1.29 starts its 1DS telemetry on Linux, whose threads looked up
``mobile.events.data.microsoft.com`` twelve times during one ``memory upload``. The product reads
only text, boxes and metadata (``get_text``, ``metadata``), which need neither add-on, so both are
blocked before PyMuPDF is imported: PyMuPDF and pymupdf4llm catch the ``ImportError`` and run
without layout analysis (their own fallback). ``ORT_DISABLE_TELEMETRY=1`` (ONNX Runtime's documented
opt-out, read when it starts, inherited by worker processes) also covers any other path that loads
ONNX Runtime. ``tests/e2e/test_no_network.py`` checks that an upload and a search send nothing.

Blocking only works when this module is imported before anything imports ``pymupdf``; the
import-linter contract "Only ingest.mupdf imports PyMuPDF" keeps it that way inside the product.
"""

from __future__ import annotations

import os
import sys

os.environ["ORT_DISABLE_TELEMETRY"] = "1"
for _addon in ("pymupdf.layout", "pymupdf4llm"):
    # None in sys.modules makes `import` raise ImportError; an add-on someone already imported stays.
    sys.modules.setdefault(_addon, None)  # type: ignore[arg-type]

import pymupdf  # noqa: E402  (after the blocks above, on purpose)

__all__ = ["pymupdf"]
