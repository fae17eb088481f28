"""The MCP server's prompts: ``session_start``, the seed's start-of-session pattern as a ready-made user message.

A prompt is what a client offers its user to pick (a slash command in most clients) and pastes into the
conversation; the tool ``memory_session_start`` gives an agent the same block by itself. Both run
``MemoryTools.memory_session_start``: one service, two doors. Prompt arguments are strings (MCP's rule);
``token_budget`` is validated as a number by the tool's own input model.
"""

from __future__ import annotations

import mcp_types as types

from ..core.errors import InvalidInput
from ..services.session_start import SessionStart
from .tools import MemoryTools

SESSION_START = "session_start"
PROMPTS = (types.Prompt(
    name=SESSION_START, title="Start of a session",
    description="Load an agent's context before it works: the global conventions (the project's group), the "
                "project's decisions and the agent's own state, as one Markdown block with memory ids, within a "
                "token budget.",
    arguments=[
        types.PromptArgument(name="agent", required=False, description="The agent namespace, e.g. agent/tau "
                             "(default: the agent that runs the server's scope)."),
        types.PromptArgument(name="project", required=False, description="The project, e.g. project/foo (default: "
                             "the server scope's project)."),
        types.PromptArgument(name="token_budget", required=False, description="The block's length at most, in "
                             "tokens (default 2000)."),
    ],
),)


def session_start_prompt(memory: MemoryTools, arguments: dict[str, str] | None) -> SessionStart:
    """Run the ``session_start`` prompt's call (blank arguments count as left out).

    Raises:
        InvalidInput: an unknown argument or a budget that is not a number; whatever the tool raises.
    """
    given = {k: v for k, v in (arguments or {}).items() if v is not None and str(v).strip()}
    known = {a.name for a in PROMPTS[0].arguments or ()}
    unknown = sorted(set(given) - known)
    if unknown:
        raise InvalidInput(f"unknown argument {', '.join(unknown)} of the session_start prompt (it takes "
                           f"{', '.join(sorted(known))})")
    return memory.call("memory_session_start", given)  # type: ignore[return-value]


def prompt_result(start: SessionStart) -> types.GetPromptResult:
    """The prompt's answer: one user message holding the block."""
    return types.GetPromptResult(
        description=f"Session start of {start.agent} on {start.project} ({start.tokens} of {start.token_budget} "
                    "tokens)",
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=start.markdown))])
