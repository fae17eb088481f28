"""``vancetope memory search``: search by meaning and by words (``services.topic_search``).

Its own module, so that a search imports only what searching needs (``apps``: commands load on use)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..core.documents import DocumentStatus
from ..core.errors import EmptyQuery
from ..services.topic_search import topic_search
from . import render
from .apps import memory
from .context import (
    JsonOption,
    LibraryOption,
    MemoryTypeOption,
    ModeOption,
    ScopeOption,
    guarded,
    open_library,
    print_json,
    short_model_warnings,
)
from .filters import AnyTagsOption, NotTagsOption, StatusOption, TagsOption, TypeOption, WhereOption, tag_filter


@memory.command("search")
def memory_search(
    query: Annotated[str, typer.Argument(help="What you are looking for, in your own words.")],
    tags: TagsOption = None, any_tags: AnyTagsOption = None, not_tags: NotTagsOption = None,
    where: WhereOption = None, doc_type: TypeOption = None, status: StatusOption = None,
    memory_type: MemoryTypeOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=500,
                                       help="At most this many results (fewer when fewer are relevant).")] = 10,
    explain: Annotated[bool, typer.Option("--explain", help="Say why each result was found: the words it "
                                          "matched, its meaning and keyword scores, the scope weight.")] = False,
    mode: ModeOption = "auto",
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Search by meaning and by words in the scope and its ancestors: `memory search "Sparse Attention"`.

    Words in double quotes must appear together: `memory search '"skimmed milk powder" infants'`.
    """
    if not query.strip():
        with guarded():
            raise EmptyQuery("the query is empty: say what you are looking for")
    with open_library(library) as lib:
        response = topic_search(
            lib, query, scope=scope, mode=mode, tag_filter=tag_filter(tags, any_tags, not_tags, where),
            types=doc_type or None, statuses=status or (DocumentStatus.ACTIVE,), limit=limit,
            memory_types=memory_type or (),
        )
        if as_json:
            print_json(render.search_json(response))
        else:
            if response.warnings:
                response.warnings = short_model_warnings(response.warnings, lib.model_problem())
            render.search(response, explain=explain)
