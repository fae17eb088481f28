"""Markdown and code to HTML for Qt's rich-text engine (pure: no Qt, testable on its own).

Markdown goes through python-markdown with tables, fenced code, codehilite, toc and sane lists;
code is coloured by pygments with inline styles (``noclasses``) because QTextDocument supports only
a small CSS subset and no external stylesheets. Front matter is parsed by the importer's own
:func:`~vancetope_desktop.ingest.markdown.split_front_matter` and shown as a properties table.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

import frontmatter
import markdown
from pygments.styles import get_style_by_name
from pygments.token import Text
from pygments.util import ClassNotFound

from ...ingest.markdown import split_front_matter

MAX_RENDER_CHARS = 300_000
"""Longer markdown is shown as source text: converting and laying out megabytes of HTML stalls the UI."""
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
_CODE_BLOCK = re.compile(
    r'<div class="codehilite" style="background: (#[0-9A-Fa-f]{3,8})">'
    r"<pre[^>]*>(?:<span></span>)?<code>(.*?)</code></pre></div>",
    re.DOTALL,
)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_TAG_LINE = re.compile(r"^#[^\s#]")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_CALLOUT = re.compile(r"^(\s*>\s*)\[!([\w-]+)\][+-]?(.*)$")
_EXTENSIONS = ["tables", "fenced_code", "codehilite", "toc", "sane_lists"]


def pygments_style_name(dark: bool) -> str:
    """The pygments style used for a light or dark theme."""
    return DARK_STYLE if dark else LIGHT_STYLE


def document_css(dark: bool) -> str:
    """Default CSS for the rich-text document (the subset QTextDocument understands).

    Table borders and muted colours are picked to stay readable on either theme.
    """
    rule = "#5a5f66" if dark else "#c4c8cc"
    muted = "#a8adb3" if dark else "#5c6166"
    head = "#2d3136" if dark else "#eef0f2"
    code_bg = "#2d3136" if dark else "#eef0f2"
    return (
        f"table {{ border-collapse: collapse; margin: 6px 0; }}"
        f"th, td {{ border: 1px solid {rule}; padding: 3px 6px; }}"
        f"th {{ background-color: {head}; }}"
        f"table.properties td.key {{ color: {muted}; font-weight: 600; }}"
        f"blockquote {{ color: {muted}; margin-left: 12px; }}"
        f"code {{ background-color: {code_bg}; font-family: monospace; }}"
        f"pre {{ font-family: monospace; white-space: pre-wrap; }}"
        f"table.code {{ border-width: 0; margin: 4px 0; }}"
        f"td.code {{ border-width: 0; padding: 8px; }}"
    )


@dataclass(frozen=True)
class RenderedMarkdown:
    """A note as HTML.

    Attributes:
        html: the body fragment (properties table, then the converted markdown).
        properties: the parsed front matter (empty when absent or invalid).
        notes: remarks for the user, e.g. that the front matter is not valid YAML.
    """

    html: str
    properties: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _converter(dark: bool) -> markdown.Markdown:
    return markdown.Markdown(
        extensions=_EXTENSIONS,
        extension_configs={
            "codehilite": {"noclasses": True, "pygments_style": pygments_style_name(dark), "guess_lang": False},
            "toc": {"permalink": False},
        },
    )


def _value_html(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value_html(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{html.escape(str(k))}: {_value_html(v)}" for k, v in value.items())
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else html.escape(str(value))


def properties_html(properties: dict[str, Any]) -> str:
    """Front matter as a two-column HTML table (``<table class="properties">``); empty string if none."""
    if not properties:
        return ""
    rows = "".join(
        f'<tr><td class="key">{html.escape(str(key))}</td><td>{_value_html(value)}</td></tr>'
        for key, value in properties.items()
    )
    return f'<table class="properties" width="100%">{rows}</table>'


def _split_raw(text: str) -> tuple[str, str] | None:
    """``(front matter text, body)`` split at the ``---`` fences without parsing, or None if there is none."""
    handler = frontmatter.YAMLHandler()
    text = text.lstrip("\ufeff")
    if not handler.detect(text):
        return None
    try:
        block, body = handler.split(text)
    except ValueError:
        return None
    return block.strip("\n"), body.lstrip("\n")


def render_markdown(text: str, *, dark: bool = False) -> RenderedMarkdown:
    """Convert a markdown note to HTML with its front matter as properties.

    Front matter that is not valid YAML never fails: it is shown verbatim in a code block above the
    body (the returned notes say why), and the rest of the note renders normally.

    Args:
        text: the note, possibly starting with a BOM and ``---`` front matter.
        dark: pick code colours for a dark background.

    Returns:
        A :class:`RenderedMarkdown` (HTML fragment, properties, notes).
    """
    properties, body, warnings = split_front_matter(text)
    prefix = properties_html(properties)
    if warnings and (split := _split_raw(text)) is not None:
        raw, body = split
        prefix = f'<pre class="raw">{html.escape(raw)}</pre><hr/>'
    body_html = _solid_code_blocks(_converter(dark).convert(obsidian_compat(body)))
    return RenderedMarkdown(html=prefix + body_html, properties=properties, notes=list(warnings))


def _callout(match: re.Match[str]) -> str:
    quote, kind, title = match.group(1), match.group(2), match.group(3).strip()
    label = kind.replace("_", " ").replace("-", " ").capitalize()
    return f"{quote}**{label}{': ' + title if title else ''}**  "


def obsidian_compat(body: str) -> str:
    """Adapt Obsidian/CommonMark habits that python-markdown reads differently, outside code fences.

    * a line starting with a tag (``#tag``, no space) is text, not a heading;
    * a list may start right after a paragraph line (python-markdown needs a blank line first);
    * a callout header ``> [!note]+ Title`` becomes a bold "Note: Title" line in the quote.
    """
    out: list[str] = []
    fence: str | None = None
    previous = ""
    for line in body.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif _TAG_LINE.match(line):
            line = "\\" + line
        elif _LIST_ITEM.match(line) and previous.strip() and not _LIST_ITEM.match(previous) and not (
                previous[0].isspace() or previous.lstrip().startswith((">", "|"))):
            out.append("")
        else:
            line = _CALLOUT.sub(_callout, line)
        out.append(line)
        previous = line
    return "\n".join(out)


def _solid_code_block(match: re.Match[str]) -> str:
    background, code = match.group(1), match.group(2).rstrip("\n")
    return (f'<table class="code" width="100%" cellspacing="0" cellpadding="8">'
            f'<tr><td class="code" style="background-color: {background};"><pre>{code}</pre></td></tr></table>')


def _solid_code_blocks(body_html: str) -> str:
    """Put each highlighted block in a one-cell table: QTextDocument paints a table's background as
    one box, while a ``<div>``/``<pre>`` background is painted line by line with gaps."""
    return _CODE_BLOCK.sub(_solid_code_block, body_html)


def plain_text_html(text: str) -> str:
    """Plain text as an HTML ``<pre>`` block, wrapped (for facts or results that are not markdown)."""
    return f'<pre style="white-space: pre-wrap;">{html.escape(text)}</pre>'


def style_colors(dark: bool) -> tuple[str, str]:
    """``(background, foreground)`` hex colours of the pygments style for the theme.

    Used so a code pane's base colour matches the colours its tokens were designed for.
    """
    try:
        style = get_style_by_name(pygments_style_name(dark))
    except ClassNotFound:  # pragma: no cover - both names ship with pygments >= 2.17
        return ("#1e1e1e", "#d4d4d4") if dark else ("#ffffff", "#1e1e1e")
    text = style.style_for_token(Text)
    foreground = f"#{text['color']}" if text.get("color") else ("#e6edf3" if dark else "#1f2328")
    return style.background_color or ("#1e1e1e" if dark else "#ffffff"), foreground
