"""The atom shapes shared by generators and services (issue 13): each draft checks its own consistency."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from vancetope_desktop.core.atoms import AtomDraft, AtomType, PlanStatus, SourceSpan, parse_atom_type, parse_plan_status
from vancetope_desktop.core.errors import InvalidInput

DUE = datetime(2026, 12, 15)


def test_a_plan_is_planned_unless_said_otherwise():
    assert AtomDraft(type="plan", text="Submit the review.", due=DUE).status is PlanStatus.PLANNED
    assert AtomDraft(type="plan", text="Submit the review.", due=DUE, status="missed").status is PlanStatus.MISSED


@pytest.mark.parametrize(("fields", "reason"), [
    ({"type": "event", "text": "The deploy failed."}, "needs a time"),
    ({"type": "plan", "text": "Submit the review."}, "needs a due date"),
    ({"type": "fact", "text": "   "}, "blank"),
    ({"type": "fact", "text": "Water boils.", "when": DUE}, "only an event"),
    ({"type": "event", "text": "It rained.", "when": DUE, "due": DUE}, "only a plan"),
])
def test_an_inconsistent_draft_is_refused_with_its_reason(fields, reason):
    with pytest.raises(ValidationError, match=reason):
        AtomDraft(**fields)


def test_a_span_must_end_after_it_starts():
    assert SourceSpan(start=4, end=9, page=2).page == 2
    with pytest.raises(ValidationError, match="ends after it starts"):
        SourceSpan(start=9, end=9)


def test_parsers_name_the_allowed_values_and_refuse_completed_plans():
    assert parse_atom_type(" Event ") is AtomType.EVENT
    with pytest.raises(InvalidInput, match="fact, event, plan"):
        parse_atom_type("idea")
    assert parse_plan_status("CANCELED") is PlanStatus.CANCELED
    with pytest.raises(InvalidInput, match="never 'completed'"):
        parse_plan_status("completed")
