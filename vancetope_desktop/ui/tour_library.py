"""What the screenshot tour adds to the demo library so that its pictures have something to show.

The demo (``resources/demo``) holds papers and notes but no annotations, no backlink beyond one, no
duplicates. :func:`add_tour_documents` adds them through the same service calls as the app, the CLI and
the agent tools (a person could make each by hand in a minute): two highlights and a page note on the
FlashAttention paper, two notes mentioning "Reformer and Flash Attention are orthogonal" (one with a
``[[link]]``, one naming it in plain words), and three pairs of likely duplicates in the project (a
DOI, a title and year, a fact entered twice). No Qt: the tour runs it on the window's write lane.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.documents import DocumentInfo, DocumentType
from ..services import annotations, documents
from ..services.library import Library

LINKED_NOTE = "Reformer and Flash Attention are orthogonal"
"""The demo note the backlinks picture shows: it links to another note, and the tour's notes mention it."""
ANNOTATED_PAPER = "FlashAttention"
"""The start of the title of the demo paper the annotations picture shows."""
THINK_PROCESS = "think-process/tp_12"
"""The demo's "Paper Analysis" think process, which holds :data:`LINKED_NOTE`."""


@dataclass(frozen=True)
class TourDocuments:
    """The documents the pictures open: the annotated paper and the note with backlinks (ids)."""

    paper_id: str
    note_id: str


def add_tour_documents(lib: Library, project: str) -> TourDocuments:
    """Add the tour's annotations, notes and duplicates to a library holding the demo.

    Args:
        project: the demo project's scope path (``DemoReport.project``).

    Returns:
        The ids of the annotated paper and of the note whose backlinks are shown.

    Raises:
        LookupError: the demo's FlashAttention paper or its linked note is missing (the demo changed).
        InvalidInput: a quote below is no longer in the demo paper (``annotations.highlight_text``).
    """
    paper = _find(lib, project, DocumentType.FILE, ANNOTATED_PAPER)
    note = _find(lib, THINK_PROCESS, DocumentType.NOTE, LINKED_NOTE)
    annotations.highlight_text(lib, paper.id, "the missing ingredient is IO-awareness", page=1,
                               comment="The paper's thesis: count memory traffic, not FLOPs")
    annotations.highlight_text(lib, paper.id, "the full attention matrix is never written to HBM", page=1,
                               color="green")
    annotations.add_note(lib, paper.id, page=1, comment="Compare with the Reformer's LSH buckets: fewer FLOPs, "
                         "but not fewer HBM reads", position=(500, 90))

    documents.add_text(lib, f"Reading plan.\n\nStart from [[{LINKED_NOTE}]], then check the kernels' memory "
                       "traffic in the FlashAttention paper.", doc_type=DocumentType.NOTE, title="Reading plan",
                       scope=THINK_PROCESS, tags=["plan"])
    documents.add_text(lib, "Questions for Prof. Müller.\n\nOur notes say Reformer and Flash Attention are "
                       "orthogonal: does bucketing break the tiling in practice?", doc_type=DocumentType.NOTE,
                       title="Questions for Prof. Müller", scope=THINK_PROCESS)

    reformer = {"doi": "10.48550/arXiv.2001.04451", "year": 2020, "entry_type": "inproceedings",
                "authors": ["Kitaev, Nikita", "Kaiser, Łukasz", "Levskaya, Anselm"]}
    documents.add_text(lib, "Kitaev, Kaiser and Levskaya. Reformer: The Efficient Transformer. ICLR 2020.",
                       doc_type=DocumentType.REFERENCE, title="Reformer: The Efficient Transformer",
                       scope=project, metadata=reformer)
    documents.add_text(lib, "Reformer (ICLR 2020), from a colleague's reading list.", doc_type=DocumentType.REFERENCE,
                       title="Reformer (Kitaev et al.)", scope=project, metadata=reformer)
    vaswani = {"year": 2017, "entry_type": "inproceedings", "authors": ["Vaswani, Ashish", "Shazeer, Noam"]}
    documents.add_text(lib, "Vaswani et al. Attention Is All You Need. NeurIPS 2017.", doc_type=DocumentType.REFERENCE,
                       title="Attention Is All You Need", scope=project, metadata=vaswani)
    documents.add_text(lib, "Attention is all you need (Vaswani, Shazeer et al.), NIPS 2017.",
                       doc_type=DocumentType.REFERENCE, title="Attention is all you need.", scope=project,
                       metadata=vaswani)
    documents.add_text(lib, "Deadline: 15.06.2026", scope=project)  # the demo's fact, entered again
    return TourDocuments(paper_id=paper.id, note_id=note.id)


def _find(lib: Library, scope: str, doc_type: DocumentType, title_start: str) -> DocumentInfo:
    found = [d for d in documents.list_documents(lib, scope=scope, types=[doc_type], include_ancestors=False)
             if d.title.startswith(title_start)]
    if not found:
        raise LookupError(f"the demo has no {doc_type.value} titled {title_start}… in {scope}")
    return found[0]
