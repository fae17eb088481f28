"""Arguments and results of the topic tools (issue 14): ``topics_browse`` and ``topics_edit`` (run by
:class:`.tools.MemoryTools` over ``services.topics``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..core.atoms import Atom
from ..core.topics import Topic, TopicTree
from ..services.topics import TopicSource
from .tool_input import ToolInput

EditName = Literal["rename", "move", "merge", "split", "move_atom", "create", "delete"]


class TopicsBrowseInput(ToolInput):
    """``topics_browse``: a topic tree you can see, or one topic's atoms and sources."""

    topic_id: str | None = Field(default=None, description="One topic (doc_…): its atoms and the sources they were "
                                 "read from. Omitted: the whole tree of scope.")
    scope: str | None = Field(default=None, description="Whose tree: yours, an ancestor's or your agent's (default: "
                              "yours). visible_trees in the answer names the scopes that have one.")
    depth: int | None = Field(default=None, ge=0, le=20, description="Only topics down to this depth (1: the "
                              "root's children). Default: all.")
    recursive: bool = Field(default=False, description="With topic_id: the atoms of its whole subtree, not only its "
                            "own.")


class TopicsBrowse(BaseModel):
    """What ``topics_browse`` returns."""

    scope: str = Field(description="The scope whose tree (or topic) this is.")
    tree: TopicTree | None = Field(default=None, description="The tree, root first then depth-first (without "
                                   "topic_id); root_id null: that scope has no tree yet.")
    visible_trees: list[str] = Field(default_factory=list, description="The scopes you see that have a tree, "
                                     "nearest first.")
    topic: Topic | None = Field(default=None, description="The topic asked for (with topic_id).")
    atoms: list[Atom] = Field(default_factory=list, description="Its live atoms, oldest first.")
    sources: list[TopicSource] = Field(default_factory=list, description="The sources those atoms were read from, "
                                       "most atoms first.")


class TopicsEditInput(ToolInput):
    """``topics_edit``: change a topic tree of your own scope by hand (each edit is pinned: the digest keeps it)."""

    action: EditName = Field(description="rename (topic_id, label); move (topic_id under parent_id); merge (other_ids "
                             "into topic_id); split (topic_id's atoms into groups, or by meaning into parts); "
                             "move_atom (atom_id into topic_id, out of from_topic_id or every other topic); create "
                             "(label under parent_id); delete (topic_id: its atoms and children go to its parent).")
    topic_id: str | None = Field(default=None, description="The topic acted on (create: omitted).")
    label: str | None = Field(default=None, description="rename, create: the label.")
    parent_id: str | None = Field(default=None, description="move, create: the parent topic, in the same tree.")
    other_ids: list[str] = Field(default_factory=list, max_length=100, description="merge: the topics merged into "
                                 "topic_id (they are retired).")
    groups: list[list[str]] | None = Field(default=None, description="split: two or more lists of the topic's atom "
                                           "ids, one per new child topic. Omitted: cut by meaning.")
    labels: list[str] | None = Field(default=None, description="split: one label per group (default: their best "
                                     "keywords).")
    parts: int = Field(default=2, ge=2, le=20, description="split without groups: how many new topics.")
    atom_id: str | None = Field(default=None, description="move_atom: the atom (doc_…).")
    from_topic_id: str | None = Field(default=None, description="move_atom: only out of this topic.")


class TopicsEdit(BaseModel):
    """What ``topics_edit`` returns: the topics as they are after the edit."""

    action: EditName
    topics: list[Topic] = Field(description="rename, move, merge, move_atom, create: the topic edited, merged into, "
                                "moved into or made; split: the new topics; delete: the parent that took its atoms.")
