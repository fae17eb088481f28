"""Tags: free, case-insensitive, hierarchical with ``/`` and namespaced with ``:`` (seed §3.3).

``#topic/attention`` is found by a filter on ``#topic``; ``#thinkProcess:tp_12`` is one tag whose
namespace is ``thinkprocess``. Filters combine with AND, OR and NOT, either from lists
(:func:`all_of`, :func:`any_of`) or from an expression such as
``#attention and (#efficiency or #sparse) and not #unread`` (:func:`parse_tag_expression`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidInput

_SPACE = re.compile(r"\s+")
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f,()\"]")


def normalize_tag(text: str) -> str:
    """Canonical form of a tag: no leading ``#``, NFC, case-folded, inner spaces as ``-``.

    Args:
        text: a tag as typed, e.g. ``"#Topic/Attention"`` or ``"thinkProcess:tp_12"``.

    Returns:
        The stored form, e.g. ``"topic/attention"``.

    Raises:
        InvalidInput: empty tags, empty hierarchy levels (``a//b``), commas, quotes or parentheses.
    """
    tag = unicodedata.normalize("NFC", text).strip().lstrip("#").strip()
    tag = _SPACE.sub("-", tag).casefold()
    if not tag:
        raise InvalidInput(f"empty tag: {text!r}")
    if _FORBIDDEN.search(tag):
        raise InvalidInput(f"a tag cannot contain commas, quotes, parentheses or control characters: {text!r}")
    if any(not part for part in tag.split("/")):
        raise InvalidInput(f"a tag has an empty level: {text!r}")
    return tag


def normalize_tags(tags: Iterable[str]) -> list[str]:
    """Normalise and de-duplicate, keeping first-seen order. Raises InvalidInput like normalize_tag."""
    seen: dict[str, None] = {}
    for tag in tags:
        seen.setdefault(normalize_tag(tag), None)
    return list(seen)


def split_tag_list(text: str | None) -> list[str]:
    """Split a comma-separated CLI value (``"attention, 2024,#unread"``) into normalised tags."""
    if not text:
        return []
    return normalize_tags(part for part in text.split(",") if part.strip())


KEYWORD_TAG_MAX = 60
"""Longest keyword turned into a tag, in characters. Longer "keywords" are phrases or truncated subject
headings (the Mendeley export's longest is 50; a few WoS and BibTeX files put whole sentences there):
they stay in the reference's ``keywords`` metadata but would make unreadable tag chips."""
KEYWORD_PARENT = "keyword"
"""The tag every bibliography keyword is kept under (``keyword/1800-1999``): one collapsible branch of the tag
tree instead of hundreds of flat tags beside the user's own (measured on the corpus: the 512-entry Mendeley
export brings 757 distinct keywords from 109 entries, up to 46 on one; the 988-entry AI file 31)."""
_KEYWORD_SEPARATORS = re.compile(r"[\x00-\x1f\x7f,()\"/:\[\]{}]+")
_DASHES = re.compile(r"-{2,}")


def keyword_tags(keywords: Iterable[str]) -> list[str]:
    """Bibliography keywords as tags under :data:`KEYWORD_PARENT`, normalised and de-duplicated in first-seen
    order.

    Each value is split on ``,`` and ``;`` (a field may hold several). A keyword becomes one tag below
    ``keyword/``: ``/`` and ``:`` inside it would make it deeper or namespaced (``AND/OR graphs`` is not
    ``and`` › ``or``), so they, parentheses, quotes and brackets become spaces, spaces become ``-`` (as in
    :func:`normalize_tag`) and runs of dashes one dash: ``"Child development -- United States"`` →
    ``keyword/child-development-united-states``. Keywords longer than :data:`KEYWORD_TAG_MAX` are left out.

    Never raises: what cannot be a tag is skipped.
    """
    tags: dict[str, None] = {}
    for value in keywords:
        for keyword in re.split(r"[,;]", value):
            cleaned = _KEYWORD_SEPARATORS.sub(" ", keyword).strip().lstrip("#").strip()
            if not cleaned or len(cleaned) > KEYWORD_TAG_MAX:
                continue
            tag = _DASHES.sub("-", normalize_tag(cleaned)).strip("-")
            if tag:
                tags.setdefault(f"{KEYWORD_PARENT}/{tag}", None)
    return list(tags)


def tag_matches(document_tag: str, wanted: str) -> bool:
    """True when ``document_tag`` is ``wanted`` or lies under it (``topic/attention`` under ``topic``)."""
    return document_tag == wanted or document_tag.startswith(wanted + "/")


def tag_ancestors(tag: str) -> list[str]:
    """``"a/b/c"`` → ``["a", "a/b", "a/b/c"]``: the levels a tag tree shows."""
    parts = tag.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


@dataclass(frozen=True)
class TagIs:
    """Matches documents carrying ``tag`` or any tag below it."""

    tag: str


@dataclass(frozen=True)
class AllOf:
    """AND of sub-filters (an empty AND matches everything)."""

    items: tuple[TagFilter, ...]


@dataclass(frozen=True)
class AnyOf:
    """OR of sub-filters (an empty OR matches nothing)."""

    items: tuple[TagFilter, ...]


@dataclass(frozen=True)
class NoneOf:
    """NOT: matches documents the inner filter does not match."""

    item: TagFilter


TagFilter = TagIs | AllOf | AnyOf | NoneOf


def all_of(tags: Iterable[str]) -> AllOf:
    """AND over tags given as text (each normalised)."""
    return AllOf(tuple(TagIs(t) for t in normalize_tags(tags)))


def any_of(tags: Iterable[str]) -> AnyOf:
    """OR over tags given as text (each normalised)."""
    return AnyOf(tuple(TagIs(t) for t in normalize_tags(tags)))


def combine(required: Iterable[str] = (), any_tags: Iterable[str] = (), excluded: Iterable[str] = (),
            expression: str | None = None) -> TagFilter | None:
    """Build one filter from the CLI's ``--tags`` (AND), ``--any-tags`` (OR), ``--not-tags`` and ``--where``.

    Returns None when nothing restricts the result.
    """
    parts: list[TagFilter] = []
    required, any_tags, excluded = list(required), list(any_tags), list(excluded)
    if required:
        parts.append(all_of(required))
    if any_tags:
        parts.append(any_of(any_tags))
    parts.extend(NoneOf(TagIs(t)) for t in normalize_tags(excluded))
    if expression and expression.strip():
        parts.append(parse_tag_expression(expression))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else AllOf(tuple(parts))


def matches(tag_filter: TagFilter | None, document_tags: Iterable[str]) -> bool:
    """Evaluate a filter against one document's (normalised) tags; None matches everything."""
    if tag_filter is None:
        return True
    tags = list(document_tags)
    match tag_filter:
        case TagIs(tag=wanted):
            return any(tag_matches(t, wanted) for t in tags)
        case AllOf(items=items):
            return all(matches(i, tags) for i in items)
        case AnyOf(items=items):
            return any(matches(i, tags) for i in items)
        case NoneOf(item=item):
            return not matches(item, tags)
    raise TypeError(tag_filter)


_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


def parse_tag_expression(text: str) -> TagFilter:
    """Parse ``#a and (#b or #c) and not #d``. Words: ``and``/``&&``, ``or``/``||``, ``not``/``!``/``-tag``.

    Precedence: NOT binds tightest, then AND, then OR; juxtaposition means AND (``#a #b``).

    Raises:
        InvalidInput: unbalanced parentheses, a dangling operator, or an invalid tag.
    """
    tokens = [m.group(1) for m in _TOKEN.finditer(text)]
    pos = 0

    def peek() -> str | None:
        return tokens[pos].lower() if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse_or() -> TagFilter:
        items = [parse_and()]
        while peek() in ("or", "||"):
            take()
            items.append(parse_and())
        return items[0] if len(items) == 1 else AnyOf(tuple(items))

    def parse_and() -> TagFilter:
        items = [parse_not()]
        while peek() not in (None, ")", "or", "||"):
            if peek() in ("and", "&&"):
                take()
            items.append(parse_not())
        return items[0] if len(items) == 1 else AllOf(tuple(items))

    def parse_not() -> TagFilter:
        token = peek()
        if token is None:
            raise InvalidInput(f"tag expression ends too early: {text!r}")
        if token in ("not", "!"):
            take()
            return NoneOf(parse_not())
        if token == "(":
            take()
            inner = parse_or()
            if peek() != ")":
                raise InvalidInput(f"missing ')' in tag expression: {text!r}")
            take()
            return inner
        if token in (")", "and", "&&", "or", "||"):
            raise InvalidInput(f"unexpected {tokens[pos]!r} in tag expression: {text!r}")
        word = take()
        if word.startswith("-") and len(word) > 1:
            return NoneOf(TagIs(normalize_tag(word[1:])))
        return TagIs(normalize_tag(word))

    if not tokens:
        raise InvalidInput("empty tag expression")
    result = parse_or()
    if pos != len(tokens):
        raise InvalidInput(f"unexpected {tokens[pos]!r} in tag expression: {text!r}")
    return result
