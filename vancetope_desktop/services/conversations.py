"""Conversation memory (seed 000 §10, issue 15): append, pin, fold older messages into a summary, compose the block.

A process (a session or think-process scope) keeps its conversation: each message a ``message`` document in the
process's scope (search finds it; the scope rule keeps it to the process and what sees it) with its place in the
``chat_message`` table. Two paths fold older messages into an ``archived_chat`` memory:

- the **sliding window** (:func:`compact`), at the start of a turn, when the prompt's tokens pass a stage's share of
  the model's context window (``core.conversations.STAGE_TABLE``): the new summary rolls the active one up (it
  ``updates`` it, which archives it) and adds the folded messages;
- **range recompaction** (:func:`compact_range`), for a range a person confirmed (a finished sub-topic): its own
  summary, and a visible topic stitch in the conversation where the range was.

Both write the memory and mark its messages in one transaction (a failure leaves nothing half-archived); marking is
idempotent and a second writer that finds the messages already folded reports the first one's memory. Originals keep
their text and stay searchable. :func:`compose_block` plays the summary back into every prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import func, text
from sqlmodel import Session, select

from ..core.conversations import (
    ChatArchive,
    ChatMessage,
    ChatRole,
    CompactionResult,
    ComposedBlock,
    MessageKind,
    Stage,
    Strength,
    check_range,
    fold_units,
    select_fold,
    stage_for,
    stage_rules,
)
from ..core.documents import DocumentStatus, DocumentType, IndexState
from ..core.errors import BudgetTooSmall, EmptyFile, InvalidInput, NotFound, ScopeError, ScopeNotFound
from ..core.ids import new_document_id
from ..core.memories import MemoryType
from ..core.relations import RelationType
from ..core.scopes import ScopeKind
from ..generation.base import ChatSummaryRequest, ChatTurn, Generator
from ..ingest.encoding import decode_text_bytes
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, documents, lifecycle, records, relations
from .generators import library_generator
from .library import Library
from .scopes import session_ancestry
from .token_fit import ELLIPSIS

PROCESS_KINDS = (ScopeKind.SESSION, ScopeKind.THINK_PROCESS)
"""The scopes that hold a conversation (seed 000 §10: a process is a session or a think process)."""
ARCHIVE_KEY = "archived_chat"
"""Metadata key of an ``archived_chat`` memory holding its range: message ids, bounds, stage or topic, previous."""
PARENT_KEY = "chat_parent"
"""Scope setting of a process naming its parent process (seed 000 §10 ``parentProcessId``)."""
SUMMARY_WINDOW_SHARE = 0.15
"""A summary takes at most this share of the context window given to a compaction (and at most the library's
``chat_summary_tokens``): at 15 % the soft stage's target (50 %) still leaves a third of the window to messages."""
WORDS_PER_TOKEN = 0.75
"""Words asked of a summariser per token of bound (English prose runs ~0.75 words per word-piece token); the
summary is then cut to the bound by counting, whatever the ratio turns out to be."""
MAX_MESSAGE_CHARS = 1_000_000
"""The longest message, in characters (~250,000 tokens: more than any chat model's window holds, so a longer one is a
pasted file, not a turn; counting and chunking it would hold the write lock for seconds)."""
SUMMARY_RETRIES = 2
"""Times a summary over its token bound is asked for again with proportionally fewer words before it is cut: a
summariser orders its material (decisions, open questions, then points and names), so its own shorter answer keeps
more of what matters than a cut tail does."""
EARLIER = "## Earlier Conversation (compacted)"
PARENT = "## Parent Context"
RECENT = "## Recent Messages"
"""The block's headings (seed 000 §10 names the first two)."""
NO_RECENT = "(no recent messages)"
"""The line under ``## Recent Messages`` when no message is shown there (none live, or none fits the budget)."""


@dataclass(frozen=True)
class NewMessage:
    """One message to append (:func:`append_many`).

    Attributes:
        content: its text (not blank). role: who wrote it. tool_call_id: pairs a tool call with its result.
        pinned: pin it (the first user message of a process is pinned whatever this says).
        said_at: when it was said (an imported conversation's own times); None: now. Its place in the conversation
            is still the order of appending.
    """

    content: str
    role: ChatRole | str = ChatRole.USER
    tool_call_id: str | None = None
    pinned: bool = False
    said_at: datetime | None = None


class HistoryPage(BaseModel):
    """A page of a conversation's messages, in conversation order (:func:`history`).

    Attributes:
        process: the process. messages: the page. total: messages in the conversation (with the filter).
        offset: where the page starts. live: live (unfolded) messages. archived: folded ones.
    """

    process: str
    messages: list[ChatMessage]
    total: int
    offset: int
    live: int = 0
    archived: int = 0
    archives: list[ChatArchive] = Field(default_factory=list)


# -- tokens ---------------------------------------------------------------------------------------

def token_counter(lib: Library) -> Callable[[str], int]:
    """How ``lib``'s conversations count tokens: the named tokenizer (``chat_tokenizer``) or the embedding model's.

    Raises:
        InvalidInput: ``chat_tokenizer`` names no readable ``tokenizer.json``.
    """
    name = lib.settings.chat_tokenizer.strip()
    if not name:
        return lib.embedder().count_tokens
    return _file_counter(name)


@lru_cache(maxsize=4)
def _file_counter(name: str) -> Callable[[str], int]:
    from tokenizers import Tokenizer  # a Rust extension: only when a chat model's tokenizer is named

    path = Path(name).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as error:  # a missing file or one tokenizers cannot read: the setting is wrong
        raise InvalidInput(f"chat_tokenizer {name!r}: cannot read a tokenizer from {path} ({error}); give a local "
                           "tokenizer.json or a folder holding one, or leave it empty for the embedding "
                           "model's") from None
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


# -- reading --------------------------------------------------------------------------------------

def _process_row(session: Session, process: str) -> tables.ScopeRow:
    row = session.get(tables.ScopeRow, process.strip().strip("/"))
    if row is None:
        raise ScopeNotFound(f"no process {process!r}: a conversation belongs to a session or think process "
                            "(`vancetope scope list`)")
    if ScopeKind(row.kind) not in PROCESS_KINDS:
        raise ScopeError(f"{row.path} is a {ScopeKind(row.kind).label.lower()}: conversations belong to sessions "
                         "and think processes")
    return row


def check_process(lib: Library, process: str) -> str:
    """``process``'s scope path after checking it holds conversations.

    Raises:
        ScopeNotFound: no such scope. ScopeError: a group, project or agent scope.
    """
    with read_session(lib.engine) as session:
        return _process_row(session, process).path


_ORDER = "coalesce(c.after_seq, c.seq), c.after_seq IS NOT NULL, c.seq"
_COLUMNS = ("c.document_id, c.process_path, c.seq, c.role, c.kind, d.content, c.tokens, c.strength, c.archived_in, "
            "c.tool_call_id, c.after_seq, d.created_at")


def _message(row: Sequence[Any]) -> ChatMessage:
    return ChatMessage(id=row[0], process=row[1], seq=row[2], role=ChatRole(row[3]), kind=MessageKind(row[4]),
                       content=row[5] or "", tokens=row[6], strength=Strength(row[7]), archived_in=row[8],
                       tool_call_id=row[9], after_seq=row[10], created_at=row[11])


def _messages(session: Session, where: str, params: dict[str, Any], *, limit: int | None = None,
              offset: int = 0) -> list[ChatMessage]:
    page = "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"
    rows = session.exec(text(
        f"SELECT {_COLUMNS} FROM chat_message c JOIN document d ON d.id = c.document_id "
        f"WHERE d.status != 'deleted' AND {where} ORDER BY {_ORDER}{page}"), params=params).all()
    return [_message(r) for r in rows]


def _live(session: Session, process: str) -> list[ChatMessage]:
    return _messages(session, "c.process_path = :p AND c.archived_in IS NULL", {"p": process})


def live_messages(lib: Library, process: str) -> list[ChatMessage]:
    """The process's live (unfolded) messages, in conversation order (pinned ones included).

    Raises:
        ScopeNotFound. ScopeError: not a process.
    """
    with read_session(lib.engine) as session:
        return _live(session, _process_row(session, process).path)


def history(lib: Library, process: str, *, offset: int = 0, limit: int = 100,
            archived: bool | None = None) -> HistoryPage:
    """A page of the process's original messages, folded ones included (the audit view), in conversation order.

    Args:
        offset / limit: the page (limit 1–1,000).
        archived: True: folded messages only; False: live ones only; None: all.

    Raises:
        ScopeNotFound. ScopeError. InvalidInput: a negative offset or a limit outside 1–1,000.
    """
    if offset < 0 or not 1 <= limit <= 1000:
        raise InvalidInput(f"a page starts at 0 or later and holds 1–1,000 messages (offset {offset}, limit {limit})")
    where = "c.process_path = :p" + ("" if archived is None else
                                     " AND c.archived_in IS NOT NULL" if archived else " AND c.archived_in IS NULL")
    with read_session(lib.engine) as session:
        path = _process_row(session, process).path
        params = {"p": path}
        total = session.exec(text(f"SELECT count(*) FROM chat_message c JOIN document d ON d.id = c.document_id "
                                  f"WHERE d.status != 'deleted' AND {where}"), params=params).one()[0]
        counts = session.exec(text(
            "SELECT sum(CASE WHEN c.archived_in IS NULL THEN 1 ELSE 0 END), count(c.archived_in) FROM chat_message c "
            "JOIN document d ON d.id = c.document_id WHERE d.status != 'deleted' AND c.process_path = :p"),
            params=params).one()
        return HistoryPage(process=path, messages=_messages(session, where, params, limit=limit, offset=offset),
                           total=total, offset=offset, live=counts[0] or 0, archived=counts[1] or 0,
                           archives=_archives(session, path))


def get_message(lib: Library, message_id: str) -> ChatMessage:
    """One message by its document id.

    Raises:
        NotFound: no message with that id.
    """
    with read_session(lib.engine) as session:
        found = _messages(session, "c.document_id = :i", {"i": message_id.strip()})
    if not found:
        raise NotFound(f"no message {message_id!r} (message ids are the documents' doc_… ids: `vancetope chat "
                       "history`)")
    return found[0]


def find_message(lib: Library, reference: str, process: str | None = None) -> ChatMessage:
    """A message by its id (``doc_…``) or by its number: ``"12"`` / ``"#12"`` in ``process``, or ``"session/s1#12"``.

    Raises:
        NotFound: no such message. InvalidInput: a number without a process, or not a reference at all.
        ScopeNotFound / ScopeError: the process.
    """
    text = (reference or "").strip()
    if text.startswith("doc_"):
        return get_message(lib, text)
    where, _, number = text.rpartition("#")
    where = where or process
    if not number.isdigit():
        raise InvalidInput(f"{reference!r} names no message: give its id (doc_…) or its number (#12, with the "
                           "process: session/s1#12)")
    if not where:
        raise InvalidInput(f"message #{number} of which conversation? Give the process too (session/s1#{number})")
    path = check_process(lib, where)
    with read_session(lib.engine) as session:
        found = _messages(session, "c.process_path = :p AND c.seq = :n", {"p": path, "n": int(number)})
    if not found:
        raise NotFound(f"{path} has no message #{number} (`vancetope chat history {path}`)")
    return found[0]


def _archive(row: tables.DocumentRow) -> ChatArchive:
    fields = row.meta.get(ARCHIVE_KEY) or {}
    return ChatArchive(id=row.id, process=row.scope_path, summary=row.content or "", tokens=fields.get("tokens", 0),
                       message_ids=list(fields.get("message_ids") or []), first_seq=fields.get("first_seq", 0),
                       last_seq=fields.get("last_seq", 0),
                       stage=Stage(fields["stage"]) if fields.get("stage") else None, topic=fields.get("topic"),
                       previous=fields.get("previous"), status=row.status, created_at=row.created_at)


def _archive_rows(session: Session, process: str) -> list[tables.DocumentRow]:
    doc = tables.DocumentRow
    return list(session.exec(select(doc).where(
        doc.scope_path == process, doc.memory_type == MemoryType.ARCHIVED_CHAT.value,
        doc.status != DocumentStatus.DELETED.value).order_by(doc.created_at, doc.id)).all())  # type: ignore[arg-type]


def _archives(session: Session, process: str) -> list[ChatArchive]:
    return [_archive(r) for r in _archive_rows(session, process)]


def archives(lib: Library, process: str) -> list[ChatArchive]:
    """Every ``archived_chat`` memory of the process (rolled-up and topic ones included), oldest first.

    Raises:
        ScopeNotFound. ScopeError.
    """
    with read_session(lib.engine) as session:
        return _archives(session, _process_row(session, process).path)


def _active_row(session: Session, process: str) -> tables.DocumentRow | None:
    live = [r for r in _archive_rows(session, process)
            if r.status == DocumentStatus.ACTIVE.value and (r.meta.get(ARCHIVE_KEY) or {}).get("stage")]
    return live[-1] if live else None


def active_summary(lib: Library, process: str) -> ChatArchive | None:
    """The sliding window's current summary of the process (the one prompts replay), or None before any.

    Raises:
        ScopeNotFound. ScopeError.
    """
    with read_session(lib.engine) as session:
        row = _active_row(session, _process_row(session, process).path)
        return None if row is None else _archive(row)


def archived_messages(lib: Library, archive_id: str, *, rolled_up: bool = False) -> list[ChatMessage]:
    """The originals an ``archived_chat`` memory holds, in conversation order.

    Args:
        rolled_up: also those of the earlier summaries it rolled up (following ``previous``), i.e. every message
            its summary stands for.

    Raises:
        NotFound: ``archive_id`` is no archived chat.
    """
    with read_session(lib.engine) as session:
        ids = []
        current: str | None = archive_id.strip()
        while current is not None:
            row = session.get(tables.DocumentRow, current)
            if row is None or row.memory_type != MemoryType.ARCHIVED_CHAT.value:
                raise NotFound(f"{current} is no archived chat (`vancetope chat archives PROCESS`)")
            ids.append(current)
            current = (row.meta.get(ARCHIVE_KEY) or {}).get("previous") if rolled_up else None
        marks = ", ".join(f":a{i}" for i in range(len(ids)))
        return _messages(session, f"c.archived_in IN ({marks})", {f"a{i}": v for i, v in enumerate(ids)})


# -- writing messages -----------------------------------------------------------------------------

def append(lib: Library, process: str, content: str, *, role: ChatRole | str = ChatRole.USER,
           tool_call_id: str | None = None, pinned: bool = False, actor: str | None = None) -> ChatMessage:
    """Append one message to the process's conversation (:func:`append_many` with one message)."""
    return append_many(lib, process, [NewMessage(content, role, tool_call_id, pinned)], actor=actor)[0]


def append_many(lib: Library, process: str, messages: Sequence[NewMessage], *,
                actor: str | None = None) -> list[ChatMessage]:
    """Append messages, in order, in one transaction: each a ``message`` document plus its place in the conversation.

    The first user message of a process is pinned (the original task: it survives every compaction). Token counts
    use :func:`token_counter`. All or nothing: one bad message refuses the whole call, naming it.

    Args:
        actor: who appends (recorded as the documents' source; default: the person at this computer).

    Returns:
        The new messages.

    Raises:
        ScopeNotFound / ScopeError: the process. InvalidInput: an empty list, an unknown role, blank content, a
            message over :data:`MAX_MESSAGE_CHARS`.
    """
    if not messages:
        raise InvalidInput("no messages to append")
    roles = []
    for number, message in enumerate(messages, 1):
        which = "the message" if len(messages) == 1 else f"message {number}"
        try:
            roles.append(_role(message.role))
        except ValueError as error:
            raise InvalidInput(str(error) if len(messages) == 1 else f"{which}: {error}") from None
        if not isinstance(message.content, str) or not message.content.strip():
            raise InvalidInput("the message is empty: give its text" if len(messages) == 1
                               else f"message {number} is empty")
        if len(message.content) > MAX_MESSAGE_CHARS:
            raise InvalidInput(f"{which} {_too_long(message.content)}")
    path = check_process(lib, process)
    count = token_counter(lib)
    prepared = []
    for number, message in enumerate(messages, 1):
        try:
            prepared.append(documents.prepare_text(lib, message.content, DocumentType.MESSAGE))
        except EmptyFile:
            raise InvalidInput("the message has no visible text: give its text" if len(messages) == 1
                               else f"message {number} has no visible text") from None
    tokens = [count(m.content) for m in messages]
    who = actor or audit.current_user()
    with write_session(lib.engine) as session:
        _process_row(session, path)
        last = session.exec(select(func.max(tables.ChatMessageRow.seq))
                            .where(tables.ChatMessageRow.process_path == path)).one() or 0
        has_user = session.exec(select(tables.ChatMessageRow.document_id).where(
            tables.ChatMessageRow.process_path == path, tables.ChatMessageRow.role == ChatRole.USER.value,
            tables.ChatMessageRow.kind == MessageKind.MESSAGE.value).limit(1)).first() is not None
        rows = []
        for message, role, ready, size in zip(messages, roles, prepared, tokens, strict=True):
            last += 1
            pin = message.pinned or (role is ChatRole.USER and not has_user)
            has_user = has_user or role is ChatRole.USER
            rows.append((_message_document(path, ready, role, last, who, message.said_at),
                         tables.ChatMessageRow(process_path=path, seq=last, role=role.value, tokens=size,
                                               strength=(Strength.PINNED if pin else Strength.NORMAL).value,
                                               tool_call_id=(message.tool_call_id or "").strip() or None)))
        ids = _add_messages(session, rows, prepared)
        session.flush()
        marks = ", ".join(f":m{i}" for i in range(len(ids)))
        return _messages(session, f"c.document_id IN ({marks})", {f"m{i}": v for i, v in enumerate(ids)})


def _role(role: object) -> ChatRole:
    """``role`` as a :class:`ChatRole` (any case, spaces around); ValueError names the roles there are."""
    try:
        return ChatRole(str(role).strip().lower())
    except ValueError:
        raise ValueError(f"unknown role {role!r} (use one of {', '.join(r.value for r in ChatRole)})") from None


def _too_long(content: str) -> str:
    """What is wrong with a message over :data:`MAX_MESSAGE_CHARS` (after "message N")."""
    return (f"holds {len(content):,} characters, more than the {MAX_MESSAGE_CHARS:,} a message may: store a long "
            "text as a note or a file and refer to its id")


def _message_document(process: str, ready: documents.PreparedText, role: ChatRole | str, seq: int,
                      who: str, said_at: datetime | None = None) -> tables.DocumentRow:
    """The ``message`` document of one message (not yet added), dated ``said_at`` (UTC; naive read as UTC) or now."""
    now = utcnow()
    said = now if said_at is None else (said_at.astimezone(UTC) if said_at.tzinfo else said_at.replace(tzinfo=UTC))
    return tables.DocumentRow(
        id=new_document_id(), scope_path=process, type=DocumentType.MESSAGE.value,
        title=_message_title(role, seq, ready.content), content=ready.extraction.text, mime_type="text/plain",
        meta={"role": str(role), "seq": seq, "by": who}, content_hash=hash_text(ready.content), created_at=said,
        updated_at=now, updated_by=who,
        index_state=(IndexState.PENDING if ready.chunks else IndexState.NOT_INDEXED).value)


def _add_messages(session: Session, rows: Sequence[tuple[tables.DocumentRow, tables.ChatMessageRow]],
                  prepared: Sequence[documents.PreparedText]) -> list[str]:
    """Add message documents with their chunks, index jobs and places, in a few statements (a message is a plain
    document: no tags, links or versions, so the note machinery of ``documents.session_add_text`` — 12 ms a
    message — is not needed: an imported conversation of 600 turns takes a second, not seven).

    Returns:
        The documents' ids, in order.
    """
    for document, place in rows:
        session.add(document)
        place.document_id = document.id
    session.flush()
    for _, place in rows:
        session.add(place)
    records.add_chunks(session, [(document, ready.chunks, ready.counts)
                                 for (document, _), ready in zip(rows, prepared, strict=True)])
    records.enqueue_many(session, [d.id for (d, _), ready in zip(rows, prepared, strict=True) if ready.chunks],
                         "embed")
    records.bump_change_counter(session)
    return [document.id for document, _ in rows]


def _message_title(role: ChatRole | str, seq: int, content: str) -> str:
    words = " ".join(content.split())
    head = words if len(words) <= 60 else words[:59].rstrip() + ELLIPSIS
    return f"{str(role).title()} #{seq}: {head}"


def set_pinned(lib: Library, message_id: str, pinned: bool, *, actor: str | None = None) -> ChatMessage:
    """Pin a message (it survives every compaction verbatim and is replayed in every prompt) or unpin it.

    A folded message can be pinned: it is then replayed verbatim beside the summary. Idempotent.

    Raises:
        NotFound: no such message. InvalidInput: a topic stitch (it stands for a range; pin its messages instead).
    """
    with write_session(lib.engine) as session:
        row = session.get(tables.ChatMessageRow, message_id.strip())
        if row is None:
            raise NotFound(f"no message {message_id!r} (`vancetope chat history PROCESS` lists them)")
        if row.kind == MessageKind.STITCH.value:
            raise InvalidInput(f"{message_id} is a topic stitch: pin the messages of its range instead")
        wanted = (Strength.PINNED if pinned else Strength.NORMAL).value
        if row.strength != wanted:
            row.strength = wanted
            session.add(row)
            audit.record(session, records.document_row(session, row.document_id), "pin" if pinned else "unpin",
                         actor=actor or audit.current_user(), reason=f"message {row.seq} of {row.process_path}")
            records.bump_change_counter(session)
        session.flush()
        return _messages(session, "c.document_id = :i", {"i": row.document_id})[0]


def parent_process(lib: Library, process: str) -> str | None:
    """The process ``process`` works for (:func:`set_parent`), or None.

    Raises:
        ScopeNotFound / ScopeError: not a process.
    """
    with read_session(lib.engine) as session:
        return (_process_row(session, process).settings or {}).get(PARENT_KEY)


def set_parent(lib: Library, process: str, parent: str | None) -> str | None:
    """Say which process ``process`` works for (seed 000 §10 ``parentProcessId``); None: no parent.

    Returns:
        The parent's path, or None.

    Raises:
        ScopeNotFound / ScopeError: either process. InvalidInput: a process as its own parent ("a process cannot
            work for itself"), or a cycle.
    """
    with write_session(lib.engine) as session:
        row = _process_row(session, process)
        settings = dict(row.settings or {})
        if parent is None:
            settings.pop(PARENT_KEY, None)
        else:
            target = _process_row(session, parent).path
            if target == row.path:
                raise InvalidInput(f"{row.path} cannot work for itself: a process cannot work for itself "
                                   "(give another process, or none)")
            seen = {row.path}
            step: str | None = target
            while step is not None:
                if step in seen:
                    raise InvalidInput(f"{target} cannot be the parent of {row.path}: it works for {row.path}, "
                                       "directly or through other processes")
                seen.add(step)
                above = session.get(tables.ScopeRow, step)
                step = None if above is None else (above.settings or {}).get(PARENT_KEY)
            settings[PARENT_KEY] = target
        row.settings = settings  # a new dict: SQLAlchemy notices a JSON column change only on assignment
        session.add(row)
        records.bump_change_counter(session)
        return settings.get(PARENT_KEY)


def messages_from_export(data: object, source: str = "the conversation") -> list[NewMessage]:
    """The messages of an exported conversation, as chat APIs export them: a list of ``{role, content,
    tool_call_id?, pinned?}`` (or an object with such a ``messages`` list), in OpenAI's or Anthropic's shape.

    - content parts: the text ones are joined (a blank line between them);
    - OpenAI: an assistant turn holding only ``tool_calls`` is written out as those calls
      (``Tool call: name(arguments)``), the first call's ``id`` its ``tool_call_id``;
    - Anthropic: a ``tool_use`` part is written out the same way (``Tool call: lookup({"q": 1})``, its ``input`` as
      JSON) and its ``id`` becomes the message's ``tool_call_id``; a turn holding ``tool_result`` parts becomes one
      ``tool`` message per result (its ``tool_use_id`` the ``tool_call_id``, its ``content`` text or text parts),
      the turn's text parts a message of the turn's role after them; a top-level ``"system"`` string (the request
      shape ``{"system": "…", "messages": […]}``) becomes a first ``system`` message;
    - when it was said (:data:`TIME_KEYS`: ``created_at``, ``timestamp`` or ChatGPT's ``create_time``; ISO 8601 or
      seconds since 1970) dates the message (``said_at``); without one, the time of the import.

    Every entry is checked before anything is returned: the shape, the role (one of :class:`ChatRole`; an entry
    without ``"role"`` is bad: "no role"), blank text, over-long text and an unreadable time.

    Args:
        data: the decoded JSON. source: what it came from, for messages ("chats/run.json").

    Raises:
        InvalidInput: not a list of messages, or bad entries: every bad entry named in one refusal, numbered from 1
            (nothing is written then).
    """
    system = None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        system = data.get("system")
        data = data["messages"]
    if not isinstance(data, list):
        raise InvalidInput(f"{source} holds a JSON {type(data).__name__}: give a list of messages "
                           "([{\"role\": \"user\", \"content\": \"…\"}, …])")
    messages, problems = [], []
    if isinstance(system, list):  # Anthropic also takes the system prompt as text parts
        system = _part_text(system)
    if isinstance(system, str) and system.strip():
        messages.append(NewMessage(system, ChatRole.SYSTEM))
    for number, entry in enumerate(data, 1):
        try:
            messages.extend(_export_entry(entry))
        except ValueError as error:
            problems.append(f"message {number}: {error}")
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise InvalidInput(f"{source}: nothing imported: {shown}")
    return messages


def read_export(path: Path) -> list[NewMessage]:
    """The messages of an exported conversation file (:func:`messages_from_export` over its JSON): what ``chat
    import`` and the app's Import Conversation… append. The bytes are decoded as any text file whose encoding is not
    declared (an export saved by a Windows tool may be UTF-16 or Windows-1252).

    Raises:
        InvalidInput: not JSON, or not a conversation (every bad entry named, numbered from 1).
        OSError: the file cannot be read.
    """
    try:
        data = json.loads(decode_text_bytes(path.read_bytes())[0])
    except json.JSONDecodeError as error:
        raise InvalidInput(f"{path} is not JSON: {error}") from None
    return messages_from_export(data, str(path))


def _part_text(parts: list[Any]) -> str:
    """The text parts of a content list, joined by a blank line."""
    return "\n\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def _tool_call_line(name: object, arguments: object) -> str:
    """``Tool call: name(arguments)``: arguments given as text (OpenAI) stay as they are; others become JSON."""
    shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return f"Tool call: {name if isinstance(name, str) and name else '?'}({shown})"


def _export_entry(entry: Any) -> list[NewMessage]:
    """The messages of one exported entry (one, or a tool message per Anthropic ``tool_result`` and then the turn's
    text): ValueError says everything that is wrong with it."""
    if not isinstance(entry, dict):
        raise ValueError(f"not an object but {json.dumps(entry, ensure_ascii=False)[:40]}")
    wrong = []
    role, content, call_id = entry.get("role"), entry.get("content"), entry.get("tool_call_id")
    if role is None:
        wrong.append("no role")
    elif not isinstance(role, str):
        wrong.append("\"role\" must be text")
    else:
        try:
            role = _role(role).value
        except ValueError as error:
            wrong.append(str(error))
    if call_id is not None and not isinstance(call_id, str):
        wrong.append("\"tool_call_id\" must be text")
    results: list[NewMessage] = []
    if isinstance(content, list):  # content parts: text, Anthropic's tool_use and tool_result
        parts = [p for p in content if isinstance(p, dict)]
        uses = [p for p in parts if p.get("type") == "tool_use"]
        for number, part in enumerate((p for p in parts if p.get("type") == "tool_result"), 1):
            body = part.get("content", "")
            body = _part_text(body) if isinstance(body, list) else body
            use_id = part.get("tool_use_id")
            if not isinstance(body, str) or not body.strip():
                wrong.append(f"tool result {number} has no text")
            elif use_id is not None and not isinstance(use_id, str):
                wrong.append(f"tool result {number}: \"tool_use_id\" must be text")
            else:
                results.append(NewMessage(body, ChatRole.TOOL, use_id))
        content = "\n\n".join([_part_text(content), *(_tool_call_line(p.get("name"), p.get("input", {}))
                                                      for p in uses)]).strip()
        if uses and not call_id:
            call_id = next((p["id"] for p in uses if isinstance(p.get("id"), str) and p["id"]), None)
    calls = entry.get("tool_calls") or []
    if not content and isinstance(calls, list) and calls:  # a call only: the calls are what the model said
        functions = [c["function"] for c in calls if isinstance(c, dict) and isinstance(c.get("function"), dict)]
        content = "\n".join(_tool_call_line(f.get("name"), f.get("arguments", "")) for f in functions)
        call_id = call_id or next((c.get("id") for c in calls if isinstance(c, dict) and c.get("id")), None)
    if not isinstance(content, str):
        wrong.append("no text content (\"content\" must be text or a list of text parts)")
    elif len(content) > MAX_MESSAGE_CHARS:
        wrong.append(_too_long(content))
    elif not content.strip() and not results:
        wrong.append("the text is blank")
    said_at = None
    try:
        said_at = _export_time(next((entry[k] for k in TIME_KEYS if entry.get(k) is not None), None))
    except ValueError as error:
        wrong.append(str(error))
    if wrong:
        raise ValueError(", ".join(wrong))
    if isinstance(content, str) and content.strip():
        results.append(NewMessage(content, role, call_id if isinstance(call_id, str) else None,
                                  bool(entry.get("pinned", False))))
    return [replace(m, said_at=said_at) for m in results]


TIME_KEYS = ("created_at", "timestamp", "create_time")
"""Where an exported message keeps when it was said (chat exports and logs name it so; ChatGPT's export:
``create_time``, seconds since 1970)."""


def _export_time(value: object) -> datetime | None:
    """An exported message's time: ISO 8601 text ("2023-05-08T13:56:00Z"; naive read as UTC) or seconds since 1970
    (milliseconds when larger than 10^11); None for None.

    Raises:
        ValueError: anything else, quoted.
    """
    if value is None:
        return None
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, UTC)
        if isinstance(value, str):
            found = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            return found if found.tzinfo else found.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        pass
    raise ValueError(f"unreadable time {json.dumps(value, ensure_ascii=False)[:40]} (give ISO 8601 text or seconds "
                     "since 1970)")


# -- compaction -----------------------------------------------------------------------------------

def summary_bound(lib: Library, context_window: int | None) -> int:
    """The longest a summary may be, in tokens: ``chat_summary_tokens``, and at most
    :data:`SUMMARY_WINDOW_SHARE` of ``context_window`` when one is given (a range recompaction gives none)."""
    bound = lib.settings.chat_summary_tokens
    if context_window:
        bound = min(bound, max(20, int(context_window * SUMMARY_WINDOW_SHARE)))
    return bound


def prompt_tokens(lib: Library, process: str) -> int:
    """The tokens the process's conversation puts in a prompt now: the active summary, the pinned messages and
    every live message (what :func:`compose_block` writes with no budget, headings left out)."""
    with read_session(lib.engine) as session:
        path = _process_row(session, process).path
        active = _active_row(session, path)
        live = _live(session, path)
        pinned_folded = _messages(session, "c.process_path = :p AND c.archived_in IS NOT NULL AND c.strength = :s",
                                  {"p": path, "s": Strength.PINNED.value})
    summary = 0 if active is None else (active.meta.get(ARCHIVE_KEY) or {}).get("tokens", 0)
    return summary + sum(m.tokens for m in live) + sum(m.tokens for m in pinned_folded)


def compact(lib: Library, process: str, *, context_window: int, tokens_in: int | None = None,
            generator: Generator | None = None, actor: str | None = None) -> CompactionResult:
    """The sliding window, at the start of a turn: fold older messages when the prompt passes a stage's threshold.

    The stage is the strongest whose trigger ``tokens_in / context_window`` reaches (``core.conversations``'
    :data:`~vancetope_desktop.core.conversations.STAGE_TABLE`, triggers from the ``chat_thresholds`` setting); its
    units are folded oldest first until the projected prompt is under the stage's target. The new summary rolls the
    active one up: it ``updates`` it (the earlier memory is archived; its messages still point at it).

    Args:
        context_window: the model's context window, in tokens.
        tokens_in: the prompt's tokens now, as the caller's model counts them; None: :func:`prompt_tokens`.
        generator: what writes the summary; None: the library's (the built-in behind any model).
        actor: who compacts (the audit trail).

    Returns:
        A :class:`CompactionResult`: no stage reached, nothing foldable, done, or already done by another writer.
        When the fold cannot bring the prompt under the stage's target (pinned messages and the kept turns hold more
        than it leaves), the reason says so: "… to about 262 tokens (57 %: above the hard stage's 40 % target: 2
        pinned messages and the last 3 turns stay verbatim)".

    Raises:
        ScopeNotFound / ScopeError: the process. InvalidInput: a context window below 1, negative tokens.
    """
    path = check_process(lib, process)
    rules = stage_rules(lib.settings.chat_thresholds)
    if tokens_in is None:
        tokens_in = prompt_tokens(lib, path)
    rule = stage_for(tokens_in, context_window, rules)
    share = tokens_in / context_window
    if rule is None:
        return CompactionResult(tokens_in=tokens_in, tokens_after=tokens_in,
                                reason=f"{share:.0%} of the context window: below the soft threshold "
                                       f"({rules[0].trigger:.0%}), nothing to fold")
    with read_session(lib.engine) as session:
        active_row = _active_row(session, path)
        live = _live(session, path)
    active = None if active_row is None else _archive(active_row)
    bound = summary_bound(lib, context_window)
    chosen = select_fold(live, rule, tokens_in, context_window, max(0, bound - (active.tokens if active else 0)))
    if not chosen:
        kept = sum(m.pinned for m in live)
        return CompactionResult(stage=rule.stage, tokens_in=tokens_in, tokens_after=tokens_in,
                                reason=f"{share:.0%} of the context window ({rule.stage.value} stage) but nothing may "
                                       f"be folded: {kept} pinned message{'s' if kept != 1 else ''} and the last "
                                       f"{rule.keep_turns} turn{'s' if rule.keep_turns != 1 else ''} stay verbatim")
    summary = _summarize(lib, generator, chosen, previous=active.summary if active else "", topic=None, bound=bound)
    result = _write_archive(lib, path, chosen, summary, stage=rule.stage, topic=None, previous=active,
                            actor=actor or audit.current_user())
    if result.already_done:
        return result.model_copy(update={"tokens_in": tokens_in, "tokens_after": tokens_in, "stage": rule.stage})
    after = tokens_in - sum(m.tokens for m in chosen) - (active.tokens if active else 0) + summary[1]
    short = ""
    if after > rule.target * context_window:  # pinned messages and the kept turns hold more than the target leaves
        kept = sum(m.pinned for m in live)  # a pinned message is never folded
        short = (f" ({after / context_window:.0%}: above the {rule.stage.value} stage's {rule.target:.0%} target: "
                 f"{kept} pinned message{'s' if kept != 1 else ''} and the last {rule.keep_turns} "
                 f"turn{'s' if rule.keep_turns != 1 else ''} stay verbatim)")
    return result.model_copy(update={
        "stage": rule.stage, "tokens_in": tokens_in, "tokens_after": after,
        "reason": f"{rule.stage.value} stage at {share:.0%} of the context window: folded {len(chosen)} message"
                  f"{'s' if len(chosen) != 1 else ''} ({chosen[0].seq}–{chosen[-1].seq}); the prompt goes from "
                  f"{tokens_in:,} to about {after:,} tokens{short}"})


def compact_range(lib: Library, process: str, first_seq: int, last_seq: int, *, topic: str,
                  generator: Generator | None = None, actor: str | None = None) -> CompactionResult:
    """Range recompaction: fold a range a person confirmed (a finished sub-topic) into its own summary, and write a
    visible topic stitch where the range was.

    Pinned messages in the range stay live and verbatim (with the tool call or results paired with them); a range
    whose edge would split a tool call from its result
    is widened to keep the pair whole (the reason says so). Folding the same range again changes nothing.

    Args:
        first_seq / last_seq: the range's message numbers (both included).
        topic: what the range was about (the stitch and the summary's title show it).

    Returns:
        A :class:`CompactionResult` (``stage`` None).

    Raises:
        ScopeNotFound / ScopeError. InvalidInput: a blank topic, bounds that are no messages, a range that overlaps
        messages already folded elsewhere (the message names them and the live part), or only pinned messages.
    """
    topic = " ".join((topic or "").split())
    if not topic:
        raise InvalidInput("say what the range was about (its topic): the stitch shows it in the conversation")
    path = check_process(lib, process)
    with read_session(lib.engine) as session:
        every = _messages(session, "c.process_path = :p", {"p": path})
    check_range(every, first_seq, last_seq)
    ordered = [m for m in every if m.kind is MessageKind.MESSAGE]
    low, high = _whole_pairs(ordered, first_seq, last_seq)
    # a stitch is in the range when it sits between two of its messages: one right after the range's last message
    # marks an earlier fold of the range itself (folding it again must change nothing)
    in_range = [m for m in every if (low <= m.after_seq < high if m.after_seq is not None else low <= m.seq <= high)]
    folded = [m for m in in_range if m.archived_in is not None]
    # a pinned message stays verbatim, and so does the rest of its unit: its tool call or results go with it
    held = {m.id for unit in fold_units(ordered) if any(m.pinned for m in unit) for m in unit}
    todo = [m for m in in_range if m.archived_in is None and m.id not in held]
    homes = sorted({m.archived_in for m in folded if m.archived_in})
    if folded and not todo:
        if len(homes) == 1:
            with read_session(lib.engine) as session:
                home = _archive(records.document_row(session, homes[0]))
            return CompactionResult(archive=home, already_done=True,
                                    reason=f"messages {low}–{high} are already folded into {home.id}")
        raise InvalidInput(f"messages {low}–{high} are already folded, into {', '.join(homes)}: nothing left to fold")
    if folded:
        seqs = sorted(m.seq for m in folded)
        raise InvalidInput(f"the range {low}–{high} overlaps messages already folded ({_seq_list(seqs)}, into "
                           f"{', '.join(homes)}): choose a range of live messages (live here: "
                           f"{_seq_list(sorted(m.seq for m in todo))})")
    if not todo:
        raise InvalidInput(f"messages {low}–{high} are all pinned (or paired with a pinned tool call or result): "
                           "pinned messages are never folded")
    summary = _summarize(lib, generator, todo, previous="", topic=topic, bound=summary_bound(lib, None))
    result = _write_archive(lib, path, todo, summary, stage=None, topic=topic, previous=None,
                            actor=actor or audit.current_user(), stitch_after=high)
    if result.already_done:
        return result
    widened = "" if (low, high) == (first_seq, last_seq) else \
        f" (widened from {first_seq}–{last_seq} to {low}–{high} to keep tool calls with their results)"
    kept = sum(m.pinned for m in in_range)
    return result.model_copy(update={"reason": f"folded {len(todo)} message{'s' if len(todo) != 1 else ''} of "
                                               f"{low}–{high} into {topic!r}{widened}"
                                               + (f"; {kept} pinned kept verbatim" if kept else "")})


def _whole_pairs(messages: Sequence[ChatMessage], first: int, last: int) -> tuple[int, int]:
    """``(first, last)`` widened so that no tool call / result unit is cut by the range's edges."""
    for unit in fold_units(messages):
        seqs = [m.seq for m in unit]
        if min(seqs) < first <= max(seqs):
            first = min(seqs)
        if min(seqs) <= last < max(seqs):
            last = max(seqs)
    return first, last


def _seq_list(seqs: Sequence[int]) -> str:
    shown = ", ".join(str(s) for s in seqs[:8])
    return shown + (f" and {len(seqs) - 8} more" if len(seqs) > 8 else "") if seqs else "none"


def _summarize(lib: Library, generator: Generator | None, messages: Sequence[ChatMessage], *, previous: str,
               topic: str | None, bound: int) -> tuple[str, int]:
    """The summary of ``messages`` (rolling ``previous`` up) within ``bound`` tokens, and its tokens."""
    writer = generator or library_generator(lib).generator
    request = ChatSummaryRequest(turns=[ChatTurn(seq=m.seq, role=m.role.value if m.kind is MessageKind.MESSAGE
                                                 else MessageKind.STITCH.value, text=m.content) for m in messages],
                                 previous=previous, topic=topic, max_words=max(1, int(bound * WORDS_PER_TOKEN)))
    count = token_counter(lib)
    summary = writer.summarize_chat(request).strip()
    for _ in range(SUMMARY_RETRIES):  # names and numbers run several tokens a word: ask again for fewer words
        size = count(summary)
        if size <= bound:
            break
        request = request.model_copy(update={"max_words": max(1, int(request.max_words * bound / size * 0.95))})
        summary = writer.summarize_chat(request).strip()
    summary = _cut(summary, bound, count)  # a summariser that still overshoots is cut at a word
    return summary, count(summary)


def _cut(summary: str, bound: int, count: Callable[[str], int]) -> str:
    """``summary`` cut at a word so that it fits ``bound`` tokens (``…`` marks a cut); whole when it fits."""
    if count(summary) <= bound:
        return summary
    words = summary.split(" ")
    low, high = 0, len(words)
    while low < high:  # the longest word prefix that fits, with the ellipsis
        middle = (low + high + 1) // 2
        if count(" ".join(words[:middle]) + ELLIPSIS) <= bound:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + ELLIPSIS


def _write_archive(lib: Library, process: str, messages: Sequence[ChatMessage], summary: tuple[str, int], *,
                   stage: Stage | None, topic: str | None, previous: ChatArchive | None, actor: str,
                   stitch_after: int | None = None) -> CompactionResult:
    """Write the ``archived_chat`` memory, mark its messages and (for a range) the stitch, in one transaction.

    Another writer may have folded some of these messages (or rolled the active summary up) since they were chosen:
    then nothing is written and its memory is reported (``already_done``).
    """
    text_, tokens = summary
    ids = [m.id for m in messages]
    span = f"messages {messages[0].seq}–{messages[-1].seq}"
    title = f"Topic: {topic} ({span})" if topic else f"Earlier conversation ({span})"
    body = text_ or f"({len(messages)} messages with nothing to summarise)"
    prepared = documents.prepare_text(lib, body, DocumentType.NOTE, title)
    stitch_text = None if topic is None else f"Topic-Stitch: {topic} — messages {messages[0].seq}–" \
                                             f"{messages[-1].seq} folded into a summary.\n\n{body}"
    stitch = None if stitch_text is None else documents.prepare_text(lib, stitch_text, DocumentType.MESSAGE)
    stitch_tokens = 0 if stitch_text is None else token_counter(lib)(stitch_text)
    with write_session(lib.engine) as session:
        rows = {r.document_id: r for r in session.exec(select(tables.ChatMessageRow).where(
            tables.ChatMessageRow.document_id.in_(ids))).all()}  # type: ignore[attr-defined]
        done = sorted({r.archived_in for r in rows.values() if r.archived_in})
        current = _active_row(session, process) if stage is not None else None
        if done or (stage is not None and (current.id if current else None) != (previous.id if previous else None)):
            home = records.document_row(session, done[0]) if done else current
            return CompactionResult(archive=None if home is None else _archive(home), already_done=True,
                                    reason="another compaction folded these messages first")
        fields = {"message_ids": ids, "first_seq": messages[0].seq, "last_seq": messages[-1].seq,
                  "stage": stage.value if stage else None, "topic": topic,
                  "previous": previous.id if previous else None, "tokens": tokens}
        row = documents.session_add_text(session, prepared, scope_path=process, metadata={ARCHIVE_KEY: fields},
                                         memory_type=MemoryType.ARCHIVED_CHAT)
        mark_archived(session, ids, row.id)
        if previous is not None:
            old = records.document_row(session, previous.id)
            relations.session_add_edge(session, row.id, old.id, RelationType.UPDATES.value, actor)
            lifecycle.session_supersede(session, old, row, actor)
        stitch_id = None
        if stitch is not None:
            last = session.exec(select(func.max(tables.ChatMessageRow.seq))
                                .where(tables.ChatMessageRow.process_path == process)).one() or 0
            place = tables.ChatMessageRow(process_path=process, seq=last + 1, role=ChatRole.SYSTEM.value,
                                          kind=MessageKind.STITCH.value, tokens=stitch_tokens, after_seq=stitch_after)
            [stitch_id] = _add_messages(session, [(_message_document(process, stitch, "stitch", last + 1, actor),
                                                   place)], [stitch])
        audit.record(session, row, "compact", actor=actor,
                     reason=f"{len(ids)} messages of {process} ({stage.value + ' stage' if stage else topic})")
        session.flush()
        return CompactionResult(archive=_archive(row), folded=len(ids), stitch_id=stitch_id)


def mark_archived(session: Session, message_ids: Sequence[str], archive_id: str) -> int:
    """Point the live ones of ``message_ids`` at ``archive_id`` (inside the caller's write transaction).

    Idempotent: a message already folded (into this archive or another) is left as it is, so running the same
    marking twice changes nothing.

    Returns:
        How many messages were marked now.
    """
    marked = 0
    for row in session.exec(select(tables.ChatMessageRow).where(
            tables.ChatMessageRow.document_id.in_(list(message_ids)),  # type: ignore[attr-defined]
            tables.ChatMessageRow.archived_in.is_(None))).all():  # type: ignore[union-attr]
        row.archived_in = archive_id
        session.add(row)
        marked += 1
    return marked


# -- the prompt block -----------------------------------------------------------------------------

def compose_block(lib: Library, process: str, budget: int) -> ComposedBlock:
    """The conversation part of the process's next prompt, within ``budget`` tokens (seed 000 §10 composeBlock).

    ``## Parent Context`` first for a process with a parent: from the same project the parent's pinned messages (its
    task first) and summary, cut to a third of the room left; from another project only its identity (the
    confidentiality boundary). Then ``## Earlier Conversation (compacted)``:
    the active summary and every pinned message verbatim. Then ``## Recent Messages``: the live messages, the
    newest kept when they do not all fit (``left_out`` counts the rest; :data:`NO_RECENT` when none is shown), a
    topic stitch as its head line with its summary as a blockquote (:func:`_recent_line`). The parent's summary and
    the process's own are cut at a word before any pinned message would be.

    Raises:
        ScopeNotFound / ScopeError. BudgetTooSmall: the budget cannot hold the headings and the pinned messages
            (the message says how many tokens they need).
    """
    count = token_counter(lib)
    with read_session(lib.engine) as session:
        row = _process_row(session, process)
        path = row.path
        active = _active_row(session, path)
        live = _live(session, path)
        pinned = _messages(session, "c.process_path = :p AND c.strength = :s", {"p": path, "s": Strength.PINNED.value})
        parent_path = (row.settings or {}).get(PARENT_KEY)
        parent = None if parent_path is None else session.get(tables.ScopeRow, parent_path)
        shared = parent is not None and _project(session, parent.path) == _project(session, path)
        parent_summary = _active_row(session, parent.path) if shared and parent is not None else None
        # the parent's pinned messages (its task first) say what the worker works towards; its summary, how far
        parent_pins = [] if not shared or parent is None else _messages(
            session, "c.process_path = :p AND c.strength = :s", {"p": parent.path, "s": Strength.PINNED.value})
    recent = [m for m in live if not m.pinned]
    parent_lines = [] if parent is None else [
        PARENT, f"Parent process: {parent.name} ({parent.path})"
        + ("" if shared else " — in another project: its conversation is not shared with this one")]
    pinned_lines = [f"- **{m.role.value}** (#{m.seq}, pinned): {m.content}" for m in pinned]
    def assemble(parent_text: str, summary_text: str, shown: Sequence[ChatMessage]) -> str:
        parts = []
        if parent_lines:
            parts.append("\n".join(parent_lines) + (f"\n\n{parent_text}" if parent_text else ""))
        earlier = [EARLIER]
        if summary_text:
            earlier.append(summary_text)
        if pinned_lines:
            earlier.append("Pinned messages:\n" + "\n".join(pinned_lines))
        if not summary_text and not pinned_lines:
            earlier.append("(nothing folded yet)")
        parts.append("\n\n".join(earlier))
        parts.append("\n\n".join([RECENT, *(_recent_line(m) for m in shown)] if shown else [RECENT, NO_RECENT]))
        return "\n\n".join(parts)

    base = assemble("", "", [])  # what the block holds at the least: headings, parent's identity, pinned messages
    need = count(base)
    if need > budget:
        raise BudgetTooSmall(f"a budget of {budget:,} tokens cannot hold the pinned messages of {path} and the block's "
                             f"headings ({need:,} tokens): give at least {need:,}, or unpin messages")
    room = budget - need
    parent_said = "\n".join([*(f"- **{m.role.value}** (#{m.seq}, pinned): {m.content}" for m in parent_pins),
                             *([parent_summary.content or ""] if parent_summary is not None else [])]).strip()
    parent_text = _cut(parent_said, max(0, room // 3), count) if parent_said else ""
    parent_text = parent_text if parent_text != ELLIPSIS else ""
    room -= count(parent_text) + 2 if parent_text else 0
    summary_text = "" if active is None else _cut(active.content or "", max(0, room), count)
    summary_text = summary_text if summary_text != ELLIPSIS else ""
    markdown = assemble(parent_text, summary_text, [])
    if count(markdown) > budget:  # joins can add a token or two: drop the parts that may go
        parent_text, summary_text = "", ""
        markdown = assemble("", "", [])
    spent = count(markdown)
    shown: list[ChatMessage] = []
    for message in reversed(recent):  # newest first: the latest turns matter most
        size = count(_recent_line(message)) + 1  # +1: the blank line between messages
        if spent + size > budget:
            break
        shown.insert(0, message)
        spent += size
    markdown = assemble(parent_text, summary_text, shown)
    while shown and count(markdown) > budget:  # tokens at the joins may differ from the lines' sum: drop the oldest
        shown.pop(0)
        markdown = assemble(parent_text, summary_text, shown)
    spent = count(markdown)
    return ComposedBlock(markdown=markdown, tokens=spent, budget=budget,
                         summary_id=None if active is None or not summary_text else active.id,
                         pinned=[m.id for m in pinned], recent=[m.id for m in shown],
                         left_out=len(recent) - len(shown), parent=None if parent is None else parent.path,
                         parent_shared=shared)


def _recent_line(message: ChatMessage) -> str:
    """A message as the block's Markdown shows it: ``**role** (#seq): text``. A topic stitch is its one-line head
    (``**topic stitch** (#12): Topic-Stitch: … — messages 4–9 folded into a summary.``) with the summary under it as
    a blockquote (``> `` on every line), so that the summary's paragraphs and lists stay inside it and nothing of
    its Markdown leaks into the messages after it."""
    if message.kind is MessageKind.STITCH:
        head, _, body = message.content.strip().partition("\n\n")
        quoted = "\n".join(f"> {line}".rstrip() for line in body.strip().splitlines())
        return f"**topic stitch** (#{message.seq}): {' '.join(head.split())}" + (f"\n\n{quoted}" if quoted else "")
    return f"**{message.role.value}** (#{message.seq}): {message.content}"


def _project(session: Session, path: str) -> str | None:
    """The project ``path`` is in (the nearest project scope at or above it), or None."""
    for step in session_ancestry(session, path):
        row = session.get(tables.ScopeRow, step)
        if row is not None and row.kind == ScopeKind.PROJECT.value:
            return row.path
    return None
