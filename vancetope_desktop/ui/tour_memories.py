"""What the screenshot tour adds for its agent-memory pictures (the Episodes, Conflicts and Atoms windows): an
agent scope under the demo project, the literature agent "Scout", holding five episodes of its work on the demo's
papers, two pairs of reference memories that contradict each other, and the facts, events and plans read from its
log (:data:`LOG`), one plan missed, one canceled and one that happened. Added through the same service calls as
the CLI's ``scope create``, ``memory episode add``, ``memory add --memory-type``, ``memory relate`` and
``atoms plan-update|happened`` (the drafts stand in for the generator's).
No Qt: the tour runs it on the window's write lane, after its other pictures (so they do not show these).
"""

from __future__ import annotations

from datetime import datetime

from ..core.atoms import AtomDraft, SourceSpan
from ..core.documents import DocumentType
from ..core.relations import RelationType
from ..services import atoms, documents, episodes, graph, scopes
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
LOG = ("Met the reading group on 24 November 2026 to plan the attention survey. FlashAttention computes exact "
       "attention in tiles that fit in on-chip SRAM. The Reformer replaces dot-product attention with LSH "
       "attention. Reran the FlashAttention benchmark on 27 November 2026 with fused kernels: 2.9x at 2k tokens. "
       "Draft the survey's related-work section by 1 December 2026. Send the ablation table to the group by "
       "5 December 2026. Book the A100 nodes for the long-context runs by 30 November 2026. Ask the Reformer "
       "authors for their LSH bucket settings by 10 December 2026.")
"""Scout's log of the week, the source its atoms are read from."""
ATOMS = (
    ("event", "Met the reading group to plan the attention survey.", "2026-11-24",
     "Met the reading group on 24 November 2026 to plan the attention survey."),
    ("fact", "FlashAttention computes exact attention in tiles that fit in on-chip SRAM.", None,
     "FlashAttention computes exact attention in tiles that fit in on-chip SRAM."),
    ("fact", "The Reformer replaces dot-product attention with LSH attention.", None,
     "The Reformer replaces dot-product attention with LSH attention."),
    ("event", "Reran the FlashAttention benchmark with fused kernels: 2.9x at 2k tokens.", "2026-11-27T16:30",
     "Reran the FlashAttention benchmark on 27 November 2026 with fused kernels: 2.9x at 2k tokens."),
    ("plan", "Draft the survey's related-work section.", "2026-12-01",
     "Draft the survey's related-work section by 1 December 2026."),
    ("plan", "Send the ablation table to the group.", "2026-12-05",
     "Send the ablation table to the group by 5 December 2026."),
    ("plan", "Book the A100 nodes for the long-context runs.", "2026-11-30",
     "Book the A100 nodes for the long-context runs by 30 November 2026."),
    ("plan", "Ask the Reformer authors for their LSH bucket settings.", "2026-12-10",
     "Ask the Reformer authors for their LSH bucket settings by 10 December 2026."),
)
"""(kind, statement, when or due, the log's sentence it was read from), in the log's order."""
TOUR_NOW = datetime(2026, 12, 2, 9, 0)
"""The tour's "now", so that the same plans are missed whatever day it runs."""


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
    _add_atoms(lib, agent)
    return agent


def _add_atoms(lib: Library, agent: str) -> None:
    """Scout's log, the atoms read from it, and what became of three plans."""
    log = documents.add_text(lib, LOG, doc_type=DocumentType.NOTE, title="Scout's log, week 48", scope=agent)
    drafts = [AtomDraft(type=kind, text=text, span=SourceSpan(start=LOG.index(sentence),
                                                              end=LOG.index(sentence) + len(sentence)),
                        **({"when": moment} if kind == "event" else {"due": moment} if kind == "plan" else {}))
              for kind, text, moment, sentence in ATOMS]
    stored = atoms.store_atoms(lib, drafts, log.id)
    booked, asked = stored[6], stored[7]
    atoms.plan_happened(lib, booked.id, "2026-11-29T11:00", "Booked the A100 nodes for the long-context runs.")
    atoms.plan_update(lib, asked.id, "canceled")
    atoms.mark_missed(lib, agent, now=TOUR_NOW)
