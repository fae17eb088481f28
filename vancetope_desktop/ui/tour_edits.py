"""What the screenshot tour adds for its last two pictures, the relation picture and the conflict dialog: a
project decision in a neighbourhood of memories two steps deep (:func:`add_tour_relations`: it updates an older
decision, is derived from one of the demo's papers, is supported by a feedback memory and extended by an episode
that another decision contradicts, a reference memory cites the paper, a person's wish and a meeting note relate
to it), and a trial plan a colleague, Bob, changes while it is being edited (:data:`TRIAL_PLAN`,
:func:`bobs_change`). Added through the same service calls as the CLI's ``memory add --memory-type``,
``memory relate`` and ``memory edit``. No Qt: the tour runs these on the window's write lane.
"""

from __future__ import annotations

from ..core.documents import DocumentType
from ..core.errors import DocumentNotFound
from ..core.relations import RelationType
from ..services import documents, graph
from ..services.library import Library

DECISION = "Attributions: integrated gradients"
"""The title of the decision the relation picture is centred on."""
MEMORIES = (
    ("old", "Attributions: SHAP KernelExplainer", "project",
     "Explain the classifier's predictions with SHAP's KernelExplainer on 200 background samples."),
    ("decision", DECISION, "project",
     "Explain the classifier's predictions with integrated gradients (50 steps, a black-image baseline): exact for "
     "the network, and 30 times faster than KernelExplainer on our images."),
    ("feedback", "Always add a randomised-model check", "feedback",
     "Whatever attribution method we use, show that its maps change when the model's weights are randomised."),
    ("episode", "Explain the new model's predictions for the review", "episode",
     "Ran integrated gradients on the new model for the review: the maps were clean once the baseline was "
     "blurred instead of black."),
    ("zero", "Zero baseline is enough", "project", "A black (zero) baseline is enough for integrated gradients."),
    ("reference", "XAI survey: where the PDF is", "reference",
     "The attribution survey the group reads is in the shared drive under Reading/XAI."),
    ("wish", "Okafor wants atom heatmaps", "user", "Dr Okafor wants heatmaps over the atoms of each paper too."),
    ("meeting", "Meeting notes, 12 March", None, "Agreed to compare attribution methods before the review."),
)
"""(key, title, memory type or None for a plain note, text), in the order they are added."""
EDGES = (
    ("decision", "old", RelationType.UPDATES), ("decision", "paper", RelationType.DERIVED_FROM),
    ("feedback", "decision", RelationType.SUPPORTS), ("episode", "decision", RelationType.EXTENDS),
    ("zero", "episode", RelationType.CONTRADICTS), ("reference", "paper", RelationType.CITES),
    ("old", "paper", RelationType.CITES), ("wish", "decision", RelationType.RELATES_TO),
    ("meeting", "wish", RelationType.RELATES_TO),
)
"""(source key, target key, relation); ``paper`` is the first of the demo's papers."""

TRIAL_PLAN = ("# Trial plan\n\nRecruit 40 patients aged 65 or over from the two memory clinics.\n\n"
              "Randomise 1:1 to the exercise programme or usual care.\n\n"
              "Analyse the primary outcome with a t-test.\n\nReport to the steering committee in May.\n")
"""The note being edited when Bob changes it."""
MY_DRAFT = TRIAL_PLAN.replace("40", "60").replace("t-test", "Wilcoxon test")
"""The draft typed in the editor: two lines changed, one of which Bob changed too."""
BOB = "user:Bob"
"""The colleague's actor string (as ``services.identity`` records a person named Bob)."""


def add_tour_relations(lib: Library, project: str) -> str:
    """Add the decision's neighbourhood (:data:`MEMORIES`, :data:`EDGES`) to ``project``; return the decision's id.

    Raises:
        DocumentNotFound: the project holds no PDF of the demo to derive the decision from.
    """
    paper = next((d for d in documents.list_documents(lib, scope=project)
                  if d.type == DocumentType.FILE and (d.file_path or "").endswith(".pdf")), None)
    if paper is None:
        raise DocumentNotFound(f"no paper in {project} to derive the tour's decision from")
    ids = {"paper": paper.id}
    for key, title, memory_type, text in MEMORIES:
        ids[key] = documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=title, scope=project,
                                      memory_type=memory_type).id
    for source, target, relation in EDGES:
        graph.relate(lib, ids[source], ids[target], relation, scope=project)
    return ids["decision"]


def add_trial_plan(lib: Library, project: str) -> str:
    """Add :data:`TRIAL_PLAN` as a note of ``project``; return its id."""
    return documents.add_text(lib, TRIAL_PLAN, doc_type=DocumentType.NOTE, title="Trial plan", scope=project).id


def bobs_change(lib: Library, note_id: str) -> None:
    """Bob's edit of the trial plan, saved while the tour's draft is open: the analysis and the month."""
    documents.update_document(lib, note_id, author=BOB, content=TRIAL_PLAN.replace("t-test", "mixed model")
                              .replace("in May", "in June"))
