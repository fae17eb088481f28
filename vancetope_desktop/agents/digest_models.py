"""Arguments of the digest tools (issue 13): ``digest_run`` and ``digest_show`` (run by
:class:`.tools.MemoryTools` over ``services.digest``; both return a ``services.digest.DigestRun``), and
``topics_rebuild``, the digest's upkeep of the topic tree on request (issue 14, ``services.topic_upkeep``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DAY_HELP = "The day, YYYY-MM-DD, 'today' or 'yesterday' (default: today; never a day to come)."


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DigestRunInput(_Input):
    """``digest_run``: write up your scope's day and reconcile its atoms."""

    day: str | None = Field(default=None, description=DAY_HELP)


class DigestShowInput(_Input):
    """``digest_show``: a day's writeup and its change set."""

    day: str | None = Field(default=None, description=DAY_HELP)
    scope: str | None = Field(default=None, description="One scope you can see (yours, an ancestor, your agent's). "
                              "Default: yours.")


class TopicsRebuildInput(_Input):
    """``topics_rebuild``: keep your scope's topic tree now, as the daily digest does."""

    from_scratch: bool = Field(default=False, description="Rebuild the whole tree even once it is consolidated "
                               "(a person's pinned edits are kept). Default: as the digest does.")
