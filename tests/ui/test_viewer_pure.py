"""The viewer's pure helpers: choosing a sub-viewer, picking a phrase to highlight, rendering, reading data."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from vancetope_desktop.core.documents import DocumentInfo, DocumentType
from vancetope_desktop.core.errors import DamagedFile, UnsupportedFile
from vancetope_desktop.ui.viewer.data_files import parse_table, read_structured, read_table
from vancetope_desktop.ui.viewer.kinds import ViewKind, choose_view, file_name, is_editable
from vancetope_desktop.ui.viewer.phrases import pick_search_phrase
from vancetope_desktop.ui.viewer.rendering import render_markdown
from vancetope_desktop.ui.viewer.text_files import read_text_file


def _doc(file_path=None, *, type=DocumentType.FILE, content=None, mime_type="text/plain", **fields) -> DocumentInfo:
    now = datetime.now(UTC)
    return DocumentInfo(id=uuid.uuid4().hex, scope="project/inbox", type=type, title="t", created_at=now,
                        updated_at=now, file_path=file_path, content=content, mime_type=mime_type, **fields)


@pytest.mark.parametrize(
    ("doc", "kind"),
    [
        (_doc("/x/ab12.pdf", mime_type="application/pdf"), ViewKind.PDF),
        (_doc("/x/ab12", mime_type="application/pdf"), ViewKind.PDF),
        (_doc("/x/ab12.md"), ViewKind.MARKDOWN),
        (_doc(type=DocumentType.NOTE, content="# hi"), ViewKind.MARKDOWN),
        (_doc(type=DocumentType.FACT, content="water boils"), ViewKind.MARKDOWN),
        (_doc("/x/ab12.csv"), ViewKind.DATA),
        (_doc("/x/ab12.json"), ViewKind.DATA),
        (_doc("/x/ab12.yaml"), ViewKind.DATA),
        (_doc("/x/ab12.png"), ViewKind.IMAGE),
        (_doc("/x/ab12.svg"), ViewKind.IMAGE),
        (_doc("/x/ab12.py"), ViewKind.TEXT),
        (_doc("/x/ab12.bib"), ViewKind.TEXT),
        (_doc("/x/ab12.docx", mime_type="application/octet-stream"), ViewKind.CONTENT),
        (_doc(type=DocumentType.FOLDER), ViewKind.FOLDER),
        (_doc(type=DocumentType.STRUCTURED, content="a: 1"), ViewKind.TEXT),
    ],
)
def test_choose_view(doc, kind):
    assert choose_view(doc) is kind


def test_only_typed_text_is_editable():
    assert is_editable(_doc(type=DocumentType.NOTE, content="x"))
    assert is_editable(_doc(type=DocumentType.RESULT, content=""))
    assert not is_editable(_doc("/x/ab.md", type=DocumentType.NOTE, content="x"))
    assert not is_editable(_doc("/x/ab.pdf"))


def test_file_name_prefers_the_original_name():
    assert file_name(_doc("/files/ab/abcdef.py", metadata={"original_name": "analysis.py"})) == "analysis.py"
    assert file_name(_doc("/files/ab/abcdef.py")) == "abcdef.py"


def test_phrase_is_found_within_one_line_of_the_page():
    page = "We process PDFs from the Semantic Scholar cor\ufffepus using SCIENCEPARSE\r\nand GROBID v0.5.5"
    passage = "We process PDFs from the Semantic Scholar corpus using ScienceParse and GROBID"
    assert pick_search_phrase(passage, page) == "We process PDFs from the Semantic"
    # a word hyphenated at a line's end (pdfium's U+FFFE) ends a line too: Qt's PDF search finds no phrase across it
    assert pick_search_phrase("the Semantic Scholar corpus using ScienceParse", page) == "the Semantic Scholar"
    # the first six words are not on one line of this page; a later run is
    assert pick_search_phrase("Intro words here. and GROBID v0.5.5 is used", "x\nand GROBID v0.5.5\n") == (
        "and GROBID v0.5.5")


def test_phrase_falls_back_to_a_long_word_or_nothing():
    assert pick_search_phrase("transformer attention", "the Attention layer") == "attention"
    assert pick_search_phrase("nothing matches here", "completely different") == ""
    assert pick_search_phrase("one two three four five six seven") == "one two three four five six"
    assert pick_search_phrase("   ") == ""


def test_markdown_front_matter_tables_and_code(corpus):
    text = (corpus / "notes" / "obsidian-properties-frontmatter.md").read_text(encoding="utf-8")
    rendered = render_markdown(text)
    assert rendered.properties["permalink"] == "properties"
    assert '<table class="properties"' in rendered.html
    assert "permalink" in rendered.html
    note = "|a|b|\n|-|-|\n|1|2|\n\n```python\ndef f(x):\n    return x\n```\n"
    html = render_markdown(note).html
    assert "<table" in html and "<td>1</td>" in html
    assert 'class="code"' in html and "<span style=" in html  # pygments colours, inline
    assert render_markdown(note, dark=True).html != html


def test_invalid_front_matter_is_shown_as_text(corpus):
    text = (corpus / "notes" / "zotero-paper-template-invalid-yaml.md").read_text(encoding="utf-8")
    rendered = render_markdown(text)
    assert rendered.properties == {}
    assert "not valid YAML" in rendered.notes[0]
    assert '<pre class="raw">fileClass: Overall' in rendered.html


def test_bom_front_matter_and_latin1_note(corpus):
    bom = read_text_file(corpus / "notes" / "utf8-bom-frontmatter.md")
    assert render_markdown(bom.text).properties == {"title": "BOM Test"}
    latin = read_text_file(corpus / "notes" / "latin1-encoded-table.md")
    assert latin.encoding_notes  # decoded with a fallback, and says so
    html = render_markdown(latin.text).html
    assert "Boiling Points °C" in html and "<table" in html


def test_obsidian_habits():
    text = "#tag #other\nIntro\n1. one\n2. two\n```\n#not-a-tag\n```\n> [!note]+ Careful\n> body"
    html = render_markdown(text).html
    assert "<h1" not in html and "<ol>" in html  # a tag line is no heading; a list may follow a line
    assert "#tag #other" in html and "#not-a-tag" in html
    assert "<strong>Note: Careful</strong><br />" in html and "[!note]" not in html


def test_setext_headings_task_lists_math_and_footnotes():
    text = ("Title\n=====\n\nPart\n----\n\n- [ ] todo\n- [x] done\n\n$$\nx\n= y\n$$\n\n"
            "Inline $a<b$ and ~~gone~~.[^1]\n\n[^1]: A footnote.\n")
    html = render_markdown(text).html
    assert "<h1>Title</h1>" in html and "<h2>Part</h2>" in html
    assert "☐ todo" in html and "☑ done" in html and "<input" not in html
    assert "<pre>$$\nx\n= y\n$$</pre>" in html and "$a&lt;b$" in html
    assert "<s>gone</s>" in html and "A footnote." in html


def test_text_file_is_cut_at_the_limit(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("é" * 3000, encoding="utf-8")  # 6000 bytes
    cut = read_text_file(path, max_bytes=1001)  # inside a 2-byte character
    assert cut.truncated and cut.text == "é" * 500 and not cut.encoding_notes
    assert "Showing the first" in cut.notes[-1]
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02abc")
    with pytest.raises(UnsupportedFile):
        read_text_file(binary)


def test_csv_tables(corpus):
    penguins = read_table(corpus / "data" / "penguins.csv")
    assert (len(penguins.rows), len(penguins.header)) == (344, 7)
    assert penguins.header[0] == "species" and penguins.complete
    semicolon = read_table(corpus / "data" / "semicolon-delimited.csv")
    assert semicolon.delimiter == ";"
    assert (len(semicolon.rows), len(semicolon.header)) == (5, 12)
    ragged = read_table(corpus / "data" / "inconsistent-header.csv")
    assert ragged.header == ["1", "2", "3", "column 4"]
    assert len(ragged.rows) == 4 and all(len(row) == 4 for row in ragged.rows)


def test_csv_row_cap():
    text = "a,b\n" + "".join(f"{i},{i}\n" for i in range(50))
    table = parse_table(text, max_rows=10)
    assert len(table.rows) == 10 and not table.complete
    assert "first 10 rows" in table.notes[0]


def test_structured_files(corpus, tmp_path):
    quakes, _notes = read_structured(corpus / "data" / "earthquakes-usgs-week.geojson.json")
    assert quakes["type"] == "FeatureCollection"
    cff, _notes = read_structured(corpus / "data" / "napari-citation.cff.yaml")
    assert cff["cff-version"] == "1.2.0"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DamagedFile, match="Not valid JSON"):
        read_structured(bad)
