"""The built-in digest writeup: the day's sources and atoms laid out as Markdown, linking each by id.

No prose is invented: an overview line counts what came in, then sources (with their summaries and
keywords), events on a timeline, plans by due date, and facts grouped under their source.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ..core.atoms import AtomType
from .base import DigestAtom, DigestRequest

_LINK_BREAKERS = str.maketrans({"[": "(", "]": ")", "|": "/", "\n": " "})


def link(document_id: str, shown: str) -> str:
    """``[[id|shown]]``: a wikilink to a document by id, its shown text freed of what would end the link."""
    return f"[[{document_id}|{' '.join(shown.translate(_LINK_BREAKERS).split()) or document_id}]]"


def _time(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d") if (value.hour, value.minute) == (0, 0) else value.strftime("%Y-%m-%d %H:%M")


def _order(value: datetime | None) -> datetime:
    """A sort key for atom times: a naive time (a person's or a model's) counts as UTC beside aware ones."""
    if value is None:
        return datetime.min.replace(tzinfo=UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def write(request: DigestRequest) -> str:
    """The Markdown body of ``request``'s writeup (its title is ``base.digest_title``)."""
    titles = {source.id: source.title or source.id for source in request.sources}
    by_type = {kind: [a for a in request.atoms if a.draft.type is kind] for kind in AtomType}
    scope = f" in {request.scope}" if request.scope else ""
    counts = ", ".join(_plural(len(by_type[kind]), kind.value) for kind in AtomType)
    lines = [f"{_plural(len(request.sources), 'source')} and {_plural(len(request.atoms), 'atom')} "
             f"({counts}){scope} on {request.day.isoformat()}.", ""]

    def origin(atom: DigestAtom) -> str:
        if atom.source_id is None:
            return ""
        return f" — from {link(atom.source_id, titles.get(atom.source_id, atom.source_id))}"

    if request.sources:
        lines += ["## Sources", ""]
        for source in request.sources:
            line = f"- {link(source.id, source.title or source.id)}"
            if source.summary:
                line += f": {' '.join(source.summary.split())}"
            if source.keywords:
                line += f" *({', '.join(source.keywords)})*"
            lines.append(line)
        lines.append("")
    if by_type[AtomType.EVENT]:
        lines += ["## Events", ""]
        for atom in sorted(by_type[AtomType.EVENT], key=lambda a: _order(a.draft.when)):
            lines.append(f"- {_time(atom.draft.when)}: {link(atom.id, atom.draft.text)}{origin(atom)}")
        lines.append("")
    if by_type[AtomType.PLAN]:
        lines += ["## Plans", ""]
        for atom in sorted(by_type[AtomType.PLAN], key=lambda a: _order(a.draft.due)):
            status = atom.draft.status.value if atom.draft.status else "planned"
            lines.append(f"- due {_time(atom.draft.due)} ({status}): {link(atom.id, atom.draft.text)}{origin(atom)}")
        lines.append("")
    if by_type[AtomType.FACT]:
        lines += ["## Facts", ""]
        for atom in by_type[AtomType.FACT]:
            lines.append(f"- {link(atom.id, atom.draft.text)}{origin(atom)}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
