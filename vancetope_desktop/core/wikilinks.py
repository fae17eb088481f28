"""``[[Title]]`` links between notes, written as in Obsidian: ``[[Title]]``, ``[[Title|shown text]]``, and
``[[Title#Heading]]`` (the heading part is kept for the reader; the link goes to the document).

Pure text work: finding the links in a note. Resolving a target to a document is
``services.notelinks``'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# No brackets or line breaks inside a link; Obsidian's embed form ``![[…]]`` counts as a link too.
_LINK = re.compile(r"\[\[([^\[\]\n|#]*)(#[^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]")
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
MAX_TARGET_LENGTH = 300
"""Longer "targets" are not titles (a pasted paragraph between brackets): they are not links."""


@dataclass(frozen=True)
class WikiLink:
    """One ``[[…]]`` link in a text.

    Attributes:
        target: the title (or ``doc_…`` id) linked to, stripped; never empty.
        shown: the text to show (the part after ``|``, else the target with its heading).
        heading: the ``#Heading`` part without its ``#`` ("" when there is none).
        start, end: character offsets of the whole ``[[…]]`` in the text.
    """

    target: str
    shown: str
    heading: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """The target as titles are compared: case-folded, inner spaces collapsed."""
        return title_key(self.target)


def title_key(title: str) -> str:
    """How a link target and a document title are compared: case-insensitive (``casefold``), spaces collapsed."""
    return " ".join(title.split()).casefold()


def find_links(text: str | None) -> list[WikiLink]:
    """The ``[[…]]`` links of ``text`` in order, leaving out those inside code (fenced blocks, inline code).

    Returns an empty list for None or text without links; never raises.
    """
    if not text or "[[" not in text:
        return []
    hidden = _code_spans(text)
    found = []
    for match in _LINK.finditer(text):
        if any(a <= match.start() < b for a, b in hidden):
            continue
        target = " ".join(match.group(1).split())
        if not target or len(target) > MAX_TARGET_LENGTH:
            continue
        heading = (match.group(2) or "")[1:].strip()
        shown = (match.group(3) or "").strip() or (f"{target} › {heading}" if heading else target)
        found.append(WikiLink(target, shown, heading, match.start(), match.end()))
    return found


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of fenced code blocks and inline code, where ``[[`` is literal text."""
    spans: list[tuple[int, int]] = []
    fences = [m.start() for m in _FENCE.finditer(text)]
    for opening, closing in zip(fences[::2], [*fences[1::2], len(text)], strict=False):
        spans.append((opening, closing))
    spans.extend((m.start(), m.end()) for m in _INLINE_CODE.finditer(text))
    return spans


def retarget_links(text: str, old_key: str, new_target: str) -> str:
    """``text`` with every link whose target has the key ``old_key`` (:func:`title_key`) pointed at
    ``new_target`` instead, keeping its ``#heading`` and ``|shown`` parts as written (a renamed document's
    links, as Obsidian's "Automatically update internal links" does). Links inside code are left alone.

    ``new_target`` must be linkable (:func:`linkable`). Returns ``text`` unchanged when no link matches.
    """
    pieces, at = [], 0
    for link in find_links(text):
        if link.key != old_key:
            continue
        inner = text[link.start + 2 : link.end - 2]
        cut = min((i for i in (inner.find("#"), inner.find("|")) if i >= 0), default=len(inner))
        pieces += [text[at : link.start], f"[[{new_target}{inner[cut:]}]]"]
        at = link.end
    return "".join(pieces) + text[at:] if pieces else text


def linkable(title: str) -> bool:
    """Whether ``title`` can stand as a link target as written (no brackets, ``|``, ``#`` or line breaks)."""
    return bool(title.strip()) and not any(ch in title for ch in "[]|#\n") and len(title) <= MAX_TARGET_LENGTH
