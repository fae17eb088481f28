"""The base of every tool's argument model: unknown arguments are refused, and a bad one raises the typed error
its model names (``tools.parse_arguments`` reads :attr:`ToolInput.ARGUMENT_ERRORS`), so an unknown memory type is
``UnknownMemoryType`` in the Python tools and over MCP alike, as it is in the services."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from ..core.errors import InvalidInput

ArgumentErrors = Mapping[str, type[InvalidInput]]
"""A tool input's typed errors by argument (:attr:`ToolInput.ARGUMENT_ERRORS`); an alias because a field called
``type`` hides the builtin inside a model's body."""


class ToolInput(BaseModel):
    """The arguments of a tool: unknown ones refused, bad ones raising the typed error the model names."""

    model_config = ConfigDict(extra="forbid")

    ARGUMENT_ERRORS: ClassVar[ArgumentErrors] = {}
    """The typed error a bad argument raises, by its dotted path (``relates_to.type``; a list's items count as the
    list; ``*``: every argument); InvalidInput otherwise."""

    @classmethod
    def argument_error(cls, where: str) -> type[InvalidInput]:
        """The typed error for a bad argument at the dotted path ``where`` (e.g. ``memory_types.0``)."""
        for key, error in cls.ARGUMENT_ERRORS.items():
            if where == key or where.startswith(key + "."):
                return error
        return cls.ARGUMENT_ERRORS.get("*", InvalidInput)
