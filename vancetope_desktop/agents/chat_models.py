"""Arguments of the conversation tools (``chat_tools``, issue 15), as the models an MCP client sees as JSON schemas.

Their results are the service's own models (``core.conversations.ChatMessage``, ``ComposedBlock``,
``CompactionResult``; ``services.conversations.HistoryPage``): one shape for every face.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.conversations import ChatMessage
from .tool_input import ToolInput

ChatRoleName = Literal["user", "assistant", "tool", "system"]
"""Who wrote a message (``core.conversations.ChatRole``)."""

_PROCESS = ("The conversation's process (a session or think process), as a path ('session/s1') or a kind ('session': "
            "the one above you). Default: your own scope's conversation.")
_PROCESS_WRITE = _PROCESS + " Another process's conversation only where you may write (your own)."
_PROCESS_READ = _PROCESS + " Another process's only where you may read: your own scope and its ancestors."


class ChatAppendInput(ToolInput):
    """``chat_append``: add one message to a conversation."""

    content: str = Field(description="The message's text (Markdown is fine). Must not be blank.")
    role: ChatRoleName = Field(default="user", description="Who wrote it: user, assistant, tool (a tool's result) "
                               "or system.")
    tool_call_id: str | None = Field(default=None, description="Pairs a tool call (the assistant message) with its "
                                     "result (the tool message): give both the same id and compaction never "
                                     "separates them.")
    pinned: bool = Field(default=False, description="Keep it verbatim in every prompt, through every compaction. "
                         "The conversation's first user message (the task) is pinned whatever this says.")
    process: str | None = Field(default=None, description=_PROCESS_WRITE)


class ChatPinInput(ToolInput):
    """``chat_pin``: pin a message, or unpin it."""

    message_id: str = Field(min_length=1, description="The message: its id (doc_…, from chat_append or "
                            "chat_history), or its number ('12' or '#12') in your conversation or in process.")
    pinned: bool = Field(default=True, description="True pins it, false unpins it (then compaction may fold it).")
    process: str | None = Field(default=None, description="The conversation a message number is in. " + _PROCESS_WRITE)


class ChatComposeInput(ToolInput):
    """``chat_compose``: the conversation's part of your next prompt."""

    budget: int = Field(ge=1, description="The block's length at most, in tokens. It must hold the pinned messages "
                        "and the headings: a smaller budget is an error that says how many tokens they need.")
    process: str | None = Field(default=None, description=_PROCESS_READ)


class ChatCompactInput(ToolInput):
    """``chat_compact``: the sliding window, at the start of a turn."""

    context_window: int = Field(ge=1, description="Your model's context window, in tokens.")
    tokens_in: int | None = Field(default=None, ge=0, description="The tokens your next prompt holds now, as your "
                                  "model counts them. Default: the library's count of the conversation (summary, "
                                  "pinned and live messages), which leaves out the rest of your prompt.")
    process: str | None = Field(default=None, description=_PROCESS_WRITE)


class ChatCompactRangeInput(ToolInput):
    """``chat_compact_range``: fold a finished sub-topic into its own summary."""

    first_seq: int = Field(ge=1, description="The range's first message number (seq, from chat_history).")
    last_seq: int = Field(ge=1, description="The range's last message number (included).")
    topic: str = Field(description="What the range was about, in a few words: the stitch left in the conversation "
                       "and the summary's title show it.")
    process: str | None = Field(default=None, description=_PROCESS_WRITE)


class ChatHistoryInput(ToolInput):
    """``chat_history``: the original messages, folded ones included, a page at a time."""

    offset: int = Field(default=0, ge=0, description="Where the page starts (0: the first message).")
    limit: int = Field(default=50, ge=1, le=1000, description="Messages in the page (1-1,000).")
    archived: bool | None = Field(default=None, description="True: only messages folded into a summary; false: "
                                  "only live ones; leave out for all.")
    process: str | None = Field(default=None, description=_PROCESS_READ)


class ChatImportInput(ToolInput):
    """``chat_import``: append a whole exported conversation."""

    messages: list[Any] = Field(min_length=1, description="The messages in order, as chat APIs export "
                                           "them: {role, content (text or a list of text parts), tool_call_id?, "
                                           "pinned?}; an assistant turn with only tool_calls is written out as the "
                                           "calls. All or nothing: every bad entry is named by its number.")
    process: str | None = Field(default=None, description=_PROCESS_WRITE)


class ChatParentInput(ToolInput):
    """``chat_parent``: the process a worker reports to (read, set or clear)."""

    parent: str | None = Field(default=None, description="The parent process (a session or think process path) to "
                               "set; leave out to read the current one.")
    clear: bool = Field(default=False, description="True: the process works for no other process.")
    process: str | None = Field(default=None, description=_PROCESS_WRITE)


class ChatParent(BaseModel):
    """``chat_parent``'s result: the process and its parent (None: none)."""

    process: str
    parent: str | None = None


class ChatImport(BaseModel):
    """``chat_import``'s result: the messages appended, in order."""

    messages: list[ChatMessage]
