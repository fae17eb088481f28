"""A process's conversation from the terminal (issue 15): ``chat append|pin|history|compose|compact|compact-range|
archives|parent|import``, over ``services.conversations`` as the agent tools (``chat_*``) and the app are.

The person at this computer acts: any session or think process is theirs to read and write (the visibility rule binds
the agents acting in a scope, ``agents.chat_tools``). The commands that write a document (a message, a summary, a
stitch) embed it before returning unless ``--no-wait``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..core.conversations import ChatArchive, ChatMessage, ChatRole, CompactionResult, MessageKind
from ..core.errors import InvalidInput
from ..services import conversations, indexing
from ..services.conversations import HistoryPage
from ..services.library import Library
from .apps import chat_app
from .context import JsonOption, LibraryOption, WaitOption, emit, err, key_column, open_library, out, read_stdin

ProcessArgument = Annotated[str, typer.Argument(help="The process: a session or think process path, e.g. session/s1 "
                                                "(`scope list`).")]


@chat_app.command("append")
def chat_append(
    process: ProcessArgument,
    text: Annotated[str, typer.Argument(help="The message. '-' reads standard input.")],
    role: Annotated[ChatRole, typer.Option("--role", "-r", case_sensitive=False, help="Who wrote it.")
                    ] = ChatRole.USER,
    pin: Annotated[bool, typer.Option("--pin", help="Pin it: kept verbatim through every compaction (the first user "
                                      "message is pinned anyway).")] = False,
    tool_call_id: Annotated[str | None, typer.Option("--tool-call-id", help="Pairs a tool call (assistant) with its "
                                                     "result (tool): compaction keeps them together.")] = None,
    wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Add a message to a conversation: `chat append session/s1 "Compare the two runs." --role user`."""
    if text == "-":
        text = read_stdin().rstrip("\n")  # `echo … |` ends it with a newline that is no part of the message
    with open_library(library) as lib:
        message = conversations.append(lib, process, text, role=role, tool_call_id=tool_call_id, pinned=pin)
        _index(lib, [message.id], wait)
        emit(as_json, message, lambda: out.print(f"Appended {_label(message)} to {escape(message.process)}"))


@chat_app.command("import")
def chat_import(
    process: ProcessArgument,
    file: Annotated[Path, typer.Argument(help="A JSON list of messages ({role, content, tool_call_id?}, as chat "
                                         "APIs export them, OpenAI's or Anthropic's shape; or an object with "
                                         "such a \"messages\" list and an optional \"system\").",
                                         exists=True, dir_okay=False, readable=True)],
    wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Append a whole exported conversation, in order, all or nothing: every bad entry is named by its number."""
    with open_library(library) as lib:
        messages = conversations.append_many(lib, process, conversations.read_export(file))
        _index(lib, [m.id for m in messages], wait)
        emit(as_json, messages, lambda: out.print(
            f"Imported {len(messages)} message{'s' if len(messages) != 1 else ''} into {escape(messages[0].process)} "
            f"(#{messages[0].seq}–#{messages[-1].seq}; pinned: {_seqs([m for m in messages if m.pinned])})"))


@chat_app.command("pin")
def chat_pin(
    message: Annotated[str, typer.Argument(help="The message: its id (doc_…), or its number in a process "
                                         "(session/s1#12, or 12 with --process); `chat history` lists both.")],
    process: Annotated[str | None, typer.Option("--process", help="The process a bare number is in.")] = None,
    off: Annotated[bool, typer.Option("--off", help="Unpin it instead.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Pin a message (kept verbatim in every prompt, through every compaction), or unpin it with --off."""
    with open_library(library) as lib:
        found = conversations.find_message(lib, message, process)
        message = conversations.set_pinned(lib, found.id, not off)
        emit(as_json, message, lambda: out.print(f"{'Unpinned' if off else 'Pinned'} {_label(message)}"))


@chat_app.command("history")
def chat_history(
    process: ProcessArgument,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Start at this message (0: the first).")] = 0,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Messages to show.")] = 50,
    archived: Annotated[bool | None, typer.Option("--archived/--live", help="Only messages folded into a summary, "
                                                  "or only live ones (default: all).", show_default=False)] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """The original messages in conversation order, folded ones included (with the summary that holds them)."""
    with open_library(library) as lib:
        page = conversations.history(lib, process, offset=offset, limit=limit, archived=archived)
        emit(as_json, page, lambda: _history(page))


@chat_app.command("compose")
def chat_compose(
    process: ProcessArgument,
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, help="The block's length at most, in tokens.")],
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Print the conversation part of the process's next prompt (Markdown on stdout; its size on stderr)."""
    with open_library(library) as lib:
        block = conversations.compose_block(lib, process, budget)

        def human() -> None:
            out.print(block.markdown, markup=False)
            err.print(f"{block.tokens:,} of {block.budget:,} tokens; {len(block.pinned)} pinned, "
                      f"{len(block.recent)} recent, {block.left_out} left out", markup=False)

        emit(as_json, block, human)


@chat_app.command("compact")
def chat_compact(
    process: ProcessArgument,
    window: Annotated[int, typer.Option("--window", "-w", min=1, help="The model's context window, in tokens.")],
    tokens_in: Annotated[int | None, typer.Option("--tokens-in", min=0, help="The prompt's tokens now, as the "
                                                  "model counts them (default: the conversation's).",
                                                  show_default=False)] = None,
    wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """The sliding window: fold older messages into the summary when the prompt passes a threshold of the window."""
    with open_library(library) as lib:
        result = conversations.compact(lib, process, context_window=window, tokens_in=tokens_in)
        _index(lib, result.written, wait)
        emit(as_json, result, lambda: _compaction(result))


@chat_app.command("compact-range")
def chat_compact_range(
    process: ProcessArgument,
    first: Annotated[int, typer.Argument(help="The range's first message number (#, `chat history`).")],
    last: Annotated[int, typer.Argument(help="Its last message number (included).")],
    topic: Annotated[str, typer.Option("--topic", "-t", help="What the range was about (the stitch shows it).")],
    wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Fold a finished sub-topic into its own summary, leaving a Topic-Stitch where it was (pinned ones stay)."""
    with open_library(library) as lib:
        result = conversations.compact_range(lib, process, first, last, topic=topic)
        _index(lib, result.written, wait)
        emit(as_json, result, lambda: _compaction(result))


@chat_app.command("archives")
def chat_archives(process: ProcessArgument, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """The process's summaries (archived_chat memories), oldest first: range, stage or topic, and status."""
    with open_library(library) as lib:
        found = conversations.archives(lib, process)
        emit(as_json, found, lambda: _archives(found))


@chat_app.command("parent")
def chat_parent(
    process: ProcessArgument,
    parent: Annotated[str | None, typer.Argument(help="The process it works for (default: show it).")] = None,
    none: Annotated[bool, typer.Option("--none", help="It works for no process.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show or set the process a worker reports to: its summary (same project) or only its name (another project)
    heads the worker's prompt block."""
    with open_library(library) as lib:
        if none and parent is not None:
            raise InvalidInput("give a parent process or --none, not both")
        path = conversations.check_process(lib, process)
        found = conversations.set_parent(lib, path, parent) if parent is not None or none \
            else conversations.parent_process(lib, path)
        emit(as_json, {"process": path, "parent": found},
             lambda: out.print(f"{escape(path)} works for {escape(found)}" if found
                               else f"{escape(path)} works for no other process"))


def _index(lib: Library, document_ids: list[str], wait: bool) -> None:
    """Embed what the command wrote now (if no other process is the writer), unless ``--no-wait``."""
    if wait and document_ids:
        indexing.try_drain(lib, documents=document_ids)


def _label(message: ChatMessage) -> str:
    """``#3 user, pinned (doc_…, 12 tokens)``."""
    state = ", pinned" if message.pinned else ""
    tokens = f"{message.tokens:,} token{'s' if message.tokens != 1 else ''}"
    return f"#{message.seq} {message.role.value}{state} [dim]({message.id}, {tokens})[/dim]"


def _seqs(messages: list[ChatMessage]) -> str:
    return ", ".join(f"#{m.seq}" for m in messages) or "none"


def _history(page: HistoryPage) -> None:
    if not page.messages:
        out.print(f"No messages here ({page.live} live, {page.archived} archived in {escape(page.process)}).")
        return
    table = Table(show_edge=False, pad_edge=False)
    for column in ("#", "role", "state", "message"):
        table.add_column(column, overflow="fold")
    key_column(table, "id", [message.id for message in page.messages])
    for message in page.messages:
        state = [*(["pinned"] if message.pinned else []),
                 *([f"in {message.archived_in}"] if message.archived_in else [])]
        role = "stitch" if message.kind is MessageKind.STITCH else message.role.value
        table.add_row(str(message.seq), role, " ".join(state) or "live", escape(message.content), message.id)
    out.print(table)
    end = page.offset + len(page.messages)
    more = f"; --offset {end} for more" if end < page.total else ""
    out.print(f"[dim]{page.offset + 1}–{end} of {page.total} · {page.live} live, {page.archived} archived, "
              f"{len(page.archives)} summar{'ies' if len(page.archives) != 1 else 'y'}{more}[/dim]")


def _compaction(result: CompactionResult) -> None:
    out.print(escape(result.reason))
    if result.archive is not None:
        out.print(f"  summary {result.archive.id} ({result.archive.tokens:,} tokens, messages "
                  f"#{result.archive.first_seq}–#{result.archive.last_seq})"
                  + (f", stitch {result.stitch_id}" if result.stitch_id else ""))


def _archives(found: list[ChatArchive]) -> None:
    """One line per summary (id, what folded it, its range and size), then the summary, indented."""
    if not found:
        out.print("No summaries yet: nothing has been folded.")
        return
    for archive in found:
        how = f"{archive.stage.value} stage" if archive.stage else f"topic: {archive.topic}"
        out.print(f"{archive.id}  [bold]{escape(how)}[/bold]  messages #{archive.first_seq}–#{archive.last_seq} "
                  f"({len(archive.message_ids)} folded, {archive.tokens:,} tokens, {archive.status})")
        for line in archive.summary.strip().splitlines():  # bounded by chat_summary_tokens: shown whole
            out.print(f"  {line}", markup=False)
