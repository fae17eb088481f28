"""What the screenshot tour adds for its agent-memory pictures (the Episodes and Conflicts windows): an agent
scope under the demo project, the literature agent "Scout", holding five episodes of its work on the demo's
papers and two pairs of reference memories that contradict each other. Added through the same service calls
as the CLI's ``scope create``, ``memory episode add``, ``memory add --memory-type`` and ``memory relate``.
No Qt: the tour runs it on the window's write lane, after its other pictures (so they do not show these).
"""

from __future__ import annotations

from ..core.documents import DocumentType
from ..core.relations import RelationType
from ..services import documents, episodes, graph, scopes
from ..services.library import Library

AGENT_KEY = "scout"
"""The tour agent's scope key (``agent/scout``)."""
EPISODES = (
    ("Reproducing the FlashAttention speed-up on the lab's A100", "Match the paper's 3x speed-up at 2k tokens",
     "Ran the benchmark script with the default PyTorch build", "Only 1.4x: the build had no fused kernels",
     "Check that the fused attention kernel is enabled before timing anything", "major"),
    ("Summarising the Reformer paper for the reading group", "A one-page summary of LSH attention",
     "Summarised from the abstract and the figures", "Missed that chunked feed-forward layers save most memory",
     "Read the experiments before summarising where a method's gains come from", "minor"),
    ("Importing the reading list from Zotero", "Bring 300 references into the project",
     "Imported the .bib export without checking its encoding", "Accented author names came out garbled in 40 entries",
     "Export BibTeX as UTF-8 and spot-check names with accents", "minor"),
    ("Answering a question on hardware requirements", "Tell the user which GPUs FlashAttention supports",
     "Answered from memory of the first paper", "Said Turing GPUs were unsupported; the current release supports them",
     "Check the project's current README, not the paper, for support matrices", "critical"),
    ("Planning the ablation runs", "Fit the ablations in the cluster's weekly quota",
     "Queued all 24 runs at full sequence length", "The quota ran out after 9 runs",
     "Run ablations at 512 tokens first; scale up only the ones that matter", "major"),
)
"""(context, goal, action, outcome, insight, severity), oldest first."""
CONFLICTS = (
    ("Cluster GPU quota", "The lab's cluster quota is 200 GPU-hours per week.",
     "Cluster GPU quota from May", "From May the cluster quota is 120 GPU-hours per week, shared with the vision "
     "group; book runs in the calendar first."),
    ("Reading group slot", "The reading group meets on Tuesdays at 14:00 in room 2.17.",
     "Reading group moved", "The reading group moved to Thursdays at 10:00, online (link in the group's wiki)."),
)
"""(older title, older text, newer title, newer text): the newer one contradicts the older."""


def add_tour_memories(lib: Library, project: str) -> str:
    """Add the agent scope, its episodes and its conflicting memories; return the agent scope's path."""
    agent = scopes.create_scope(lib, "agent", AGENT_KEY, parent=project, name="Scout (literature agent)").path
    for fields in EPISODES:
        episodes.store_episode(lib, agent, *fields, created_by=agent)
    for old_title, old_text, new_title, new_text in CONFLICTS:
        old, new = (documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=title, scope=agent,
                                       memory_type="reference")
                    for title, text in ((old_title, old_text), (new_title, new_text)))
        graph.relate(lib, new.id, old.id, RelationType.CONTRADICTS, agent, scope=agent)
    return agent
