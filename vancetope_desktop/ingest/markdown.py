"""Markdown notes (Obsidian, Foam, Logseq, plain): front matter, tags, title, one chunk per section.

Sections follow headings: every heading starts a section, except the level-1 heading that opens the
note (its title); text before the first section is a chunk of its own. ``ChunkDraft.section`` holds
the heading path ("Methods › Sampling"). Code fences are respected everywhere: a ``# comment`` or a
``---`` block inside a fence is neither a heading, a tag nor front matter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import frontmatter
import yaml

from ..core.documents import DocumentType
from ..core.errors import InvalidInput
from ..core.json_values import to_jsonable
from ..core.tags import normalize_tag
from .base import ChunkDraft, Extraction
from .normalize import normalize_text

MIME_TYPE = "text/markdown"
SECTION_SEPARATOR = " › "

# A fence may be indented (fences inside list items are common in the corpus notes).
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_INLINE_CODE = re.compile(r"(`+).+?\1")
# Obsidian/Foam tag: '#' at the start or after whitespace (so not URL fragments "page#x", wikilink
# anchors "[[Note#Part]]", C#), then letters, digits, '_', '-', '/'.
_INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_HEX_COLOUR = re.compile(r"^[0-9a-fA-F]{3,8}$")
_TAG_KEYS = ("tags", "tag")


@dataclass
class _Section:
    path: list[str]
    heading: str | None
    lines: list[str] = field(default_factory=list)


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


def _prose_lines(lines: Iterable[str]) -> Iterable[tuple[str, bool]]:
    """Yield ``(line, in_code)`` tracking fenced code blocks (closing fence: same char, ≥ length)."""
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            yield line, True
        elif fence is not None:
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not line.strip()[len(match.group(1)) :].strip()
            ):
                fence = None
            yield line, True
        else:
            yield line, False


def find_inline_tags(body: str) -> list[str]:
    """Inline ``#tags`` of a markdown body, outside code fences and inline code, in order, raw."""
    found: list[str] = []
    for line, in_code in _prose_lines(body.split("\n")):
        if in_code or _HEADING.match(line):
            continue
        for match in _INLINE_TAG.finditer(_INLINE_CODE.sub(" ", line)):
            tag = match.group(1).strip("/")
            if tag and _is_inline_tag(tag):
                found.append(tag)
    return found


def _collect_tags(metadata: dict[str, Any], body: str, warnings: list[str]) -> list[str]:
    raw: list[str] = []
    for key, value in metadata.items():
        if key.lower() in _TAG_KEYS:
            raw.extend(_tag_values(value))
    raw.extend(find_inline_tags(body))
    tags: dict[str, None] = {}
    for tag in raw:
        try:
            tags.setdefault(normalize_tag(tag), None)
        except InvalidInput as exc:
            warnings.append(f"tag skipped: {exc}")
    return list(tags)


def _headings(body: str) -> list[tuple[int, str]]:
    """``(level, text)`` of every heading outside code fences, in order."""
    out = []
    for line, in_code in _prose_lines(body.split("\n")):
        match = None if in_code else _HEADING.match(line)
        if match:
            out.append((len(match.group(1)), normalize_text(match.group(2) or "")))
    return out


def _title_heading(headings: list[tuple[int, str]]) -> str | None:
    """The note's title heading: its only level-1 heading, when no other heading comes before it.
    Notes with several level-1 headings use them as sections (their title is the file name)."""
    h1 = [text for level, text in headings if level == 1]
    if len(h1) == 1 and headings[0] == (1, h1[0]) and h1[0]:
        return h1[0]
    return None


def _sections(body: str, title_heading: str | None) -> list[_Section]:
    """Split a body at headings; the title heading heads the intro when nothing precedes it."""
    intro = _Section(path=[], heading=None)
    sections = [intro]
    stack: list[tuple[int, str]] = []
    seen_content = False
    for line, in_code in _prose_lines(body.split("\n")):
        match = None if in_code else _HEADING.match(line)
        if match is None:
            sections[-1].lines.append(line)
            seen_content = seen_content or bool(line.strip())
            continue
        level, heading = len(match.group(1)), normalize_text(match.group(2) or "")
        if level == 1 and heading == title_heading and not seen_content:
            intro.heading = heading
            seen_content = True
            continue
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading))
        sections.append(_Section(path=[h for _, h in stack], heading=heading))
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
        per non-empty section.
    """
    metadata, body, warnings = split_front_matter(text)
    tags = _collect_tags(metadata, body, warnings)
    title_heading = _title_heading(_headings(body))
    sections = _sections(body, title_heading)
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
        text=normalize_text(body),
        chunks=chunks,
        metadata=metadata,
        tags=tags,
        warnings=warnings,
    )
