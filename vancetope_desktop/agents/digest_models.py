"""Arguments of the digest tools (issue 13): ``digest_run`` and ``digest_show`` (run by
:class:`.tools.MemoryTools` over ``services.digest``; both return a ``services.digest.DigestRun``)."""

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
