"""What every loader of a Details section shares: it follows the panel's shown document, reads on the read lane
and shows what it read only if the panel still shows that document (a later click wins)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtCore import SignalInstance

    from .workbench import Workbench

View = TypeVar("View")


class DetailsSectionFlow(Generic[View]):
    """Base of a Details section's loader; a subclass writes :meth:`load` with :meth:`read_then_show`."""

    def __init__(self, workbench: Workbench, view: View, shown_id: Callable[[], str | None],
                 document_shown: SignalInstance) -> None:
        """Args:
            view: the details panel's section; ``shown_id`` the id the panel shows now;
            ``document_shown`` the panel's signal (a document id) each time it shows one.
        """
        self.workbench, self.view, self.shown_id = workbench, view, shown_id
        document_shown.connect(self.load)

    def load(self, doc_id: str) -> None:
        """Read and show the section of ``doc_id`` (the panel just showed it)."""
        raise NotImplementedError

    def read_then_show(self, doc_id: str, read: Callable[[object], Any], show: Callable[[Any], None],
                       title: str) -> None:
        """Run ``read`` on the workbench's read lane, then ``show`` its result if the panel still shows
        ``doc_id``; ``title`` names the read in the Tasks panel."""

        def shown(result: Any) -> None:
            if self.shown_id() == doc_id:
                show(result)

        self.workbench.read(read, shown, title=title)
