"""What the screenshot tour adds for its Digests picture: a day's atoms in the tour agent's scope (two facts that
differ only in a number, a fact said twice, a plan past due that happened, one that did not), added through the
same ``atoms.store_atom`` as ``vancetope atoms add``. No Qt: the tour runs it on the window's write lane, then
digests the day through the workbench.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..services import atoms
from ..services.library import Library

FACTS = ("The A100 node has 80 GB of memory.", "The A100 node has 40 GB of memory.",
         "FlashAttention computes exact attention, not an approximation.",
         "FlashAttention is exact attention, not an approximation.")


def add_tour_atoms(lib: Library, scope: str) -> None:
    """Add the day's atoms to ``scope`` (the tour agent's)."""
    now = datetime.now()
    for text in FACTS:
        atoms.store_atom(lib, atoms.draft_atom("fact", text), scope=scope)
    for text, days in (("Send the ablation results to the reading group", 3),
                       ("Book cluster time for the long-context runs", 2)):
        atoms.store_atom(lib, atoms.draft_atom("plan", text, due=(now - timedelta(days=days)).date()), scope=scope)
    atoms.store_atom(lib, atoms.draft_atom("event", "Sent the ablation results to the reading group", when=now),
                     scope=scope)
