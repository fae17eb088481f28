"""What a task says about a file it could not handle: plain words, the file's name and what to do next,
with the services' technical reason kept for a tooltip.

The import services word a reason for a log or a terminal ("x.pdf is damaged and cannot be opened:
Failed to open file '/tmp/…' as type 'pdf' (kept as doc_…, not indexed)"); the Tasks panel shows
:class:`TaskMessage` values built here instead. Pure functions over the import report (no widgets).
"""

from __future__ import annotations

from pathlib import Path

from ..services import atom_extraction, imports


class TaskMessage(str):
    """A task's message in plain words (the string itself), with ``detail``: the technical reason, and
    ``problem``: whether something went wrong (False for a notice: "already in your library", "507
    references from x.bib", which the task reports without counting it as a problem).

    A ``str`` so that the places that list a task's messages as text keep working unchanged.
    """

    detail: str
    problem: bool

    def __new__(cls, text: str, detail: str = "", *, problem: bool = True) -> TaskMessage:
        message = super().__new__(cls, text)
        message.detail = detail
        message.problem = problem
        return message


def problem_count(messages: list[str]) -> int:
    """How many of a task's ``messages`` are problems (a plain ``str`` message counts as one)."""
    return sum(1 for message in messages if getattr(message, "problem", True))


def import_messages(report: imports.ImportReport) -> list[TaskMessage]:
    """One message per file of ``report`` that needs the user's attention or a word (a duplicate, a
    bibliography's entries), in the order handled, then the report's notices."""
    messages = []
    for outcome in report.outcomes:
        name = Path(outcome.path).name
        reason = outcome.reason or ""
        if outcome.status == "failed":
            messages.append(TaskMessage(_failure_text(name, reason, kept=outcome.document_id is not None), reason))
        elif outcome.status == "duplicate":
            where = f" as “{outcome.title}”" if outcome.title else ""
            messages.append(TaskMessage(f"{name} is already in your library{where}: nothing was added.", reason,
                                        problem=False))
        elif outcome.status == "needs_ocr":
            messages.append(TaskMessage(f"{name} has pages without text (a scan): it is in your library but "
                                        "cannot be searched until its text is recognised (OCR).", reason))
        if outcome.references is not None:
            messages.append(TaskMessage(f"{name}: {outcome.references.summary}", problem=False))
            for attached in outcome.references.attachments:
                if not attached.document_id:
                    messages.append(TaskMessage(f"{name}: an attached file was not added ({attached.status}): "
                                                f"{Path(attached.path).name}",
                                                f"{attached.path}: {attached.reason or attached.status}"))
    messages.extend(TaskMessage(notice, problem=False) for notice in report.notices)
    return messages


def _failure_text(name: str, reason: str, *, kept: bool) -> str:
    lowered = reason.lower()
    if "password" in lowered:  # EncryptedPdf's wording; the window's Retry asks for it on the same word
        return (f"{name} is protected by a password. It is in your library, not yet readable: select it "
                "and choose Retry to enter the password.")
    if kept:  # DamagedFile: the original is stored, unindexed
        return (f"{name} could not be read (the file looks damaged). It is kept in your library; open it "
                "in another program to check it, or import a repaired copy.")
    if "import limit" in lowered:
        return f"{name} is larger than the import limit: raise “Largest file to import” in Settings to add it."
    if "empty" in lowered or "no content" in lowered:
        return f"{name} is empty: there was nothing to import."
    if "cannot read" in lowered:
        return f"{name} could not be opened: check that it still exists and that you may read it."
    return f"{name} was not imported. Hover for the reason."


def extraction_messages(report: atom_extraction.ExtractionReport) -> list[str]:
    """The Tasks panel's lines for an atom extraction: each source that gave atoms, had none new, was cut short,
    skipped or failed (with why), then the generator's problem if the built-in read instead."""
    said = {"extracted": "", "skipped": "skipped: ", "failed": "failed: ", "cancelled": "not reached (cancelled)"}
    messages: list[str] = []
    for o in report.outcomes:
        name = o.title or o.document_id
        if o.status == "extracted":
            text = f"{name}: {len(o.added)} atom{'s' if len(o.added) != 1 else ''}" if o.added else f"{name}: none new"
            extra = [o.reason] if o.cut_short and o.reason else []
            extra += [f"{len(o.marked_stale)} marked stale (no longer in it)"] if o.marked_stale else []
            extra += [f"{o.fallbacks} passage(s) read by the built-in generator"] if o.fallbacks else []
            messages.append(TaskMessage("; ".join([text, *extra]), "\n".join(o.warnings), problem=o.cut_short))
        else:
            messages.append(TaskMessage(f"{name} — {said[o.status]}{o.reason or ''}", problem=o.status == "failed"))
    if report.generator_problem:
        messages.append(TaskMessage(report.generator_problem, problem=False))
    return messages
