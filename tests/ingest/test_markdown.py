"""Markdown notes: front matter, tags, titles and sections, on real vault files and crafted notes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import EmptyFile
from vancetope_desktop.ingest.markdown import extract_markdown, find_inline_tags, split_front_matter
from vancetope_desktop.ingest.registry import extract_file


def test_sections_and_heading_paths() -> None:
    note = (
        "# My Title\n\nIntro text.\n\n## Methods\n\nWe sampled.\n\n### Sampling\n\nRandomly.\n\n"
        "## Results\n\n```python\n# not a heading\nprint('## nor this')\n```\n\n## Empty\n"
    )
    extraction = extract_markdown(note, default_title="stem")
    assert extraction.doc_type is DocumentType.NOTE and extraction.mime_type == "text/markdown"
    assert extraction.title == "My Title"
    assert [c.section for c in extraction.chunks] == [None, "Methods", "Methods › Sampling", "Results"]
    assert extraction.chunks[0].text == "My Title\n\nIntro text."
    assert extraction.chunks[2].text == "Sampling\n\nRandomly."
    assert "# not a heading" in extraction.chunks[3].text


def test_title_falls_back_to_stem_when_h1_are_sections() -> None:
    note = "#tag\n\n# 1 First part\n\ntext\n\n# 2 Second part\n\nmore"
    extraction = extract_markdown(note, default_title="Generic Programming")
    assert extraction.title == "Generic Programming"
    assert [c.section for c in extraction.chunks] == [None, "1 First part", "2 Second part"]


def test_inline_tags_rules() -> None:
    body = (
        "#project/alpha and #Reading, see #123 and colour #ff0000 or #fff000.\n"
        "# Heading is not a tag\n"
        "A link https://example.org/page#fragment and [[Note#Section]] and C# code.\n"
        "Inline `#notatag` code and #bad (a word tag).\n"
        "```\n#incode\n```\n"
        "~~~\n#alsoincode\n~~~\n"
    )
    assert find_inline_tags(body) == ["project/alpha", "Reading", "bad"]


def test_front_matter_tags_list_and_string() -> None:
    listed = extract_markdown("---\ntags: [ladr/6B, Self Study]\n---\nbody #inline\n")
    assert listed.tags == ["ladr/6b", "self-study", "inline"]
    spaced = extract_markdown("---\ntag: alpha, beta gamma\ndate: 2024-01-31\n---\nbody\n")
    assert spaced.tags == ["alpha", "beta", "gamma"]
    assert spaced.metadata["date"] == "2024-01-31"  # dates become JSON-able strings


def test_front_matter_inside_code_fence_is_not_front_matter() -> None:
    note = "Intro\n\n```yaml\n---\ntitle: Not me\ntags: [nope]\n---\n```\n"
    metadata, body, warnings = split_front_matter(note)
    assert metadata == {} and body == note and warnings == []
    assert extract_markdown(note, default_title="stem").title == "stem"


def test_front_matter_that_is_not_a_mapping_keeps_text() -> None:
    metadata, body, warnings = split_front_matter("---\nJust a paragraph between rules\n---\nbody")
    assert metadata == {} and "Just a paragraph" in body and warnings


@pytest.mark.corpus
def test_obsidian_front_matter_and_nested_tag(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/math-riesz-representation-theorem.md")
    assert extraction.tags == ["ladr/6b", "self-study", "lin-alg"]
    assert extraction.metadata["tags"] == ["ladr/6B", "self-study", "lin-alg"]
    assert extraction.title == "math-riesz-representation-theorem"
    assert len(extraction.chunks) >= 3


@pytest.mark.corpus
def test_long_note_is_chunked_by_heading(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/math-affine-schemes.md")
    sections = [c.section for c in extraction.chunks]
    assert sections[0] is None
    assert "The structure sheaf" in sections
    assert any(s and s.startswith("The space (the Zariski topology) › ") for s in sections)
    assert len(extraction.chunks) > 20


@pytest.mark.corpus
def test_invalid_yaml_front_matter_keeps_text(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/zotero-paper-template-invalid-yaml.md")
    assert extraction.metadata == {}
    assert any("not valid YAML" in w for w in extraction.warnings)
    assert "fileClass" in extraction.text and extraction.chunks
    assert extraction.tags == []  # "#a3fc77"-style colours in the template are not tags


@pytest.mark.corpus
def test_bom_before_front_matter(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/utf8-bom-frontmatter.md")
    assert extraction.title == "BOM Test"
    assert extraction.metadata == {"title": "BOM Test"}
    assert [c.text for c in extraction.chunks] == ["Content after BOM"]


@pytest.mark.corpus
def test_latin1_note(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/latin1-encoded-table.md")
    assert any("Boiling Points °C" in c.text for c in extraction.chunks)
    assert any("Windows-1252" in w for w in extraction.warnings)
    assert extraction.title == "Title"


@pytest.mark.corpus
def test_empty_note(corpus: Path) -> None:
    with pytest.raises(EmptyFile, match=re.escape("empty-note.md")):
        extract_file(corpus / "notes/empty-note.md")


@pytest.mark.corpus
def test_inline_tags_in_real_notes(corpus: Path) -> None:
    assert extract_file(corpus / "notes/stats-svm-mixed-chinese-english.md").tags == ["statistics", "classification"]
    assert extract_file(corpus / "notes/category-theory-overview.md").tags == ["category-theory", "haskell"]
    foam = extract_file(corpus / "notes/foam-nested-tags.md")
    # The hierarchical examples (#programming/languages/python) sit in code fences; #book is prose.
    assert foam.tags == ["book"]
    assert foam.title == "Tags"


@pytest.mark.corpus
def test_properties_note_examples_in_fences_are_ignored(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/obsidian-properties-frontmatter.md")
    assert extraction.metadata["permalink"] == "properties"
    assert extraction.tags == []


@pytest.mark.corpus
def test_front_matter_with_blank_line_and_title(corpus: Path) -> None:
    extraction = extract_file(corpus / "notes/molecular-simulation-boltzmann-distribution.md")
    assert extraction.title == "The Boltzmann Distribution"
    assert "subtitle" in extraction.metadata


@pytest.mark.corpus
def test_every_note_extracts(corpus: Path) -> None:
    for path in sorted((corpus / "notes").glob("*.md")):
        if path.stat().st_size == 0:
            continue
        extraction = extract_file(path)
        assert extraction.chunks, path.name
        assert all(c.text.strip() for c in extraction.chunks), path.name


def test_setext_headings_make_the_title_and_sections() -> None:
    note = ("Project Log\n===========\n\nIntro #setext-tag.\n\nMethods\n-------\n\nWe sampled.\n\n"
            "### Details\n\nRandomly.\n\nResults\n---\n\nDone.\n")
    extraction = extract_markdown(note, default_title="stem")
    assert extraction.title == "Project Log"
    assert [c.section for c in extraction.chunks] == [None, "Methods", "Methods › Details", "Results"]
    assert extraction.chunks[0].text == "Project Log\n\nIntro #setext-tag."
    assert extraction.chunks[1].text == "Methods\n\nWe sampled."
    assert extraction.tags == ["setext-tag"]


def test_a_rule_after_a_blank_line_and_display_math_are_not_headings() -> None:
    note = "Intro\n\n---\n\n$$\nx\n= y\n$$\n\n```\nNot a heading\n=============\n```\n"
    extraction = extract_markdown(note, default_title="stem")
    assert extraction.title == "stem" and [c.section for c in extraction.chunks] == [None]


def test_no_tags_or_headings_inside_code_or_math() -> None:
    body = ("Prose #real.\n\n    # indented code #nope\n\n```python\n# comment #nope\n```\n\n"
            "Inline `#nope` and $#nope$ and $$\\#nope$$.\n\n> quoted #quoted\n\n| cell #cell |\n|---|\n| #row |\n")
    assert find_inline_tags(body) == ["real", "quoted", "cell", "row"]
    assert [c.section for c in extract_markdown(body).chunks] == [None]


def test_invalid_front_matter_is_text_not_a_setext_heading() -> None:
    note = "---\ntitle: {{title}}\nkey: [unclosed\n---\n\n# Real title\n\nbody\n"
    extraction = extract_markdown(note, default_title="stem")
    assert extraction.warnings and extraction.title == "Real title"
    assert extraction.chunks[0].text.startswith("Real title\n\n---\ntitle: {{title}}")
