"""The base of every tool's argument model, the one door its arguments pass and how a tool is described.

Unknown arguments are refused, and a bad one raises the typed error its model names (:func:`parse_arguments` reads
:attr:`ToolInput.ARGUMENT_ERRORS`), so an unknown memory type is ``UnknownMemoryType`` in the Python tools and over
MCP alike, as it is in the services. :class:`ToolSpec` lives here, below every module of tools (``tools``,
``chat_tools``), so that each can list its own tools without importing the others."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.errors import InvalidInput
from ..core.text import undecodable_message, undecodable_values

M = TypeVar("M", bound=BaseModel)

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


@dataclass(frozen=True)
class ToolSpec:
    """One tool as an MCP server exposes it: name, description for the model, argument and result models."""

    name: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]


def parse_arguments(model: type[M], **values: Any) -> M:
    """Validate tool arguments, turning pydantic's errors into one InvalidInput naming each bad argument: the
    typed one the model names when every bad argument names the same (``ToolInput.argument_error``, e.g.
    UnknownMemoryType, InvalidEpisode), else InvalidInput itself.

    Text that is not valid Unicode (JSON may carry ``"\\udce9"``) is refused here, the one door of every
    tool and of the MCP server, before it reaches the tokenizer or SQLite (see ``core.text``).
    """
    bad = undecodable_values(values)
    if bad:
        problems = "; ".join(f"{where}: {undecodable_message(text)}" for where, text in bad)
        raise InvalidInput(f"bad arguments: {problems}")
    try:
        return model.model_validate(values)
    except ValidationError as error:
        wheres = [".".join(map(str, e["loc"])) for e in error.errors()]
        problems = "; ".join(f"{where or 'arguments'}: {e['msg']}" for where, e in zip(wheres, error.errors(),
                                                                                       strict=True))
        errors = [model.argument_error(where) if issubclass(model, ToolInput) else InvalidInput for where in wheres]
        raise (errors[0] if len(set(errors)) == 1 else InvalidInput)(f"bad arguments: {problems}") from None
