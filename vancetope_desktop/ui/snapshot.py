"""What the window shows, loaded in one go on a worker thread: scopes, folders, tags and documents.

``load_snapshot`` only calls services and returns immutable values; the window applies them on the UI
thread. The latest request wins: an older snapshot arriving late is dropped by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.documents import DocumentInfo
from ..core.scope_info import ScopeInfo, VisibleScope
from ..core.tags import TagFilter, all_of, any_of
from ..services import demo, documents, folders, scopes, tags
from ..services.folders import FolderNode
from ..services.library import Library
from ..services.tags import TagCount
from .folder_model import FolderTarget

ALL_DOCUMENTS = FolderTarget("smart", "all", "")
MAX_LISTED = 5000  # rows in the document table; beyond this the user narrows with folders, tags or search


@dataclass(frozen=True)
class ViewState:
    """The choices that decide what the panes show."""

    scope: str
    target: FolderTarget = ALL_DOCUMENTS
    tags: tuple[str, ...] = ()
    tag_mode: str = "all"
    subfolders: bool = True


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
    all_scopes = scopes.list_scopes(lib)
    visible = scopes.visible_scopes(lib, state.scope)
    return Snapshot(
        state=state, scopes=all_scopes, visible=visible,
        folders=folders.folder_tree(lib, scope=state.scope),
        smart_counts=documents.smart_counts(lib, state.scope),
        tags=tags.list_tags(lib, scope=state.scope), tag_colors=tags.tag_colors(lib),
        documents=(docs := _documents(lib, state)), truncated=len(docs) >= MAX_LISTED,
        library_empty=demo.is_library_empty(lib),
        scope_names={s.path: s.name for s in all_scopes},
    )


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
    # Smart views use the very filters their counts use, so a count always matches its list.
    return documents.list_documents(lib, scope=state.scope, tag_filter=tag_filter, limit=MAX_LISTED,
                                    **documents.smart_view_filters(target.key))
