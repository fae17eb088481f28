"""The topic tree (issue 14, seed 002 "Topic Tree"): the primary retrieval structure over a scope's atoms.

Each scope has at most one tree. Every node of it is a document of type ``topic`` in that scope (so it is
versioned, audited, undone and promoted like any document): the **root** stands for the tree itself (its label
is the scope's name; its metadata says whether the tree is consolidated), the other topics hang below it.

A topic's fields live in its document (the title is the label, the content the short summary) and in its
metadata :data:`TOPIC_KEY`::

    {"parent": id of the parent topic, or None for the root,
     "surface": ["keyword", …]   the lexical surface that routes a query (c-TF-IDF keywords, best first, up to
                                 ``TreeParams.surface_terms``; a person's words), its first KEYWORDS_SHOWN shown,
     "centroid": base64 of float32 little-endian, unit length (encode_vector) or None when it has no atom yet,
     "pinned": ["label", "parent", "surface"]   what a person set by hand: the digest never changes it,
     "pinned_atoms": [atom id, …]   atoms a person put here: the digest never moves them out,
     "origin": "cold" | "attach" | "split" | "merge" | "person"   how it was made,
     "worded": int   the atoms a leaf held when its surface was made (``index.topic_revise.rewords``),
     # on the root only:
     "root": True, "consolidated": bool, "built_at": ISO time, "atoms": int (atoms under the tree then)}

**Membership** is an ``in_topic`` edge from an atom to a topic (``core.relations.RelationType.IN_TOPIC``): an
atom belongs to one or more topics (shared membership expresses relatedness; there are no atom-to-atom links
for that). Atoms hang on leaves as a rule; a person may put one on an inner topic.

Topic documents are structural, like folders: not chunked or embedded (the centroid is the mean of the member
atoms' vectors, not an embedding of the label), left out of document lists and of the ordinary search, shown
by the Topics pane, ``vancetope topics`` and the ``topics_*`` tools.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, computed_field

TOPIC_KEY = "topic"
"""Metadata key of a topic document (see the module's note for its fields)."""

PINNABLE = ("label", "parent", "surface")
"""The fields a person's edit pins (``TOPIC_KEY["pinned"]``): the digest leaves a pinned field as it is."""

KEYWORDS_SHOWN = 15
"""The head of a surface: the keywords shown (the Topics pane, ``topics_browse``'s ``keywords``) and compared when
the digest asks whether two topics say the same (``index.topic_labels.surface_overlap``). A leaf's surface holds
many more terms (nearly every content word of its atoms, ``index.topic_plans.TreeParams.surface_terms``): they
route queries, but a list of 150 words tells a reader nothing 15 do not. 15: the surface's length before the
routing terms were added, what the merge threshold was measured on."""


class Topic(BaseModel):
    """One node of a scope's topic tree, as the services hand it to the app, the CLI and the tools.

    Attributes:
        id: the topic's document id; ``scope`` its scope (the tree's).
        label: its short name (the document's title); ``summary`` a sentence or two (its content).
        parent_id: the parent topic (None for the root).
        surface: the keywords that route a query to it, best first (up to ``TreeParams.surface_terms``; left out of
            the model's JSON, which shows ``keywords``, its first :data:`KEYWORDS_SHOWN`).
        path: the labels from the root's first child down to this topic (the breadcrumb; empty for the root).
        depth: 0 for the root, 1 for its children…
        own_atoms: live atoms attached to this topic itself; ``atoms``: live atoms in its whole subtree
            (an atom in two topics of one subtree counts once).
        children: the ids of its child topics, in label order.
        pinned: the fields a person set by hand (:data:`PINNABLE`); ``pinned_atoms`` the atoms a person put here.
        origin: how it was made (``cold``, ``attach``, ``split``, ``merge``, ``person``).
        is_root: the tree's root.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    scope: str
    label: str
    summary: str = ""
    parent_id: str | None = None
    surface: list[str] = Field(default_factory=list, exclude=True)
    path: list[str] = Field(default_factory=list)
    depth: int = 0
    own_atoms: int = 0
    atoms: int = 0
    children: list[str] = Field(default_factory=list)
    pinned: list[str] = Field(default_factory=list)
    pinned_atoms: list[str] = Field(default_factory=list)
    origin: str = "cold"
    is_root: bool = False
    updated_at: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def keywords(self) -> list[str]:
        """The surface's first :data:`KEYWORDS_SHOWN` terms: what a person or an agent reads of it."""
        return self.surface[:KEYWORDS_SHOWN]


class TopicTree(BaseModel):
    """A scope's whole tree.

    Attributes:
        scope: the scope it belongs to. root_id: its root topic (None: the scope has no tree yet).
        consolidated: past the cold-start threshold: the digest attaches new atoms locally instead of
            rebuilding, and ``mode=auto`` searches by the tree.
        topics: every topic, root first, then depth-first in label order.
        atoms: live atoms in the scope's tree; unplaced: live atoms of the scope in no topic yet.
        built_at: when the digest last rebuilt or revised it (None: never).
    """

    model_config = ConfigDict(frozen=True)

    scope: str
    root_id: str | None = None
    consolidated: bool = False
    topics: list[Topic] = Field(default_factory=list)
    atoms: int = 0
    unplaced: int = 0
    built_at: datetime | None = None

    def get(self, topic_id: str) -> Topic | None:
        """The topic ``topic_id`` of this tree, or None."""
        return next((t for t in self.topics if t.id == topic_id), None)


def encode_vector(vector: np.ndarray | None) -> str | None:
    """``vector`` as base64 of its float32 little-endian bytes (a 384-d centroid: 2,048 characters), None for None."""
    if vector is None:
        return None
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: Any) -> np.ndarray | None:
    """The float32 vector :func:`encode_vector` wrote, or None for None or text that is not one (a damaged
    field is read as "no centroid": the topic is then routed by its words only)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        return None
    if not raw or len(raw) % 4:
        return None
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def topic_fields(meta: dict[str, Any]) -> dict[str, Any]:
    """The :data:`TOPIC_KEY` part of a document's metadata (an empty dict when missing or not a dict)."""
    found = meta.get(TOPIC_KEY) if isinstance(meta, dict) else None
    return dict(found) if isinstance(found, dict) else {}
