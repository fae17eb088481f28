"""What a digest would change among a scope's atoms (issue 13), worked out without writing anything.

Three findings, each about the atoms of one scope (its own, not its ancestors'), each pair involving at least
one atom of the digest's day:

- **near-duplicates**: two atoms of the same kind whose statements are within
  ``Settings.memory_duplicate_threshold`` cosine of each other (the write-time guard's threshold,
  ``services.memory_guard``: measured there, paraphrases 0.80-0.97, other facts on the topic 0.18-0.68), and, for
  events, at the same time and, for plans, due at the same moment (two meetings on two days are two events). The
  survivor is the atom a person edited when there is one, else the newest; it ``updates`` the others.
- **contradictions** (a heuristic, cheap and sound rather than complete): two facts that read word for word the
  same once every token starting with a digit (a number, a date, "80GB") is blanked out, and whose such tokens
  differ ("The lab holds 12 people" / "The lab holds 20 people", "Release on 2026-12-01" / "Release on
  2026-12-08"; "A100" is a name, not a value). Anything else that
  contradicts (other words, negations, units) is not detected. Such a pair is marked, never merged, though the
  model puts it near-duplicate (0.88-0.94).
- **plans past due**: a ``planned`` plan due on or before the digest's day (before it, when the day is today:
  that day is not over) is matched with a live event of the scope that happened between the day the plan was
  written and the end of the digest's day, and whose statement shares most of its content words with the plan's
  (Jaccard ≥ :data:`EVENT_MATCH` over Snowball stems, stop words and digits left out); the event then ``updates``
  the plan, else the plan is ``missed``.

Atoms a person edited are never archived, marked missed or superseded here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np

from ..core.atoms import Atom, AtomType, PlanStatus
from ..core.errors import IndexUnavailable
from ..generation.keywords import STOP_WORDS, stemmer
from . import indexing
from .library import Library

EVENT_MATCH = 0.5
"""Share of content-word stems (Jaccard) from which an event is the plan having happened: "Submit the report to
Anna" / "Submitted the report to Anna on Friday" share 3 of 4; set by hand on such pairs (no data set yet)."""
MAX_COMPARED = 2000
"""At most this many of the scope's live atoms (the newest) are embedded to find near-duplicates: ~40 s on this
machine; a scope past that is consolidated by part 2's topic tree, not by all-pairs."""

_TOKEN = re.compile(r"\w+(?:[.,:/-]\w+)*")


@dataclass(frozen=True)
class Merge:
    """``survivor`` updates ``gone`` (its near-duplicate at cosine ``similarity``)."""

    survivor: str
    gone: str
    similarity: float


@dataclass(frozen=True)
class Contradiction:
    """``newer`` contradicts ``older``; ``why`` names the differing values."""

    newer: str
    older: str
    why: str


@dataclass(frozen=True)
class PlanOutcome:
    """The plan ``plan`` happened as ``event`` (the event updates it), or was missed (``event`` None)."""

    plan: str
    event: str | None


@dataclass(frozen=True)
class Reconciliation:
    """Everything :func:`reconcile` found; ``warnings`` say what could not be looked at and why."""

    merges: tuple[Merge, ...] = ()
    contradictions: tuple[Contradiction, ...] = ()
    plans: tuple[PlanOutcome, ...] = ()
    warnings: tuple[str, ...] = ()


def reconcile(lib: Library, day_atoms: Sequence[Atom], scope_atoms: Sequence[Atom], day: date,
              today: date) -> Reconciliation:
    """What the digest of ``day`` changes among ``scope_atoms`` (the scope's own live atoms, newest first).

    Args:
        day_atoms: the atoms of the day (a subset of ``scope_atoms``).
        today: the local date now (a plan due on ``day`` is judged only once ``day`` is over).

    Returns:
        The findings; the model is loaded for the near-duplicates (a :class:`IndexUnavailable` leaves them out,
        with a warning).
    """
    day_ids = {a.id for a in day_atoms}
    contradictions = _contradictions(day_atoms, scope_atoms)
    flagged = {frozenset((c.newer, c.older)) for c in contradictions}
    warnings: list[str] = []
    try:
        merges = _merges(lib, day_ids, list(scope_atoms)[:MAX_COMPARED], flagged)
    except IndexUnavailable as error:
        merges, warnings = [], [f"near-duplicates were not looked for: {error}"]
    gone = {m.gone for m in merges}
    plans = _plans([a for a in scope_atoms if a.id not in gone], day, today)
    return Reconciliation(tuple(merges), tuple(contradictions), tuple(plans), tuple(warnings))


def numbers_template(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``text``'s lower-cased tokens with every token starting with a digit replaced by ``#``, and those tokens.

    >>> numbers_template("The lab holds 12 people")
    (('the', 'lab', 'holds', '#', 'people'), ('12',))
    """
    tokens = _TOKEN.findall(text.casefold())
    return (tuple("#" if t[0].isdigit() else t for t in tokens), tuple(t for t in tokens if t[0].isdigit()))


def _contradictions(day_atoms: Sequence[Atom], scope_atoms: Sequence[Atom]) -> list[Contradiction]:
    """Each fact's template is made once and the facts grouped by it, so a day atom meets only the facts that read
    like it: comparing every pair, each template made again, took 37 of a digest's 90 s for 600 new atoms over
    900 (SciFact sentences, which hold many numbers; ``bench_topic_upkeep.py``)."""
    templates = {a.id: numbers_template(a.text) for a in scope_atoms if a.type is AtomType.FACT}
    alike: dict[tuple[str, ...], list[Atom]] = {}
    for fact in (a for a in scope_atoms if a.type is AtomType.FACT):
        alike.setdefault(templates[fact.id][0], []).append(fact)
    found: dict[frozenset[str], Contradiction] = {}
    for atom in (a for a in day_atoms if a.type is AtomType.FACT):
        template, values = templates.get(atom.id) or numbers_template(atom.text)
        if len(template) < 3 or not values:  # "12" vs "20" alone says nothing about one subject
            continue
        for other in alike.get(template, ()):
            if other.id == atom.id or frozenset((atom.id, other.id)) in found:
                continue
            if templates[other.id][1] != values:
                newer, older = sorted((atom, other), key=lambda a: a.created_at or datetime.min, reverse=True)
                found[frozenset((atom.id, other.id))] = Contradiction(
                    newer.id, older.id, f"{', '.join(numbers_template(newer.text)[1])} vs "
                                        f"{', '.join(numbers_template(older.text)[1])}")
    return list(found.values())


def _same_moment(a: Atom, b: Atom) -> bool:
    if a.type is AtomType.EVENT:
        return a.when is not None and b.when is not None and _local(a.when) == _local(b.when)
    if a.type is AtomType.PLAN:
        return a.due is not None and b.due is not None and _local(a.due) == _local(b.due)
    return True


def _merges(lib: Library, day_ids: set[str], atoms: list[Atom], flagged: set[frozenset[str]]) -> list[Merge]:
    """Pairs closest first; each atom is merged away at most once and only into an atom it is itself close to
    (no chains: A close to B and B close to C does not merge C into A), and never into one merged away."""
    if not day_ids or len(atoms) < 2:
        return []
    cut = lib.settings.memory_duplicate_threshold
    vectors = indexing.statement_vectors(lib, atoms)
    similarity = vectors @ vectors.T
    pairs = []
    for i, atom in enumerate(atoms):
        if atom.id not in day_ids:
            continue
        for j in (int(j) for j in np.flatnonzero(similarity[i] >= cut)):
            other = atoms[j]
            if j != i and other.type is atom.type and frozenset((atom.id, other.id)) not in flagged \
                    and _same_moment(atom, other):
                pairs.append((float(similarity[i, j]), min(i, j), max(i, j)))
    gone: set[int] = set()
    survivors: set[int] = set()
    merges = []
    for score, i, j in sorted(set(pairs), reverse=True):
        # The person's word first, then the newest (atoms come newest first, so the lower index).
        keep, drop = (j, i) if atoms[j].edited_by_person and not atoms[i].edited_by_person else (i, j)
        if keep in gone or drop in gone or drop in survivors or atoms[drop].edited_by_person:
            continue
        gone.add(drop)
        survivors.add(keep)
        merges.append(Merge(atoms[keep].id, atoms[drop].id, round(score, 4)))
    return merges


def _stems(text: str) -> set[str]:
    stem = stemmer().stemWord
    return {stem(t) for t in _TOKEN.findall(text.casefold())
            if len(t) >= 3 and t not in STOP_WORDS and not any(c.isdigit() for c in t)}


def _plans(atoms: Sequence[Atom], day: date, today: date) -> list[PlanOutcome]:
    last_due = day if day < today else day - timedelta(days=1)
    events = [a for a in atoms if a.type is AtomType.EVENT and a.when is not None and _local(a.when).date() <= day]
    used: set[str] = set()
    outcomes = []
    for plan in atoms:
        if plan.type is not AtomType.PLAN or plan.plan_status is not PlanStatus.PLANNED or plan.edited_by_person \
                or plan.due is None or _local(plan.due).date() > last_due:
            continue
        wanted, written = _stems(plan.text), _local(plan.created_at).date() if plan.created_at else date.min
        best, best_score = None, EVENT_MATCH
        for event in events:
            if event.id in used or _local(event.when).date() < written:  # type: ignore[arg-type]
                continue
            have = _stems(event.text)
            score = len(wanted & have) / len(wanted | have) if wanted | have else 0.0
            if score >= best_score:
                best, best_score = event, score
        if best is not None:
            used.add(best.id)
        outcomes.append(PlanOutcome(plan.id, best.id if best else None))
    return outcomes


def _local(moment: datetime) -> datetime:
    """``moment`` as naive local time (a stored UTC time or an aware atom time converted; naive is local)."""
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment
