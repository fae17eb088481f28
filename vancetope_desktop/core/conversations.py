"""Conversation memory (seed 000 §10, issue 15): the messages of a process and how older ones are folded.

A *process* is a session or think-process scope; its conversation is its messages in order. Each message is a
document of type ``message`` in the process's scope (so search finds it and the scope rule applies), with its
place in the conversation in the ``chat_message`` table. Older messages are *folded* (compacted) into an
``archived_chat`` memory (a note whose summary every later prompt replays, ``services.conversations``); a folded
message keeps its text and gets ``archived_in``: the id of that memory.

This module holds the value objects and the pure rules (which messages a stage may fold, how turns and tool pairs
group); the service reads and writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidInput


class ChatRole(StrEnum):
    """Who wrote a message (the chat APIs' roles)."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class Strength(StrEnum):
    """How firmly a message is kept: ``pinned`` messages survive every compaction stage verbatim (seed 000 §10
    "STRENGTH:pinned"); the first user message of a process is pinned when it is appended (the original task)."""

    NORMAL = "normal"
    PINNED = "pinned"


class MessageKind(StrEnum):
    """A message someone wrote, or a **topic stitch**: the visible marker a range recompaction leaves where the
    folded range was ("[Topic: … — folded into the summary]"), written by the library."""

    MESSAGE = "message"
    STITCH = "stitch"


class Stage(StrEnum):
    """The sliding window's stages, mildest first (seed 000 §10: soft, hard, emergency thresholds)."""

    SOFT = "soft"
    HARD = "hard"
    EMERGENCY = "emergency"


@dataclass(frozen=True)
class StageRule:
    """What one stage of the sliding window does.

    Attributes:
        stage: which stage.
        trigger: the share of the context window (tokens in / window) from which this stage runs.
        target: the share it folds down to (the projected tokens in after the fold, the new summary counted).
        keep_turns: the last turns kept verbatim (a turn starts at a user message and runs to the next one).
        fold_stitches: whether topic stitches may be folded (the mild stage keeps them: they are the visible
            record of what was folded by hand).
    """

    stage: Stage
    trigger: float
    target: float
    keep_turns: int
    fold_stitches: bool


STAGE_TABLE: tuple[StageRule, ...] = (
    StageRule(Stage.SOFT, trigger=0.70, target=0.50, keep_turns=6, fold_stitches=False),
    StageRule(Stage.HARD, trigger=0.85, target=0.40, keep_turns=3, fold_stitches=True),
    StageRule(Stage.EMERGENCY, trigger=0.95, target=0.25, keep_turns=1, fold_stitches=True),
)
"""The strength-aware selection table (issue 15; README "Conversation memory" holds the same table).

Every stage folds oldest first, one *unit* at a time (a message, or an assistant message with the tool results
that answer it: a tool call and its result are never split), until the projected tokens in are under its target.
Every stage keeps pinned messages verbatim (a unit holding one is kept whole) and the last ``keep_turns`` turns;
the soft stage also keeps topic stitches. The triggers leave room for the reply the model is about to write: at
70 % a 4k-window model still has ~1,200 tokens to answer; emergency (95 %) is the last chance before the request
would fail. The targets leave the next stage far away, so that one compaction serves several turns (a compaction
costs a summary). The library's settings may move the triggers (``chat_thresholds``); targets and kept turns stay
as written here."""


def stage_rules(thresholds: Sequence[float] | None = None) -> tuple[StageRule, ...]:
    """:data:`STAGE_TABLE` with the triggers ``thresholds`` (soft, hard, emergency), or as written for None.

    Raises:
        InvalidInput: not three increasing fractions in (0, 1], or one at or below its stage's target.
    """
    if thresholds is None:
        return STAGE_TABLE
    values = [float(v) for v in thresholds]
    if len(values) != 3 or not all(0 < v <= 1 for v in values) or not values[0] < values[1] < values[2]:
        raise InvalidInput(f"compaction thresholds must be three increasing fractions of the context window "
                           f"(soft < hard < emergency, each in (0, 1]), not {thresholds!r}")
    rules = []
    for rule, trigger in zip(STAGE_TABLE, values, strict=True):
        if trigger <= rule.target:
            raise InvalidInput(f"the {rule.stage.value} threshold {trigger:g} must be above the share it folds "
                               f"down to ({rule.target:g})")
        rules.append(StageRule(rule.stage, trigger, rule.target, rule.keep_turns, rule.fold_stitches))
    return tuple(rules)


def stage_for(tokens_in: int, context_window: int, rules: Sequence[StageRule] = STAGE_TABLE) -> StageRule | None:
    """The strongest stage whose trigger ``tokens_in / context_window`` reaches, or None (no compaction needed).

    Raises:
        InvalidInput: a context window below 1 or negative tokens.
    """
    if context_window < 1:
        raise InvalidInput(f"the context window must be at least 1 token, not {context_window}")
    if tokens_in < 0:
        raise InvalidInput(f"tokens in cannot be negative ({tokens_in})")
    ratio = tokens_in / context_window
    reached = [rule for rule in rules if ratio >= rule.trigger]
    return reached[-1] if reached else None


class ChatMessage(BaseModel):
    """One message of a conversation (``services.conversations``).

    Attributes:
        id: the message's document id (``doc_…``).
        process: the scope path of the process it belongs to.
        seq: its number in the conversation, from 1, in the order it was appended.
        role: who wrote it. kind: a message, or a topic stitch written by a range recompaction.
        content: its text. tokens: its length in the conversation's tokenizer (counted when appended).
        strength: ``pinned`` survives every compaction. archived_in: the id of the ``archived_chat`` memory it was
            folded into, None while it is live. tool_call_id: pairs a tool call (assistant) with its result (tool).
        after_seq: for a stitch, the last message of the folded range: it is shown right after it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    process: str
    seq: int
    role: ChatRole
    kind: MessageKind = MessageKind.MESSAGE
    content: str
    tokens: int
    strength: Strength = Strength.NORMAL
    archived_in: str | None = None
    tool_call_id: str | None = None
    after_seq: int | None = None
    created_at: datetime

    @property
    def pinned(self) -> bool:
        """True for a pinned message."""
        return self.strength is Strength.PINNED

    @property
    def order(self) -> tuple[int, int, int]:
        """Where it reads in the conversation: a stitch right after the last message of the range it stands for."""
        if self.after_seq is not None:
            return (self.after_seq, 1, self.seq)
        return (self.seq, 0, self.seq)


class ChatArchive(BaseModel):
    """An ``archived_chat`` memory: the summary of a folded range and which messages it holds.

    Attributes:
        id: the memory's document id. process: its scope.
        summary: the summary (Markdown) that prompts replay. tokens: its length in the conversation's tokenizer.
        message_ids: the messages this compaction folded (each has ``archived_in`` = ``id``), in order.
        first_seq / last_seq: the folded range's bounds.
        stage: the sliding window's stage, or None for a range recompaction, which has a ``topic``.
        previous: the earlier summary this one rolled up (the sliding window folds the active summary into the
            new one, which ``updates`` it: the earlier memory is archived, its own messages still point at it).
        status: ``active`` for the summary the prompt replays (and a topic's), ``archived`` once rolled up.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    process: str
    summary: str
    tokens: int
    message_ids: list[str]
    first_seq: int
    last_seq: int
    stage: Stage | None = None
    topic: str | None = None
    previous: str | None = None
    status: str = "active"
    created_at: datetime


class CompactionResult(BaseModel):
    """What a compaction did.

    Attributes:
        archive: the memory written (or, when another writer had already folded these messages, theirs); None when
            nothing needed folding.
        stage: the sliding window's stage (None for a range, or when no threshold was reached).
        folded: messages folded by this call (0 when nothing was done or it was already done).
        already_done: True when the messages had been folded already (by an earlier call or another writer).
        tokens_in / tokens_after: the prompt's tokens before and (estimated, the new summary counted) after.
        reason: one line for people: what was done, or why nothing was.
        stitch_id: the topic stitch a range recompaction wrote (a message document, to be indexed like the
            archive), None otherwise.
    """

    archive: ChatArchive | None = None
    stage: Stage | None = None
    folded: int = 0
    already_done: bool = False
    tokens_in: int = 0
    tokens_after: int = 0
    reason: str = ""
    stitch_id: str | None = None

    @property
    def written(self) -> list[str]:
        """The documents this compaction wrote (to index): its summary and its stitch; none when it folded nothing."""
        if not self.folded or self.archive is None:
            return []
        return [self.archive.id, *([self.stitch_id] if self.stitch_id else [])]


class ComposedBlock(BaseModel):
    """The conversation part of a prompt (``services.conversations.compose_block``).

    Attributes:
        markdown: ``## Parent Context`` (workers with a parent), ``## Earlier Conversation (compacted)`` (the
            active summary, then the pinned messages verbatim) and ``## Recent Messages``.
        tokens: its length in the conversation's tokenizer, never above ``budget``.
        summary_id: the active summary's memory, if any. pinned: the pinned messages' ids. recent: the recent
            messages' ids, in order. left_out: live messages that did not fit (the oldest go first).
        parent: the parent process's scope path, if any; parent_shared: whether its summary was shared (same
            project) or only its identity (another project: the confidentiality boundary).
    """

    markdown: str
    tokens: int
    budget: int
    summary_id: str | None = None
    pinned: list[str] = Field(default_factory=list)
    recent: list[str] = Field(default_factory=list)
    left_out: int = 0
    parent: str | None = None
    parent_shared: bool = False


def fold_units(messages: Sequence[ChatMessage]) -> list[list[ChatMessage]]:
    """``messages`` (in conversation order) grouped into the units a compaction folds or keeps whole.

    A tool result belongs with the assistant message that called the tool: the one carrying the same
    ``tool_call_id`` when it is among ``messages``, else the nearest assistant message before it with no user
    message between; a result with neither is a unit of its own. Every other message is a unit of one.

    Returns:
        The units, in order; concatenated they are ``messages`` except that a result joins its call's unit.
    """
    units: list[list[ChatMessage]] = []
    unit_of: dict[str, int] = {}
    open_assistant: int | None = None
    for message in messages:
        if message.role is ChatRole.TOOL and message.kind is MessageKind.MESSAGE:
            home = unit_of.get(message.tool_call_id) if message.tool_call_id else None
            if home is None:
                home = open_assistant
            if home is not None:
                units[home].append(message)
                continue
        units.append([message])
        if message.role is ChatRole.ASSISTANT:
            open_assistant = len(units) - 1
            if message.tool_call_id:
                unit_of[message.tool_call_id] = open_assistant
        elif message.role is ChatRole.USER:
            open_assistant = None
    return units


def kept_tail_start(messages: Sequence[ChatMessage], keep_turns: int) -> int:
    """The index in ``messages`` where the last ``keep_turns`` turns begin (a turn starts at a user message).

    Returns:
        ``len(messages)`` for ``keep_turns`` 0; 0 when there are no more turns than that.
    """
    if keep_turns <= 0:
        return len(messages)
    starts = [i for i, m in enumerate(messages) if m.role is ChatRole.USER and m.kind is MessageKind.MESSAGE]
    if len(starts) < keep_turns:
        return 0
    return starts[-keep_turns]


def select_fold(live: Sequence[ChatMessage], rule: StageRule, tokens_in: int, context_window: int,
                summary_growth: int) -> list[ChatMessage]:
    """The messages a stage folds: oldest units first, until the projected tokens in reach the stage's target.

    Args:
        live: the process's live (unfolded) messages in conversation order.
        rule: the stage (:data:`STAGE_TABLE`).
        tokens_in: the prompt's tokens now (the caller's count, or the composed block's).
        context_window: the model's window, in tokens.
        summary_growth: how many tokens the new summary may add over the active one (its bound minus the active
            summary's tokens): folding must free more than that to help.

    Returns:
        The messages to fold, in order; empty when nothing may be folded (all pinned, all within the kept turns).
        It may fall short of the target when the stage may not fold enough: the caller reports it.
    """
    tail = kept_tail_start(live, rule.keep_turns)
    goal = tokens_in - rule.target * context_window + summary_growth
    chosen: list[ChatMessage] = []
    freed = 0
    for unit in fold_units(live[:tail]):
        if freed >= goal:
            break
        if any(m.pinned for m in unit):
            continue
        if not rule.fold_stitches and any(m.kind is MessageKind.STITCH for m in unit):
            continue
        chosen += unit
        freed += sum(m.tokens for m in unit)
    return chosen


def check_range(live_or_all: Sequence[ChatMessage], first_seq: int, last_seq: int) -> None:
    """Check a range recompaction's bounds against the conversation.

    Raises:
        InvalidInput: ``first_seq`` after ``last_seq``, or a bound that is no message of the conversation.
    """
    if first_seq > last_seq:
        raise InvalidInput(f"the range starts after it ends ({first_seq} > {last_seq})")
    seqs = {m.seq for m in live_or_all}
    missing = [s for s in (first_seq, last_seq) if s not in seqs]
    if missing:
        raise InvalidInput(f"the conversation has no message {missing[0]} (it has "
                           f"{f'1–{max(seqs)}' if seqs else 'no messages'})")
