"""Markdown notes (Obsidian, Foam, Logseq, plain): front matter, tags, title, one chunk per section.

The body is parsed by markdown-it-py (CommonMark, plus tables, strikethrough, task lists, footnotes
and math: :func:`markdown_parser`, which the viewer renders with too), so ATX (``## Methods``) and
setext (``Methods`` over ``-------``) headings are both headings, and nothing inside code (fenced,
indented or inline) or math is a heading or a tag. Front matter is python-frontmatter's YAML.

Sections follow the top-level headings (a ``#`` inside a quote or a list item is part of its
section): every heading starts a section, except the level-1 heading that opens the note (its title);
text before the first section is a chunk of its own. ``ChunkDraft.section`` holds the heading path
("Methods › Sampling"). A chunk's text is the section's markdown source, headed by the heading text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Any

import frontmatter
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from ..core.documents import DocumentType
from ..core.errors import InvalidInput
from ..core.json_values import to_jsonable
from ..core.tags import normalize_tag
from .base import ChunkDraft, Extraction
from .normalize import normalize_text

MIME_TYPE = "text/markdown"
SECTION_SEPARATOR = " › "

# Obsidian/Foam tag: '#' at the start or after whitespace (so not URL fragments "page#x", wikilink
# anchors "[[Note#Part]]", C#), then letters, digits, '_', '-', '/'.
_INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_HEX_COLOUR = re.compile(r"^[0-9a-fA-F]{3,8}$")
_TAG_KEYS = ("tags", "tag")


@cache
def markdown_parser() -> MarkdownIt:
    """The one CommonMark parser of the program (shared, reentrant): raw HTML allowed, GFM tables and
    strikethrough, task lists (``- [x]``), footnotes and ``$…$`` / ``$$…$$`` math (as in Obsidian: a
    ``=`` line inside display math is not a setext underline). The chunker reads its tokens, the
    viewer renders them."""
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return parser.use(tasklists_plugin).use(footnote_plugin).use(dollarmath_plugin, double_inline=True)


@dataclass
class _Section:
    path: list[str]
    heading: str | None
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str
    start: int  # first source line of the heading (0-based, in the body)
    end: int  # line after it (a setext heading spans its text and its underline)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, list[str]]:
    """Separate YAML front matter (python-frontmatter's YAML handler, safe loader) from the body.

    Args:
        text: the whole note (a leading BOM is ignored).

    Returns:
        ``(metadata, body, warnings)``. Without front matter, metadata is empty and body is the
        text. Front matter that is not valid YAML, or not a mapping, never fails: metadata is
        empty, the body keeps the whole text, and a warning says why.
    """
    text = text.lstrip("\ufeff")
    handler = frontmatter.YAMLHandler()
    if not handler.detect(text):
        return {}, text, []
    try:
        block, body = handler.split(text)
    except ValueError:  # an opening "---" without a closing one: a horizontal rule
        return {}, text, []
    try:
        data = handler.load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return {}, text, [f"front matter is not valid YAML{where}: kept as text, no properties read"]
    if data is None:
        return {}, body.lstrip("\n"), []
    if not isinstance(data, dict):
        return {}, text, ["front matter is not a list of properties: kept as text"]
    return to_jsonable(data), body.lstrip("\n"), []


def _tag_values(value: Any, *, in_list: bool = False) -> Iterable[str]:
    """Front matter tag values: a list (possibly nested; each item one tag, spaces become "-" in
    normalize_tag) or a comma/space separated string (``tags: a, b c``)."""
    if isinstance(value, str):
        yield from ([value] if in_list else (t for t in re.split(r"[,\s]+", value) if t))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _tag_values(item, in_list=True)
    elif value is not None:
        yield str(value)


def _is_inline_tag(body: str) -> bool:
    """Obsidian rules: at least one letter (``#123`` is an issue number); hex colours excluded when
    they contain a digit or are 6/8 long (``#ff0000``, ``#a3fc77``), so words like ``#bad`` stay tags."""
    if not any(ch.isalpha() for ch in body):
        return False
    if _HEX_COLOUR.match(body) and len(body) in (3, 4, 6, 8):
        return not (any(ch.isdigit() for ch in body) or len(body) >= 6)
    return True


def front_matter_block(text: str) -> tuple[str, str] | None:
    """``(front matter source, body)`` split at the ``---`` fences without parsing the YAML, or None when
    the note has none. Front matter that is not valid YAML is still this block: it is shown and indexed
    as text, never read as markdown (its closing ``---`` would make a setext heading of it)."""
    handler = frontmatter.YAMLHandler()
    text = text.lstrip("\ufeff")
    if not handler.detect(text):
        return None
    try:
        block, body = handler.split(text)
    except ValueError:
        return None
    return block.strip("\n"), body.lstrip("\n")


def _inline_text(inline: Token) -> str:
    """The prose of an inline token: its text, with code spans, HTML and images left out (blanked)."""
    parts = []
    for child in inline.children or ():
        if child.type == "text":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak", "code_inline", "html_inline", "image"):
            parts.append("\n" if child.type.endswith("break") else " ")
    return "".join(parts)


def find_inline_tags(body: str | list[Token]) -> list[str]:
    """Inline ``#tags`` of a markdown body (or its tokens, parsed once by the caller), in order, raw: in its
    prose only (paragraphs, headings, list items, quotes, table cells), never in code blocks, code spans, HTML
    or link targets."""
    found: list[str] = []
    for token in markdown_parser().parse(body) if isinstance(body, str) else body:
        if token.type != "inline":
            continue
        for match in _INLINE_TAG.finditer(_inline_text(token)):
            tag = match.group(1).strip("/")
            if tag and _is_inline_tag(tag):
                found.append(tag)
    return found


def _collect_tags(metadata: dict[str, Any], tokens: list[Token], warnings: list[str]) -> list[str]:
    raw: list[str] = []
    for key, value in metadata.items():
        if key.lower() in _TAG_KEYS:
            raw.extend(_tag_values(value))
    raw.extend(find_inline_tags(tokens))
    tags: dict[str, None] = {}
    for tag in raw:
        try:
            tags.setdefault(normalize_tag(tag), None)
        except InvalidInput as exc:
            warnings.append(f"tag skipped: {exc}")
    return list(tags)


def _headings(tokens: list[Token]) -> list[_Heading]:
    """The top-level headings (ATX and setext) of a body's tokens, in order; nested ones (in quotes, list items)
    belong to their section's text."""
    out = []
    for opening, inline in pairwise(tokens):
        if opening.type == "heading_open" and opening.level == 0 and opening.map:
            text = normalize_text(" ".join(inline.content.split("\n")))
            out.append(_Heading(int(opening.tag[1]), text, opening.map[0], opening.map[1]))
    return out


def _title_heading(headings: list[_Heading]) -> str | None:
    """The note's title heading: its only level-1 heading, when no other heading comes before it.
    Notes with several level-1 headings use them as sections (their title is the file name)."""
    h1 = [h.text for h in headings if h.level == 1]
    if len(h1) == 1 and headings[0].level == 1 and h1[0]:
        return h1[0]
    return None


def _sections(lines: list[str], headings: list[_Heading], title_heading: str | None) -> list[_Section]:
    """Split the body's lines at its headings; the title heading heads the intro when nothing precedes it."""
    intro = _Section(path=[], heading=None)
    sections = [intro]
    stack: list[tuple[int, str]] = []
    seen_content = False
    at = {h.start: h for h in headings}
    index = 0
    while index < len(lines):
        heading = at.get(index)
        if heading is None:
            sections[-1].lines.append(lines[index])
            seen_content = seen_content or bool(lines[index].strip())
            index += 1
            continue
        index = heading.end
        if heading.level == 1 and heading.text == title_heading and not seen_content:
            intro.heading = heading.text
            seen_content = True
            continue
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.text))
        sections.append(_Section(path=[text for _, text in stack], heading=heading.text))
        seen_content = True
    return sections


def extract_markdown(text: str, *, default_title: str | None = None) -> Extraction:
    """Extract a markdown note.

    Args:
        text: the decoded note, front matter included.
        default_title: used when there is neither a front matter ``title`` nor a title heading
            (the note's only level-1 heading, before any other heading); the registry passes the
            file stem, which is the title in Obsidian-style vaults.

    Returns:
        An :class:`Extraction` (doc_type NOTE, ``text/markdown``): metadata is the front matter
        (JSON-able), tags come from front matter ``tags``/``tag`` and inline ``#tags``, one chunk
        per non-empty section. Front matter that is not valid YAML is kept as text at the start of
        the first chunk (with a warning), and neither its lines nor its tags are read.
    """
    metadata, body, warnings = split_front_matter(text)
    kept_block: list[str] = []
    if warnings and (split := front_matter_block(text)) is not None:
        kept_block = ["---", *split[0].split("\n"), "---", ""]
        body = split[1]
    tokens = markdown_parser().parse(body)  # once: a parse is most of the extraction's time
    tags = _collect_tags(metadata, tokens, warnings)
    headings = _headings(tokens)
    title_heading = _title_heading(headings)
    sections = _sections(body.split("\n"), headings, title_heading)
    sections[0].lines[:0] = kept_block
    chunks: list[ChunkDraft] = []
    for section in sections:
        content = normalize_text("\n".join(section.lines))
        if not content:
            continue
        if section.heading:
            content = f"{section.heading}\n\n{content}"
        chunks.append(ChunkDraft(content, section=SECTION_SEPARATOR.join(section.path) or None))
    fm_title = metadata.get("title")
    if isinstance(fm_title, str) and fm_title.strip():
        title: str | None = normalize_text(fm_title)
    else:
        title = title_heading or default_title
    return Extraction(
        doc_type=DocumentType.NOTE,
        mime_type=MIME_TYPE,
        title=title,
        text=normalize_text("\n".join([*kept_block, body])),
        chunks=chunks,
        metadata=metadata,
        tags=tags,
        warnings=warnings,
    )
