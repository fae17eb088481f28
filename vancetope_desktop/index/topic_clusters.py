"""The topic tree's algorithms under their former module name, for ``services/topic_upkeep.py`` only, which
imports them from here: they live in :mod:`.topic_plans` (inputs, plan operations, ``apply_plan``),
:mod:`.topic_build` (the cold build), :mod:`.topic_revise` (attach, splits, rewords, merges, relabel),
:mod:`.topic_labels` (surfaces and labels) and :mod:`.topic_groups` (vector grouping). To go once the upkeep
imports them from there.
"""

from .topic_build import MATCH_OVERLAP, build_tree
from .topic_plans import (
    CreateTopic,
    DeleteTopic,
    MergeTopics,
    MoveAtom,
    Operation,
    SplitTopic,
    TopicState,
    TreeParams,
    TreePlan,
    TreeState,
    UpdateTopic,
    apply_plan,
    atom_table,
)
from .topic_revise import attach, merges, relabel, reword_atoms, rewords, splits

__all__ = ["MATCH_OVERLAP", "CreateTopic", "DeleteTopic", "MergeTopics", "MoveAtom", "Operation", "SplitTopic",
           "TopicState", "TreeParams", "TreePlan", "TreeState", "UpdateTopic", "apply_plan", "atom_table", "attach",
           "build_tree", "merges", "relabel", "reword_atoms", "rewords", "splits"]
