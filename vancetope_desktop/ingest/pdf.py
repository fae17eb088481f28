"""PDF extraction with PyMuPDF: page-by-page text, chunks that never span two pages, typed failures.

Safety: only ``page.get_text()`` is used, never raw stream decoding, so a JBIG2 decompression bomb
costs milliseconds; outlines are never walked (cyclic outlines exist); pages are processed one at a
time so a 350-page book does not hold every page's layout in memory (only its blocks' text and boxes
are kept, until the running headers and footers are known: see :mod:`.furniture`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from itertools import groupby
from operator import attrgetter
from pathlib import Path

from ..core.documents import DocumentType
from ..core.errors import DamagedFile, EmptyFile, EncryptedPdf
from ..core.text import is_undecodable, readable
from .base import ChunkDraft, Extraction
from .chunking import pack_paragraphs
from .fontcipher import decipher_font, unmapped_fonts
from .furniture import Block, find_furniture
from .layout import join_paragraphs, reading_order
from .mupdf import pymupdf
from .normalize import compose_spacing_accents, normalize_text
from .passwords import saslprep
from .pdfchars import GlyphText, text_blocks
from .pdfmeta import read_facts
from .quality import measure_text, strip_junk, strip_ornaments
from .roles import Section, page_roles, role_runs

MIME_TYPE = "application/pdf"
# Text flags: keep ligatures and whitespace as found (normalize_text handles them), clip to the
# page; TEXT_PRESERVE_IMAGES is left out on purpose so images are never decoded.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_CJK = "\u3000-\u9fff\uac00-\ud7af\uff00-\uffef"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])\n(?=[{_CJK}])")
_KEPT_HYPHEN_BREAK = re.compile(r"(?<=\w)-\n")
# Rules and leaders drawn with characters: "......" lines, "_______" separators, dot leaders of a
# table of contents. Each dot is one word piece, so a rule of dots became a chunk of its own.
_RULE = re.compile(r"([._\-=·•*~])(?: ?\1){7,}")


def _open(path: Path, password: str | None) -> pymupdf.Document:
    """Open and authenticate, mapping failures to the product's errors."""
    name = readable(path.name)
    try:
        if is_undecodable(str(path)):  # MuPDF opens UTF-8 file names only: read this one from memory
            doc = pymupdf.open(stream=path.read_bytes(), filetype="pdf")
        else:
            doc = pymupdf.open(path, filetype="pdf")
    except (pymupdf.FileDataError, pymupdf.EmptyFileError, RuntimeError, ValueError) as exc:
        raise DamagedFile(f"{name} is damaged and cannot be opened: {exc}") from exc
    if doc.needs_pass:
        if password is None:
            doc.close()
            raise EncryptedPdf(f"{name} needs a password")
        candidates = dict.fromkeys([password, saslprep(password), unicodedata.normalize("NFKC", password)])
        if not any(doc.authenticate(candidate) for candidate in candidates):
            doc.close()
            raise EncryptedPdf(f"{name} needs a password: the password given is wrong")
    # A page tree MuPDF cannot count (a fuzzed /Count) raises from page_count, and a file cut short
    # is "repaired" into a PDF without pages: both are damaged files, not empty ones.
    try:
        pages = doc.page_count
    except (RuntimeError, ValueError) as exc:
        doc.close()
        raise DamagedFile(f"{name} is damaged: its pages cannot be counted ({exc})") from exc
    if pages == 0 and doc.is_repaired:
        doc.close()
        raise DamagedFile(f"{name} is damaged (cut short?): no page could be recovered")
    return doc


def _page_blocks(page: pymupdf.Page, glyph_text: GlyphText | None = None) -> list[Block]:
    """The page's text blocks in the PDF's stream order: raw text and box as fractions of the page
    (fonts in ``glyph_text`` read through their deciphered glyphs: see :mod:`.pdfchars`)."""
    rect = page.rect
    width, height = rect.width or 1.0, rect.height or 1.0
    return [
        Block(strip_ornaments(text), (x0 - rect.x0) / width, (y0 - rect.y0) / height,
              (x1 - rect.x0) / width, (y1 - rect.y0) / height)
        for x0, y0, x1, y1, text, _, kind in text_blocks(page, _TEXT_FLAGS, glyph_text)
        if kind == 0
    ]


def _paragraph(block_text: str) -> str:
    """A block as one normalised paragraph: its layout line breaks become spaces, except inside CJK
    text and after a hyphen that normalize_text kept ("Super-\\nCDMS" → "Super-CDMS"); TeX's separate
    accent glyphs are joined to their letters ("R¨as¨anen" → "Räsänen"); rules drawn with eight or
    more dots, underscores, dashes… are dropped ("..." and ". . ." stay)."""
    text = compose_spacing_accents(normalize_text(_RULE.sub(" ", strip_junk(block_text))))
    return _KEPT_HYPHEN_BREAK.sub("-", _CJK_BREAK.sub("", text)).replace("\n", " ").strip()


def extract_pdf(path: Path, *, password: str | None = None) -> Extraction:
    """Extract a PDF page by page.

    Each page's text blocks are read in reading order, column by column (:func:`.layout.reading_order`),
    and a paragraph cut by a column or page break is joined again (:func:`.layout.join_paragraphs`).
    Paragraphs are packed into chunks of about 200 words; a chunk carries the 1-based page number
    where it starts and holds no paragraph that starts on another page. Running headers, footers,
    margin stamps and page numbers (:func:`.furniture.find_furniture`) are left out of the chunks and
    the text. Pages whose text layer is missing or unreadable (see :mod:`.quality`) are listed in
    ``metadata["ocr_pages"]``; when no page has usable text the result has ``needs_ocr=True`` and no
    chunks.

    Reference lists, author and affiliation lists and acknowledgements become chunks of their own
    with that role (:mod:`.roles`): they are not embedded.

    Args:
        path: the file (it may have junk before ``%PDF-``; MuPDF repairs that).
        password: user password for encrypted files; tried as given, SASLprep-mapped and NFKC.

    Returns:
        An :class:`Extraction` with doc_type FILE and metadata page_count, title, authors, year, doi.

    Raises:
        EncryptedPdf: a user password is needed and none, or a wrong one, was given.
        DamagedFile: MuPDF cannot open the file or count its pages, or repairing it left no page.
        EmptyFile: the PDF has no pages (and is not damaged).
    """
    doc = _open(path, password)
    try:
        return _extract(doc, path)
    finally:
        doc.close()


def _decipher_unmapped_fonts(
    doc: pymupdf.Document, candidates: list[int], page_blocks: list[list[Block]], warnings: list[str]
) -> list[int]:
    """Read the unusable pages whose fonts have no Unicode map by deciphering those fonts' glyphs.

    Args:
        candidates: 0-based pages with text that :func:`.quality.measure_text` found unusable.
        page_blocks: every page's paragraphs; those of the pages read are replaced.
        warnings: a note is added when pages are read this way.

    Returns:
        The 0-based pages now read, whose text is usable.
    """
    try:
        pages_of: dict[str, list[int]] = {}
        for index in candidates:
            for font in unmapped_fonts(doc[index]):
                pages_of.setdefault(font, []).append(index)
        tables = {}
        for font, pages in pages_of.items():
            table = decipher_font([doc[i] for i in pages], font)
            if table:
                tables[font] = table
        recovered = []
        for index in candidates if tables else []:
            blocks = _page_blocks(doc[index], tables)
            if measure_text("\n".join(b.text for b in blocks)).usable:
                page_blocks[index] = [replace(b, text=_paragraph(b.text)) for b in blocks]
                recovered.append(index)
    except (RuntimeError, ValueError) as exc:  # a broken page: the pages stay as they were
        warnings.append(f"fonts without a Unicode map could not be deciphered: {exc}")
        return []
    if recovered:
        warnings.append(
            f"{len(recovered)} page(s) use a font without a Unicode map ({', '.join(sorted(tables))}); their "
            "text was read by deciphering its glyphs: digits are missing and some punctuation may be wrong"
        )
    return recovered


def _extract(doc: pymupdf.Document, path: Path) -> Extraction:
    warnings: list[str] = []
    if doc.is_repaired:
        warnings.append("the PDF was damaged and has been repaired; some text may be missing")
    if doc.page_count == 0:
        raise EmptyFile(f"{path.name}: PDF has no pages")
    page_blocks: list[list[Block]] = []
    text_pages: list[int] = []  # 0-based indices of the pages with usable text
    ocr_pages: list[int] = []
    first_pages_raw: list[str] = []
    first_text_page: int | None = None
    for index in range(doc.page_count):
        page: pymupdf.Page | None = None
        try:
            page = doc[index]
            blocks = _page_blocks(page)
        except (RuntimeError, ValueError) as exc:  # one broken page must not lose the others
            warnings.append(f"page {index + 1} could not be read: {exc}")
            blocks = []
        raw = "\n".join(b.text for b in blocks)
        # Kept with their boxes, as paragraphs, until the running headers are known.
        page_blocks.append([replace(b, text=_paragraph(b.text)) for b in blocks])
        has_text = any(b.text.strip() for b in page_blocks[-1])
        if index < 2:
            first_pages_raw.append(raw)
        if not has_text or not measure_text(raw).usable:
            # A page without text is a scan only if it shows an image (listing images decodes nothing).
            if has_text or (page is not None and page.get_images()):
                ocr_pages.append(index + 1)
            continue
        if first_text_page is None and index < 2:
            first_text_page = index
        text_pages.append(index)

    recovered = _decipher_unmapped_fonts(doc, [n - 1 for n in ocr_pages if page_blocks[n - 1]], page_blocks, warnings)
    text_pages = sorted(text_pages + recovered)
    ocr_pages = [n for n in ocr_pages if n - 1 not in recovered]

    # Running headers, footers and page numbers are left out of the text and the chunks (the
    # metadata reader above still saw them: a DOI or year may sit in a footer).
    furniture = find_furniture(page_blocks)
    # Body blocks column by column, then paragraphs cut by a column or page break joined again.
    flow = [
        (index, block)
        for index in text_pages
        for block in reading_order([b for i, b in enumerate(page_blocks[index]) if i not in furniture[index]])
    ]
    chunks: list[ChunkDraft] = []
    page_texts: list[str] = []
    section = Section()  # references, author lists and acknowledgements get their own chunks (see .roles)
    for index, group in groupby(join_paragraphs(flow), key=attrgetter("page")):
        paragraphs = [p.text for p in group]
        page_texts.append("\n\n".join(paragraphs))
        roles, section = page_roles(paragraphs, page=index + 1, section=section)
        for role, run in role_runs(paragraphs, roles):
            chunks.extend(ChunkDraft(text, page=index + 1, role=role) for text in pack_paragraphs(run))

    facts = read_facts(doc, first_pages_raw, first_text_page)
    metadata = {"page_count": doc.page_count, **facts.as_metadata()}
    needs_ocr = not chunks
    if needs_ocr:
        warnings.append("no usable text layer (scanned or unreadable fonts): the PDF needs OCR")
    elif ocr_pages:
        metadata["ocr_pages"] = ocr_pages
        shown = ", ".join(map(str, ocr_pages[:10])) + (" …" if len(ocr_pages) > 10 else "")
        warnings.append(f"{len(ocr_pages)} page(s) without usable text (need OCR): {shown}")
    return Extraction(
        doc_type=DocumentType.FILE,
        mime_type=MIME_TYPE,
        title=facts.title,
        text="\n\n".join(page_texts),
        chunks=chunks,
        metadata=metadata,
        needs_ocr=needs_ocr,
        warnings=warnings,
    )
