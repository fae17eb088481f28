"""The memory tools as a Model Context Protocol server over stdio: ``vancetope mcp --scope think-process/tp_12``.

Built on the official SDK's low-level :class:`mcp.server.Server` (not ``MCPServer``): our tools already
have pydantic input and output models and validate their own arguments, so the server only hands
their JSON schemas out and maps calls, results and errors. One server acts for one scope, fixed at
start:

* tools: every tool of :data:`.tools.TOOLS` (the conversation tools ``chat_*`` among them); from a think
  process also ``memory_store_result`` and ``mark_task_changed`` (:mod:`.task_tree`); from any scope
  ``memory_context`` (:mod:`.context`).
  A result is structured content (the output model as JSON, checked by clients against the tool's
  output schema) plus the same JSON, compact, as one text block: the specification asks for it ("a tool
  that returns structured content SHOULD also return the serialized JSON in a TextContent block",
  2025-06-18, server/tools, Structured Content), the SDK's own low-level handler does the same, and clients
  that read only ``content`` (several do, and would otherwise see an empty result) get the whole answer.
  A tool that generates (``digest_run``…) asks the client's own model when the library's generator is ``mcp``
  and the client offers sampling (:mod:`.mcp_sampling`, ``MemoryTools.generator``).
  A :class:`VancetopeError` becomes a tool error (``isError``) carrying ``Type: message`` on one line,
  e.g. the visibility rule; an unexpected exception too, logged with its traceback.
* prompts: ``session_start`` (:mod:`.mcp_prompts`), the start-of-session block as a user message.
* resources: ``vancetope://document/{doc_id}``, a document's text read through ``memory_read`` (the
  same visibility rule); the listing holds the newest :data:`RESOURCE_LIMIT` documents the scope sees.

Tool calls run one at a time on a worker thread (writes go through one serial lane, and the event
loop keeps answering while a model loads). After a write the server embeds what that write queued when
no other process holds the index writer lock, then gives the lock up: the open app's indexing process
takes it within its 2 s poll, and the app shows new documents after its change-counter poll.
Stdout is the protocol channel: nothing here prints, logs go to stderr.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from .. import __version__
from ..core.errors import InvalidInput, VancetopeError
from ..core.scopes import ScopeKind, ScopePath
from ..generation.model import ChatModel
from ..services import documents, indexing, relations, review
from ..services.library import Library
from . import mcp_prompts, task_tree
from .context import ContextBlock, context_block
from .mcp_sampling import sampling_chat
from .models import DocumentSummary, StoredDocument
from .tool_input import ToolInput, ToolSpec, parse_arguments
from .tools import TOOLS, TOOLS_BY_NAME, MemoryTools

logger = logging.getLogger(__name__)

URI_PREFIX = "vancetope://document/"
URI_TEMPLATE = URI_PREFIX + "{doc_id}"
RESOURCE_LIMIT = 200
"""How many documents (newest first) ``resources/list`` names; any readable one is still read by its URI."""
WRITING_TOOLS = frozenset({"memory_store", "memory_store_episode", "memory_tag", "memory_request_promotion",
                           "memory_store_result", "mark_task_changed", "memory_set_reading_status", "memory_relate",
                           "memory_restore", "plan_update", "plan_happened", "digest_run", "atoms_extract",
                           "atoms_files_setting", "memory_profile", "topics_edit", "topics_rebuild", "chat_append",
                           "chat_pin", "chat_compact", "chat_compact_range", "chat_import", "chat_parent"})
READ_ONLY_TOOLS = frozenset({"memory_query", "memory_recall", "memory_session_start", "memory_list",
                             "memory_duplicates", "memory_read",
                             "memory_context", "memory_promotion_requests", "memory_cite", "memory_annotations",
                             "memory_links", "memory_relations", "memory_neighbourhood", "atoms_list",
                             "digest_show", "topics_browse", "topics_search", "chat_compose", "chat_history"})


class StoreResultInput(ToolInput):
    """``memory_store_result``: save a task node's output as a result (a re-run replaces it)."""

    node_id: str = Field(min_length=1, description="The task node's id in your tree, e.g. 'extract_paper_1'.")
    node_type: Literal["extract", "analyze", "verify", "synthesize", "other"] = Field(
        default="other", description="What the node does; decides the tag (#extraction, #analysis, …).")
    title: str = Field(description="A short title for the result.")
    content: str = Field(description="The node's output (Markdown is fine).")
    derived_from: list[str] = Field(default_factory=list, description="Ids of the documents the node read "
                                    "(doc_…); each must be readable by you.")
    tags: list[str] = Field(default_factory=list, description="Further tags, e.g. topics.")


class TaskChangedInput(ToolInput):
    """``mark_task_changed``: a task changed, so its results and what derives from them may be out of date."""

    node_id: str = Field(min_length=1, description="The task node that changed.")


class ContextInput(ToolInput):
    """``memory_context``: the most relevant memory for starting work, as Markdown."""

    question: str | None = Field(default=None, description="What you are about to do, to rank by relevance.")
    token_budget: int = Field(default=1500, ge=50, le=20_000, description="The block's length at most, in tokens.")


class StaleDocuments(BaseModel):
    """What ``mark_task_changed`` returns: the documents now marked stale."""

    node_id: str
    stale: list[str] = Field(default_factory=list, description="Ids now stale: the node's results first, then "
                             "what derives from them. Empty when the node has no result yet.")


TASK_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("memory_store_result", "Save a task node's output as a result document in your scope, with the "
             "documents it was derived from. Running the node again replaces the content as a new version and "
             "clears its stale mark.", StoreResultInput, StoredDocument),
    ToolSpec("mark_task_changed", "Say a task node changed: its results and everything derived from them are "
             "marked #stale until re-run.", TaskChangedInput, StaleDocuments),
)
CONTEXT_TOOL = ToolSpec("memory_context", "Start of work: the most relevant memory you can see (your notes and "
                        "results, your session's, your project's facts and decisions, plans ahead with their due "
                        "dates and the last month's events) as a Markdown block with document ids, within a token "
                        "budget.", ContextInput, ContextBlock)


class ScopedMemory:
    """The tools and document resources of one acting scope, synchronous (the server calls them on a thread).

    Args:
        lib: an open library. scope: the acting scope's path, e.g. ``think-process/tp_12``.

    Raises:
        InvalidInput: a blank or malformed scope. ScopeNotFound: no such scope.
    """

    def __init__(self, lib: Library, scope: str) -> None:
        self.lib = lib
        self.memory = MemoryTools(lib, scope, index_now=True)
        self.scope = self.memory.scope
        path = ScopePath.parse(self.scope)
        self.think_process_id = path.key if path.kind is ScopeKind.THINK_PROCESS else None
        specs = (*TOOLS, *(TASK_TOOLS if self.think_process_id else ()), CONTEXT_TOOL)
        self.specs: dict[str, ToolSpec] = {spec.name: spec for spec in specs}

    def call(self, name: str, arguments: dict[str, Any] | None, sampling: ChatModel | None = None) -> BaseModel:
        """Run tool ``name`` with its JSON arguments and return its output model; ``sampling`` is the calling
        client's model (``MemoryTools.call``: the tools that generate use it when the library's generator is
        ``mcp``).

        Raises:
            InvalidInput: an unknown tool or bad arguments (naming each); whatever the tool raises.
        """
        spec = self.specs.get(name)
        if spec is None:
            raise InvalidInput(f"unknown tool {name!r} (tools: {', '.join(self.specs)})")
        try:
            if name in TOOLS_BY_NAME:
                return self.memory.call(name, arguments, sampling=sampling)
            args = parse_arguments(spec.input_model, **dict(arguments or {}))
            if isinstance(args, StoreResultInput):
                return self._store_result(args, sampling)
            if isinstance(args, TaskChangedInput):
                stale = task_tree.mark_task_changed(self.lib, args.node_id, think_process_id=self._tp_id())
                self._index(stale)
                return StaleDocuments(node_id=args.node_id, stale=stale)
            assert isinstance(args, ContextInput)
            return context_block(self.lib, self.scope, token_budget=args.token_budget, query=args.question)
        finally:
            if name in WRITING_TOOLS:
                # A long-running server must not keep the writer lock the app's indexing process waits for.
                self.lib.writer_lock.release()

    def resources(self) -> list[DocumentSummary]:
        """The newest :data:`RESOURCE_LIMIT` live documents of the scope and its ancestors (``memory_list``)."""
        return self.memory.memory_list(limit=RESOURCE_LIMIT).documents

    def read_resource(self, uri: str) -> tuple[DocumentSummary, str]:
        """The document behind ``vancetope://document/<doc_id>`` and its whole text, read with ``memory_read``.

        Raises:
            InvalidInput: not a document URI. DocumentNotFound. ScopeNotVisible: the visibility rule.
        """
        if not uri.startswith(URI_PREFIX) or not uri[len(URI_PREFIX):].strip():
            raise InvalidInput(f"not a document URI: {uri!r} (expected {URI_TEMPLATE})")
        doc_id, parts, offset = uri[len(URI_PREFIX):].strip(), [], 0
        while True:
            part = self.memory.memory_read(doc_id, offset=offset, max_chars=200_000)
            parts.append(part.text)
            if part.next_offset is None:
                return part, "".join(parts)
            offset = part.next_offset

    def _store_result(self, args: StoreResultInput, sampling: ChatModel | None) -> StoredDocument:
        # The requests of the node's earlier result: a request not among them was made by this call (a tag rule).
        earlier = relations.node_results(self.lib, self._tp_id(), args.node_id, scope=self.scope)
        known = {r.id for d in earlier for r in review.list_requests(self.lib, status=None, document_id=d.id)}
        doc = task_tree.memory_store_result(self.lib, args.node_id, args.node_type, args.title, args.content,
                                            args.derived_from, think_process_id=self._tp_id(), scope=self.scope,
                                            tags=args.tags, generator=self.memory.with_sampling(sampling).generator())
        if self._index([doc.id]):
            doc = documents.get_document(self.lib, doc.id)
        return self.memory.as_stored(doc, known_requests=known)  # a tag rule may have asked for its promotion

    def _index(self, document_ids: list[str]) -> bool:
        """Index what this call queued for ``document_ids`` if no other process is the writer (the rest of
        the queue is the writer's); True when this process did."""
        return indexing.try_drain_own(self.lib, document_ids) is not None

    def _tp_id(self) -> str:
        assert self.think_process_id is not None  # task tools are offered to think processes only
        return self.think_process_id


def build_server(memory: ScopedMemory) -> Server[Any]:
    """An MCP server (low-level SDK) exposing ``memory``'s tools and documents; serve it with :func:`serve_stdio`."""
    # One call at a time: the services are thread-safe, but writes belong in one serial lane.
    lane = anyio.CapacityLimiter(1)

    async def run(func: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(func, *args, limiter=lane)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(spec) for spec in memory.specs.values()])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            # The client's model, when it offers sampling: asked from the worker thread (mcp_sampling).
            result = await run(memory.call, params.name, params.arguments, sampling_chat(ctx))
        except VancetopeError as error:
            return _tool_error(f"{type(error).__name__}: {error}")
        except Exception as error:  # a bug must not end the session: tell the agent, keep the traceback
            logger.exception("tool %s failed", params.name)
            return _tool_error(f"internal error in {params.name}: {error}")
        data = result.model_dump(mode="json")
        text = json.dumps(data, ensure_ascii=False)  # compact: it lands in the model's context
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data)

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        docs = await run(memory.resources)
        return types.ListResourcesResult(resources=[
            types.Resource(name=d.doc_id, title=d.title, uri=URI_PREFIX + d.doc_id, mime_type="text/plain",
                           description=_describe(d)) for d in docs
        ])

    async def list_templates(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            name="document", uri_template=URI_TEMPLATE, mime_type="text/plain",
            description=f"A document's text by id: {memory.scope}'s own, an ancestor scope's, or one the user "
                        "shared with it.",
        )])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        try:
            _doc, text = await run(memory.read_resource, params.uri)
        except VancetopeError as error:
            # SEP-2164: an unreadable resource is invalid params, with the reason (e.g. the visibility rule).
            raise MCPError(types.INVALID_PARAMS, f"{type(error).__name__}: {error}", {"uri": params.uri}) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, mime_type="text/plain",
                                                                             text=text)])

    async def list_prompts(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=list(mcp_prompts.PROMPTS))

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
                         ) -> types.GetPromptResult:
        if params.name != mcp_prompts.SESSION_START:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r} (prompts: "
                           f"{mcp_prompts.SESSION_START})")
        try:
            start = await run(mcp_prompts.session_start_prompt, memory.memory, params.arguments)
        except VancetopeError as error:  # like an unreadable resource: invalid params, with the reason
            raise MCPError(types.INVALID_PARAMS, f"{type(error).__name__}: {error}") from None
        return mcp_prompts.prompt_result(start)

    return Server(
        "vancetope", version=__version__, title="Vancetope memory",
        instructions=f"Research memory of {memory.scope}: you read your own scope and its ancestors and write only "
                     "your own scope (and, in a session an agent runs, that agent's own scope: scope='agent'). Call "
                     "memory_context when you start (an agent: memory_session_start), "
                     "memory_query to find (memory_recall: in one namespace only), memory_store to remember. "
                     "Every document has a doc_… id. To share a document with an ancestor scope (e.g. "
                     "the project), ask with memory_request_promotion: the user reviews the request; "
                     "memory_promotion_requests tells you later whether it was approved or rejected, and why. "
                     "The library keeps your conversation too: chat_append each message, chat_compact at the start "
                     "of every turn, chat_compose for the conversation part of your prompt.",
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_templates, on_read_resource=read_resource,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt,
    )


async def serve_stdio(memory: ScopedMemory) -> None:
    """Serve ``memory`` over this process's stdin/stdout until the client closes stdin."""
    server = build_server(memory)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(lib: Library, scope: str) -> None:
    """Run the stdio server for ``scope`` until the client disconnects (what ``vancetope mcp`` does).

    Raises:
        InvalidInput / ScopeNotFound: a bad scope, before anything is served.
    """
    memory = ScopedMemory(lib, scope)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="vancetope mcp: %(levelname)s %(message)s")
    logger.info("serving %s of %s", memory.scope, lib.paths.root)
    anyio.run(serve_stdio, memory)


@functools.cache
def _tool(spec: ToolSpec) -> types.Tool:
    """``spec`` as ``tools/list`` names it, made once per process: its two JSON schemas (pydantic's
    ``model_json_schema``) cost 0.2 s of CPU for the ~40 tools each time they were made again."""
    read_only = spec.name in READ_ONLY_TOOLS
    return types.Tool(name=spec.name, description=spec.description,
                      input_schema=spec.input_model.model_json_schema(),
                      output_schema=spec.output_model.model_json_schema(),
                      annotations=types.ToolAnnotations(read_only_hint=read_only, destructive_hint=False,
                                                        open_world_hint=False))


def _tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _describe(doc: DocumentSummary) -> str:
    tags = " ".join(f"#{t}" for t in doc.tags)
    return f"{doc.type} in {doc.scope}" + (f", {tags}" if tags else "") + (", stale" if doc.status == "stale" else "")
