"""Arguments and result of ``topics_search`` (issue 14): the atoms a query reaches down the topic trees, run by
:class:`.tools.MemoryTools` over ``services.topic_search``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .models import _SCOPE_READ, MODE_HELP, QueryHit, SearchModeName
from .tool_input import ToolInput


class TopicsSearchInput(ToolInput):
    """``topics_search``: the atoms (facts, events, plans) that best answer a query, found down the topic trees."""

    query: str = Field(description="What you are looking for, in your own words.")
    mode: SearchModeName = Field(default="auto", description=MODE_HELP)
    scope: str | None = Field(default=None, description=_SCOPE_READ)
    limit: int = Field(default=10, ge=1, le=50, description="How many atoms to return at most (fewer when fewer are "
                       "relevant).")


class TopicPathView(BaseModel):
    """A path the tree search kept."""

    breadcrumb: str = Field(description="The topics from the tree's top down: 'Travel › Hiking'.")
    scope: str = Field(description="The scope whose tree it is.")
    topic_ids: list[str] = Field(description="The topics' ids (doc_…), top down.")
    score: float = Field(description="The path's score, 0-1: how well its topics' words and meaning match.")
    words: list[str] = Field(default_factory=list, description="The query's words the topics' surfaces matched "
                             "(empty: routed by meaning alone).")


class TopicsSearchResult(BaseModel):
    """What ``topics_search`` returns: the atoms found, each with its topic path, source and page, and what the
    search cost."""

    query: str
    scope: str = Field(description="The acting scope.")
    mode: str = Field(description="How it searched: 'tree' or 'flat'.")
    mode_reason: str = Field(description="Why that mode (e.g. cold start: no tree consolidated yet).")
    trees: list[str] = Field(default_factory=list, description="The scopes whose topic trees were searched, nearest "
                             "first (yours and your ancestors', never a sibling's).")
    paths: list[TopicPathView] = Field(default_factory=list, description="The topic paths the tree search kept, best "
                                       "first.")
    topics: int = Field(default=0, description="Topics in those trees.")
    topics_scored: int = Field(default=0, description="Topics the tree search scored.")
    atoms: int = Field(default=0, description="Live atoms in the scopes searched.")
    atoms_scored: int = Field(default=0, description="Atoms the ranking scored (flat: all of them).")
    hits: list[QueryHit] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
