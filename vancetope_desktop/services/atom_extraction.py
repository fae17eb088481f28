"""Atoms read from sources (issue 13): at import or write by policy, and on request ("Extract atoms").

**What is a source.** Anything with text but atoms themselves, digest writeups, folders, documents in the trash
and documents whose text could not be read (:func:`source_problem`).

**What is read at import or write** (:func:`extracts_at_import`): notes and results (a person's, an agent's
``memory_store``), but not episodes (an episode is already one structured record of a task: its atoms would
restate its fields), annotations (a quote of a PDF and a person's comment: the PDF is the source), references
(bibliographic fields, not statements) or structured data (rows, not statements). Files (PDF, docx, html,
epub, plain text…) only where the scope's setting :data:`FILES_KEY` says so: off by default, so that a 300-page
book does not become thousands of atoms unasked; a scope without its own value inherits its parent's (the
nearest explicit value up the tree wins). Anything a source may be can be read later on request
(:func:`extract_atoms`: the app's "Extract atoms", ``vancetope atoms extract``, the tool ``atoms_extract``).

**Where a statement was read.** A text source (a note, a result) of at most ``MAX_EXTRACT_CHARS`` characters is
read whole: spans index its stored text (``document.content``). A file, and a longer text, is read chunk by
chunk (its stored chunks, body chunks only: a paper's reference list and author lines hold no statements), so
a span indexes its chunk's text and carries the chunk's ordinal and page: ``atoms.source_passage`` opens the
source at that page and passage.

**When it was written.** Relative dates ("tomorrow", "by Friday") resolve against the source's own date when it
states one (a note's front matter ``date`` or ``created``), else against its import time (``created_at``), in
this computer's zone (the digest's calendar days are this computer's too). The import time, not the last edit,
so that reading a source again gives the same dates.

**A source that is one search hit gives no facts that restate it** (:func:`without_restatements`). Atoms exist
to make the statements of a long source findable one by one; a source stored as one chunk (a note of one section
under about 250 tokens, a short result: what the search ranks and returns as one hit) is found whole already, and
the built-in generator's facts are its own sentences: they add no word it lacks, lose what "it" and "that" stood
for, and as short documents BM25's length normalisation favours them over the sources they come from. So a fact of
a one-chunk source is made only if it adds a word (a model's fact that names what "it" stood for): none of the
built-in's 5,503 facts of the LoCoMo turns does, 1,196 of the dataset's 1,210 observations (its authors' facts,
"Caroline has a guinea pig named Oscar") do. Its events and plans are still made: they add a date or a due and a
status (a digest marks a plan missed). Measured on LoCoMo
(``bench_locomo_atoms.py --conversations 2``, 231 questions, every turn a one-chunk note; dialog R@5 / R@10):
the turns alone 0.615 / 0.691; with the facts of every turn 0.596 / 0.682, less those of turns of at most 1, 2, 3
sentences 0.598 / 0.682, 0.587 / 0.673, 0.597 / 0.669, of at most 25 words 0.598 / 0.672; with no built-in fact
of a one-chunk source (55 events and a plan left) **0.614 / 0.709** (all five conversations: turns alone 0.640 /
0.728, every fact 0.617 / 0.706, this rule 0.638 / 0.738). A sentence or word threshold is no help: the
facts that hurt are those of the longer turns, which outrank the evidence turns; a chunk is the unit the search
ranks, so it is the measure of "found whole already". A scientist's notes keep theirs: every corpus note with a
statement in it is 3 to 68 chunks (1,392 atoms from them, the same without the rule).

**Again, and after a new version.** Reading a source again adds only the statements not read from it before,
recognised by their text (blanks and case aside) against every atom ever derived from it, in the trash or
archived by a digest merge included, and against every earlier text of an atom a person edited: so a second
run adds nothing, a person's deletion is not undone, and an edited atom is never touched nor duplicated. A
machine atom whose statement is no longer in the source is marked stale (``services.stale``: "its input
changed"), not deleted: it may still be true (the source was reworded), and the person or the digest decides;
its mark is cleared if the statement comes back. A machine atom still read gets its span moved to where the
statement now is, so that "open the source at its passage" stays right.

**Bounds.** At most :data:`MAX_ATOMS_PER_SOURCE` new atoms and :data:`MAX_SECONDS_PER_SOURCE` of reading per
source; a source cut short says so in its outcome, is not taken to have lost the statements it did not reach
(nothing is marked stale then), and extracting it again reads on past what it holds already. The generator is
asked outside any write transaction (no SQLite write lock while a model thinks); a source's new atoms are stored
in one transaction. A generator that fails on a passage is answered by the built-in one
(``generation.fallback``); if that fails too, the passage is skipped and the outcome says why: the source itself
is never changed nor lost.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.atoms import ATOM_KEY, EDITED_BY_PERSON, AtomDraft, AtomType
from ..core.documents import STRUCTURAL_TYPES, ChunkRole, DocumentInfo, DocumentStatus, DocumentType, IndexState
from ..core.errors import InvalidInput, VancetopeError
from ..core.memories import MemoryType
from ..generation.base import Generator
from ..generation.builtin import BuiltinGenerator
from ..generation.extract import MAX_EXTRACT_CHARS
from ..generation.fallback import FallbackGenerator
from ..store import tables
from ..store.db import read_session, write_session
from . import atoms, documents, generators, records, relations, stale
from .digest import DIGEST_KEY
from .imports import ImportReport
from .library import Library
from .scopes import ancestry, resolve_scope
from .sharing import check_read

log = logging.getLogger(__name__)

FILES_KEY = "extract_atoms_from_files"
"""Key of ``scope.settings``: True or False, whether files imported here and below get atoms read at import;
absent: as the parent scope says (off at the top)."""
MAX_ATOMS_PER_SOURCE = 500
"""New atoms one run reads from one source at most (statements read before do not count): about 50 pages of a
paper at the built-in generator's rate (965 atoms from the 6 smallest corpus papers, 48 pages); a book is read
in part, the outcome says so, and extracting again reads on."""
MAX_SECONDS_PER_SOURCE = 120.0
"""Reading one source stops after this long (checked between passages): the built-in generator reads a
10-page paper in about 5 s here; a slow model on a long source is cut here and the outcome says so."""

WHOLE_TYPES = (DocumentType.NOTE, DocumentType.RESULT)
"""Sources read at import or write by default (:func:`extracts_at_import`)."""
FILE_TYPES = (DocumentType.FILE,)
"""Sources read at import only where the scope's :data:`FILES_KEY` setting is on."""
NEVER_TYPES = (*atoms.ATOM_DOCUMENT_TYPES, *STRUCTURAL_TYPES)
"""Never sources: an atom is read from a source, not from another atom; a folder has no text, a topic only groups
atoms."""
_WORD = re.compile(r"\w+")
_DATE_KEYS = ("date", "created")  # a note's own date, in its front matter

Status = Literal["extracted", "skipped", "failed", "cancelled"]


class SourceOutcome(BaseModel):
    """What reading one source gave.

    Attributes:
        status: ``extracted`` (read: ``added`` may be 0 when nothing new was there), ``skipped`` (not a source:
            ``reason`` says why), ``failed`` (nothing could be read: ``reason``), ``cancelled`` (stopped before it).
        added: ids of the atoms stored by this run. known: statements read that were there already.
        marked_stale: machine atoms whose statement is no longer in the source (:mod:`.stale`).
        cut_short: the per-source bound was hit (``reason`` says which and how far it read).
        fallbacks: passages the built-in generator answered because the chosen one failed.
        warnings: passages skipped, with why.
    """

    document_id: str
    title: str = ""
    status: Status
    added: list[str] = Field(default_factory=list)
    known: int = 0
    marked_stale: list[str] = Field(default_factory=list)
    cut_short: bool = False
    fallbacks: int = 0
    reason: str | None = None
    warnings: list[str] = Field(default_factory=list)


class ExtractionReport(BaseModel):
    """Every source's outcome, in the order asked, and the generator that read them."""

    generator: str = ""
    generator_problem: str = Field(default="", description="Why the chosen generator is not in use ('' when it is).")
    outcomes: list[SourceOutcome] = Field(default_factory=list)

    @property
    def added(self) -> list[str]:
        """Ids of every atom stored, in order."""
        return [i for o in self.outcomes for i in o.added]

    def summary(self) -> str:
        """One line: "12 atoms from 3 documents; 1 had none new; 1 failed"."""
        read = [o for o in self.outcomes if o.status == "extracted"]
        with_atoms = [o for o in read if o.added]
        parts = [f"{len(self.added)} atom{'s' if len(self.added) != 1 else ''} from {len(with_atoms)} "
                 f"document{'s' if len(with_atoms) != 1 else ''}"]
        if len(read) > len(with_atoms):
            parts.append(f"{len(read) - len(with_atoms)} had none new")
        for status, said in (("skipped", "skipped"), ("failed", "failed"), ("cancelled", "not reached")):
            count = sum(o.status == status for o in self.outcomes)
            if count:
                parts.append(f"{count} {said}")
        if any(o.cut_short for o in self.outcomes):
            parts.append("cut short: " + ", ".join(o.title or o.document_id for o in self.outcomes if o.cut_short))
        return "; ".join(parts)


class FilesSetting(BaseModel):
    """The files setting (:data:`FILES_KEY`) as it applies in a scope.

    Attributes:
        scope: the scope asked about. enabled: whether files imported there get atoms.
        own: the scope's own value (None: inherited). set_in: the scope whose value applies (None: the default).
    """

    scope: str
    enabled: bool
    own: bool | None = None
    set_in: str | None = None


class ExtractionProgress(BaseModel):
    """Sources handled so far out of those asked for, and the current one's title."""

    done: int
    total: int
    current: str


def files_setting(lib: Library, scope: str | None = None) -> FilesSetting:
    """Whether files imported into ``scope`` (default: the current scope) get atoms read: the nearest explicit
    :data:`FILES_KEY` up the scope tree, else off.

    Raises:
        ScopeNotFound.
    """
    path = resolve_scope(lib, scope)
    chain = ancestry(lib, path)
    with read_session(lib.engine) as session:
        values = [(p, _own_value(session.get(tables.ScopeRow, p))) for p in chain]
    set_in = next(((p, v) for p, v in values if v is not None), None)
    return FilesSetting(scope=path, enabled=bool(set_in and set_in[1]), own=values[0][1],
                        set_in=set_in[0] if set_in else None)


def set_files_setting(lib: Library, scope: str | None, enabled: bool | None) -> FilesSetting:
    """Set ``scope``'s own :data:`FILES_KEY` (True / False), or forget it (None: the parent's applies).

    Only imports from now on follow it; documents already there are read on request (:func:`extract_atoms`).

    Raises:
        ScopeNotFound.
    """
    path = resolve_scope(lib, scope)
    with write_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        assert row is not None  # resolve_scope checked it
        settings = {k: v for k, v in (row.settings or {}).items() if k != FILES_KEY}
        if enabled is not None:
            settings[FILES_KEY] = bool(enabled)
        row.settings = settings  # a new dict: SQLAlchemy notices a JSON column change only on assignment
        session.add(row)
        records.bump_change_counter(session)
    return files_setting(lib, path)


def _own_value(row: tables.ScopeRow | None) -> bool | None:
    value = (row.settings or {}).get(FILES_KEY) if row is not None else None
    return value if isinstance(value, bool) else None


def source_problem(doc: DocumentInfo) -> str | None:
    """Why ``doc`` cannot be a source of atoms, or None when it can."""
    if doc.type in NEVER_TYPES:
        return f"a {doc.type.value} is never a source of atoms" if doc.type in STRUCTURAL_TYPES else \
            f"it is an atom (a {doc.type.value}): atoms are read from sources, not from atoms"
    if isinstance(doc.metadata.get(DIGEST_KEY), dict):
        return "a digest writeup is made from atoms, not a source of them"
    if doc.status is DocumentStatus.DELETED:
        return "it is in the trash: restore it first"
    if doc.index_state in (IndexState.FAILED, IndexState.NEEDS_OCR):
        return f"its text could not be read ({doc.index_error or doc.index_state.value})"
    return None


def extracts_at_import(lib: Library, doc: DocumentInfo) -> bool:
    """Whether ``doc``, just imported or written, gets its atoms read now (see the module doc)."""
    if source_problem(doc) is not None:
        return False
    if doc.type in WHOLE_TYPES:
        return doc.memory_type is not MemoryType.EPISODE
    return doc.type in FILE_TYPES and files_setting(lib, doc.scope).enabled


def extract_at_import(lib: Library, document_ids: Iterable[str], *, generator: Generator | None = None,
                      progress: Callable[[ExtractionProgress], None] | None = None,
                      cancel: Callable[[], bool] | None = None,
                      before_commit: Callable[[], None] | None = None) -> ExtractionReport:
    """Read the atoms of the documents just imported or written that the policy reads (:func:`extracts_at_import`);
    the others are left out of the report. Never raises for one source: see :func:`extract_atoms`."""
    wanted = []
    for doc_id in dict.fromkeys(document_ids):
        try:
            doc = documents.get_document(lib, doc_id)
        except VancetopeError:  # gone since (purged by another process): nothing to read
            continue
        if extracts_at_import(lib, doc):
            wanted.append(doc.id)
    if not wanted:
        return ExtractionReport()
    return extract_atoms(lib, wanted, generator=generator, progress=progress, cancel=cancel,
                         before_commit=before_commit)


def extract_after_upload(lib: Library, imported: ImportReport, *, generator: Generator | None = None,
                         progress: Callable[[ExtractionProgress], None] | None = None,
                         cancel: Callable[[], bool] | None = None,
                         before_commit: Callable[[], None] | None = None) -> ExtractionReport:
    """:func:`extract_at_import` over what an upload (``imports.upload``) created or updated; what it read is said
    in ``imported.notices`` ("Atoms read: …"), so the app's and the CLI's import reports tell it."""
    read = extract_at_import(lib, imported.document_ids, generator=generator, progress=progress, cancel=cancel,
                             before_commit=before_commit)
    if read.outcomes:
        imported.notices.append(f"Atoms read: {read.summary()}")
        imported.notices += [f"{o.title or o.document_id}: atoms not read: {o.reason}" for o in read.outcomes
                             if o.status == "failed"]
    return read


def extract_atoms(lib: Library, document_ids: Sequence[str], *, scope: str | None = None,
                  generator: Generator | None = None, progress: Callable[[ExtractionProgress], None] | None = None,
                  cancel: Callable[[], bool] | None = None,
                  before_commit: Callable[[], None] | None = None) -> ExtractionReport:
    """Read the atoms of ``document_ids`` (any source type, whatever the scope's setting) and store the new ones
    in each source's scope, one transaction per source.

    Args:
        scope: the acting scope: each source must be readable from it (default: no check, a person's own
            library). generator: what reads (default: the library's, ``generators.library_generator``); anything
            but the built-in is wrapped so that the built-in answers a passage it fails.
        progress: called after each source. cancel: checked before each source and each passage; the sources
            not reached are ``cancelled``. before_commit: called before each source's atoms are stored (the
            app's commit gate); what it raises ends the run and propagates (nothing of that source is stored).

    Returns:
        One outcome per distinct id, in order; a bad id, a non-source or a failure is its outcome, never raised.

    Raises:
        InvalidInput: no ids. ScopeNotFound: ``scope``.
    """
    ids = list(dict.fromkeys(i.strip() for i in document_ids if i and i.strip()))
    if not ids:
        raise InvalidInput("no documents given: name the documents to read atoms from (doc_…)")
    acting = resolve_scope(lib, scope) if scope else None
    problem = ""
    if generator is None:
        picked = generators.library_generator(lib)
        generator, problem = picked.generator, picked.problem
    reader = generator if isinstance(generator, (BuiltinGenerator, FallbackGenerator)) \
        else FallbackGenerator(generator, BuiltinGenerator())
    report = ExtractionReport(generator=reader.name, generator_problem=problem)
    for done, doc_id in enumerate(ids):
        if cancel is not None and cancel():
            report.outcomes += [SourceOutcome(document_id=i, status="cancelled") for i in ids[done:]]
            break
        outcome = _one(lib, doc_id, acting, reader, cancel, before_commit)
        report.outcomes.append(outcome)
        if progress is not None:
            progress(ExtractionProgress(done=done + 1, total=len(ids), current=outcome.title or doc_id))
    return report


@dataclass(frozen=True)
class _Passage:
    """A text given to the generator, and where it sits in the source."""

    text: str
    chunk_index: int | None = None
    page: int | None = None


def _one(lib: Library, doc_id: str, acting: str | None, reader: Generator, cancel: Callable[[], bool] | None,
         before_commit: Callable[[], None] | None) -> SourceOutcome:
    """One source read and its new atoms stored; every failure but ``before_commit``'s is the outcome."""
    try:
        doc = documents.get_document(lib, doc_id)
        if acting is not None:
            check_read(lib, acting, doc)
    except VancetopeError as error:
        return SourceOutcome(document_id=doc_id, status="skipped", reason=str(error))
    outcome = SourceOutcome(document_id=doc.id, title=doc.title, status="extracted")
    problem = source_problem(doc)
    if problem is not None:
        return outcome.model_copy(update={"status": "skipped", "reason": problem})
    try:
        before = _earlier_atoms(lib, doc.id)
        known = {k for earlier in before for k in earlier.keys}
        drafts = _read(lib, doc, reader, cancel, outcome, known)
        if outcome.status == "cancelled":
            return outcome
        if drafts is None:
            outcome.status = "failed"
            return outcome
        new, taken = [], set(known)
        for draft in drafts:  # a statement said twice in the source is one atom
            if _key(draft.text) not in taken:
                taken.add(_key(draft.text))
                new.append(draft)
        outcome.known = len(drafts) - len(new)
        # Only a complete reading can tell that a statement left the source.
        complete = not outcome.cut_short and not outcome.warnings
        moved, gone, back = _follow(doc.id, before, drafts, complete)
        if before_commit is not None:
            before_commit()
        stored = atoms.store_atoms(lib, new, doc.id, doc.scope) if new else []
        outcome.added = [a.id for a in stored]
        _move_spans(lib, moved)
        outcome.marked_stale = stale.set_stale(lib, gone) if gone else []
        if back:
            stale.set_stale(lib, back, stale=False)
    except VancetopeError as error:  # the source changed meanwhile (trashed, purged): nothing stored
        outcome.status, outcome.reason = "failed", str(error)
    return outcome


def _read(lib: Library, doc: DocumentInfo, reader: Generator, cancel: Callable[[], bool] | None,
          outcome: SourceOutcome, known: set[str]) -> list[AtomDraft] | None:
    """The drafts read from ``doc``'s passages, their spans placed in the source, until
    :data:`MAX_ATOMS_PER_SOURCE` statements not in ``known`` or :data:`MAX_SECONDS_PER_SOURCE`; None when no
    passage could be read (``outcome.reason`` says why). Sets ``outcome``'s bookkeeping."""
    passages = _passages(lib, doc)
    if not passages:
        outcome.reason = "it has no text to read"
        return []
    reference = reference_time(doc)
    chunks = len(documents.list_chunks(lib, doc.id))
    before = getattr(reader, "fallbacks", 0)
    started = time.monotonic()
    drafts: list[AtomDraft] = []
    fresh: set[str] = set()  # statements read that are not known: the cap counts these
    failures = 0
    for number, passage in enumerate(passages):
        if cancel is not None and cancel():
            outcome.status = "cancelled"
            return drafts
        if time.monotonic() - started > MAX_SECONDS_PER_SOURCE:
            _cut(outcome, f"{MAX_SECONDS_PER_SOURCE:g} s", passages, number)
            break
        try:
            found = reader.extract_atoms(passage.text, reference_time=reference)
        except Exception as error:  # even the built-in failed: this passage is skipped, the source stays
            failures += 1
            log.warning("reading atoms from %s (passage %d) failed", doc.id, number, exc_info=error)
            outcome.warnings.append(f"passage {number + 1}{f' (page {passage.page})' if passage.page else ''} "
                                    f"skipped: {type(error).__name__}: {error}")
            continue
        found = without_restatements(found, chunks, passage.text)
        for draft in found:
            key = _key(draft.text)
            if key not in known and key not in fresh:
                if len(fresh) == MAX_ATOMS_PER_SOURCE:
                    _cut(outcome, f"{MAX_ATOMS_PER_SOURCE} new atoms", passages, number)
                    break
                fresh.add(key)
            drafts.append(_placed(draft, passage))
        if outcome.cut_short:
            break
    outcome.fallbacks = getattr(reader, "fallbacks", 0) - before
    if failures and failures == len(passages):
        outcome.reason = f"no passage could be read: {outcome.warnings[0].split(': ', 1)[1]}"
        return None
    return drafts


def _cut(outcome: SourceOutcome, bound: str, passages: Sequence[_Passage], number: int) -> None:
    """Say in ``outcome`` that reading stopped at ``bound`` in passage ``number`` (0-based) of ``passages``."""
    page = passages[number].page
    outcome.cut_short = True
    outcome.reason = (f"stopped at {bound}, in passage {number + 1} of {len(passages)}"
                      f"{f' (page {page})' if page else ''}; extract again to read on")


def _passages(lib: Library, doc: DocumentInfo) -> list[_Passage]:
    """What the generator reads: a text source whole, else its body chunks with their pages."""
    content = doc.content or ""
    if doc.type in WHOLE_TYPES and content.strip() and len(content) <= MAX_EXTRACT_CHARS:
        return [_Passage(content)]
    return [_Passage(c.text, c.ordinal, c.page) for c in documents.list_chunks(lib, doc.id)
            if c.role is ChunkRole.BODY and c.text.strip()]


def without_restatements(drafts: Sequence[AtomDraft], chunks: int, text: str) -> list[AtomDraft]:
    """``drafts`` read from ``text``, a source stored as ``chunks`` chunks (``documents.list_chunks``), less the
    facts that restate it: when it is one chunk, a fact with no word ``text`` lacks (case aside). Such a source is
    one search hit already, and such a fact is its own words again (see the module doc for why and the measure);
    a model's fact that names what "it" stood for adds a word and is kept, and so are events and plans (a time)."""
    if chunks != 1:
        return list(drafts)
    words = _words(text)
    return [d for d in drafts if d.type is not AtomType.FACT or not _words(d.text) <= words]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _placed(draft: AtomDraft, passage: _Passage) -> AtomDraft:
    """``draft`` with its span naming the passage's chunk and page (a span-less model atom stays span-less)."""
    if draft.span is None:
        return draft
    span = draft.span.model_copy(update={"chunk_index": passage.chunk_index, "page": passage.page})
    return draft.model_copy(update={"span": span})


def reference_time(doc: DocumentInfo) -> datetime:
    """When ``doc`` was written, for its relative dates: its own date (front matter ``date`` / ``created``) when
    it states one, else its import time; aware, in this computer's zone."""
    for key in _DATE_KEYS:
        value = doc.metadata.get(key)
        if isinstance(value, str) and value.strip():
            try:
                own = datetime.fromisoformat(value.strip())
            except ValueError:
                continue
            return own.astimezone()  # a naive one is this computer's time
        if isinstance(value, date):
            return datetime.combine(value, datetime.min.time()).astimezone()
    created = doc.created_at if doc.created_at.tzinfo else doc.created_at.replace(tzinfo=UTC)
    return created.astimezone()


def _key(text: str) -> str:
    """A statement's identity: its words, case aside."""
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class _Earlier:
    """An atom read from the source before: its id, status, metadata fields and the statements it stood for."""

    id: str
    status: DocumentStatus
    fields: dict[str, Any]
    keys: frozenset[str]


def _earlier_atoms(lib: Library, source_id: str) -> list[_Earlier]:
    """Every atom derived from ``source_id`` (in the trash or archived too), with the keys of what it said: its
    text, and for one a person (or a digest) changed, each earlier text."""
    found = []
    for doc in [documents.get_document(lib, i) for i in relations.derived_documents(lib, [source_id])]:
        if doc.type not in atoms.ATOM_DOCUMENT_TYPES:
            continue
        fields = doc.metadata.get(ATOM_KEY) if isinstance(doc.metadata.get(ATOM_KEY), dict) else {}
        texts = [doc.content or doc.title]
        if fields.get(EDITED_BY_PERSON) or doc.version > 1:
            texts += [v.content for v in documents.list_versions(lib, doc.id) if v.content]
        found.append(_Earlier(doc.id, doc.status, fields, frozenset(_key(t) for t in texts)))
    return found


def _follow(source_id: str, earlier: Sequence[_Earlier], drafts: Sequence[AtomDraft], complete: bool
            ) -> tuple[list[tuple[str, dict[str, Any] | None]], list[str], list[str]]:
    """What becomes of the machine atoms read before (a person's are left alone, as are archived and trashed ones).

    Returns:
        (those read again whose span moved: (id, new span), live ones no longer read (only when the reading was
        ``complete``), stale ones read again).
    """
    read_now: dict[str, AtomDraft] = {}
    for draft in drafts:
        read_now.setdefault(_key(draft.text), draft)
    moved, gone, back = [], [], []
    for atom in earlier:
        if atom.fields.get(EDITED_BY_PERSON) or atom.status in (DocumentStatus.DELETED, DocumentStatus.ARCHIVED):
            continue
        again = next((read_now[k] for k in atom.keys if k in read_now), None)
        if again is None:
            if complete and atom.status is DocumentStatus.ACTIVE:
                gone.append(atom.id)
            continue
        if atom.status is DocumentStatus.STALE:
            back.append(atom.id)
        span = again.span.model_copy(update={"document_id": source_id}).model_dump() if again.span else None
        if span != atom.fields.get("span"):
            moved.append((atom.id, span))
    return moved, gone, back


def _move_spans(lib: Library, moved: Sequence[tuple[str, dict[str, Any] | None]]) -> None:
    """Point machine atoms read again at where their statement now is (no version: the atom did not change)."""
    if not moved:
        return
    with write_session(lib.engine) as session:
        for atom_id, span in moved:
            row = records.document_row(session, atom_id)
            fields = row.meta.get(ATOM_KEY) if isinstance(row.meta.get(ATOM_KEY), dict) else {}
            row.meta = {**row.meta, ATOM_KEY: {**fields, "span": span}}
            session.add(row)
        records.bump_change_counter(session)
