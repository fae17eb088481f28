"""A source's profile (issue 13): its summary, keywords and suggested topics, made by the library's generator.

Which documents are sources, and what a profile holds: ``core.profiles``. A profile is made

* at import, for each file (``services.imports``) and each note, result or reference written by
  ``documents.add_text`` (the app's new note, ``vancetope memory add``, the tool ``memory_store``): computed by
  :func:`make_profile` before the write transaction and stored by :func:`attach` inside it, with the document;
* after a note's text is edited (``documents.update_document``, ``restore_version``): :func:`refresh`, after the
  edit's own transaction (the app passes that step to its import lane instead, so a save never waits for it);
* on demand for sources imported before profiles existed or whose text changed since: :func:`make_profiles` over
  ids or over :func:`missing_profiles` (the app's selection action and its fill on opening, ``vancetope memory
  profile DOC… | --missing``, the tool ``memory_profile``).

The generator never runs inside a write transaction (SQLite's write lock is never held while a model thinks),
and its failures never cost a document: a model that fails, times out or replies garbage is answered by the
built-in generator (``generation.fallback``), and if even that fails the document is kept without a profile
and the reason is logged (or, from :func:`make_profiles`, reported).

Bounded on huge sources: the summary reads the opening :data:`OPENING_CHARS` and the keywords at most
:data:`KEYWORD_CHARS` spread over the text, so a 352-page book costs about what a long paper does (README,
"Source profiles").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import text as sql
from sqlmodel import Session, func, select

from ..core.documents import STRUCTURAL_TYPES, ChunkRole, DocumentStatus, DocumentType
from ..core.errors import NotFound
from ..core.profiles import (
    PROFILE_KEY,
    SOURCE_TYPES,
    WRITEUP_KEY,
    SourceProfile,
    is_current,
    is_source,
    profile_of,
    topic_tag,
)
from ..core.tags import KEYWORD_PARENT
from ..generation.base import Generator
from ..generation.builtin import BuiltinGenerator
from ..generation.fallback import FallbackGenerator
from ..generation.keywords import STOP_WORDS, stemmer
from ..generation.model import MAX_INPUT_CHARS
from ..store import tables
from ..store.db import read_session, write_session
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import generators, records
from .library import Library
from .scopes import resolve_scope, session_visible_scopes, visibility_filter

log = logging.getLogger(__name__)

SUMMARY_WORDS = 60
"""A summary is at most 60 words: two or three sentences, what Details shows without scrolling."""
KEYWORD_COUNT = 8
TOPICS_MOST, TOPICS_LEAST = 5, 3
OPENING_CHARS = MAX_INPUT_CHARS
"""The summary reads the source's opening, up to a model's window (6,000 characters): papers and notes say what
they are about first (the abstract). Measured on the corpus papers, TextRank over the opening gives the abstract's
sentences; over the whole paper it gives sentences from the middle ("Trace 2 Trace 1 Trace 3")."""
KEYWORD_CHARS = 50_000
"""Keywords read at most 50,000 characters: the whole text of a paper or note, ten windows spread over a book
(the 352-page book's 640,000 characters: 0.4 s instead of 1.2 s for its first 200,000, and keywords of the whole
book, "Copyright", "Internet", "property", rather than of its front matter, "CHAPTER", "NEW YORK"). A model is
given at most its window (``generation.model.MAX_INPUT_CHARS``), so past that the built-in answers keywords."""
KEYWORD_WINDOWS = 10
TITLE_WORDS = 12

GENERIC_TOPICS = frozenset({
    "abstract", "introduction", "background", "method", "methods", "result", "results", "discussion", "conclusion",
    "conclusions", "chapter", "contents", "section", "table", "figure", "paper", "study", "studies", "article",
    "appendix", "references", "example", "examples", "note", "notes", "todo", "data", "analysis", "work", "time",
    "number", "case", "way", "part", "page", "pages", "version", "new", "use", "first", "second",
})
"""Words that head a section or fill a sentence in any text, never what one source is about (seen among the
corpus papers' keywords: "Results", "Association", "CHAPTER")."""

# --- making one profile (no transaction) ----------------------------------------------------------------------

def source_text(content: str | None, chunks: Iterable[tuple[str, ChunkRole | str]] = (), *,
                abstract: object = None) -> str:
    """The text a profile reads: a reference's ``abstract`` when given (its citation line is not what it is about),
    else the body chunks' text when the source has chunks (a paper's reference list, author lines and
    acknowledgements left out: their words would be its keywords), else ``content``."""
    if isinstance(abstract, str) and abstract.strip():
        return abstract
    body = [t for t, role in chunks if ChunkRole(role) is ChunkRole.BODY]
    return "\n\n".join(body) if body else (content or "")


_IDENTIFIER = re.compile(r"\b(?:doi:\s*|https?://)\S+", re.IGNORECASE)


def opening(text: str, title: str = "") -> str:
    """The first :data:`OPENING_CHARS` of ``text``, cut at its last paragraph or sentence end when it is longer,
    without DOIs and web addresses (a paper's first line, "doi:10.1017/S10… Stressful life events…", made the
    summary start with its DOI) and without lines that only repeat ``title`` (a heading without a full stop
    became the summary's first "sentence", glued to the next one)."""
    text = _IDENTIFIER.sub("", text[:OPENING_CHARS * 2])
    heading = _heading_key(title)
    if heading:
        text = "\n".join(line for line in text.split("\n") if _heading_key(line) != heading)
    if len(text) <= OPENING_CHARS:
        return text
    head = text[:OPENING_CHARS]
    cut = max(head.rfind("\n\n"), head.rfind(". "))
    return head[:cut + 1] if cut > OPENING_CHARS // 2 else head


def _heading_key(line: str) -> str:
    """``line`` as a heading compares: Markdown's ``#`` marks, case and spacing left out."""
    return " ".join(line.strip().lstrip("#").split()).casefold()


def keyword_sample(text: str) -> str:
    """``text`` itself up to :data:`KEYWORD_CHARS`, else :data:`KEYWORD_WINDOWS` windows spread evenly over it
    (each starting at a line break near its place, so no word is cut at the start)."""
    if len(text) <= KEYWORD_CHARS:
        return text
    size = KEYWORD_CHARS // KEYWORD_WINDOWS
    step = (len(text) - size) // (KEYWORD_WINDOWS - 1)
    windows = []
    for i in range(KEYWORD_WINDOWS):
        start = i * step
        if i:
            newline = text.find("\n", start, start + size // 4)
            start = newline + 1 if newline >= 0 else start
        windows.append(text[start:start + size])
    return "\n\n".join(windows)


def _stem_key(label: str) -> str:
    stem = stemmer().stemWord
    return " ".join(stem(w) for w in label.casefold().replace("-", " ").replace("_", " ").split())


def choose_topics(keywords: Sequence[str], title: str, known_tags: Iterable[str], text: str = "") -> list[str]:
    """Three to five topic labels (tag form, one to three words) for a source with ``keywords`` and ``title``.

    Why this way: topics are meant to become tags, so they should converge on the labels the library already
    uses rather than coin a near-synonym per source. So a keyword (or a phrase of the title) that is, up to
    stemming, case and ``-``, the last level of a tag already carried in the visible scopes (``topic/dementia``
    for "Dementia") is suggested as that tag, first. The other keywords follow as new labels, best first by how
    many of three signs of a subject they show: the title says it (a title states what a source is about), it is
    a phrase of several words ("sepsis model" rather than "model"), the text says it more than once (a word
    said once, "decided", "try", is a keyword of a short note but not its subject); ties keep keyword rank.
    Generic words (:data:`GENERIC_TOPICS`), stop words, numbers and namespaced tags (``thinkprocess:tp_1``) are
    never suggested; bibliography keywords (``keyword/…``) are reused like any tag.

    Args:
        keywords: the source's keywords, most relevant first.
        title: its title.
        known_tags: tags carried by the documents visible from its scope.
        text: the text the keywords were read from (for the count; "" counts every keyword once).

    Returns:
        Up to :data:`TOPICS_MOST` labels; a keyword without any of the three signs only to reach
        :data:`TOPICS_LEAST`, and fewer than that only when there are not that many candidates.
    """
    existing: dict[str, str] = {}
    for tag in known_tags:
        if ":" in tag:
            continue
        existing.setdefault(_stem_key(tag.rsplit("/", 1)[-1]), tag)
    # A "title" of more than TITLE_WORDS words is a note's first sentence standing in for one: no sign.
    title_key = f" {_stem_key(title)} " if len(title.split()) <= TITLE_WORDS else ""
    folded = text.casefold()
    chosen: dict[str, None] = {}
    fresh: list[tuple[int, int, str]] = []
    for rank, keyword in enumerate(keywords):
        words = keyword.split()
        key = _stem_key(keyword)
        if not key or not 1 <= len(words) <= 3 or any(w.isdigit() for w in words) or len(keyword) < 3:
            continue
        if len(words) == 1 and (keyword.casefold() in GENERIC_TOPICS or keyword.casefold() in STOP_WORDS):
            continue
        if key in existing:
            chosen.setdefault(existing[key], None)
        elif (label := topic_tag(keyword)) is not None and not label.startswith(KEYWORD_PARENT + "/"):
            signs = (f" {key} " in title_key) + (len(words) > 1) + (folded.count(keyword.casefold()) > 1)
            fresh.append((-signs, rank, label))
    for title_phrase, tag in existing.items():  # a known label the title says, though not among the keywords
        if title_phrase and f" {title_phrase} " in title_key:
            chosen.setdefault(tag, None)
    for negative_signs, _, label in sorted(fresh):
        if negative_signs == 0 and len(chosen) >= TOPICS_LEAST:
            break  # no sign of a subject: only to reach the least number of topics
        chosen.setdefault(label, None)
    return list(chosen)[:TOPICS_MOST]


def _guarded(generator: Generator) -> Generator:
    """``generator`` with the built-in behind it (the library's choice has it already; a caller's may not)."""
    if isinstance(generator, FallbackGenerator | BuiltinGenerator):
        return generator
    return FallbackGenerator(generator, BuiltinGenerator())


def make_profile(text: str, *, title: str, known_tags: Iterable[str] = (), generator: Generator | None = None,
                 version: int = 1, content_hash: str | None = None) -> SourceProfile | None:
    """The profile of a source whose text is ``text`` (no database access: the caller holds no transaction).

    Args:
        text: the source's text (:func:`source_text`); any length (see the module doc for the bounds).
        title: its title (topics the title says come first).
        known_tags: tags carried in the scopes it is visible from (:func:`visible_tags`).
        generator: what writes it (default: the built-in one); a model is wrapped so that the built-in answers
            what it fails.
        version, content_hash: the document version and content hash the text is (:func:`attach` sets them
            from the row when it stores the profile).

    Returns:
        The profile, or None for a text with nothing in it (blank, or when even the built-in generator failed:
        logged, and the caller keeps its document without a profile).
    """
    if not isinstance(text, str) or not text.strip():
        return None
    writer = _guarded(generator or BuiltinGenerator())
    before = getattr(writer, "fallbacks", 0)
    try:
        summary = writer.summarize(opening(text, title), SUMMARY_WORDS)
        sample = keyword_sample(text)
        keywords = writer.keywords(sample, KEYWORD_COUNT)
    except Exception:  # the built-in itself failed: a bug, but the import must go on
        log.exception("no profile for %r: the %s generator and the built-in one failed", title[:80], writer.name)
        return None
    topics = choose_topics(keywords, title, known_tags, sample)
    return SourceProfile(summary=summary, keywords=keywords, topics=topics,
                         generator=writer.name, fallback=getattr(writer, "fallbacks", 0) > before,
                         made_at=utcnow(), from_version=version, content_hash=content_hash)


def visible_tags(lib: Library, scope: str) -> list[str]:
    """The tags carried by active documents visible from ``scope`` (its own and its ancestors', its agent's), most
    used first: what :func:`choose_topics` converges on. One read (``tags.list_tags`` builds the whole tag tree
    with counts per level: twice the time, paid by every note written).

    Raises:
        ScopeNotFound.
    """
    tag, doc = tables.TagRow, tables.DocumentRow
    with read_session(lib.engine) as session:
        seen = [v.path for v in session_visible_scopes(session, scope, lib.settings.scope_weights)
                if not v.results_only]
        rows = session.exec(
            select(tag.tag).join(doc, doc.id == tag.document_id)  # type: ignore[arg-type]
            .where(doc.scope_path.in_(seen), doc.status == DocumentStatus.ACTIVE.value,  # type: ignore[attr-defined]
                   doc.type.not_in([t.value for t in STRUCTURAL_TYPES]))  # type: ignore[attr-defined]
            .group_by(tag.tag).order_by(func.count().desc(), tag.tag)).all()
    return list(rows)


def profile_for(lib: Library, text: str, *, title: str, doc_type: DocumentType, metadata: dict,
                scope: str, generator: Generator | None = None) -> SourceProfile | None:
    """The profile of a document about to be written (an import, a new note), or None when it is not a source
    (``core.profiles.is_source``) or has no text. Reads the visible tags; holds no transaction.

    ``generator``: None takes the library's (``services.generators.library_generator``).
    """
    if not is_source(doc_type, metadata, DocumentStatus.ACTIVE) or not text.strip():
        return None
    chosen = generator or generators.library_generator(lib).generator
    return make_profile(text, title=title, known_tags=visible_tags(lib, scope), generator=chosen)


def attach(row: tables.DocumentRow, profile: SourceProfile | None) -> None:
    """Store ``profile`` on ``row`` inside the caller's write transaction, stamped with the row's version and
    content hash (the version it describes). None leaves the row as it is."""
    if profile is None:
        return
    stamped = profile.model_copy(update={"from_version": row.version, "content_hash": row.content_hash})
    row.meta = {**row.meta, PROFILE_KEY: stamped.model_dump(mode="json")}


# --- profiles of stored documents ---------------------------------------------------------------------------

Status = Literal["made", "current", "skipped", "failed"]


class ProfileOutcome(BaseModel):
    """What became of one document.

    Attributes:
        status: ``made``; ``current`` (its profile already describes its text: asked for missing ones only);
            ``skipped`` (not a source, no text, or edited while its profile was made: the edit makes its own);
            ``failed`` (the reason says why; the document is unchanged).
        profile: the profile made or found current.
    """

    document_id: str
    title: str = ""
    status: Status
    reason: str | None = None
    profile: SourceProfile | None = None


class ProfileReport(BaseModel):
    """Every document's outcome in the order handled; ``cancelled`` when stopped before the end."""

    outcomes: list[ProfileOutcome] = Field(default_factory=list)
    cancelled: bool = False

    @property
    def made(self) -> list[str]:
        """Ids of the documents given a new profile."""
        return [o.document_id for o in self.outcomes if o.status == "made"]

    @property
    def failed(self) -> list[ProfileOutcome]:
        """The outcomes that failed."""
        return [o for o in self.outcomes if o.status == "failed"]

    def summary(self) -> str:
        """One line: "3 profiles made, 1 already current, 2 skipped"."""
        counts = {s: sum(o.status == s for o in self.outcomes) for s in ("made", "current", "skipped", "failed")}
        said = [f"{counts['made']} profile{'s' if counts['made'] != 1 else ''} made"]
        said += [f"{counts['current']} already current"] if counts["current"] else []
        said += [f"{counts['skipped']} skipped"] if counts["skipped"] else []
        said += [f"{counts['failed']} failed"] if counts["failed"] else []
        return ", ".join(said) + (" (cancelled)" if self.cancelled else "")


def missing_profiles(lib: Library, scope: str | None = None, *, include_ancestors: bool = True,
                     limit: int | None = None) -> list[str]:
    """Ids of the sources with text and no profile, or a profile of older text, newest first.

    Args:
        scope: the sources visible from this scope (its own and, with ``include_ancestors``, its ancestors');
            None: the whole library.
        limit: at most this many.

    Raises:
        ScopeNotFound.
    """
    forms = SqlForms.of(lib.engine)
    meta = forms.valid("d.metadata")
    profiled = forms.text(meta, f"{PROFILE_KEY}.content_hash")
    query = (f"SELECT d.id FROM document d WHERE d.type IN ({', '.join(repr(t.value) for t in SOURCE_TYPES)})"
             f" AND d.status != 'deleted' AND d.content IS NOT NULL AND d.content != ''"
             f" AND coalesce({forms.kind(meta, WRITEUP_KEY)}, '') != 'object'"
             f" AND (d.type != 'reference' OR trim(coalesce({forms.text(meta, 'abstract')}, '')) != '')"
             f" AND ({forms.kind(meta, PROFILE_KEY)} IS NULL OR {forms.differs(profiled, 'd.content_hash')})")
    params: dict = {}
    if scope is not None:
        where = visibility_filter(lib, resolve_scope(lib, scope), include_ancestors=include_ancestors)
        query += f" AND {where.sql}"
        params.update(where.params)
    query += " ORDER BY d.created_at DESC" + (f" LIMIT {int(limit)}" if limit is not None else "")
    with read_session(lib.engine) as session:
        return [row[0] for row in session.exec(sql(query), params=params).all()]


def make_profiles(lib: Library, document_ids: Sequence[str], *, only_missing: bool = False,
                  generator: Generator | None = None, progress: Callable[[int, int, str], None] | None = None,
                  cancel: Callable[[], bool] | None = None,
                  before_write: Callable[[], None] | None = None) -> ProfileReport:
    """Make (or remake) the profiles of ``document_ids``, each computed outside any transaction and written in a
    short one of its own (metadata only: no new version, ``updated_at`` unchanged, so a day's digest does not
    count a profiled document as new material).

    Args:
        only_missing: leave a source whose profile already describes its text (``current``).
        generator: None takes the library's.
        progress: called after each document with (done, total, its title).
        cancel: checked before each document; the report then says ``cancelled``.
        before_write: called before each write (the app's commit gate: the person's edits go first; what it
            raises propagates and nothing of that document is written).

    Never raises for one document's trouble: a missing id, a document that is not a source, a failure, each is
    its outcome.
    """
    built: list[Generator] = [generator] if generator is not None else []

    def chosen() -> Generator:  # built on first use: a batch of non-sources never loads a model
        if not built:
            built.append(generators.library_generator(lib).generator)
        return built[0]

    report = ProfileReport()
    scope_tags: dict[str, list[str]] = {}
    for done, doc_id in enumerate(document_ids, start=1):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        outcome = _prepare(lib, doc_id, only_missing, chosen, scope_tags)
        if isinstance(outcome, tuple):
            if before_write is not None:
                before_write()  # outside the per-document guard: the app's cancel must end the batch
            outcome = _write(lib, doc_id, *outcome)
        report.outcomes.append(outcome)
        if progress is not None:
            progress(done, len(document_ids), outcome.title or doc_id)
    return report


def _prepare(lib: Library, doc_id: str, only_missing: bool, generator: Callable[[], Generator],
             scope_tags: dict[str, list[str]]) -> ProfileOutcome | tuple[str, SourceProfile]:
    """``doc_id``'s outcome when there is nothing to write, else (its title, its new profile)."""
    try:
        with read_session(lib.engine) as session:
            row = records.document_row(session, doc_id)
            title, scope, content_hash, version = row.title, row.scope_path, row.content_hash, row.version
            if not is_source(row.type, row.meta, row.status):
                trashed = "in the trash " if row.status == DocumentStatus.DELETED.value else ""
                return ProfileOutcome(document_id=doc_id, title=title, status="skipped",
                                      reason=f"a {row.type} {trashed}is not a source")
            found = profile_of(row.meta)
            if only_missing and is_current(found, content_hash):
                return ProfileOutcome(document_id=doc_id, title=title, status="current", profile=found)
            abstract = row.meta.get("abstract") if row.type == DocumentType.REFERENCE.value else None
            text = source_text(row.content, _chunks(session, doc_id), abstract=abstract)
        if not text.strip():
            return ProfileOutcome(document_id=doc_id, title=title, status="skipped", reason="no text to read "
                                  "(an empty document, or a scan without a text layer)")
        if scope not in scope_tags:
            scope_tags[scope] = visible_tags(lib, scope)
        profile = make_profile(text, title=title, known_tags=scope_tags[scope], generator=generator(),
                               version=version, content_hash=content_hash)
    except NotFound as error:
        return ProfileOutcome(document_id=doc_id, status="failed", reason=str(error))
    except Exception as error:  # one document's surprise (a damaged row…) is its outcome; the batch goes on
        log.exception("reading %s for its profile failed", doc_id)
        return ProfileOutcome(document_id=doc_id, status="failed", reason=f"{type(error).__name__}: {error}")
    if profile is None:
        return ProfileOutcome(document_id=doc_id, title=title, status="failed",
                              reason="the generators failed on its text (see the log)")
    return title, profile


def _write(lib: Library, doc_id: str, title: str, profile: SourceProfile) -> ProfileOutcome:
    """Store ``profile`` unless the document's text changed since it was read (that edit makes its own)."""
    try:
        with write_session(lib.engine) as session:
            row = records.document_row(session, doc_id)
            if row.content_hash != profile.content_hash:
                return ProfileOutcome(document_id=doc_id, title=title, status="skipped",
                                      reason="its text changed meanwhile (that edit makes its own profile)")
            attach(row, profile)
            session.add(row)
            records.bump_change_counter(session)
            return ProfileOutcome(document_id=doc_id, title=title, status="made", profile=profile_of(row.meta))
    except Exception as error:  # purged meanwhile, a busy or damaged library: this document's outcome
        log.warning("storing the profile of %s failed: %s", doc_id, error)
        return ProfileOutcome(document_id=doc_id, title=title, status="failed",
                              reason=f"{type(error).__name__}: {error}")


def _chunks(session: Session, doc_id: str) -> list[tuple[str, str]]:
    chunk = tables.ChunkRow
    rows = session.exec(select(chunk.text, chunk.role).where(chunk.document_id == doc_id)
                        .order_by(chunk.ordinal)).all()  # type: ignore[arg-type]
    return [(t, r) for t, r in rows]


def refresh(lib: Library, document_id: str, *, generator: Generator | None = None) -> SourceProfile | None:
    """Remake ``document_id``'s profile if it is a source whose profile does not describe its text (after an
    edit); return its profile as it then is (None: not a source, no text, gone, or the generators failed:
    logged). Never raises: an edit is never undone or reported failed for its profile."""
    outcome = make_profiles(lib, [document_id], only_missing=True, generator=generator).outcomes[0]
    if outcome.status == "failed":
        log.warning("the profile of %s was not remade: %s", document_id, outcome.reason)
    return outcome.profile
