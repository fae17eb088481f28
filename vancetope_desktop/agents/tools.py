"""The Think Process memory tools (seed §6.3), bound to one acting scope, over the same services as the app.

``MemoryTools(lib, scope="think-process/tp_12")`` offers ``memory_store``, ``memory_query``,
``memory_list``, ``memory_duplicates``, ``memory_read``, ``memory_annotations`` (a PDF's highlights and
notes), ``memory_tag``, ``memory_request_promotion``, ``memory_promotion_requests`` (the user's decisions on
them), ``memory_cite`` (citations for a report), ``memory_links`` (a document's [[links]] and backlinks) and
``memory_set_reading_status``; for agent memory ``memory_recall`` (one namespace only),
``memory_store_episode`` and ``memory_session_start`` (the seed's three start-of-session recalls); ``topics_search``
(the atoms down the topic trees; ``memory_query`` and ``memory_recall`` take the same ``mode``); and the
process's conversation, ``chat_append`` … ``chat_history`` (:mod:`.chat_tools`, mixed in). Each takes
the seed's argument names, validates them through its input model
(:mod:`.models`) and returns a pydantic model; :data:`TOOLS` lists name, description and models for an
MCP server, and :meth:`MemoryTools.call` runs a tool from a JSON argument object.

The visibility rule (seed §4.2) is enforced here, not trusted to the caller:

* reading: the acting scope's own documents and its ancestors'; another scope's document only by id
  and only when the user shared it (``services.sharing``: the one "may read" decision, with the hook
  for the sibling-visibility setting). Shared documents are not listed or searched: the seed allows
  other think processes' memory "only via explicit reference".
* writing (store, tag, relate from, archive, restore): the acting scope's own memory, and for a session or
  think process run by an agent that agent's own namespace (``sharing.write_grant``, the one "may write"
  decision: ``memory_store(..., scope="agent")`` from a session tau runs stores in ``agent/tau``). Writing
  into an ancestor is a promotion the user reviews (seed §4.3, §8): ``memory_store(..., scope=<ancestor>)``
  stores in the acting scope and files a promotion request to that ancestor (``services.review``), as
  ``memory_request_promotion`` does for a document stored earlier. The document moves only when the user
  approves, or at once when an auto-approving tag rule (``services.promotion_rules``) asks; the result then
  shows the request as approved and the document's new scope.

A forbidden access raises a typed error naming the rule (``ScopeNotVisible``, ``AccessDenied``), never
an empty success; bad arguments raise ``InvalidInput``, unknown ids
``DocumentNotFound`` and unknown scopes ``ScopeNotFound``. All of them are ``VancetopeError``: an MCP
server turns ``str(error)`` into a tool error.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..core.atoms import Atom
from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, Source, SourceType
from ..core.errors import AccessDenied, DocumentNotFound, EmptyQuery, InvalidInput, ScopeNotVisible, VancetopeError
from ..core.memories import MEMORY_TYPE_GUIDANCE, Episode
from ..core.promotion import RequestStatus
from ..core.reading import ReadingStatus
from ..core.relations import RELATION_GUIDE, RelationType
from ..core.scopes import ScopeKind, ScopePath
from ..core.tags import all_of, normalize_tag, normalize_tags
from ..generation.base import Generator
from ..generation.model import ChatModel
from ..services import (
    annotations,
    atom_extraction,
    atoms,
    audit,
    citations,
    digest,
    documents,
    duplicates,
    episodes,
    generators,
    graph,
    indexing,
    lifecycle,
    memories,
    memory_guard,
    notelinks,
    reading,
    review,
    sharing,
    source_profile,
    topic_upkeep,
    topics,
)
from ..services import session_start as start
from ..services.atom_extraction import ExtractionReport, FilesSetting, SourceOutcome
from ..services.digest import DigestRun
from ..services.graph import RelatedDocument
from ..services.library import Library
from ..services.memories import Recall
from ..services.scopes import ancestry, resolve_relative, resolve_scope, visible_scopes
from ..services.session_start import SessionStart
from ..services.topic_search import TopicHit, topic_search
from ..services.topic_upkeep import TopicUpkeep
from .atom_models import (
    AtomList,
    AtomsExtractInput,
    AtomsFilesSettingInput,
    AtomsListInput,
    PlanHappenedInput,
    PlanUpdateInput,
)
from .chat_tools import CHAT_TOOLS, ChatTools
from .digest_models import DigestRunInput, DigestShowInput, TopicsRebuildInput
from .models import (
    HIDDEN_METADATA,
    AnnotationsInput,
    AnnotationsResult,
    Citations,
    CiteInput,
    DocumentLinksResult,
    DocumentList,
    DocumentSummary,
    DocumentText,
    DuplicateGroupSummary,
    DuplicateList,
    DuplicatesInput,
    EpisodeInput,
    LinksInput,
    ListInput,
    Mention,
    NoteLink,
    PreviousDecision,
    PromotionInput,
    PromotionRequest,
    PromotionRequestList,
    PromotionRequestsInput,
    QueryHit,
    QueryInput,
    QueryResult,
    ReadingStatusInput,
    ReadInput,
    RecallInput,
    SessionStartInput,
    StoredDocument,
    StoreInput,
    TagInput,
)
from .profile_models import ProfileInput, ProfileResult, SourceProfileView
from .relation_models import (
    NeighbourhoodInput,
    RelateInput,
    RelateResult,
    RelationsInput,
    RelationsResult,
    RestoreInput,
)
from .tool_input import ToolSpec, parse_arguments
from .topic_models import TopicsBrowse, TopicsBrowseInput, TopicsEdit, TopicsEditInput
from .topic_search_models import TopicPathView, TopicsSearchInput, TopicsSearchResult

LIVE_STATUSES = (DocumentStatus.ACTIVE, DocumentStatus.STALE)
"""What queries and listings return: stale results stay (their ``status`` says so) until their task re-runs."""

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("memory_store", "Store text (a note, fact, result or reference) in your own memory scope and get its "
             "document id. Tag it so you and later tasks can find it. In a session your agent runs, scope='agent' "
             "stores it in your agent's own namespace (its state and lessons, kept across sessions). To share it "
             "more widely, give an ancestor "
             "scope (e.g. scope='project') and a reason: it is still stored in your scope, and a promotion request "
             "goes to the user, who reviews it; the result's promotion_request holds the request id (req_…) and "
             "promotion_status its state. The document moves only if the user approves, or at once when a tag "
             "rule that approves automatically fires (promotion_status 'approved', scope shows where it went: it "
             "is then read-only for you). A note or fact very close to one of your active ones is not stored twice: "
             "on_duplicate says what to do (return the existing one, store anyway, or update: replace it). "
             "relates_to relates the new document to another (updates archives the older memory). "
             "An event needs when it happened (when), a plan when it is due (due): ISO dates or plain phrases "
             "('next Friday'). "
             "To remember something as an agent, give memory_type. " + MEMORY_TYPE_GUIDANCE,
             StoreInput, StoredDocument),
    ToolSpec("memory_query", "Search your memory by meaning and by words: your own scope and its ancestors "
             "(session, project, group), nearer scopes ranked higher. Returns documents with their best passage "
             "and page. memory_type keeps agent memories of one type (feedback, project, reference, user, episode); "
             "memory_recall searches one namespace only.", QueryInput, QueryResult),
    ToolSpec("memory_recall", "Recall the memories of one namespace (a scope: 'group/global', 'project/…', "
             "'agent/…') that best match a query, by meaning and by words: each with its id, memory_type, content, "
             "namespace and score (0-1). Only that scope is searched (memory_query searches your scope and its "
             "ancestors together). Recall before repeating a task that failed before, and at the start of work.",
             RecallInput, Recall),
    ToolSpec("memory_session_start", "Start of a session: in one call, the seed's three recalls as one Markdown "
             "block within a token budget: the global conventions (your project's group), the project's decisions "
             "and your agent's own state (current work, priorities, recent episodes), each memory with its id and "
             "memory_type under a heading naming its namespace. What the budget left out is counted in the block "
             "and listed by id per section (read those with memory_read or memory_recall).",
             SessionStartInput, SessionStart),
    ToolSpec("memory_store_episode", "Record an episode in your own scope (namespace='agent': your agent's own "
             "namespace, from a session it runs): something significant that happened "
             "(context, goal, action, outcome, insight, severity minor|major|critical). Store one after any failure, "
             "after finding a non-obvious trap (a library quirk, an API behaviour, a deploy order), and after a "
             "pattern that worked but was not obvious. Before repeating a task that failed, recall episodes with "
             "memory_recall(memory_types=['episode']). Every field is required.", EpisodeInput, Episode),
    ToolSpec("memory_list", "List documents you can see, newest first, optionally by tags, type, memory type or "
             "one scope.",
             ListInput, DocumentList),
    ToolSpec("memory_read", "Read a document's text by id: yours, an ancestor scope's, or one the user shared "
             "with you. Long texts come in parts (offset / next_offset).", ReadInput, DocumentText),
    ToolSpec("memory_annotations", "Read what the user highlighted and noted in a PDF (a paper), in reading "
             "order: each highlight's quoted text, page and comment, and each page note. Annotations are also "
             "documents of type 'annotation': memory_query finds them by their text.", AnnotationsInput,
             AnnotationsResult),
    ToolSpec("memory_tag", "Add or remove tags on one of your own documents (documents of ancestor scopes are "
             "read-only). Some tags ask for promotion by a rule (#project-relevant: to your project); then the "
             "result's promotion_request holds the request id and promotion_status its state. A rule may approve "
             "at once: then promotion_status is 'approved', scope shows where the document went, and it is "
             "read-only for you from then on.", TagInput, StoredDocument),
    ToolSpec("memory_request_promotion", "Ask the user to move one of your documents up to an ancestor scope "
             "(e.g. the project), with a reason for the review. Files a promotion request in the user's review "
             "queue and returns it with its id (req_…) and status 'pending'; the document stays in your scope "
             "until the user approves (the user may also reject it, with a reason). One request per document at "
             "a time: asking again for the same scope while it is pending returns that request; asking for "
             "another scope is an error naming the pending one. If the user rejected the document's last request, "
             "previous_decision says why. Learn the decision later with memory_promotion_requests.",
             PromotionInput, PromotionRequest),
    ToolSpec("memory_cite", "Cite documents you can read, for a report: formatted bibliography entries in a "
             "style (apa, chicago, nature, ieee), or BibTeX, RIS or CSL-JSON entries. Each document has a stable "
             "citation key (first author + year + title word, e.g. smith2020glacier), the same in every export "
             "and in the user's app: keys gives it per document id.", CiteInput, Citations),
    ToolSpec("memory_promotion_requests", "Learn what the user decided on your promotion requests: the requests "
             "made from your scope (optionally for one document, or in one status), pending ones first, then the "
             "decided ones, latest first. status tells whether the user approved (final_scope: where the "
             "document went; it is read-only for you now) or rejected it; decision_reason says why, decided_by "
             "and decided_at who and when. Check it before asking again or building on a promoted result.",
             PromotionRequestsInput, PromotionRequestList),
    ToolSpec("memory_duplicates", "Find likely duplicates among the documents you can see (your scope and its "
             "ancestors, or one of them): documents with the same file or text, the same DOI, or the same title and "
             "year, grouped, each group saying why. Check before storing something that may be known already; "
             "merging is the user's (in the app or `vancetope memory duplicates --merge`).",
             DuplicatesInput, DuplicateList),
    ToolSpec("memory_links", "Follow a document's links: where each [[Title]] link of its text leads (missing "
             "and ambiguous targets are named, never guessed), the documents linking to it, and those naming its "
             "title without a link (unlinked mentions, with the text around).", LinksInput, DocumentLinksResult),
    ToolSpec("memory_relate", "Relate one of your documents to a document you can read, with a type. "
             + RELATION_GUIDE + " An updates edge to a document that already updates yours (directly or through "
             "others) is refused.", RelateInput, RelateResult),
    ToolSpec("memory_relations", "A document's typed relations both ways, grouped by type (outgoing: what it "
             "updates, supports…; incoming: what updates it, supports it…), among the documents you can read.",
             RelationsInput, RelationsResult),
    ToolSpec("memory_neighbourhood", "The documents within depth relations of a document (either direction, any "
             "type) and every edge among them, each document with its distance, type, memory_type and status: "
             "follow a chain of updates, or see what a decision rests on, in one call. Only documents you can read.",
             NeighbourhoodInput, graph.Neighbourhood),
    ToolSpec("memory_restore", "Bring one of your archived memories back to active (e.g. one that was superseded "
             "by mistake): the updates relations into it are removed.", RestoreInput, RelatedDocument),
    ToolSpec("memory_set_reading_status", "Mark your own documents unread, reading or read (files and "
             "references start unread), so that you and the user know what was read.", ReadingStatusInput,
             DocumentList),
    ToolSpec("atoms_list", "List the atoms you can see (facts, events and plans: one statement each, read from "
             "sources or stored directly), newest first: each with its when (events), due and plan_status (plans), "
             "and the source it was read from (source_gone: the source was deleted; the atom stays). Filter by "
             "type, plan status (e.g. missed), source, due_before or text.", AtomsListInput, AtomList),
    ToolSpec("atoms_extract", "Read facts, events and plans from documents of yours (notes, results, PDFs…): "
             "each becomes an atom in the document's scope, derived from it, with the passage (and page) it was "
             "read from. Notes and results you store are read already; files only where atoms_files_setting is on. "
             "Reading a document again adds only what is new; atoms a person edited are never touched. Returns "
             "each document's outcome (added atom ids, skipped or failed with why) and a summary.",
             AtomsExtractInput, ExtractionReport),
    ToolSpec("atoms_files_setting", "Whether files (PDF, docx, html…) imported into your scope get their atoms "
             "read at import: off by default, inherited from the parent scope unless set. enabled sets it; "
             "inherit forgets your scope's own value; neither: only tell it.", AtomsFilesSettingInput,
             FilesSetting),
    ToolSpec("plan_update", "Set one of your plans' status: planned, missed or canceled. There is no "
             "'completed': when a plan happened, call plan_happened.", PlanUpdateInput, Atom),
    ToolSpec("plan_happened", "Record that one of your plans happened: an event atom (when; text defaults to the "
             "plan's statement) that updates the plan, which is archived. Returns the event.", PlanHappenedInput,
             Atom),
    ToolSpec("digest_run", "Write up your scope's day (a note 'Digest — YYYY-MM-DD' linking the day's sources and "
             "atoms) and reconcile its atoms: near-duplicates merged (the survivor updates the others), facts that "
             "differ only in a number marked contradicts, past-due plans become the matching event or missed; atoms "
             "a person edited are never changed. Once per day: a second run says 'already digested' unless new "
             "material came. The person reviews and can undo the whole run.", DigestRunInput, DigestRun),
    ToolSpec("digest_show", "A day's digest of your scope (or one you can see): the writeup and its change set "
             "(kept, added, modified, deleted, each with why).", DigestShowInput, DigestRun),
    ToolSpec("memory_profile", "Write the summary, keywords and suggested topics (the profile) of your own sources "
             "(files, notes, results, references with an abstract, data; not atoms, annotations or digests): those "
             "named by doc_ids, or with missing=true those without one or whose text changed since. Imports and "
             "edits make profiles themselves; this is for older sources. memory_read shows a document's profile.",
             ProfileInput, ProfileResult),
    ToolSpec("topics_browse", "Browse a topic tree: the map of a scope's atoms by topic (each topic with its label, "
             "keywords, path, own and subtree atom counts, and what a person pinned), or with topic_id one topic's "
             "atoms and the sources they were read from. Trees are kept by the daily digest; visible_trees names the "
             "scopes you see that have one.", TopicsBrowseInput, TopicsBrowse),
    ToolSpec("topics_edit", "Change the topic tree of your own scope by hand: rename, move (under another topic), "
             "merge, split (explicit groups of atom ids, or by meaning), move_atom, create or delete a topic. Each "
             "edit is pinned: the digest keeps it. The root (named after the scope) is never renamed, moved or "
             "deleted; a topic moves within its own tree.", TopicsEditInput, TopicsEdit),
    ToolSpec("topics_rebuild", "Keep your scope's topic tree now, as the daily digest does: rebuilt from scratch "
             "while your scope has few atoms, revised locally once consolidated (new atoms attached to their "
             "topic, big topics split, near-identical ones merged); a person's pinned edits are kept. Returns each "
             "change with why. The person reviews and can undo it.", TopicsRebuildInput, TopicUpkeep),
    ToolSpec("topics_search", "Find the atoms (facts, events, plans) that best answer a query by walking the topic "
             "trees of your scope and its ancestors: the query is routed down the topics whose keywords and meaning "
             "match, then the atoms under the best topics are ranked. Each atom comes with its topic path "
             "('Travel › Hiking'), the source it was read from and the page, and why it matched. mode 'flat' ranks "
             "every atom instead (the default 'auto' does so until a tree is consolidated). The result says how many "
             "atoms were scored of how many.", TopicsSearchInput, TopicsSearchResult),
    *CHAT_TOOLS,
)
TOOLS_BY_NAME = {spec.name: spec for spec in TOOLS}


class MemoryTools(ChatTools):
    """The memory tools of one acting scope (usually a think process, but any scope kind works).

    Args:
        lib: an open library.
        scope: the acting scope's path, e.g. ``think-process/tp_12``.
        index_now: embed what a store or tag queued before returning (when this process can take the
            writer lock; otherwise the open app indexes it within seconds). Without it a new document is
            found by its words at once and by its meaning once indexed.

    Raises:
        InvalidInput: a blank or malformed scope path. ScopeNotFound: no such scope.
    """

    def __init__(self, lib: Library, scope: str, *, index_now: bool = False) -> None:
        if not scope or not scope.strip():
            raise InvalidInput("the memory tools need an acting scope, e.g. 'think-process/tp_12'")
        self.lib = lib
        self.scope = resolve_scope(lib, scope)
        self.kind = ScopePath.parse(self.scope).kind
        self.index_now = index_now
        self._sampling: ChatModel | None = None

    def with_sampling(self, sampling: ChatModel | None) -> MemoryTools:
        """These tools for one MCP call whose client offers ``sampling`` (``agents.mcp_sampling.sampling_chat``):
        a copy whose :meth:`generator` can give that model (the model belongs to one request of one client, so
        it is never kept on the shared instance); ``self`` when ``sampling`` is None."""
        if sampling is None:
            return self
        tools = copy.copy(self)
        tools._sampling = sampling
        return tools

    def generator(self) -> Generator | None:
        """The generator every tool that generates (summaries, atoms, digests) hands its service function.

        The MCP client's model (the built-in generator behind it, for any failed, malformed or late item) when
        this call came with one (:meth:`with_sampling`) and the library's generator is ``mcp`` (Settings ▸
        Generator, ``vancetope generator use mcp``); otherwise None: the service takes the library's own choice
        (``services.generators.library_generator``) and reports why a chosen model is not in use.
        """
        if self._sampling is None or self.lib.settings.generator != "mcp":
            return None
        return generators.library_generator(self.lib, sampling=self._sampling).generator

    @property
    def readable_scopes(self) -> list[str]:
        """The acting scope and its ancestors, nearest first (where promotions may go)."""
        return ancestry(self.lib, self.scope)

    @property
    def visible_paths(self) -> list[str]:
        """What queries and listings cover: the acting scope, its ancestors, then the agent scope that runs it
        (``services.scopes.visible_scopes``; sibling results are read by id only)."""
        return [v.path for v in visible_scopes(self.lib, self.scope) if not v.results_only]

    # -- the tools ----------------------------------------------------------------------------------
    def memory_store(self, content: str, tags: Sequence[str] = (), scope: str | None = None, type: str = "note",
                     title: str | None = None, reason: str | None = None, relates_to: Mapping[str, str] | None = None,
                     on_duplicate: str = "return", memory_type: str | None = None, when: str | None = None,
                     due: str | None = None) -> StoredDocument:
        """Store ``content`` as a new document of ``type`` in the acting scope.

        A think process's documents get the seed's provenance tag ``thinkprocess:<id>`` (§3.3) and
        source ``tool_output`` with its id. With ``scope`` an ancestor, the document is still stored in
        the acting scope and a promotion request to that ancestor is filed (``reason`` for the
        reviewer); its id is the result's ``promotion_request``. With ``scope`` the agent scope that runs the
        acting scope (``sharing.write_grant``), it is stored there directly. When one of ``tags`` makes a rule ask
        first, that request is reported instead (an auto-approving rule has then moved the document, and
        the result's ``scope`` says where). With ``memory_type`` it is an agent memory of that type (a note).
        BibTeX, RIS or CSL-JSON stored as a ``reference`` becomes one reference per entry: the result is the first,
        its ``entries`` lists every one, and the promotion request and ``relates_to`` apply to each.
        A fact, event (``when``) or plan (``due``) is an atom (``services.atoms.atom_metadata``), returned in
        the result's ``atom``; a note or result gets its profile and its atoms read (``services.source_profile``,
        ``services.atom_extraction``, by :meth:`generator`), the atoms listed in the result's ``atoms``.

        The write goes through ``memory_guard.remember``: a near-duplicate of an active note or fact of the
        acting scope is handled as ``on_duplicate`` says (``return``: nothing stored, the existing document
        comes back with ``stored`` false), and ``relates_to`` (``{target_id, type}``) is checked before anything
        is written (an ``updates`` target must be one the acting scope writes: it is archived).

        Raises:
            InvalidInput: blank content, a bad tag, type or memory type (a memory is a note). InvalidAtom: an
            event without ``when``, a plan without ``due``, an unreadable date.
            ScopeNotVisible: ``scope`` is outside the branch, below the acting scope, or another agent's.
            ScopeNotFound / ScopeError: unknown scope.
        """
        args = parse_arguments(StoreInput, content=content, tags=tags, scope=scope, type=type, title=title,
                               reason=reason, relates_to=relates_to, on_duplicate=on_duplicate,
                               memory_type=memory_type, when=when, due=due)
        if not args.content.strip():
            raise InvalidInput("the content is empty: give the text to remember")
        atom_fields = atoms.atom_metadata(args.type, args.content, when=args.when, due=args.due)
        wanted = normalize_tags(args.tags)
        store_in, promote_to = self._write_target(args.scope)
        source = Source(type=SourceType.TOOL_OUTPUT)
        if self.kind is ScopeKind.THINK_PROCESS:
            key = ScopePath.parse(self.scope).key
            source = Source(type=SourceType.TOOL_OUTPUT, think_process_id=key)
            wanted.extend(_provenance_tag(key))
        link = args.relates_to
        if link is not None and link.type == RelationType.UPDATES.value:
            self._writable(link.target_id, "archive (updates)")
        kept = memory_guard.remember(self.lib, args.content, scope=store_in, acting=self.scope,
                                     doc_type=DocumentType(args.type),
                                     title=args.title, tags=wanted, source=source, on_duplicate=args.on_duplicate,
                                     relates_to=(link.target_id, link.type) if link else None, created_by=self._actor(),
                                     memory_type=args.memory_type, metadata=atom_fields, generator=self.generator())
        outcome = {name: getattr(kept, name) for name in ("stored", "entries", "duplicates", "relations", "archived",
                                                          "atoms", "warnings")}
        if kept.document.type in atoms.ATOM_DOCUMENT_TYPES:
            outcome["atom"] = atoms.card(self.lib, kept.document)
        if not kept.stored:
            return self.as_stored(kept.document, known_requests=None).model_copy(update=outcome)
        for entry in kept.entries if promote_to is not None else ():
            # A tag rule may have asked already (and moved it, if it approves at once): that request stands for
            # the one asked here, since a document has one request at a time and the store must not fail now. A
            # pasted reference merged into one already elsewhere is not this call's to promote.
            by_rule = review.list_requests(self.lib, status=None, document_id=entry, limit=1)
            if not by_rule and documents.get_document(self.lib, entry).scope == store_in:
                why = (args.reason or "").strip() or f"stored by {self.scope} for {promote_to}"
                review.request_promotion(self.lib, entry, promote_to, requested_by=self._actor(), reason=why)
        return self.as_stored(self._indexed(kept.document, [*kept.entries, *kept.atoms]),
                              known_requests=()).model_copy(update=outcome)

    def memory_query(self, question: str, tags: Sequence[str] = (), scope: str | None = None,
                     type: str | None = None, limit: int = 10, memory_type: str | None = None,
                     mode: str = "auto") -> QueryResult:
        """Hybrid search (seed §5.3) over the acting scope and its ancestors, or over one of them (``scope``); by
        ``mode`` through their topic trees or flat (``services.topic_search``; auto: the tree once one is
        consolidated).

        Active and stale documents are searched (a hit's ``status`` tells them apart); archived ones are not.

        Raises:
            InvalidInput: a blank question, a bad tag, type, limit or mode. ScopeNotVisible: ``scope`` is
            neither the acting scope nor an ancestor. ScopeNotFound / ScopeError: unknown scope.
        """
        args = parse_arguments(QueryInput, question=question, tags=tags, scope=scope, type=type, limit=limit,
                               memory_type=memory_type, mode=mode)
        if not args.question.strip():
            raise EmptyQuery("the question is empty: say what you are looking for")
        tag_filter = all_of(args.tags) if args.tags else None
        only = None if args.scope is None else [self._read_scope(args.scope)]
        response = topic_search(self.lib, args.question, scope=self.scope, mode=args.mode, tag_filter=tag_filter,
                                types=[DocumentType(args.type)] if args.type else None, statuses=LIVE_STATUSES,
                                scopes=only, limit=args.limit,
                                memory_types=[args.memory_type] if args.memory_type else ())
        return QueryResult(question=args.question, scope=self.scope, scopes=response.scopes,
                           hits=[_query_hit(h) for h in response.hits], warnings=response.warnings,
                           mode=response.mode, mode_reason=response.mode_reason, atoms=response.atoms,
                           atoms_scored=response.atoms_scored)

    def topics_search(self, query: str, mode: str = "auto", scope: str | None = None,
                      limit: int = 10) -> TopicsSearchResult:
        """The atoms that best answer ``query``, down the topic trees of the acting scope and its ancestors (or of
        one of them, ``scope``), each with its topic path, source and page (``services.topic_search``).

        Raises:
            InvalidInput / EmptyQuery: a blank query, a bad limit or mode. ScopeNotVisible / ScopeNotFound.
        """
        args = parse_arguments(TopicsSearchInput, query=query, mode=mode, scope=scope, limit=limit)
        if not args.query.strip():
            raise EmptyQuery("the query is empty: say what you are looking for")
        only = None if args.scope is None else [self._read_scope(args.scope)]
        response = topic_search(self.lib, args.query, scope=self.scope, mode=args.mode, statuses=LIVE_STATUSES,
                                scopes=only, limit=args.limit)
        return TopicsSearchResult(
            query=args.query, scope=self.scope, mode=response.mode, mode_reason=response.mode_reason,
            trees=response.trees, topics=response.topics, topics_scored=response.topics_scored,
            atoms=response.atoms, atoms_scored=response.atoms_scored, warnings=response.warnings,
            paths=[TopicPathView(breadcrumb=p.breadcrumb, scope=p.scope, topic_ids=p.topic_ids, score=p.score or 0.0,
                                 words=p.words) for p in response.paths],
            hits=[_query_hit(h) for h in response.hits])

    def memory_recall(self, query: str, namespace: str | None = None, limit: int = 10,
                      memory_types: Sequence[str] = (), include_archived: bool = False, mode: str = "auto") -> Recall:
        """The memories of one namespace the acting scope sees, best first (``services.memories.recall``).

        Raises:
            InvalidInput / EmptyQuery: a blank query, a bad limit or memory type. ScopeNotFound: no such
            namespace. ScopeNotVisible: the acting scope does not see it.
        """
        args = parse_arguments(RecallInput, query=query, namespace=namespace, limit=limit,
                               memory_types=list(memory_types), include_archived=include_archived, mode=mode)
        target = self.scope if args.namespace is None else self._scope_argument(args.namespace)
        return memories.recall(self.lib, args.query, target, args.limit, args.memory_types, args.include_archived,
                               acting=self.scope, mode=args.mode)

    def memory_session_start(self, agent: str | None = None, project: str | None = None,
                             token_budget: int = start.DEFAULT_BUDGET,
                             conventions_query: str = start.CONVENTIONS_QUERY,
                             decisions_query: str = start.DECISIONS_QUERY,
                             state_query: str = start.STATE_QUERY) -> SessionStart:
        """The start-of-session block for an agent on a project, as the acting scope sees them
        (``services.session_start.session_start``); ``agent`` and ``project`` default to the acting scope's.

        Raises:
            ScopeError: no default agent or project on the acting scope's branch. ScopeNotFound. NotAnAgentScope.
            ScopeNotVisible: the acting scope does not see a namespace. BudgetTooSmall. EmptyQuery.
        """
        args = parse_arguments(SessionStartInput, agent=agent, project=project, token_budget=token_budget,
                               conventions_query=conventions_query, decisions_query=decisions_query,
                               state_query=state_query)
        return start.session_start(self.lib, self._scope_argument(args.agent or "agent"),
                             self._scope_argument(args.project or "project"), token_budget=args.token_budget,
                             acting=self.scope, conventions_query=args.conventions_query,
                             decisions_query=args.decisions_query, state_query=args.state_query)

    def memory_store_episode(self, context: str, goal: str, action: str, outcome: str, insight: str, severity: str,
                             namespace: str | None = None, created_by: str | None = None) -> Episode:
        """Store an episode in the acting scope, or in ``namespace`` when the acting scope writes there directly
        (the agent scope that runs it: ``sharing.write_grant``), via ``services.episodes.store_episode``, indexed
        now when asked to.

        Raises:
            InvalidInput / InvalidEpisode: a missing or blank field (named), an unknown severity.
            AccessDenied: ``namespace`` is an ancestor (an episode is stored, then promoted).
            ScopeNotFound / ScopeNotVisible: an unknown or invisible namespace, or another agent's.
        """
        args = parse_arguments(EpisodeInput, context=context, goal=goal, action=action, outcome=outcome,
                               insight=insight, severity=severity, namespace=namespace, created_by=created_by)
        store_in, promote_to = self._write_target(args.namespace)
        if promote_to is not None:
            raise AccessDenied(f"{self.scope} stores episodes in its own scope (or its agent's), not in {promote_to}: "
                               "store it here, then ask for its promotion with memory_request_promotion")
        source = Source(type=SourceType.TOOL_OUTPUT,
                        think_process_id=ScopePath.parse(self.scope).key if self.kind is ScopeKind.THINK_PROCESS
                        else None)
        stored = episodes.store_episode(self.lib, store_in, args.context, args.goal, args.action, args.outcome,
                                        args.insight, args.severity, (args.created_by or "").strip() or self._actor(),
                                        source=source)
        if self.index_now:
            indexing.try_drain_own(self.lib, [stored.id])
        return stored

    def atoms_list(self, type: str | None = None, status: str | None = None, source_id: str | None = None,
                   due_before: str | None = None, text: str | None = None, scope: str | None = None,
                   include_archived: bool = False, limit: int = 50) -> AtomList:
        """The atoms the acting scope (or ``scope``, one it sees) sees, newest first (``atoms.list_atoms``).

        Raises:
            InvalidAtom: an unknown status, an unreadable date. ScopeNotVisible / ScopeNotFound: ``scope``.
        """
        args = parse_arguments(AtomsListInput, type=type, status=status, source_id=source_id, due_before=due_before,
                               text=text, scope=scope, include_archived=include_archived, limit=limit)
        found = atoms.list_atoms(self.lib, self._read_scope(args.scope) if args.scope else self.scope,
                                 types=[args.type] if args.type else (), status=args.status, source_id=args.source_id,
                                 due_before=args.due_before, text=args.text, include_archived=args.include_archived,
                                 limit=args.limit)
        return AtomList(atoms=found, count=len(found))

    def atoms_extract(self, ids: Sequence[str]) -> ExtractionReport:
        """Read the atoms of documents the acting scope writes (its own, its agent's: ``sharing.write_grant``, since
        the atoms go into the document's scope), with :meth:`generator` (an MCP call may bring its client's
        model). A document it may not write or read is a ``skipped`` outcome naming the
        rule; the others are read (``atom_extraction.extract_atoms``), and indexed now when asked to.

        Raises:
            InvalidInput: no ids, or more than 100.
        """
        args = parse_arguments(AtomsExtractInput, ids=list(ids))
        refused: dict[str, SourceOutcome] = {}
        for doc_id in dict.fromkeys(i.strip() for i in args.ids):
            try:
                self._writable(doc_id, "store atoms read from")
            except VancetopeError as error:
                refused[doc_id] = SourceOutcome(document_id=doc_id, status="skipped", reason=str(error))
        wanted = [i for i in dict.fromkeys(i.strip() for i in args.ids) if i not in refused]
        report = (atom_extraction.extract_atoms(self.lib, wanted, scope=self.scope, generator=self.generator())
                  if wanted else atom_extraction.ExtractionReport())
        read = {o.document_id: o for o in report.outcomes}
        report.outcomes = [refused.get(i) or read[i] for i in dict.fromkeys(i.strip() for i in args.ids)]
        if self.index_now and report.added:
            indexing.try_drain_own(self.lib, report.added)
        return report

    def atoms_files_setting(self, enabled: bool | None = None, inherit: bool = False) -> FilesSetting:
        """The acting scope's files setting (``atom_extraction.files_setting``), set first when ``enabled`` or
        ``inherit`` is given.

        Raises:
            InvalidInput: both ``enabled`` and ``inherit``.
        """
        args = parse_arguments(AtomsFilesSettingInput, enabled=enabled, inherit=inherit)
        if args.inherit and args.enabled is not None:
            raise InvalidInput("give enabled or inherit, not both")
        if args.inherit or args.enabled is not None:
            return atom_extraction.set_files_setting(self.lib, self.scope, None if args.inherit else args.enabled)
        return atom_extraction.files_setting(self.lib, self.scope)

    def plan_update(self, plan_id: str, status: str) -> Atom:
        """Set the status of a plan the acting scope writes (its own, or its agent's: ``atoms.plan_update``).

        Raises:
            InvalidAtom: an unknown status, "completed" (with the reason), not a plan, a plan that happened.
            AccessDenied: not the acting scope's own. DocumentNotFound.
        """
        args = parse_arguments(PlanUpdateInput, plan_id=plan_id, status=status)
        self._writable(args.plan_id, "change the status of")
        return atoms.plan_update(self.lib, args.plan_id.strip(), args.status, acting_scope=self.scope)

    def plan_happened(self, plan_id: str, when: str, text: str | None = None) -> Atom:
        """Record that one of the acting scope's own plans happened: an event that updates (archives) it
        (``atoms.plan_happened``), indexed now when asked to.

        Raises:
            InvalidAtom: no time or an unreadable one, not a plan, a plan that happened already. AccessDenied.
            DocumentNotFound.
        """
        args = parse_arguments(PlanHappenedInput, plan_id=plan_id, when=when, text=text)
        self._writable(args.plan_id, "record the event of")
        source = Source(type=SourceType.TOOL_OUTPUT,
                        think_process_id=ScopePath.parse(self.scope).key if self.kind is ScopeKind.THINK_PROCESS
                        else None)
        event = atoms.plan_happened(self.lib, args.plan_id.strip(), args.when, args.text, acting_scope=self.scope,
                                    created_by=self._actor(), source=source)
        if self.index_now:
            indexing.try_drain_own(self.lib, [event.id])
        return event

    def digest_run(self, day: str | None = None) -> DigestRun:
        """Digest the acting scope's ``day`` (``digest.run_digest``, with :meth:`generator`): recorded as the
        person's undoable step, since the person reviews the digest (``services.digest``).

        Raises:
            InvalidInput: a day unreadable or to come. DigestBusy: another process kept the library locked.
        """
        args = parse_arguments(DigestRunInput, day=day)
        return digest.run_digest(self.lib, self.scope, args.day, generator=self.generator())

    def topics_rebuild(self, from_scratch: bool = False) -> TopicUpkeep:
        """Keep the acting scope's topic tree now (``topic_upkeep.update_topics``): recorded as the person's
        undoable step, as a digest run is (``services.topic_upkeep``).

        Raises:
            LibraryBusy: another process kept the library locked.
        """
        args = parse_arguments(TopicsRebuildInput, from_scratch=from_scratch)
        return topic_upkeep.update_topics(self.lib, self.scope, from_scratch=args.from_scratch)

    def digest_show(self, day: str | None = None, scope: str | None = None) -> DigestRun:
        """The writeup and change set of ``scope``'s (default: the acting scope's) ``day`` (``digest.show_digest``).

        Raises:
            InvalidInput: a bad day. NotFound: no digest that day. ScopeNotVisible / ScopeNotFound: ``scope``.
        """
        args = parse_arguments(DigestShowInput, day=day, scope=scope)
        return digest.show_digest(self.lib, self._read_scope(args.scope) if args.scope else self.scope, args.day)

    def topics_browse(self, topic_id: str | None = None, scope: str | None = None, depth: int | None = None,
                      recursive: bool = False) -> TopicsBrowse:
        """A tree the acting scope sees (``scope``: its own by default), cut at ``depth``, or the topic ``topic_id``
        with its atoms (``recursive``: its subtree's) and their sources (``services.topics``).

        Raises:
            DocumentNotFound: no such topic. ScopeNotVisible / ScopeNotFound: ``scope``, or a topic it cannot read.
        """
        args = parse_arguments(TopicsBrowseInput, topic_id=topic_id, scope=scope, depth=depth, recursive=recursive)
        visible = [v.scope for v in topics.visible_trees(self.lib, self.scope)]
        if args.topic_id:
            found = topics.get_topic(self.lib, args.topic_id, acting_scope=self.scope)
            return TopicsBrowse(scope=found.scope, visible_trees=visible, topic=found,
                                atoms=topics.topic_atoms(self.lib, found.id, recursive=args.recursive,
                                                         acting_scope=self.scope),
                                sources=topics.topic_sources(self.lib, found.id, recursive=args.recursive,
                                                             acting_scope=self.scope))
        target = self._read_scope(args.scope) if args.scope else self.scope
        tree = topics.get_tree(self.lib, target)
        if args.depth is not None:
            tree = tree.model_copy(update={"topics": [t for t in tree.topics if t.depth <= args.depth]})
        return TopicsBrowse(scope=target, tree=tree, visible_trees=visible)

    def topics_edit(self, action: str, topic_id: str | None = None, label: str | None = None,
                    parent_id: str | None = None, other_ids: Sequence[str] = (),
                    groups: Sequence[Sequence[str]] | None = None, labels: Sequence[str] | None = None, parts: int = 2,
                    atom_id: str | None = None, from_topic_id: str | None = None) -> TopicsEdit:
        """One hand edit of a tree the acting scope writes (``services.topics``: pinned, one transaction). Not
        recorded for undo: a tool call never is (``services.undo``).

        Raises:
            InvalidInput: an argument the action needs is missing. DocumentNotFound, InvalidTopic: as the services
            say. AccessDenied / ScopeNotVisible: a tree of a scope the acting scope does not write.
        """
        args = parse_arguments(TopicsEditInput, action=action, topic_id=topic_id, label=label, parent_id=parent_id,
                               other_ids=list(other_ids), groups=groups, labels=labels, parts=parts, atom_id=atom_id,
                               from_topic_id=from_topic_id)

        def need(name: str) -> Any:
            value = getattr(args, name)
            if not value:
                raise InvalidInput(f"topics_edit {args.action} needs {name}")
            return value

        acting = {"acting_scope": self.scope}
        if args.action == "rename":
            done = [topics.rename_topic(self.lib, need("topic_id"), need("label"), **acting)]
        elif args.action == "move":
            done = [topics.move_topic(self.lib, need("topic_id"), need("parent_id"), **acting)]
        elif args.action == "merge":
            done = [topics.merge_topics(self.lib, need("topic_id"), need("other_ids"), **acting)]
        elif args.action == "split":
            done = topics.split_topic(self.lib, need("topic_id"), args.groups, parts=args.parts, labels=args.labels,
                                      **acting)
        elif args.action == "move_atom":
            done = [topics.move_atom(self.lib, need("atom_id"), need("topic_id"), args.from_topic_id, **acting)]
        elif args.action == "create":
            done = [topics.create_topic(self.lib, need("label"), need("parent_id"), **acting)]
        else:
            done = [topics.delete_topic(self.lib, need("topic_id"), **acting)]
        return TopicsEdit(action=args.action, topics=done)

    def memory_profile(self, doc_ids: Sequence[str] = (), missing: bool = False, limit: int = 20) -> ProfileResult:
        """Make the profiles of the acting scope's sources ``doc_ids`` (again), or with ``missing`` of up to
        ``limit`` of its sources without a current one (``services.source_profile.make_profiles``). Only
        documents the acting scope writes (``sharing.write_grant``): a profile is stored on the document.

        Raises:
            InvalidInput: neither or both of ``doc_ids`` and ``missing``. DocumentNotFound, ScopeNotVisible,
            AccessDenied: a named document that is not the acting scope's to write.
        """
        args = parse_arguments(ProfileInput, doc_ids=doc_ids, missing=missing, limit=limit)
        if bool(args.doc_ids) == args.missing:
            raise InvalidInput("give doc_ids, or missing=true (not both)")
        if args.missing:  # the scopes it writes: its own, and its agent's
            ids = [i for path in self.visible_paths if sharing.write_grant(self.lib, self.scope, path) is not None
                   for i in source_profile.missing_profiles(self.lib, path, include_ancestors=False,
                                                            limit=args.limit)][:args.limit]
        else:
            ids = [self._writable(i, "profile").id for i in args.doc_ids]
        report = source_profile.make_profiles(self.lib, ids, only_missing=args.missing,
                                              generator=self.generator())
        return ProfileResult(outcomes=report.outcomes, summary=report.summary())

    def memory_list(self, tags: Sequence[str] = (), scope: str | None = None, type: str | None = None,
                    limit: int = 50, memory_type: str | None = None) -> DocumentList:
        """Live (active or stale) documents of the acting scope and its ancestors (or one of them), newest first.

        Folders, archived and trashed documents are left out.

        Raises:
            InvalidInput: a bad tag, type or limit. ScopeNotVisible: ``scope`` is neither the acting
            scope nor an ancestor. ScopeNotFound / ScopeError: unknown scope.
        """
        args = parse_arguments(ListInput, tags=tags, scope=scope, type=type, limit=limit, memory_type=memory_type)
        tag_filter = all_of(args.tags) if args.tags else None
        target = self.scope if args.scope is None else self._read_scope(args.scope)
        types = [DocumentType(args.type)] if args.type else documents.CONTENT_TYPES
        docs = documents.list_documents(self.lib, scope=target, tag_filter=tag_filter, types=types,
                                        statuses=LIVE_STATUSES, include_ancestors=args.scope is None,
                                        limit=args.limit + 1,
                                        memory_types=[args.memory_type] if args.memory_type else ())
        return DocumentList(scope=self.scope, scopes=self.visible_paths if args.scope is None else [target],
                            documents=[DocumentSummary.from_info(d) for d in docs[: args.limit]],
                            truncated=len(docs) > args.limit)

    def memory_duplicates(self, scope: str | None = None, limit: int = 20) -> DuplicateList:
        """Groups of likely duplicates among the live documents the acting scope sees (or one readable scope's
        own), oldest first (``services.duplicates.find_duplicates``). Read-only: merging trashes documents,
        which is the user's decision.

        Raises:
            InvalidInput: a bad limit. ScopeNotVisible: ``scope`` is neither the acting scope nor an ancestor.
        """
        args = parse_arguments(DuplicatesInput, scope=scope, limit=limit)
        target = self.scope if args.scope is None else self._read_scope(args.scope)
        found = duplicates.find_duplicates(self.lib, scope=target, include_ancestors=args.scope is None)
        by_id = {d.id: d for d in documents.list_documents(self.lib, scope=target, statuses=LIVE_STATUSES,
                                                           include_ancestors=args.scope is None,
                                                           types=documents.CONTENT_TYPES)}
        groups = [DuplicateGroupSummary(reason=g.reason, documents=[DocumentSummary.from_info(by_id[d.id])
                                                                    for d in g.documents if d.id in by_id])
                  for g in found[: args.limit]]
        return DuplicateList(scope=self.scope, groups=groups, truncated=len(found) > args.limit)

    def memory_read(self, doc_id: str, offset: int = 0, max_chars: int = 20_000) -> DocumentText:
        """A document's details and text (``max_chars`` from ``offset``), if the acting scope may read it.

        Raises:
            InvalidInput: a blank id or a folder. DocumentNotFound: unknown id, or in the trash.
            ScopeNotVisible: another branch's document not shared with the acting scope.
        """
        args = parse_arguments(ReadInput, doc_id=doc_id, offset=offset, max_chars=max_chars)
        doc, grant = self._readable(args.doc_id)
        if doc.type is DocumentType.FOLDER:
            raise InvalidInput(f"{doc.id} is a folder, not a document: find its documents with memory_list")
        if doc.type is DocumentType.TOPIC:
            raise InvalidInput(f"{doc.id} is a topic, not a document: see its atoms with topics_browse")
        text = doc.content or ""
        part = text[args.offset : args.offset + args.max_chars]
        end = args.offset + len(part)
        metadata = {k: v for k, v in doc.metadata.items() if k not in HIDDEN_METADATA}
        return DocumentText.from_info(doc, access=grant.value, text=part, offset=args.offset, total_chars=len(text),
                                      next_offset=end if end < len(text) else None, metadata=metadata,
                                      profile=SourceProfileView.of(doc))

    def memory_annotations(self, doc_id: str) -> AnnotationsResult:
        """The highlights and notes on a PDF the acting scope may read (``services.annotations.list_annotations``).

        Raises:
            InvalidInput: a blank id, or not a PDF. DocumentNotFound: unknown id, or in the trash.
            ScopeNotVisible: another branch's document not shared with the acting scope.
        """
        args = parse_arguments(AnnotationsInput, doc_id=doc_id)
        doc, _grant = self._readable(args.doc_id)
        if doc.mime_type != "application/pdf":
            raise InvalidInput(f"{doc.id} is not a PDF: only PDFs have annotations")
        return AnnotationsResult(doc_id=doc.id, title=doc.title, annotations=annotations.list_annotations(self.lib,
                                                                                                          doc.id))

    def memory_tag(self, doc_id: str, tags: Sequence[str] = (), remove: Sequence[str] = ()) -> StoredDocument:
        """Add ``tags`` to one of the acting scope's own documents; remove ``remove`` and any ``-tag`` in ``tags``.

        Removing a tag also removes the tags below it (``topic`` drops ``topic/x``). The previous tags are
        kept as a version. A tag rule's request made by this call is the result's ``promotion_request``
        (approved at once by an auto-approving rule: the result's ``scope`` is then the new one).

        Raises:
            InvalidInput: no tags, a bad tag. DocumentNotFound. ScopeNotVisible: not readable.
            AccessDenied: the document is an ancestor's or shared (read-only from here).
        """
        args = parse_arguments(TagInput, doc_id=doc_id, tags=tags, remove=remove)
        minus = [t.strip()[1:] for t in args.tags if t.strip().startswith("-")]
        add = normalize_tags(t for t in args.tags if not t.strip().startswith("-"))
        drop = normalize_tags([*args.remove, *minus])
        if not add and not drop:
            raise InvalidInput("give tags to add (tags) or to remove (remove, or '-tag' in tags)")
        doc = self._writable(args.doc_id, "tag")
        known = {r.id for r in review.list_requests(self.lib, status=None, document_id=doc.id)}
        tagged = documents.tag_document(self.lib, doc.id, add=add, remove=drop, author=self._actor())
        return self.as_stored(self._indexed(tagged), known_requests=known)

    def memory_request_promotion(self, doc_id: str, to: str, reason: str) -> PromotionRequest:
        """Ask for one of the acting scope's documents to move up to the ancestor ``to``.

        Files a request in the review queue (``services.review.request_promotion``) made by the acting
        think process (by the user for other scope kinds); the user approves or rejects it. Asking
        again while a request for the document is pending returns that request. When the document's
        last decided request was rejected, the result's ``previous_decision`` carries that decision.

        Raises:
            InvalidInput: a blank reason, ``to`` is not an ancestor, a folder. DocumentNotFound.
            ScopeNotVisible / AccessDenied: not one of the acting scope's own documents.
            ScopeNotFound / ScopeError: unknown ``to``. InvalidInput from ``review.request_promotion``:
            a request to another scope is pending (the message names it).
        """
        args = parse_arguments(PromotionInput, doc_id=doc_id, to=to, reason=reason)
        if not args.reason.strip():
            raise InvalidInput("give a reason: the user reviews the promotion by it")
        doc = self._writable(args.doc_id, "promote")
        target = resolve_relative(self.lib, self.scope, args.to.strip())
        above = ancestry(self.lib, doc.scope)[1:]
        if target not in above:
            raise InvalidInput(f"{target} is not above {doc.scope}: a promotion goes to an ancestor"
                               + (f" ({', '.join(above)})" if above else ", and a project group has none"))
        request = review.request_promotion(self.lib, doc.id, target, requested_by=self._actor(),
                                           reason=args.reason.strip())
        return PromotionRequest.from_request(request, previous_decision=self._previous_rejection(doc.id, request.id))

    def memory_promotion_requests(self, doc_id: str | None = None, status: str | None = None,
                                  limit: int = 50) -> PromotionRequestList:
        """The promotion requests made from the acting scope, with the user's decisions (``services.review``).

        Pending requests first (oldest first), then decided ones (most recently decided first), as
        ``review.list_requests`` orders them; ``doc_id`` and ``status`` narrow them.

        Raises:
            InvalidInput: a blank id, a bad status or limit. DocumentNotFound: ``doc_id`` is unknown and
            has no requests. ScopeNotVisible: ``doc_id`` is another branch's document (without requests
            from here).
        """
        args = parse_arguments(PromotionRequestsInput, doc_id=doc_id, status=status, limit=limit)
        wanted = None if args.doc_id is None else args.doc_id.strip()
        if wanted == "":
            raise InvalidInput("the document id is empty: give one such as 'doc_3f2a9c01b7de', or leave it out")
        found = review.list_requests(self.lib, status=RequestStatus(args.status) if args.status else None,
                                     document_id=wanted, source_scope=self.scope, limit=args.limit + 1)
        if wanted is not None and not found:
            # Nothing asked from here: say so only for a document the scope may know about (the rule first).
            sharing.check_read(self.lib, self.scope, documents.get_document(self.lib, wanted))
        return PromotionRequestList(scope=self.scope, truncated=len(found) > args.limit,
                                    requests=[PromotionRequest.from_request(r) for r in found[: args.limit]])

    def memory_cite(self, doc_ids: Sequence[str], format: str = "apa") -> Citations:
        """Documents the acting scope may read, formatted in a CSL style or exported (``services.citations``).

        Reading assigns a document its citation key if it has none yet (bookkeeping shared with the app,
        not a change of the document: no version, no promotion).

        Raises:
            InvalidInput: no ids, a bad format, nothing citable (folders, bibliography files).
            DocumentNotFound. ScopeNotVisible: a document the scope may not read.
        """
        args = parse_arguments(CiteInput, doc_ids=doc_ids, format=format)
        docs = [self._readable(doc_id)[0] for doc_id in args.doc_ids]
        if args.format in citations.FORMATS:
            export = citations.export_documents(self.lib, docs, args.format)
            if not export.keys:
                raise InvalidInput("nothing to cite: folders and bibliography files are not cited themselves")
            return Citations(format=args.format, text=export.text, keys=export.keys)
        cited = citations.cite(self.lib, docs, args.format)
        return Citations(format=args.format, text=cited.text, keys=cited.keys)

    def memory_links(self, doc_id: str) -> DocumentLinksResult:
        """A readable document's [[links]] (``services.notelinks``) and its backlinks as the acting scope sees them.

        Raises:
            InvalidInput: a blank id. DocumentNotFound: unknown, or in the trash. ScopeNotVisible.
        """
        args = parse_arguments(LinksInput, doc_id=doc_id)
        doc, _ = self._readable(args.doc_id)
        links = [NoteLink(target=r.target, shown=r.shown, state=r.state,
                          doc_id=r.document.id if r.document else None, title=r.document.title if r.document else None,
                          candidates=[c.id for c in r.candidates]) for r in notelinks.note_links(self.lib, doc.id)]
        back = notelinks.backlinks(self.lib, doc.id, scope=self.scope)

        def mentions(found: list[notelinks.Mention]) -> list[Mention]:
            return [Mention(doc_id=m.document.id, title=m.document.title, scope=m.scope, snippet=m.snippet)
                    for m in found]

        return DocumentLinksResult(doc_id=doc.id, title=doc.title, links=links, linked_mentions=mentions(back.linked),
                                   unlinked_mentions=mentions(back.unlinked))

    def memory_set_reading_status(self, doc_ids: Sequence[str], status: str) -> DocumentList:
        """Give the acting scope's own documents a reading status (``services.reading``), all or none.

        Raises:
            InvalidInput: no ids, a bad status, a folder. DocumentNotFound. ScopeNotVisible / AccessDenied:
            not one of the acting scope's own documents.
        """
        args = parse_arguments(ReadingStatusInput, doc_ids=doc_ids, status=status)
        own = [self._writable(d, "set the reading status of").id for d in args.doc_ids]
        changed = reading.set_reading_status(self.lib, own, ReadingStatus(args.status))
        return DocumentList(scope=self.scope, scopes=[self.scope],
                            documents=[DocumentSummary.from_info(d) for d in changed], truncated=False)

    def memory_relate(self, source_id: str, target_id: str, type: str) -> RelateResult:
        """A typed edge from a document the acting scope writes (its own, or its agent's: ``sharing.write_grant``)
        to one it may read (``graph.relate``); ``updates`` archives the target, so it must be writable too.

        Raises:
            InvalidInput: a blank id or an unknown type. DocumentNotFound. ScopeNotVisible. AccessDenied: the
            source (or an ``updates`` target) is not writable from the acting scope. UpdatesCycle. RelationRefused.
        """
        args = parse_arguments(RelateInput, source_id=source_id, target_id=target_id, type=type)
        source = self._writable(args.source_id, "relate")
        target = self._writable(args.target_id, "archive (updates)") if args.type == RelationType.UPDATES.value \
            else self._readable(args.target_id)[0]
        done = graph.relate(self.lib, source.id, target.id, args.type, self._actor(), scope=self.scope)
        return RelateResult(edge=done.edge, created=done.created, archived=done.archived)

    def memory_relations(self, doc_id: str) -> RelationsResult:
        """A readable document's relations as the acting scope sees them (``graph.relations_of``).

        Raises:
            InvalidInput: a blank id. DocumentNotFound: unknown, or in the trash. ScopeNotVisible.
        """
        args = parse_arguments(RelationsInput, doc_id=doc_id)
        doc, _ = self._readable(args.doc_id)
        found = graph.relations_of(self.lib, doc.id, self.scope)
        return RelationsResult(doc_id=doc.id, outgoing=found.outgoing, incoming=found.incoming)

    def memory_neighbourhood(self, doc_id: str, depth: int = 1) -> graph.Neighbourhood:
        """A readable document's neighbourhood as the acting scope sees it (``graph.neighbourhood``): what the app
        draws as its relation picture and ``vancetope memory graph`` prints.

        Raises:
            InvalidInput: a blank id, a depth outside 1..3. DocumentNotFound: unknown, or in the trash.
            ScopeNotVisible.
        """
        args = parse_arguments(NeighbourhoodInput, doc_id=doc_id, depth=depth)
        doc, _ = self._readable(args.doc_id)
        return graph.neighbourhood(self.lib, doc.id, args.depth, self.scope)

    def memory_restore(self, doc_id: str) -> RelatedDocument:
        """Bring one of the acting scope's own archived documents back to active (``lifecycle.restore``).

        Raises:
            InvalidInput: a blank id, or the document is not archived. DocumentNotFound. AccessDenied.
        """
        args = parse_arguments(RestoreInput, doc_id=doc_id)
        doc = self._writable(args.doc_id, "restore")
        back = lifecycle.restore(self.lib, doc.id, scope=self.scope, actor=self._actor())
        return RelatedDocument(id=back.id, title=back.title, type=back.type.value, scope=back.scope,
                               status=back.status.value)

    def call(self, name: str, arguments: Mapping[str, Any] | None = None, *,
             sampling: ChatModel | None = None) -> BaseModel:
        """Run the tool ``name`` with a JSON argument object (what an MCP ``tools/call`` carries).

        ``sampling`` is the model of the MCP client that made the call, when it offers sampling
        (``agents.mcp_sampling.sampling_chat``): :meth:`generator` gives it to the tools that generate, for this
        call only.

        Raises:
            InvalidInput: an unknown tool, arguments that are not an object, unknown or malformed
            arguments; and whatever the tool raises.
        """
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            raise InvalidInput(f"unknown tool {name!r} (tools: {', '.join(TOOLS_BY_NAME)})")
        if arguments is not None and not isinstance(arguments, Mapping):
            raise InvalidInput(f"the arguments of {name} are a JSON object, not {type(arguments).__name__}")
        args = parse_arguments(spec.input_model, **dict(arguments or {}))
        return getattr(self.with_sampling(sampling), name)(**dict(args))

    # -- the rule -----------------------------------------------------------------------------------
    def _read_scope(self, text: str) -> str:
        """A scope argument for reading: the acting scope, an ancestor or its agent's, else ScopeNotVisible."""
        target = self._scope_argument(text)
        if target not in self.visible_paths:
            raise ScopeNotVisible(f"{self.scope} cannot see {target}: "
                                  f"{sharing.visibility_rule(self.lib, self.scope, target)}")
        return target

    def _write_target(self, text: str | None) -> tuple[str, str | None]:
        """A scope argument for writing (None: the acting scope) as ``(store in, promote to)``: a scope the acting
        scope writes (``sharing.write_grant``: its own, its agent's) and no promotion, or for an ancestor the
        acting scope and that ancestor (a promotion request).

        Raises:
            ScopeNotVisible: a scope off the branch, below the acting scope, or another agent's.
        """
        target = self.scope if text is None else self._scope_argument(text)
        if target in self.readable_scopes[1:]:
            return self.scope, target
        sharing.check_write(self.lib, self.scope, target)
        return target, None

    def _actor(self) -> str:
        """Who acts: the acting think process or agent, else the agent that runs the acting session (its
        ``via_agent`` scope: the session is that agent's work), else the user at this computer."""
        if self.kind in (ScopeKind.THINK_PROCESS, ScopeKind.AGENT):
            return self.scope
        return next((v.path for v in visible_scopes(self.lib, self.scope) if v.via_agent), None) \
            or audit.current_user()

    def as_stored(self, doc: DocumentInfo, known_requests: Collection[str] | None = None) -> StoredDocument:
        """``doc`` as a tool result, with the promotion request the call made, else its pending one.

        Args:
            known_requests: the ids of the document's requests before the call (``()`` for a new
                document); a request not among them was made by the call, possibly approved at once by
                an auto-approving rule, and is the one reported (with ``doc`` re-read where it moved).
                None: report the pending request only.
        """
        requests = review.list_requests(self.lib, status=None, document_id=doc.id)
        made = [] if known_requests is None else [r for r in requests if r.id not in known_requests]
        chosen = next(iter(made), None) or next((r for r in requests if r.status is RequestStatus.PENDING), None)
        if chosen is not None and chosen.status is RequestStatus.APPROVED:
            doc = documents.get_document(self.lib, doc.id)  # it moved: report where it is now
        return StoredDocument.from_info(doc, promotion_request=chosen.id if chosen else None,
                                        promotion_status=chosen.status.value if chosen else None)

    def _previous_rejection(self, doc_id: str, current: str) -> PreviousDecision | None:
        """The document's last decided request other than ``current``, when the user rejected it."""
        decided = [r for r in review.list_requests(self.lib, status=None, document_id=doc_id)
                   if r.id != current and r.status is not RequestStatus.PENDING]
        if not decided or decided[0].status is not RequestStatus.REJECTED:  # most recently decided first
            return None
        last = decided[0]
        return PreviousDecision(request_id=last.id, status=last.status.value, target_scope=last.target_scope,
                                decision_reason=last.decision_reason, decided_by=last.decided_by,
                                decided_at=last.decided_at)

    def _scope_argument(self, text: str) -> str:
        """A path (``project/proj_5``) or a kind meaning that scope above the acting one (``project``)."""
        if not text.strip():
            raise InvalidInput("the scope is empty: give a path such as 'project/proj_5', or leave it out")
        return resolve_relative(self.lib, self.scope, text.strip())

    def _readable(self, doc_id: str) -> tuple[DocumentInfo, sharing.ReadGrant]:
        """The document ``doc_id`` and why it may be read; the rule is checked before anything else is told."""
        if not doc_id.strip():
            raise InvalidInput("the document id is empty: give one such as 'doc_3f2a9c01b7de'")
        doc = documents.get_document(self.lib, doc_id.strip())
        grant = sharing.check_read(self.lib, self.scope, doc)
        if doc.status is DocumentStatus.DELETED:
            raise DocumentNotFound(f"{doc.id} is in the trash")
        return doc, grant

    def _writable(self, doc_id: str, verb: str) -> DocumentInfo:
        """A readable document in a scope the acting scope writes (``sharing.write_grant``: its own, or its agent's),
        else AccessDenied (documents elsewhere are read-only)."""
        doc, grant = self._readable(doc_id)
        if sharing.write_grant(self.lib, self.scope, doc.scope) is None:
            how = "shared with it" if grant is sharing.ReadGrant.SHARED else f"in {doc.scope}"
            raise AccessDenied(
                f"{self.scope} cannot {verb} {doc.id} ({how}): a {self.kind.label.lower()} changes only its own "
                f"documents (and its agent's); others are read-only from here (store a note in your own scope that "
                f"cites {doc.id})"
            )
        return doc

    def _indexed(self, doc: DocumentInfo, others: Sequence[str] = ()) -> DocumentInfo:
        """``doc`` after indexing it and the ``others`` the call stored now when asked to (and possible), else as
        it is."""
        if not self.index_now or indexing.try_drain_own(self.lib, list(dict.fromkeys([doc.id, *others]))) is None:
            return doc
        return documents.get_document(self.lib, doc.id)


def _provenance_tag(key: str) -> list[str]:
    """``["thinkprocess:<key>"]``, or nothing when the key cannot be a tag (a scope id may hold a comma)."""
    try:
        return [normalize_tag(f"thinkProcess:{key}")]
    except InvalidInput:
        return []


def _query_hit(hit: TopicHit) -> QueryHit:
    """A search hit as ``memory_query`` and ``topics_search`` return it."""
    return QueryHit(rank=hit.rank, doc_id=hit.document.id, title=hit.document.title, type=hit.document.type.value,
                    memory_type=hit.document.memory_type.value if hit.document.memory_type else None,
                    scope=hit.document.scope, tags=list(hit.document.tags), status=hit.document.status.value,
                    snippet=hit.snippet, page=hit.page, section=hit.passages[0].section if hit.passages else None,
                    role=hit.passages[0].role.value if hit.passages else "body", score=hit.score,
                    relevance=hit.relevance, meaning=None if hit.meaning_basis == "estimate" else hit.meaning,
                    keywords=hit.keyword, scope_weight=hit.scope_weight, matched=hit.matched, why=hit.explanation,
                    conflicts_with=hit.conflicts_with, topics=hit.breadcrumbs, source_id=hit.source_id,
                    source_title=hit.source_title, source_page=hit.source_page)
