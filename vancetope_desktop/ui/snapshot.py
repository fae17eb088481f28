"""What the window shows, loaded in one go on a worker thread: scopes, folders, tags and documents.

``load_snapshot`` only calls services and returns immutable values; the window applies them on the UI
thread. The latest request wins: an older snapshot arriving late is dropped by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..core.documents import DocumentInfo
from ..core.errors import NotFound, ScopeNotFound
from ..core.promotion import PromotionRequest, RequestStatus
from ..core.scope_info import ScopeInfo, VisibleScope
from ..core.tags import TagFilter, all_of, any_of, matches
from ..core.undo import UndoStep
from ..services import audit, demo, documents, folders, lifecycle, review, saved_searches, scopes, tags, undo
from ..services.folders import FolderNode
from ..services.library import Library
from ..services.tags import TagCount
from .folder_model import FolderTarget, browsable_scopes

ALL_DOCUMENTS = FolderTarget("smart", "all", "")
MAX_LISTED = 5000  # rows in the document table; beyond this the user narrows with folders, tags or search
MAX_HISTORY = 500  # decided requests listed in the review history (the newest)
MAX_PENDING = 2000  # pending requests listed in the review queue (the badge counts them all)


@dataclass(frozen=True)
class ViewState:
    """The choices that decide what the panes show."""

    scope: str
    target: FolderTarget = ALL_DOCUMENTS
    tags: tuple[str, ...] = ()
    tag_mode: str = "all"
    subfolders: bool = True


@dataclass(frozen=True)
class ReviewQueue:
    """The review queue as the Review pane and the badge show it.

    Attributes:
        pending: pending requests, oldest first (at most :data:`MAX_PENDING`).
        decided: decided requests, most recently decided first (at most :data:`MAX_HISTORY`).
        pending_count: every pending request, for the badge.
        ancestry: ``{source scope: [itself, its parent, …]}`` for each pending request (the scopes a
            document may be approved to).
        me: the actor string of the user at this computer.
    """

    pending: list[PromotionRequest] = field(default_factory=list)
    decided: list[PromotionRequest] = field(default_factory=list)
    pending_count: int = 0
    ancestry: dict[str, list[str]] = field(default_factory=dict)
    me: str = ""


@dataclass(frozen=True)
class Snapshot:
    """Everything the window shows for one :class:`ViewState`."""

    state: ViewState
    scopes: list[ScopeInfo]
    visible: list[VisibleScope]
    folders: list[FolderNode]
    smart_counts: dict[str, int]
    tags: list[TagCount]
    tag_colors: dict[str, str]
    documents: list[DocumentInfo]
    truncated: bool
    library_empty: bool
    scope_names: dict[str, str] = field(default_factory=dict)
    review: ReviewQueue = field(default_factory=ReviewQueue)
    change_counter: int = 0
    """The library's change counter when loaded: a new value means documents, folders or scopes changed."""
    saved_searches: list[str] = field(default_factory=list)
    """The names of the library's saved searches (``services.saved_searches``), for the folder tree."""
    undo_history: tuple[list[UndoStep], list[UndoStep]] = ([], [])
    """What Undo and Redo would take, next first (``services.undo.history``): read with the documents, so that
    Edit ▸ Undo names the action the list shows done, never the one before it."""
    superseded: dict[str, str | None] = field(default_factory=dict)
    """What superseded each archived document listed (``services.lifecycle.superseded_titles``), for the
    Archived view's "superseded by …"."""


def tag_filter_for(selected: tuple[str, ...], mode: str) -> TagFilter | None:
    """The tag filter a selection of tags means (``mode`` ``all`` or ``any``; None when none is selected)."""
    if not selected:
        return None
    return any_of(selected) if mode == "any" else all_of(selected)


def load_snapshot(lib: Library, state: ViewState) -> Snapshot:
    """Load what the window shows for ``state`` (runs on a worker thread).

    Raises:
        ScopeNotFound: the scope went away (another process archived or renamed it).
    """
    changes = lib.change_counter()  # read first: a change made while loading shows as new next time
    all_scopes = scopes.list_scopes(lib)
    visible = scopes.visible_scopes(lib, state.scope)
    state = browsable_state(state, visible)
    saved = [s.name for s in saved_searches.list_saved(lib)]
    if state.target.kind == "saved" and state.target.key not in saved:  # forgotten or renamed meanwhile
        state = replace(state, target=ALL_DOCUMENTS)
    return Snapshot(
        state=state, scopes=all_scopes, visible=visible,
        folders=folders.folder_tree(lib, scope=state.scope),
        smart_counts=documents.smart_counts(lib, state.scope),
        tags=tags.list_tags(lib, scope=state.scope), tag_colors=tags.tag_colors(lib),
        documents=(docs := _documents(lib, state)), truncated=len(docs) >= MAX_LISTED,
        library_empty=demo.is_library_empty(lib),
        scope_names={s.path: s.name for s in all_scopes},
        review=load_review_queue(lib), change_counter=changes, saved_searches=saved,
        undo_history=undo.history(lib), superseded=lifecycle.superseded_titles(lib, docs, state.scope),
    )


def browsable_state(state: ViewState, visible: list[VisibleScope]) -> ViewState:
    """``state``, or "All documents" when its target is a scope (or a folder of one) it may not browse.

    A sibling think process seen for its results only, or a scope no longer seen (a stale target),
    must not list its notes and folders.
    """
    target = state.target
    owner = target.key if target.kind == "scope" else target.scope
    if target.kind in ("smart", "saved") or owner in {v.path for v in browsable_scopes(visible)}:
        return state
    return replace(state, target=ALL_DOCUMENTS)


def load_review_queue(lib: Library) -> ReviewQueue:
    """The pending and decided promotion requests, the badge count and the scopes above each source."""
    # One listing for both (pending first, then the newest decided): the pending requests' update targets, the
    # dearest part of a listing, were worked out twice per refresh of the window.
    counted = review.pending_count(lib)
    everything = review.list_requests(lib, status=None, limit=min(counted, MAX_PENDING) + MAX_HISTORY)
    pending = [r for r in everything if r.status is RequestStatus.PENDING][:MAX_PENDING]
    # The list holds every pending request unless it is full: then the badge says how many there are in all.
    pending_count = counted if len(pending) == MAX_PENDING else len(pending)
    ancestry: dict[str, list[str]] = {}
    for source in dict.fromkeys(r.source_scope for r in pending):
        try:
            ancestry[source] = scopes.ancestry(lib, source)
        except ScopeNotFound:  # archived since the request was made: no "Approve to" for it
            continue
    return ReviewQueue(pending=pending, decided=[r for r in everything if r.status is not RequestStatus.PENDING],
                       pending_count=pending_count, ancestry=ancestry, me=audit.current_user())


def _documents(lib: Library, state: ViewState) -> list[DocumentInfo]:
    tag_filter = tag_filter_for(state.tags, state.tag_mode)
    target = state.target
    listed = {"types": documents.CONTENT_TYPES, "statuses": documents.LISTED_STATUSES, "limit": MAX_LISTED}
    if target.kind == "scope":
        return documents.list_documents(lib, scope=target.key, include_ancestors=False, tag_filter=tag_filter,
                                        **listed)
    if target.kind == "folder":
        return documents.list_documents(lib, scope=target.scope, include_ancestors=False, folder_id=target.key,
                                        recursive=state.subfolders, tag_filter=tag_filter, **listed)
    if target.kind == "saved":
        # Run again on every snapshot, i.e. after every change of the library: the list stays live.
        try:
            found = saved_searches.run_saved(lib, target.key, scope=state.scope)
        except NotFound:
            return []
        return [d for d in found if tag_filter is None or matches(tag_filter, d.tags)][:MAX_LISTED]
    # Smart views use the very filters their counts use, so a count always matches its list.
    return documents.list_documents(lib, scope=state.scope, tag_filter=tag_filter, limit=MAX_LISTED,
                                    **documents.smart_view_filters(target.key))
