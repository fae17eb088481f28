"""One sample conversation for the conversation-memory tests (services, tools, the app): a task and numbered
exchanges holding names and numbers that a summary should keep."""

from __future__ import annotations

from vancetope_desktop.core.conversations import ChatRole
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services.conversations import NewMessage
from vancetope_desktop.services.library import Library

TASK = "Compare the LoRA and full fine-tuning runs on the Vienna cluster and report which one to keep."
"""The original task: the first user message, pinned when appended."""


def turn(n: int) -> list[NewMessage]:
    """Exchange ``n``: the person's question, then the assistant's answer (messages ``2n`` and ``2n + 1`` after the
    task)."""
    return [NewMessage(f"Run {n}: did Maria's job on node gpu-{n:02d} finish? It used batch size {16 * n}."),
            NewMessage(f"Yes. Run {n} on gpu-{n:02d} finished in {3 + n} hours with loss {1.0 / n:.3f}; Maria "
                       f"decided to keep checkpoint {n * 100}.", ChatRole.ASSISTANT)]


def converse(lib: Library, process: str, turns: int) -> list:
    """Append the task and ``turns`` exchanges to ``process``; the messages, in order."""
    return chat.append_many(lib, process, [NewMessage(TASK)] + [m for n in range(1, turns + 1) for m in turn(n)])
