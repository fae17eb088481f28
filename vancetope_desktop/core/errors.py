"""One exception hierarchy for the core; the CLI, the app and the agent tools turn these into messages.

Every error carries a one-line, user-facing message (``str(error)``). Adapters map the class to an
exit code or dialog; nothing in the core prints.
"""

from __future__ import annotations

from typing import Any


class VancetopeError(Exception):
    """Base class of every error the product raises on purpose."""

    exit_code = 1


class LibraryError(VancetopeError):
    """The library folder cannot be opened (missing, unwritable, corrupt)."""


class LibraryTooNew(LibraryError):
    """The library was written by a newer version of Vancetope Desktop (schema version is higher)."""


class LibraryNeedsUpgrade(LibraryError):
    """A team library's server database has an older schema, and upgrading it was not asked for explicitly."""


class DatabaseAway(LibraryError):
    """A team library's database server is out of reach (restarted, stopped, the network down, an operator ended
    the session): the transaction it cut off rolled back, nothing of it is written. ``store.reconnect`` raises the
    two kinds below."""

    exit_code = 69  # sysexits' EX_UNAVAILABLE, as EmbeddingModelMissing: something the command needs is not there


class ConnectionLost(DatabaseAway):
    """The connection dropped in the middle of a transaction: the caller may run that unit of work again from its
    start (``store.reconnect.resuming``: an import's file, the index writer's batch)."""


class DatabaseUnreachable(DatabaseAway):
    """The server did not answer again within the reconnect budget (``store.reconnect.RETRY_SECONDS``); the message
    names it (``host:port/database``, never a password)."""


class NotFound(VancetopeError):
    """A document, scope, folder or version that was asked for does not exist."""

    exit_code = 3


class DocumentNotFound(NotFound):
    """No document has the given id."""


class ScopeNotFound(NotFound):
    """No scope has the given path."""


class ScopeError(VancetopeError):
    """A scope cannot be created or used that way (bad kind, bad parent, duplicate)."""

    exit_code = 2


class NotAnAgentScope(ScopeError):
    """A scope given as an agent's own namespace that is not of kind ``agent`` (``core.scopes.ScopeKind``)."""


class ScopeNotVisible(VancetopeError):
    """The document or scope is outside what the acting scope may see (seed §4.2 visibility rule)."""

    exit_code = 4


class AccessDenied(VancetopeError):
    """The acting scope sees the target but may not change it (a think process writes only its own memory)."""

    exit_code = 4


class InvalidInput(VancetopeError):
    """An argument is malformed: an empty tag, a bad filter expression, an unknown document type."""

    exit_code = 2


class UnknownMemoryType(InvalidInput):
    """A memory type that is not one of ``core.memories.MemoryType`` (the message names the allowed ones)."""


class InvalidEpisode(InvalidInput):
    """An episode with a missing or blank field, or an unknown severity (the message names the field)."""


class InvalidAtom(InvalidInput):
    """An atom that cannot be stored or changed as asked: an event without a time, a plan without a due date,
    an unparseable date, an unknown type or plan status, a plan status on an atom that is not a plan."""


class EmptyQuery(InvalidInput):
    """A search or recall with nothing to look for."""


class BudgetTooSmall(InvalidInput):
    """A token budget that cannot hold even the headings of the block asked for (the message names the least)."""


class FolderCycle(InvalidInput):
    """A folder would move into itself or one of its descendants."""


class UnknownRelationType(InvalidInput):
    """A relation type that is not one of ``core.relations.RelationType``."""


class RelationRefused(InvalidInput):
    """A relation that cannot be made as asked: to itself, of a type the product derives (``links_to``)."""


class UpdatesCycle(RelationRefused):
    """An ``updates`` edge would close a cycle (A updates B updates … A): nobody would be current."""


class EditConflict(VancetopeError):
    """An edit was made on a version of the document that is no longer its newest: someone (another process,
    an agent, an undo) changed it since. Nothing is written; the caller reads it again or saves anyway."""

    exit_code = 6

    def __init__(self, message: str, *, expected: int, current: int) -> None:
        super().__init__(message)
        self.expected = expected
        self.current = current


class MergeConflicts(EditConflict):
    """A three-way merge of a stale edit with the stored version left conflicts, or had no base to merge from
    (``services.edit_merge``): nothing is written; ``merge`` is the merge made (a ``core.merge.MergeResult``,
    its text with the conflicts between markers; None without a base)."""

    def __init__(self, message: str, *, expected: int, current: int, merge: Any = None) -> None:
        super().__init__(message, expected=expected, current=current)
        self.merge = merge


class UndoRefused(VancetopeError):
    """Nothing to undo or redo, or undoing would overwrite a later change (the document changed since)."""

    exit_code = 5


class NothingToUndo(UndoRefused):
    """No action left to undo (or redo): the CLI says so calmly and exits 0 (``cli.undo_commands``)."""


class LibraryBusy(VancetopeError):
    """Another process held the library's write lock for longer than the busy timeout (a digest, an import, a
    topic tree being kept). Exit code 75 (sysexits' EX_TEMPFAIL: try again later)."""

    exit_code = 75


class ImportFailed(VancetopeError):
    """A file could not be imported; the subclass says why."""


class UnsupportedFile(ImportFailed):
    """No extractor handles this kind of file."""


class EmptyFile(ImportFailed):
    """The file has no bytes, or no content at all."""


class FileTooLarge(ImportFailed):
    """The file exceeds the configured import size limit."""


class EncryptedPdf(ImportFailed):
    """The PDF needs a password to open (a user password); permission-only PDFs are not this."""


class DamagedFile(ImportFailed):
    """The file is corrupt beyond repair by its parser."""


class ExtractionTimeout(DamagedFile):
    """Reading the file took longer than its time limit and was stopped (a file built to make the
    parser loop, or damaged; a huge but sound file needs a larger ``extraction_timeout_s``)."""


class IndexUnavailable(VancetopeError):
    """The vector or lexical index cannot serve the request (e.g. embedding model mismatch)."""


class EmbeddingModelMissing(IndexUnavailable):
    """The library's embedding model cannot be found or run on this computer (the message says what to install
    or set): documents are stored and found by their words, searching by meaning and indexing wait for it."""

    exit_code = 69  # sysexits' EX_UNAVAILABLE: something the command needs is not there (LibraryBusy: EX_TEMPFAIL)


class ModelMismatch(IndexUnavailable):
    """The library's vectors were made by another embedding model than the configured one."""
