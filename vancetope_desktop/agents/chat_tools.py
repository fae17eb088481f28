"""The conversation tools (issue 15, seed 000 §10): an agent's chat history kept in the library, compacted as it grows.

``chat_append``, ``chat_pin``, ``chat_compose``, ``chat_compact``, ``chat_compact_range`` and ``chat_history`` are
thin adapters over ``services.conversations``, mixed into :class:`~.tools.MemoryTools` (:class:`ChatTools`), so that
they act for its scope, are listed in its ``TOOLS`` and run through its ``call`` and the MCP server like every other
tool. The process defaults to the acting scope (a think process's own conversation). Another process's conversation
follows the visibility rule: written (append, pin, compact) only where ``services.sharing.check_write`` allows,
read (compose, history) only where the acting scope sees (its own scope and its ancestors, ``visible_scopes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.conversations import ChatMessage, CompactionResult, ComposedBlock
from ..core.errors import InvalidInput
from ..services import conversations, indexing, sharing
from ..services.conversations import HistoryPage
from ..services.library import Library
from .chat_models import (
    ChatAppendInput,
    ChatCompactInput,
    ChatCompactRangeInput,
    ChatComposeInput,
    ChatHistoryInput,
    ChatImport,
    ChatImportInput,
    ChatParent,
    ChatParentInput,
    ChatPinInput,
)
from .tool_input import ToolSpec, parse_arguments

if TYPE_CHECKING:
    from ..generation.base import Generator

CHAT_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("chat_append", "Add a message to your conversation, the chat history the library keeps for your process: "
             "the user's messages, your replies, and tool calls with their results (give the call and its result the "
             "same tool_call_id: they are never separated). Returns the message with its id, number (seq) and "
             "tokens. The conversation's first user message (the original task) is pinned automatically: it stays "
             "verbatim in every prompt.", ChatAppendInput, ChatMessage),
    ToolSpec("chat_pin", "Pin a message (pinned=false unpins it): a pinned message survives every compaction verbatim "
             "and chat_compose replays it in every block. Pin what must never be summarised away: requirements, "
             "constraints, decisions. The first user message is pinned already.", ChatPinInput, ChatMessage),
    ToolSpec("chat_compose", "The conversation part of your next prompt, as one Markdown block within budget tokens: "
             "'## Earlier Conversation (compacted)' (the summary of the folded messages, then every pinned message "
             "verbatim), then '## Recent Messages' (the newest live messages that fit; left_out counts the rest). "
             "A process working for a parent process also gets '## Parent Context'. Use it in place of the raw "
             "history, after chat_compact.", ChatComposeInput, ComposedBlock),
    ToolSpec("chat_compact", "Call at the start of every turn, with your model's context_window and the tokens your "
             "prompt holds now (tokens_in). Below the soft threshold (70% of the window by default) nothing happens. "
             "Past it (soft 70%, hard 85%, emergency 95%) the oldest messages are folded into one summary that "
             "chat_compose replays; pinned messages, the last turns and tool call/result pairs stay verbatim. The "
             "result says what was folded and the tokens before and after; the originals stay readable with "
             "chat_history.", ChatCompactInput, CompactionResult),
    ToolSpec("chat_compact_range", "Fold a finished sub-topic (e.g. a plan step that is complete) into its own "
             "summary: messages first_seq to last_seq, with a topic. A visible Topic-Stitch message takes their place "
             "in the conversation. Pinned messages in the range stay verbatim; a range that would split a tool call "
             "from its result is widened to keep the pair. Folding the same range again changes nothing.",
             ChatCompactRangeInput, CompactionResult),
    ToolSpec("chat_history", "The original messages of a conversation in order, folded ones included (archived_in: "
             "the summary a message was folded into), a page at a time (offset, limit; archived=true or false "
             "filters), with how many are live and archived and the conversation's summaries (archives, each with "
             "its range and stage or topic).", ChatHistoryInput, HistoryPage),
    ToolSpec("chat_import", "Append a whole conversation at once (e.g. the history you had before you used this "
             "library), in order, as chat APIs export it: a list of {role, content, tool_call_id?, pinned?}. All or "
             "nothing: a bad entry is named by its number and nothing is written.", ChatImportInput, ChatImport),
    ToolSpec("chat_parent", "Read or set the process you work for (an orchestrator's session, say): chat_compose "
             "then opens with its summary when it is in your project, or only its name when it is in another "
             "(the confidentiality boundary). clear=true: you work for no other process.", ChatParentInput, ChatParent),
)
"""The conversation tools, in the order ``tools.TOOLS`` lists them."""


class ChatTools:
    """The ``chat_*`` tools, mixed into :class:`~.tools.MemoryTools`: they act for its scope with its helpers
    (:meth:`generator`: the MCP client's model for summaries when the library's generator is ``mcp``; who acts; how
    a scope argument is read and checked)."""

    lib: Library
    scope: str
    index_now: bool

    if TYPE_CHECKING:  # MemoryTools defines them
        def generator(self) -> Generator | None: ...
        def _actor(self) -> str: ...
        def _read_scope(self, text: str) -> str: ...
        def _scope_argument(self, text: str) -> str: ...

    def chat_append(self, content: str, role: str = "user", tool_call_id: str | None = None, pinned: bool = False,
                    process: str | None = None) -> ChatMessage:
        """Append one message to a conversation the acting scope writes (``conversations.append``), indexed now
        when asked to.

        Raises:
            InvalidInput: blank content, a bad role. ScopeNotFound / ScopeError: not a process.
            ScopeNotVisible / AccessDenied: a process the acting scope may not write.
        """
        args = parse_arguments(ChatAppendInput, content=content, role=role, tool_call_id=tool_call_id, pinned=pinned,
                               process=process)
        if not args.content.strip():
            raise InvalidInput("the message is empty: give its text")
        message = conversations.append(self.lib, self._chat_process(args.process, write=True), args.content,
                                       role=args.role, tool_call_id=args.tool_call_id, pinned=args.pinned,
                                       actor=self._actor())
        self._chat_index([message.id])
        return message

    def chat_pin(self, message_id: str, pinned: bool = True, process: str | None = None) -> ChatMessage:
        """Pin or unpin a message of a conversation the acting scope writes (``conversations.find_message``: an id,
        or a number in ``process`` or the acting scope's conversation; then ``set_pinned``).

        Raises:
            NotFound: no such message. InvalidInput: a topic stitch, not a message reference.
            ScopeNotVisible / AccessDenied: another process's message the acting scope may not write.
        """
        args = parse_arguments(ChatPinInput, message_id=message_id, pinned=pinned, process=process)
        where = None if args.message_id.strip().startswith("doc_") else self._chat_process(args.process, write=True)
        message = conversations.find_message(self.lib, args.message_id, where)
        sharing.check_write(self.lib, self.scope, message.process)
        return conversations.set_pinned(self.lib, message.id, args.pinned, actor=self._actor())

    def chat_compose(self, budget: int, process: str | None = None) -> ComposedBlock:
        """The prompt block of a conversation the acting scope sees, within ``budget`` tokens
        (``conversations.compose_block``).

        Raises:
            BudgetTooSmall: the budget cannot hold the pinned messages (the message says how many tokens they need).
            ScopeNotFound / ScopeError / ScopeNotVisible: the process.
        """
        args = parse_arguments(ChatComposeInput, budget=budget, process=process)
        return conversations.compose_block(self.lib, self._chat_process(args.process, write=False), args.budget)

    def chat_compact(self, context_window: int, tokens_in: int | None = None,
                     process: str | None = None) -> CompactionResult:
        """The sliding window over a conversation the acting scope writes (``conversations.compact``), its summary
        written by :meth:`generator` (or the library's); the summary indexed now when asked to.

        Raises:
            InvalidInput: a window below 1, negative tokens. ScopeNotFound / ScopeError / ScopeNotVisible /
            AccessDenied: the process.
        """
        args = parse_arguments(ChatCompactInput, context_window=context_window, tokens_in=tokens_in, process=process)
        result = conversations.compact(self.lib, self._chat_process(args.process, write=True),
                                       context_window=args.context_window, tokens_in=args.tokens_in,
                                       generator=self.generator(), actor=self._actor())
        self._chat_index(result.written)
        return result

    def chat_compact_range(self, first_seq: int, last_seq: int, topic: str,
                           process: str | None = None) -> CompactionResult:
        """Range recompaction of a conversation the acting scope writes (``conversations.compact_range``), the
        summary written by :meth:`generator`; the summary and the stitch indexed now when asked to.

        Raises:
            InvalidInput: a blank topic, bounds that are no messages, a range overlapping folded messages or holding
            only pinned ones. ScopeNotFound / ScopeError / ScopeNotVisible / AccessDenied: the process.
        """
        args = parse_arguments(ChatCompactRangeInput, first_seq=first_seq, last_seq=last_seq, topic=topic,
                               process=process)
        result = conversations.compact_range(self.lib, self._chat_process(args.process, write=True), args.first_seq,
                                             args.last_seq, topic=args.topic, generator=self.generator(),
                                             actor=self._actor())
        self._chat_index(result.written)
        return result

    def chat_history(self, offset: int = 0, limit: int = 50, archived: bool | None = None,
                     process: str | None = None) -> HistoryPage:
        """A page of the original messages of a conversation the acting scope sees, with its archives
        (``conversations.history``).

        Raises:
            InvalidInput: a bad page. ScopeNotFound / ScopeError / ScopeNotVisible: the process.
        """
        args = parse_arguments(ChatHistoryInput, offset=offset, limit=limit, archived=archived, process=process)
        return conversations.history(self.lib, self._chat_process(args.process, write=False), offset=args.offset,
                                     limit=args.limit, archived=args.archived)

    def chat_import(self, messages: Sequence[object], process: str | None = None) -> ChatImport:
        """Append an exported conversation to one the acting scope writes (``conversations.messages_from_export``,
        then ``append_many``: all or nothing), indexed now when asked to.

        Raises:
            InvalidInput: not a list of messages, or bad entries (every one named in one refusal: its shape,
                no role or an unknown one, blank text).
            ScopeNotFound / ScopeError / ScopeNotVisible / AccessDenied: the process.
        """
        args = parse_arguments(ChatImportInput, messages=list(messages), process=process)
        found = conversations.messages_from_export(args.messages, "messages")
        appended = conversations.append_many(self.lib, self._chat_process(args.process, write=True), found,
                                             actor=self._actor())
        self._chat_index([m.id for m in appended])
        return ChatImport(messages=appended)

    def chat_parent(self, parent: str | None = None, clear: bool = False, process: str | None = None) -> ChatParent:
        """Read, set or clear the parent of a process the acting scope writes (``conversations.set_parent``).

        Raises:
            InvalidInput: a parent and clear together, a cycle. ScopeNotFound / ScopeError: either process.
            ScopeNotVisible / AccessDenied: a process the acting scope may not write.
        """
        args = parse_arguments(ChatParentInput, parent=parent, clear=clear, process=process)
        if args.clear and args.parent is not None:
            raise InvalidInput("give a parent or clear=true, not both")
        path = self._chat_process(args.process, write=True)
        if args.parent is None and not args.clear:
            return ChatParent(process=path, parent=conversations.parent_process(self.lib, path))
        return ChatParent(process=path, parent=conversations.set_parent(self.lib, path, args.parent))

    def _chat_process(self, process: str | None, *, write: bool) -> str:
        """The process a chat tool acts on: the acting scope, or ``process`` when the acting scope may write it
        (``sharing.check_write``) or, for reading, sees it (``_read_scope``)."""
        if process is None:
            return self.scope
        if not write:
            return self._read_scope(process)
        target = self._scope_argument(process)
        sharing.check_write(self.lib, self.scope, target)
        return target

    def _chat_index(self, document_ids: Sequence[str]) -> None:
        """Embed what a chat tool wrote now when the tools were made with ``index_now`` (and no other process is the
        writer); otherwise the app's indexing process does, and words find it at once."""
        if self.index_now and document_ids:
            indexing.try_drain_own(self.lib, list(document_ids))
