"""The options that filter documents by tags, type and state (``memory list``, ``memory search``)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..core.documents import DocumentStatus, DocumentType
from ..core.tags import TagFilter, combine, split_tag_list

TagsOption = Annotated[str | None, typer.Option("--tags", "-t", help="Comma-separated tags; all must match.")]
AnyTagsOption = Annotated[str | None, typer.Option("--any-tags", help="Comma-separated tags; any may match.")]
NotTagsOption = Annotated[str | None, typer.Option("--not-tags", help="Comma-separated tags to exclude.")]
WhereOption = Annotated[
    str | None, typer.Option("--where", help="Tag expression, e.g. '#attention and (#efficiency or #sparse)'.")
]
TypeOption = Annotated[list[DocumentType] | None, typer.Option("--type", help="Only documents of this type.")]
StatusOption = Annotated[
    list[DocumentStatus] | None, typer.Option("--status", help="Include these states (default: active).")
]


def tag_filter(tags: str | None, any_tags: str | None, not_tags: str | None, where: str | None) -> TagFilter | None:
    """The tag filter of the ``--tags``, ``--any-tags``, ``--not-tags`` and ``--where`` options (None: no filter).

    Raises:
        InvalidInput: a tag or the ``where`` expression is not valid.
    """
    return combine(split_tag_list(tags), split_tag_list(any_tags), split_tag_list(not_tags), where)
