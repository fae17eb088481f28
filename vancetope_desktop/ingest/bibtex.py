"""BibTeX read with bibtexparser v2 and its middlewares, one :class:`~.bibentry.BibEntry` per entry.

Names go through ``SeparateCoAuthors`` / ``SplitNameParts`` / ``MergeNameParts`` (a braced corporate
author such as ``{National Research Council Committee on Science, Technology, and Law}`` stays one
author) and LaTeX through ``LatexDecodingMiddleware`` (``{\\"u}`` → ``ü``, ``$\\alpha$`` → ``α``). One
middleware of ours, :class:`PrepareFields`, does what the library has no middleware for: it merges
repeated ``keywords`` fields and parses ``file`` fields before LaTeX decoding could mangle their
paths. Entries bibtexparser sets aside for a duplicated key or field are taken back, and
``crossref`` is resolved.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

import bibtexparser
from bibtexparser import middlewares as mw
from bibtexparser.library import Library
from bibtexparser.middlewares.names import InvalidNameError, NameParts, parse_single_name_into_parts
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    Field,
    MiddlewareErrorBlock,
)
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from .bibentry import BIBTEX_MIME, EXTRA_FIELDS, BibEntry, Bibliography, normalize_doi, split_keywords, year_of

_KEYWORD_FIELDS = ("keywords", "keyword", "mendeley-tags")
_CONTAINER_KINDS = frozenset({"book", "proceedings", "collection", "mvbook", "mvproceedings", "mvcollection",
                              "periodical", "journal"})
_FILE_FIELDS = ("file", "pdf")
# Characters that make a value worth handing to the LaTeX decoder; others pass unchanged (the decoder
# costs ~0.4 ms a value: 4 s for the 506-entry nanowire library if every value went through it).
_LATEX_CHARS = re.compile(r"[\\{}$~%]")


def parse_file_field(value: str) -> tuple[str, ...]:
    """Paths named by a BibTeX ``file`` field, in the forms reference managers write.

    * Zotero / Better BibTeX: ``Full Text PDF:files/12/paper.pdf:application/pdf`` (``;`` between files);
    * JabRef: ``:paper.pdf:PDF``, with ``\\:`` and ``\\\\`` escaping colons and backslashes;
    * Mendeley: ``:C$\\backslash$:/Users/me/paper.pdf:pdf``, underscores as ``{\\_}``;
    * a bare path: ``paper.pdf``.

    Returns:
        The paths as written (not resolved), without empty ones.
    """
    value = value.replace("$\\backslash$", "\\")
    value = re.sub(r"\{\\([_&%#$])\}", r"\1", value).replace("{\\~{}}", "~")
    paths: list[str] = []
    for spec in _split_escaped(value, ";"):
        parts = _split_escaped(spec, ":")
        if len(parts) >= 3:
            path = ":".join(parts[1:-1]) if len(parts) > 3 else parts[1]
        elif len(parts) == 2:
            # "C:/x.pdf" written without escaping is a drive letter, not a description.
            path = ":".join(parts) if len(parts[0]) == 1 and parts[0].isalpha() else parts[1]
        else:
            path = parts[0] if parts else ""
        path = _unescape(path).strip()
        if path:
            paths.append(path)
    return tuple(paths)


def _split_escaped(text: str, separator: str) -> list[str]:
    """Split on ``separator`` where it is not escaped by a backslash; escapes are kept for :func:`_unescape`."""
    parts, current, index = [], [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            current.append(text[index : index + 2])
            index += 2
            continue
        if char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    r"""``\:`` → ``:``, ``\\`` → ``\``, ``\;`` → ``;``, LaTeX's ``\_`` → ``_`` (and ``\&``, ``\%``,
    ``\#``, ``\$``); other backslashes (Windows paths) stay."""
    return re.sub(r"\\([\\:;_&%#$])", r"\1", text)

class PrepareFields(mw.BlockMiddleware):
    """Our middleware, after the enclosing braces are removed, for what bibtexparser has none for.

    * Repeated fields, compared without case: ``keywords``-like fields are joined with ``;``;
      ``file`` fields are joined; of other fields the first is kept (as BibTeX itself does).
      (bibtexparser's ``NormalizeFieldKeys``, which runs next, would keep the last one only.)
    * ``file`` / ``pdf`` values become a tuple of paths (:func:`parse_file_field`), which the LaTeX
      decoder leaves alone: ``\\:`` in a JabRef path is an escaped colon, not LaTeX.
    """

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True, allow_parallel_execution=True)

    def transform_entry(self, entry: Entry, library: Library) -> Entry:
        """Merge repeated fields and parse attachment fields (see the class docstring)."""
        merged: dict[str, Field] = {}
        for item in entry.fields:
            key = item.key.lower()
            if key in _FILE_FIELDS:
                item.value = parse_file_field(str(item.value))
            if key not in merged:
                merged[key] = item
            elif key in _KEYWORD_FIELDS:
                merged[key].value = f"{merged[key].value}; {item.value}"
            elif key in _FILE_FIELDS:
                merged[key].value = (*merged[key].value, *item.value)
        entry.fields = list(merged.values())
        return entry


class LenientNameParts(mw.SplitNameParts):
    """``SplitNameParts`` in bibtexparser's non-strict mode, after undoing a common slip: names
    separated by commas instead of ``and``. A name ending in a comma (``M. Halle, J. Bresnan,``) or
    with four or more comma-separated parts (``Miller, D., Firby, J.``) is such a list (both occur
    in the 1,000-entry AI library); other odd names are worked around by bibtexparser, not lost."""

    def _transform_field_value(self, name: list[str]) -> list[NameParts]:
        if not isinstance(name, list):
            raise InvalidNameError(str(name), "expected a list of names")
        return [parse_single_name_into_parts(n, strict=False) for whole in name for n in _comma_list(whole)]


def _comma_list(name: str) -> list[str]:
    parts = [p.strip() for p in name.strip().rstrip(",").split(",")]
    if len(parts) >= 4:
        return [", ".join(parts[i : i + 2]) for i in range(0, len(parts), 2)]
    if name.strip().endswith(",") and len(parts) > 1 and all(len(p.split()) > 1 for p in parts):
        return parts
    return [name]


class _PlainFastDecoder(LatexNodes2Text):
    """pylatexenc's decoder, skipping values without any LaTeX character (the common case)."""

    def latex_to_text(self, latex: str, **parse_flags: Any) -> str:
        if not _LATEX_CHARS.search(latex):
            return latex
        return super().latex_to_text(latex, **parse_flags)


@lru_cache(maxsize=1)
def _decoder() -> LatexNodes2Text:
    """The decoder ``LatexDecodingMiddleware`` builds by default (``\\url`` kept as its text), with math
    turned into text (``$\\alpha$`` → ``α``) and the plain-value shortcut."""
    context = get_default_latex_context_db()
    url = MacroTextSpec("url", simplify_repl="%s")
    context.add_context_category("bibtexparser-default", prepend=True, macros=[url])
    return _PlainFastDecoder(latex_context=context, math_mode="text")


def _parse_stack() -> list[mw.Middleware]:
    return [
        mw.ResolveStringReferencesMiddleware(),
        mw.RemoveEnclosingMiddleware(),
        PrepareFields(),
        mw.NormalizeFieldKeys(),
        mw.SeparateCoAuthors(),
        LenientNameParts(),
        mw.MergeNameParts(style="first"),
        mw.LatexDecodingMiddleware(decoder=_decoder()),
    ]


def latex_to_unicode(value: str) -> str:
    """``{\\"u}`` → ``ü``, ``{{GaN}}`` → ``GaN``, ``$\\alpha$`` → ``α``, with the decoder the BibTeX
    parse stack uses; a value the decoder cannot read comes back without its braces."""
    try:
        return _decoder().latex_to_text(value)
    except Exception:  # pylatexenc raises assorted errors on malformed LaTeX; keep the raw value
        return value.replace("{", "").replace("}", "")


def _bibtex_entries(text: str) -> tuple[list[Entry], list[str]]:
    stack = _parse_stack()
    library = bibtexparser.parse_string(text, parse_stack=stack)
    entries = list(library.entries)
    warnings = []
    for block in library.failed_blocks:
        inner = block.ignore_error_block
        if isinstance(block, DuplicateFieldKeyBlock | DuplicateBlockKeyBlock) and isinstance(inner, Entry):
            # Set aside by the splitter, so untouched by the stack: a key a user kept twice still names
            # two entries (the duplicate check merges them if they are one), a field given twice is merged.
            block = _through(stack, inner, library)
            inner = block.ignore_error_block if isinstance(block, MiddlewareErrorBlock) else block
        if isinstance(block, MiddlewareErrorBlock) and isinstance(inner, Entry):
            entries.append(inner)  # a field LaTeX could not decode is kept as written
            warnings.append(f"entry {inner.key}: some LaTeX could not be decoded ({block.error})")
        elif isinstance(inner, Entry) and block is inner:
            entries.append(inner)
        else:
            warnings.append(f"a BibTeX block near line {block.start_line + 1} could not be parsed")
    entries.sort(key=lambda e: e.start_line or 0)  # set-aside entries back in their place: file order
    return entries, warnings


def _through(stack: list[mw.Middleware], entry: Entry, library: Library) -> Block:
    """``entry`` through the whole stack, in a library of its own holding the file's ``@string``s."""
    alone = Library(blocks=[*library.strings, entry], fail_on_duplicate_key=False)
    for middleware in stack:
        alone = middleware.transform(alone)
    blocks = [*alone.entries, *alone.failed_blocks]
    return blocks[0] if blocks else MiddlewareErrorBlock(entry, ValueError("the entry was dropped"))


def _names(value: Any) -> tuple[str, ...]:
    """A name field after the stack: a list of merged names ("others", BibTeX's et al., dropped); name
    parts left unmerged by an entry whose LaTeX failed are merged here."""
    items = value if isinstance(value, list) else [value] if value else []
    merged = (v.merge_first_name_first if isinstance(v, NameParts) else str(v) for v in items)
    # LatexDecodingMiddleware leaves lists alone, so names are decoded here, one at a time: decoding
    # the whole field first would drop the braces that keep a corporate author in one piece.
    names = (" ".join(latex_to_unicode(m).split()) for m in merged)
    return tuple(n for n in names if n and n.casefold() != "others")


def _from_bibtex(entry: Entry) -> BibEntry:
    values = {f.key: f.value for f in entry.fields}

    def text(*keys: str) -> str | None:
        for key in keys:
            value = values.get(key)
            if isinstance(value, str) and value.strip():
                return " ".join(value.split())
        return None

    authors, editors = _names(values.get("author")), _names(values.get("editor"))
    files = [p for key in _FILE_FIELDS if isinstance(values.get(key), tuple) for p in values[key]]
    extra = {name: text(*(("number", "issue") if name == "issue" else (name,))) for name in EXTRA_FIELDS}
    return BibEntry(
        key=entry.key or None,
        kind=entry.entry_type.lower(),
        title=text("title"),
        authors=authors or editors,
        editors=editors if authors else (),
        year=year_of(text("year") or text("date")),
        container=text("journal", "journaltitle", "booktitle"),
        publisher=text("publisher", "school", "institution", "organization"),
        doi=normalize_doi(text("doi")),
        abstract=(values.get("abstract") or "").strip() or None,
        keywords=split_keywords(str(values[k]) for k in _KEYWORD_FIELDS if values.get(k)),
        files=tuple(files),
        extra=tuple((k, v) for k, v in extra.items() if v),
    )


def _inherit(child: BibEntry, parent: BibEntry | None) -> BibEntry:
    """BibTeX's ``crossref``: fields the entry lacks come from the entry it names. A book or proceedings
    parent gives its title as the container, not as the entry's title."""
    if parent is None:
        return child
    container_parent = (parent.kind or "") in _CONTAINER_KINDS
    taken = {name: getattr(parent, name) for name in ("authors", "editors", "year", "publisher", "doi", "abstract",
                                                      "keywords", "extra", "title", "container")
             if not getattr(child, name) and getattr(parent, name)}
    if container_parent:
        for name in ("title", "doi", "abstract", "authors", "editors"):  # the volume's, not the paper's
            taken.pop(name, None)
        if not child.container and parent.title:
            taken["container"] = parent.title
        volume_names = parent.editors or parent.authors  # editors stand in as authors when alone
        slot = "editors" if child.authors else "authors"
        if volume_names and not getattr(child, slot):
            taken[slot] = volume_names
    return replace(child, **taken)


def parse_bibtex(text: str) -> Bibliography:
    """BibTeX (brace- or parenthesis-delimited entries) via bibtexparser v2 and its middlewares.

    Entries whose key or a field is duplicated are kept (bibtexparser sets them aside as failed
    blocks); truly unparsable blocks become warnings. A ``crossref`` to an entry of the same file
    fills the fields the entry lacks (:func:`_inherit`); one to an entry not in the file is ignored.
    """
    entries, warnings = _bibtex_entries(text)
    read = [(_from_bibtex(e), str(e.fields_dict["crossref"].value) if "crossref" in e.fields_dict else None)
            for e in entries]
    by_key = {entry.key.casefold(): entry for entry, _ in read if entry.key}
    resolved = [_inherit(entry, by_key.get(ref.strip().casefold())) if ref else entry for entry, ref in read]
    return Bibliography(resolved, BIBTEX_MIME, warnings)
