"""Inputs and outputs of the Think Process memory tools (seed §6.3), as pydantic models.

Each input model is one tool's arguments, named as in the seed (``content``, ``tags``, ``scope``,
``question``, ``doc_id``); its JSON schema (``model_json_schema()``) with the field descriptions is
what an MCP server hands to a model. Inputs refuse unknown fields, so a misspelt argument is an error
rather than silently ignored. Every output that names a document carries its ``doc_…`` id.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field

from ..core import promotion
from ..core.atoms import Atom
from ..core.documents import DocumentInfo
from ..core.errors import InvalidEpisode, UnknownMemoryType, UnknownRelationType
from ..core.memories import MEMORY_TYPE_GUIDANCE
from ..core.reading import reading_status_of
from ..services import session_start as start
from ..services.annotations import Annotation
from ..services.graph import Edge
from ..services.memory_guard import SimilarMemory
from .atom_models import WHEN_HELP
from .profile_models import SourceProfileView
from .relation_models import RelatesTo
from .tool_input import ArgumentErrors, ToolInput

StorableType = Literal["note", "fact", "event", "plan", "result", "reference"]
"""Document types a tool may store: text only (files come in through the app or ``memory upload``)."""

DocumentTypeName = Literal["note", "file", "result", "fact", "event", "plan", "reference", "structured", "annotation"]
"""Document types a listing or search may be restricted to (folders are never returned)."""

OnDuplicateName = Literal["return", "store", "update"]
"""What ``memory_store`` does with a near-duplicate (``services.memory_guard.OnDuplicate``)."""

RequestStatusName = Literal["pending", "approved", "rejected", "withdrawn"]
"""A promotion request's state (``core.promotion.RequestStatus``)."""

ReadingStatusName = Literal["unread", "reading", "read"]
"""A document's reading status (``core.reading.ReadingStatus``)."""

MemoryTypeName = Literal["feedback", "project", "reference", "user", "episode"]
"""What an agent's memory is for (``core.memories.MemoryType``)."""
StorableMemoryType = Literal["feedback", "project", "reference", "user"]
"""The memory types ``memory_store`` takes: episodes have their own tool, ``memory_store_episode``."""

Access = Literal["own", "ancestor", "shared", "sibling", "agent"]
"""Why the acting scope may read a document (``services.sharing.ReadGrant``)."""

_SCOPE_READ = ("A scope you can see: your own, an ancestor or the agent scope that runs you, as a path "
               "('project/proj_5') or a kind ('project', the one above you; 'agent'). Only that scope's own documents "
               "are used. Default: your scope, all its ancestors and your agent's scope.")
_TAGS_FILTER = "Only documents carrying every one of these tags (a tag also matches the tags below it: 'topic' "\
               "matches 'topic/attention')."

SearchModeName = Literal["auto", "tree", "flat"]
MODE_HELP = ("How to search: 'tree' walks the topic trees down to the atoms under the best topics (cheap on a large "
             "memory; results carry their topic path), 'flat' ranks everything, 'auto' (default) takes the tree "
             "once a tree you see is consolidated (grown past the cold start) and flat before.")
_MEMORY_TYPE_FILTER = ("Only agent memories of this type: feedback, project, reference, user or episode (see "
                       "memory_store).")

HIDDEN_METADATA = frozenset({"title", "title_from_content", "file_suffix", "source_path", "profile"})
"""Internal metadata left out of :class:`DocumentText` (a source's ``profile`` is its own field there)."""


class StoreInput(ToolInput):
    """``memory_store``: remember a piece of text in your own scope."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {
        "memory_type": UnknownMemoryType, "relates_to.type": UnknownRelationType}

    content: str = Field(description="The text to remember (Markdown is fine). Must not be blank.")
    tags: list[str] = Field(default_factory=list, description="Tags such as 'attention', 'topic/sparse' or "
                            "'#hypothesis' (the '#' is optional; tags are case-insensitive).")
    scope: str | None = Field(default=None, description="Leave empty to store it in your own scope. 'agent' (or its "
                              "path), in a session your agent runs: your agent's own namespace, stored there "
                              "directly. An ancestor ('project', 'session' or a path) stores it in your scope too and "
                              "asks the user to promote it there: see promotion_request in the result.")
    type: StorableType = Field(default="note", description="note: working notes; fact: one short statement; "
                               "event: one thing that happened (give when); plan: one thing intended (give due); "
                               "result: an outcome of your work; reference: a citation or link (BibTeX, RIS or "
                               "CSL-JSON is stored as one reference per entry, merged with one already there; the "
                               "result is the first entry's, and entries lists them all).")
    when: str | None = Field(default=None, description="An event's time: " + WHEN_HELP)
    due: str | None = Field(default=None, description="A plan's due date: " + WHEN_HELP)
    title: str | None = Field(default=None, description="A short title. Default: the first line of the content.")
    reason: str | None = Field(default=None, description="With an ancestor scope: why it matters there, for the user "
                               "who reviews the promotion.")
    memory_type: StorableMemoryType | None = Field(default=None, description="Store it as an agent memory (a note) "
                                                   "of this type. " + MEMORY_TYPE_GUIDANCE)
    relates_to: RelatesTo | None = Field(default=None, description="An edge from the new document to one you can "
                                         "read, e.g. {target_id, type: 'updates'} to replace an older memory (it is "
                                         "archived; it must be yours).")
    on_duplicate: OnDuplicateName = Field(default="return", description="When a note or fact this close to one of "
                                          "your active ones exists: return (store nothing; the result is the existing "
                                          "one, stored false, with the candidates), store (store without checking) "
                                          "or update (store it and archive the closest one, which it updates).")


class QueryInput(ToolInput):
    """``memory_query``: search by meaning and by words in what you can see."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {"memory_type": UnknownMemoryType}

    question: str = Field(description="What you are looking for, in your own words; words in double quotes must "
                          'appear together ("skimmed milk powder").')
    tags: list[str] = Field(default_factory=list, description=_TAGS_FILTER)
    scope: str | None = Field(default=None, description=_SCOPE_READ)
    type: DocumentTypeName | None = Field(default=None, description="Only documents of this type.")
    memory_type: MemoryTypeName | None = Field(default=None, description=_MEMORY_TYPE_FILTER)
    limit: int = Field(default=10, ge=1, le=50, description="How many documents to return at most (fewer when fewer "
                       "are relevant).")
    mode: SearchModeName = Field(default="auto", description=MODE_HELP)


class RecallInput(ToolInput):
    """``memory_recall``: the memories of one namespace (scope) that best match a query."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {"memory_types": UnknownMemoryType}

    query: str = Field(description="What to recall, specific is better: 'auth middleware Clerk route protection' "
                       "rather than 'auth'.")
    namespace: str | None = Field(default=None, description="The one scope to recall from, as a path "
                                  "('group/global', 'project/vantage-starter', 'agent/tau') or a kind ('project', "
                                  "'agent'): your own, an ancestor or your agent's. Namespaces are isolated: "
                                  "nothing of another scope comes back. Default: your own scope.")
    limit: int = Field(default=10, ge=1, le=100, description="At most this many: 3-5 for a focused question, 10-20 "
                       "to load context at the start of work.")
    memory_types: list[MemoryTypeName] = Field(default_factory=list, description="Only memories of these types "
                                               "(feedback, project, reference, user, episode). Default: all.")
    include_archived: bool = Field(default=False, description="Also return archived memories (superseded by a "
                                   "newer one, kept for the record).")
    mode: SearchModeName = Field(default="auto", description=MODE_HELP + " Only the namespace's own tree is walked.")


class SessionStartInput(ToolInput):
    """``memory_session_start``: the seed's three start-of-session recalls as one Markdown block."""

    agent: str | None = Field(default=None, description="Your agent namespace ('agent/tau'). Default: the agent "
                              "that runs your scope (or your scope, when it is an agent's).")
    project: str | None = Field(default=None, description="The project you work on ('project/foo'); its group holds "
                                "the global conventions. Default: your scope's project.")
    token_budget: int = Field(default=start.DEFAULT_BUDGET, ge=1, le=start.MAX_BUDGET, description="The block's "
                              "length at most, in tokens of the embedding model.")
    conventions_query: str = Field(default=start.CONVENTIONS_QUERY, description="The recall in the project's group "
                                   "(the global conventions).")
    decisions_query: str = Field(default=start.DECISIONS_QUERY, description="The recall in the project.")
    state_query: str = Field(default=start.STATE_QUERY, description="The recall in your agent namespace.")


class EpisodeInput(ToolInput):
    """``memory_store_episode``: record something that happened, as the seed's structured episode."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {"*": InvalidEpisode}

    context: str = Field(description="The situation, e.g. 'Deploying Convex schema changes'.")
    goal: str = Field(description="What you were trying to do, e.g. 'Add vector index to memories table'.")
    action: str = Field(description="What you did, e.g. 'Ran npx convex deploy after editing schema.ts'.")
    outcome: str = Field(description="What happened, e.g. 'Deploy failed: the vector index needs the embedding "
                         "field to exist first'.")
    insight: str = Field(description="The lesson for next time, e.g. 'Add vector indexes in the same deploy as "
                         "their embedding field. Order matters.'")
    severity: Literal["minor", "major", "critical"] = Field(description="How much it matters.")
    namespace: str | None = Field(default=None, description="Leave empty: episodes are stored in your own scope "
                                  "(give its path to be explicit). 'agent' (or its path), in a session your agent "
                                  "runs: your agent's own namespace.")
    created_by: str | None = Field(default=None, description="Who records it. Default: you (your scope's path, or "
                                   "the user for a project's or session's tools).")


class ListInput(ToolInput):
    """``memory_list``: list documents you can see, newest first."""

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {"memory_type": UnknownMemoryType}

    tags: list[str] = Field(default_factory=list, description=_TAGS_FILTER)
    scope: str | None = Field(default=None, description=_SCOPE_READ)
    type: DocumentTypeName | None = Field(default=None, description="Only documents of this type.")
    memory_type: MemoryTypeName | None = Field(default=None, description=_MEMORY_TYPE_FILTER)
    limit: int = Field(default=50, ge=1, le=500, description="How many documents to return at most.")


class DuplicatesInput(ToolInput):
    """``memory_duplicates``: likely duplicates among the documents you can see."""

    scope: str | None = Field(default=None, description=_SCOPE_READ)
    limit: int = Field(default=20, ge=1, le=200, description="How many groups to return at most.")


class ReadInput(ToolInput):
    """``memory_read``: read one document's text by id."""

    doc_id: str = Field(description="The document id, e.g. 'doc_3f2a9c01b7de'.")
    offset: int = Field(default=0, ge=0, description="Start at this character (to read a long text in parts).")
    max_chars: int = Field(default=20_000, ge=1, le=200_000, description="Return at most this many characters.")


class TagInput(ToolInput):
    """``memory_tag``: add or remove tags on one of your own documents."""

    doc_id: str = Field(description="The document id, e.g. 'doc_3f2a9c01b7de'.")
    tags: list[str] = Field(default_factory=list, description="Tags to add. A tag written with a leading '-' "
                            "('-unread') is removed instead.")
    remove: list[str] = Field(default_factory=list, description="Tags to remove (removing 'topic' also removes "
                              "'topic/attention').")


class PromotionInput(ToolInput):
    """``memory_request_promotion``: ask the user to move one of your documents up to an ancestor scope."""

    doc_id: str = Field(description="The document id, one of your own documents.")
    to: str = Field(description="The ancestor scope: a kind ('project') or a path ('project/proj_5').")
    reason: str = Field(description="Why it matters beyond your scope, for the user who reviews it.")


class PromotionRequestsInput(ToolInput):
    """``memory_promotion_requests``: your promotion requests and the user's decisions on them."""

    doc_id: str | None = Field(default=None, description="Only the requests for this document (doc_…). Default: "
                               "the requests for all your documents.")
    status: RequestStatusName | None = Field(default=None, description="Only requests in this state: pending "
                                             "(waiting for the user), approved, rejected or withdrawn. Default: all.")
    limit: int = Field(default=50, ge=1, le=500, description="How many requests to return at most.")


CitationFormatName = Literal["apa", "chicago", "nature", "ieee", "bibtex", "ris", "csl-json"]
"""A citation style (``services.citations.STYLES``) or an export format (``services.citations.FORMATS``)."""


class CiteInput(ToolInput):
    """``memory_cite``: cite documents you can read, formatted or as bibliography entries."""

    doc_ids: list[str] = Field(min_length=1, max_length=500, description="The documents to cite (doc_…), in "
                               "this order: references, PDFs, notes or results you can read (at most 100 in a "
                               "style, 500 in an export format).")
    format: CitationFormatName = Field(default="apa", description="apa, chicago (author-date), nature or ieee: "
                                       "formatted bibliography entries; bibtex, ris or csl-json: entries for a "
                                       "reference manager or LaTeX, keyed by each document's citation key.")


class Citations(BaseModel):
    """What ``memory_cite`` returns: the text, and each document's stable citation key."""

    format: CitationFormatName
    text: str = Field(description="The formatted entries (one per line) or the BibTeX / RIS / CSL-JSON text.")
    keys: dict[str, str] = Field(default_factory=dict, description="Document id → citation key (e.g. "
                                 "'smith2020glacier'), the same in every export; use it in \\cite{…}.")


class LinksInput(ToolInput):
    """``memory_links``: a document's [[links]] and what mentions it."""

    doc_id: str = Field(description="The document id, e.g. 'doc_3f2a9c01b7de'.")


class ReadingStatusInput(ToolInput):
    """``memory_set_reading_status``: mark your own documents unread, reading or read."""

    doc_ids: list[str] = Field(min_length=1, max_length=500, description="Document ids (doc_…), your own.")
    status: ReadingStatusName = Field(description="unread, reading or read.")


class NoteLink(BaseModel):
    """One [[link]] of a document's text and where it leads."""

    target: str = Field(description="The title (or doc_… id) written inside [[…]].")
    shown: str = Field(description="The text shown for it.")
    state: Literal["resolved", "missing", "ambiguous"] = Field(
        description="resolved: doc_id is the document; missing: no document of that title in the scope or above; "
        "ambiguous: several (candidates), link by id ([[doc_…|text]]) to choose.")
    doc_id: str | None = None
    title: str | None = None
    candidates: list[str] = Field(default_factory=list, description="The doc_… ids an ambiguous title could mean.")


class Mention(BaseModel):
    """A document that mentions another."""

    doc_id: str
    title: str
    scope: str
    snippet: str = Field(default="", description="For an unlinked mention: the text around the title.")


class DocumentLinksResult(BaseModel):
    """What ``memory_links`` returns."""

    doc_id: str
    title: str
    links: list[NoteLink] = Field(default_factory=list, description="Its own [[links]], in order.")
    linked_mentions: list[Mention] = Field(default_factory=list, description="Documents whose [[links]] lead here.")
    unlinked_mentions: list[Mention] = Field(default_factory=list,
                                             description="Documents naming its title without a link.")


class DocumentSummary(BaseModel):
    """A document without its text: id, title, type, scope, tags, state and provenance."""

    doc_id: str = Field(description="The document id (doc_…); pass it to memory_read or memory_tag.")
    title: str
    type: str = Field(description="note, file, result, fact, event, plan, reference, structured or annotation (a "
                      "highlight or note on a PDF: memory_annotations lists a PDF's).")
    scope: str = Field(description="The scope the document belongs to.")
    tags: list[str] = Field(default_factory=list)
    status: str = Field(description="active, or stale: a result whose task changed since (may be out of date); "
                        "archived when read by id.")
    index_state: str = Field(description="indexed: findable by meaning; pending: by words only until indexed.")
    version: int
    created_at: datetime
    updated_at: datetime
    updated_by: str | None = Field(default=None, description="Who made this version: user:<name>, "
                                   "think-process/<id>, an agent's scope; null when not recorded (older libraries).")
    think_process_id: str | None = Field(default=None, description="The think process that produced it, if any.")
    node_id: str | None = Field(default=None, description="The task node that produced it, if any.")
    reading_status: ReadingStatusName | None = Field(
        default=None, description="unread, reading or read (files and references start unread; other documents "
        "have none until given one with memory_set_reading_status).")
    memory_type: MemoryTypeName | None = Field(default=None, description="What an agent memory is for (feedback, "
                                               "project, reference, user, episode); null for other documents.")

    @classmethod
    def from_info(cls, doc: DocumentInfo, **extra: Any) -> Self:
        """Build from a service :class:`DocumentInfo` (``extra``: the subclass's own fields)."""
        reading = reading_status_of(doc.type, doc.metadata)
        return cls(doc_id=doc.id, title=doc.title, type=doc.type.value, scope=doc.scope, tags=list(doc.tags),
                   status=doc.status.value, index_state=doc.index_state.value, version=doc.version,
                   created_at=doc.created_at, updated_at=doc.updated_at, updated_by=doc.updated_by,
                   think_process_id=doc.source.think_process_id, node_id=doc.source.node_id,
                   reading_status=reading.value if reading else None,
                   memory_type=doc.memory_type.value if doc.memory_type else None, **extra)


class StoredDocument(DocumentSummary):
    """What ``memory_store`` and ``memory_tag`` return: the document as stored, with its id."""

    stored: bool = Field(default=True, description="False: nothing was stored, this is the near-duplicate found "
                         "(on_duplicate 'return'); see duplicates.")
    duplicates: list[SimilarMemory] = Field(default_factory=list, description="Your active memories this close to "
                                            "the text, closest first (similarity 0-1).")
    entries: list[str] = Field(default_factory=list, description="Every document the call stored: for BibTeX, RIS "
                               "or CSL-JSON stored as references, one per entry in entry order (doc_id is the "
                               "first; a duplicate is the reference it was merged into), else doc_id alone.")
    relations: list[Edge] = Field(default_factory=list, description="The edges made from the new documents.")
    archived: list[str] = Field(default_factory=list, description="Documents archived because it updates them.")
    atoms: list[str] = Field(default_factory=list, description="The atoms (facts, events, plans) read from a note or "
                             "result stored (atoms_list source_id=… lists them).")
    warnings: list[str] = Field(default_factory=list, description="E.g. a relation that could not be made after the "
                                "document was stored (it stays stored).")

    atom: Atom | None = Field(default=None, description="A fact, event or plan as stored: its when, due and "
                              "plan_status as read from your words.")
    promotion_request: str | None = Field(default=None, description="The id (req_…) of the promotion request "
                                          "this call made (you stored it for an ancestor scope, or a tag rule "
                                          "asked), else of the document's pending request, if any.")
    promotion_status: RequestStatusName | None = Field(
        default=None, description="That request's state. pending: the document stays in your scope until the user "
        "decides. approved: a rule approved it at once and the document has moved (see scope): it is now "
        "read-only for you.")


class DocumentText(DocumentSummary):
    """What ``memory_read`` returns: the document and (part of) its text."""

    access: Access = Field(description="Why you may read it: own scope, an ancestor's, shared with you, a sibling "
                           "think process's result, or the memory of the agent that runs your session.")
    text: str = Field(description="The text from `offset`, at most `max_chars` characters.")
    offset: int
    total_chars: int = Field(description="Length of the whole text.")
    next_offset: int | None = Field(default=None, description="Pass as `offset` to read on; None at the end.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Authors, year, DOI, page count…")
    profile: SourceProfileView | None = Field(default=None, description="A source's summary, keywords and "
                                              "suggested topics (null: not a source, or not profiled yet: "
                                              "memory_profile makes it).")


class QueryHit(BaseModel):
    """One document found by ``memory_query``, with the best matching passage."""

    rank: int
    doc_id: str = Field(description="The document id (doc_…); pass it to memory_read for the whole text.")
    title: str
    type: str
    scope: str
    memory_type: MemoryTypeName | None = Field(default=None, description="The agent memory's type, if it is one.")
    tags: list[str] = Field(default_factory=list)
    status: str = Field(description="active, or stale: a result whose task changed since (may be out of date).")
    snippet: str = Field(description="The best matching passage, shortened around the question's words.")
    page: int | None = Field(default=None, description="The passage's page (PDFs), 1-based.")
    section: str | None = None
    role: str = Field(default="body", description="What the passage is: body, or a paper's references, authors or "
                      "acknowledgements (those match by words only, never by meaning).")
    score: float = Field(description="The rank order: relevance × scope_weight; for a document derived_from a "
                         "source this search also found, (relevance + a share of the source's) × scope_weight "
                         "(see why).")
    relevance: float = Field(description="How well the document matches the question, 0-1, before the scope weight: "
                             "meaning and keywords combined (hits below a cut-off are not returned).")
    meaning: float | None = Field(default=None, description="Match by meaning, 0-1; null when the document has no "
                                  "vectors yet (its relevance then counts a typical meaning: see why).")
    keywords: float = Field(default=0.0, description="Match by words, 0-1 (reference lists and author pages count "
                            "less than body text).")
    scope_weight: float = Field(default=1.0, description="Proximity weight of the document's scope (1 = your own).")
    matched: list[str] = Field(default_factory=list, description="The question's words and quoted phrases found in "
                               "the passages shown or the title.")
    why: str = Field(default="", description="What matched and how the score was made, in two lines.")
    conflicts_with: list[str] = Field(default_factory=list, description="Active documents this one is in open "
                                      "conflict with (a contradicts relation either way): do not trust either "
                                      "alone; the user settles it.")
    topics: list[str] = Field(default_factory=list, description="An atom's topic paths ('Travel › Hiking'), the "
                              "path the tree search took first.")
    source_id: str | None = Field(default=None, description="The source an atom was read from (memory_read it for "
                                  "the context).")
    source_title: str | None = None
    source_page: int | None = Field(default=None, description="The source's page the atom was read on (PDFs).")


class QueryResult(BaseModel):
    """``memory_query``'s answer: hits in rank order and the scopes searched."""

    question: str
    scope: str = Field(description="The acting scope.")
    scopes: list[str] = Field(description="The scopes searched, nearest first.")
    hits: list[QueryHit] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list, description="E.g. search by meaning unavailable: words only.")
    mode: str = Field(default="flat", description="How it searched: 'tree' or 'flat' (mode_reason says why).")
    mode_reason: str = ""
    atoms: int = Field(default=0, description="Live atoms in the scopes searched.")
    atoms_scored: int = Field(default=0, description="Atoms the ranking scored (tree mode: those under the topics "
                              "kept and those in no topic yet; flat: all).")


class DocumentList(BaseModel):
    """``memory_list``'s answer: documents newest first."""

    scope: str = Field(description="The acting scope.")
    scopes: list[str] = Field(description="The scopes listed, nearest first.")
    documents: list[DocumentSummary] = Field(default_factory=list)
    truncated: bool = Field(default=False, description="True when more documents match than `limit`.")


class DuplicateGroupSummary(BaseModel):
    """One group of likely duplicates: why, and its documents (the one a merge would keep first)."""

    reason: str = Field(description="Why they were paired: 'same file', 'same DOI 10.1/x', 'same title and year "
                        "(2020)'; several joined by ';'.")
    documents: list[DocumentSummary] = Field(description="The documents, the one a merge would keep first.")


class DuplicateList(BaseModel):
    """``memory_duplicates``' answer: groups of likely duplicates, oldest first."""

    scope: str = Field(description="The acting scope.")
    groups: list[DuplicateGroupSummary] = Field(default_factory=list)
    truncated: bool = Field(default=False, description="True when more groups were found than `limit`.")


class PreviousDecision(BaseModel):
    """The user's decision on an earlier request for the same document (shown when it was a rejection)."""

    request_id: str = Field(description="The earlier request (req_…).")
    status: RequestStatusName
    target_scope: str = Field(description="Where that request asked the document to go.")
    decision_reason: str | None = Field(default=None, description="Why the user decided so.")
    decided_by: str | None = None
    decided_at: datetime | None = None


class PromotionRequest(BaseModel):
    """A request in the user's review queue (``core.promotion``): what ``memory_request_promotion`` returns and
    ``memory_promotion_requests`` lists."""

    id: str = Field(description="The request's id (req_…).")
    doc_id: str = Field(description="The document to promote (doc_…).")
    title: str
    source_scope: str = Field(description="Where the document is now (your scope).")
    target_scope: str = Field(description="Where it would go.")
    status: RequestStatusName = Field(
        description="pending until the user decides; approved (the document moved: see final_scope) or rejected "
        "(see decision_reason); withdrawn when the document was moved or trashed meanwhile.")
    reason: str = Field(description="Why, as shown to the reviewer.")
    requested_by: str = Field(description="Who asked: think-process/<id>, user:<name> or rule:<tag>.")
    updates: str | None = Field(default=None, description="A document in the target scope that approving would "
                                "update with this one's content (the same task node's earlier result).")
    decision_reason: str | None = Field(default=None, description="The user's reason, once decided.")
    decided_by: str | None = Field(default=None, description="Who decided (user:<name>, or rule:<tag> for an "
                                   "auto-approving rule), once decided.")
    decided_at: datetime | None = None
    final_scope: str | None = Field(default=None, description="Where an approved document went (the user may "
                                    "approve to another scope than the one asked for).")
    previous_decision: PreviousDecision | None = Field(
        default=None, description="Only from memory_request_promotion: the user rejected the document's last "
        "request, and why. Address that reason before asking again.")

    @classmethod
    def from_request(cls, request: promotion.PromotionRequest, **extra: Any) -> Self:
        """Build from the review queue's :class:`core.promotion.PromotionRequest` (``extra``: previous_decision)."""
        return cls(id=request.id, doc_id=request.document_id, title=request.title, source_scope=request.source_scope,
                   target_scope=request.target_scope, status=request.status.value, reason=request.reason,
                   requested_by=request.requested_by, updates=request.updates,
                   decision_reason=request.decision_reason, decided_by=request.decided_by,
                   decided_at=request.decided_at, final_scope=request.final_scope, **extra)


class PromotionRequestList(BaseModel):
    """``memory_promotion_requests``' answer: requests made from your scope, pending first (oldest first), then
    decided ones (most recently decided first)."""

    scope: str = Field(description="The acting scope: the requests were made from it.")
    requests: list[PromotionRequest] = Field(default_factory=list)
    truncated: bool = Field(default=False, description="True when more requests match than `limit`.")


class AnnotationsInput(ToolInput):
    """Arguments of ``memory_annotations``."""

    doc_id: str = Field(description="The PDF document's id (doc_…).")


class AnnotationsResult(BaseModel):
    """A PDF's annotations, in reading order (``services.annotations.Annotation`` each)."""

    doc_id: str
    title: str
    annotations: list[Annotation] = Field(default_factory=list, description="Highlights (quote: the text the user "
                                          "marked, comment: what they wrote) and page notes; anchor 'lost' means "
                                          "the text is no longer in the current version of the file.")
