"""Three-way merge of a note's text: the version an edit started from (base), the stored one (theirs) and the
draft (mine), line by line (``merge3``, Breezy's merge: the diff3 algorithm of version control).

Lines changed on one side only are taken; lines changed alike on both sides are taken once; lines changed
differently on both sides are a conflict, written into the merged text between git-style markers for the person
to settle by editing (:data:`MINE_MARKER`, :data:`SEPARATOR`, :data:`THEIRS_MARKER`): the form every editor and
every git user knows, and one that survives copy and paste, which a two-column chooser per hunk does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from merge3 import Merge3

MINE_MARKER = "<<<<<<< mine"
SEPARATOR = "======="
THEIRS_MARKER = ">>>>>>> theirs"
# The opening and closing markers only: a line of seven "=" is also a Markdown heading's underline.
_MARKER_LINE = re.compile(r"^(<{7}|>{7})( .*)?$", re.MULTILINE)


@dataclass(frozen=True)
class ConflictHunk:
    """Lines both sides changed differently.

    Attributes:
        line: Where the hunk's first marker is in the merged text (1-based line number).
        base: The lines as they were in the base ("" where both sides added lines).
        mine: The draft's lines. theirs: The stored version's lines.
    """

    line: int
    base: str
    mine: str
    theirs: str


@dataclass(frozen=True)
class MergeResult:
    """The merged text and its conflicts (none: a clean merge, the text can be saved as it is)."""

    text: str
    conflicts: tuple[ConflictHunk, ...]

    @property
    def clean(self) -> bool:
        """Whether every change merged without a conflict."""
        return not self.conflicts


def _block(lines: list[str] | tuple[str, ...]) -> str:
    """Lines joined, ending with a line break (a marker must start a line of its own)."""
    text = "".join(lines)
    return text if not text or text.endswith("\n") else text + "\n"


def merge_texts(base: str, mine: str, theirs: str, *, mine_label: str = "", theirs_label: str = "") -> MergeResult:
    """Merge ``mine`` and ``theirs``, both made from ``base`` (see the module's docstring).

    Args:
        mine_label / theirs_label: said after the opening / closing marker (``<<<<<<< mine (your draft)``), so
            that the person knows which side is which.

    Returns:
        The merged text (with markers around each conflict) and the conflicts, in order.
    """
    # Every text ends with a line break while merging: an unbroken last line ("x" against "x\n") would
    # otherwise differ from itself and conflict. The break is taken off again when neither side had one.
    merger = Merge3(*(_block(t.splitlines(keepends=True)).splitlines(keepends=True) for t in (base, mine, theirs)))
    parts: list[str] = []
    conflicts: list[ConflictHunk] = []
    line = 1
    for group in merger.merge_groups():
        if group[0] == "conflict":
            _kind, base_lines, mine_lines, theirs_lines = group
            conflicts.append(ConflictHunk(line, "".join(base_lines), "".join(mine_lines), "".join(theirs_lines)))
            text = (f"{MINE_MARKER}{f' ({mine_label})' if mine_label else ''}\n{_block(mine_lines)}{SEPARATOR}\n"
                    f"{_block(theirs_lines)}{THEIRS_MARKER}{f' ({theirs_label})' if theirs_label else ''}\n")
        else:
            text = "".join(group[1])
        parts.append(text)
        line += text.count("\n")
    merged = "".join(parts)
    if conflicts or mine.endswith("\n") or theirs.endswith("\n") or not merged.endswith("\n"):
        return MergeResult(merged, tuple(conflicts))
    return MergeResult(merged[:-1], ())


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` still holds an opening or closing conflict marker line (``<<<<<<<`` or ``>>>>>>>``, alone
    or followed by a space and a label): a merge not settled yet."""
    return _MARKER_LINE.search(text) is not None
