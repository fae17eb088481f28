"""Markdown and code to HTML for Qt's rich-text engine (pure: no Qt, testable on its own).

Markdown goes through the importer's own CommonMark parser (markdown-it-py,
:func:`~vancetope_desktop.ingest.markdown.markdown_parser`), so the viewer shows the headings,
sections and tags the index sees: tables, strikethrough, task lists (☐/☑), footnotes and ``$``-math
(shown as its LaTeX source) included. Its tokens are adapted for QTextDocument, which supports only a
small CSS subset and no form controls: code is coloured by pygments with inline styles, task boxes
become characters, Obsidian callouts (``> [!note]+ Title``) get a bold label, and ``[[Title]]`` links
between notes become links to :data:`WIKILINK_SCHEME` URLs (:func:`wikilink_href`). Front matter is
parsed by the importer's :func:`~vancetope_desktop.ingest.markdown.split_front_matter` and shown as
a properties table.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.styles import get_style_by_name
from pygments.token import Text
from pygments.util import ClassNotFound

from ...core.wikilinks import find_links
from ...ingest.markdown import front_matter_block, markdown_parser, split_front_matter

MAX_RENDER_CHARS = 300_000
"""Longer markdown is shown as source text: converting and laying out megabytes of HTML stalls the UI."""
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
_CALLOUT = re.compile(r"^\[!([\w-]+)\][+-]?[ \t]*(.*)$")
WIKILINK_SCHEME = "vancetope-link"
"""The URL scheme of a rendered ``[[Title]]`` link; its path is the link's inside (``Title|shown``), quoted."""


def wikilink_href(inside: str) -> str:
    """The href of a ``[[…]]`` link whose inside (between the brackets) is ``inside``."""
    return f"{WIKILINK_SCHEME}:{quote(inside, safe='')}"


def wikilink_target(href: str) -> str | None:
    """The inside of the ``[[…]]`` link behind ``href`` (:func:`wikilink_href`), or None for another URL."""
    prefix = f"{WIKILINK_SCHEME}:"
    return unquote(href[len(prefix):]) if href.startswith(prefix) else None


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
    if warnings and (split := front_matter_block(text)) is not None:
        raw, body = split
        prefix = f'<pre class="raw">{html.escape(raw)}</pre><hr/>'
    parser = markdown_parser()
    env: dict[str, Any] = {}
    tokens = _for_qt(parser.parse(body, env), dark)
    body_html = parser.renderer.render(tokens, parser.options, env)
    return RenderedMarkdown(html=prefix + body_html, properties=properties, notes=list(warnings))


def _for_qt(tokens: list[Token], dark: bool) -> list[Token]:
    """Adapt parsed tokens to what QTextDocument can show (see the module docstring)."""
    for index, token in enumerate(tokens):
        if token.type in ("fence", "code_block"):
            tokens[index] = _html_block(code_block_html(token.content, token.info.strip(), dark))
        elif token.type in ("math_block", "math_block_label"):
            tokens[index] = _html_block(f"<pre>$$\n{html.escape(token.content.strip())}\n$$</pre>\n")
        elif token.type == "inline" and token.children:
            in_quote = index >= 2 and tokens[index - 2].type == "blockquote_open"
            token.children = _inline_for_qt(token.children, callout=in_quote)
    return tokens


def _html_block(content: str) -> Token:
    return Token("html_block", "", 0, content=content, block=True)


def _inline_for_qt(children: list[Token], *, callout: bool) -> list[Token]:
    out: list[Token] = []
    for child in children:
        if child.type in ("math_inline", "math_inline_double"):
            fence = "$$" if child.type.endswith("double") else "$"
            out.append(Token("text", "", 0, content=f"{fence}{child.content}{fence}"))
        elif child.type == "html_inline" and 'type="checkbox"' in child.content:
            out.append(Token("text", "", 0, content="☑" if "checked" in child.content else "☐"))
        elif child.type == "text" and "[[" in child.content:
            out.extend(_wikilinks(child.content))
        else:
            out.append(child)
    match = _CALLOUT.match(out[0].content) if callout and out and out[0].type == "text" else None
    if match is not None:
        label = match.group(1).replace("_", " ").replace("-", " ").capitalize()
        title = match.group(2).strip()
        text = label + (f": {title}" if title else "")
        out[:1] = [Token("strong_open", "strong", 1), Token("text", "", 0, content=text),
                   Token("strong_close", "strong", -1)]
        if len(out) > 3 and out[3].type == "softbreak":
            out[3] = Token("hardbreak", "br", 0)
    return out


def _wikilinks(text: str) -> list[Token]:
    """A text token's content with its ``[[…]]`` links as link tokens (the shown text inside)."""
    tokens: list[Token] = []
    position = 0
    for link in find_links(text):
        if link.start > position:
            tokens.append(Token("text", "", 0, content=text[position : link.start]))
        inside = text[link.start + 2 : link.end - 2]
        tokens += [Token("link_open", "a", 1, attrs={"href": wikilink_href(inside), "class": "wikilink"}),
                   Token("text", "", 0, content=link.shown), Token("link_close", "a", -1)]
        position = link.end
    if position < len(text):
        tokens.append(Token("text", "", 0, content=text[position:]))
    return tokens


def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language.split()[0]) if language else TextLexer()
    except ClassNotFound:
        return TextLexer()


def code_block_html(code: str, language: str, dark: bool) -> str:
    """A code block coloured by pygments (inline styles) in a one-cell table: QTextDocument paints a
    table's background as one box, while a ``<pre>`` background is painted line by line with gaps.

    Args:
        code: the block's text.
        language: the fence's info string (``python``, ``haskell``…); unknown or empty means plain text.
        dark: colours for a dark theme.
    """
    style = pygments_style_name(dark)
    spans = highlight(code, _lexer(language), HtmlFormatter(noclasses=True, nowrap=True, style=style)).rstrip("\n")
    background = style_colors(dark)[0]
    return (f'<table class="code" width="100%" cellspacing="0" cellpadding="8">'
            f'<tr><td class="code" style="background-color: {background};"><pre>{spans}</pre></td></tr></table>\n')


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
