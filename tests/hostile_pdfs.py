"""Hostile and damaged PDFs made in the tests: files that loop MuPDF, files cut short."""

from __future__ import annotations

from pathlib import Path


def looping_pdf(depth: int = 12, fan: int = 10) -> bytes:
    """A one-page PDF (about 4 KB) whose page MuPDF takes practically forever to read.

    The page draws form XObject 1, which draws form 2 ``fan`` times, which draws form 3 ``fan``
    times… ``depth`` levels deep, the last one showing one letter: ``fan ** (depth - 1)`` draws
    (the "billion laughs" of PDF). ``page.get_text()`` runs every draw in C, holding the GIL:
    measured 38 s at depth 7, so depth 12 is hours. Memory stays flat (~50 MB).
    """
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
           b"/Resources << /XObject << /X 10 0 R >> /Font << /F1 5 0 R >> >> >>",
        5: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    page = b"BT /F1 12 Tf 72 720 Td (A page that never ends.) Tj ET /X Do"
    objects[4] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(page), page)
    for level in range(depth):
        number = 10 + level
        if level == depth - 1:
            body, resources = b"BT /F1 1 Tf 0 0 Td (x) Tj ET", b"<< /Font << /F1 5 0 R >> >>"
        else:
            body = b" ".join([b"/X Do"] * fan)
            resources = b"<< /XObject << /X %d 0 R >> >>" % (number + 1)
        objects[number] = (b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %s /Length %d >>\n"
                           b"stream\n%s\nendstream" % (resources, len(body), body))
    out = bytearray(b"%PDF-1.7\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 %d\n" % size
    for number in range(size):
        out += b"%010d 00000 n \n" % offsets[number] if number in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def cut_copies(source: Path, folder: Path, *, fractions: tuple[float, ...] = (),
               lengths: tuple[int, ...] = ()) -> list[Path]:
    """Copies of ``source`` cut short, as an interrupted download or copy leaves them: after each
    fraction of its bytes and after each byte count, written to ``folder`` as ``<stem>-<bytes>b.pdf``."""
    data = source.read_bytes()
    folder.mkdir(parents=True, exist_ok=True)
    copies = []
    for length in sorted({*lengths, *(max(1, int(len(data) * f)) for f in fractions)}):
        target = folder / f"{source.stem}-{length}b.pdf"
        target.write_bytes(data[:length])
        copies.append(target)
    return copies
