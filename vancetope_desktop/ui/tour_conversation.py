"""What the screenshot tour adds for its Conversation picture: a session under the demo project where a person
and the assistant draft the survey's related-work section (:data:`TURNS`), its older turns folded by the sliding
window, a finished sub-topic (the comparison table) folded by hand with a decision in it pinned, and the latest turns
live. Added through the same service calls as ``vancetope chat append``, ``chat pin``, ``chat compact`` and ``chat
compact-range``. No Qt: the tour runs it on the window's write lane, after its other pictures.
"""

from __future__ import annotations

from ..core.conversations import ChatRole
from ..services import conversations, scopes
from ..services.conversations import NewMessage
from ..services.library import Library

SESSION_KEY = "survey-chat"
"""The tour session's key (``session/survey-chat``)."""
TASK = ("Draft the related-work section of our attention survey: FlashAttention, Reformer and Longformer, each with "
        "the numbers its paper reports and what it costs in memory.")
FLASH_DRAFT = ("Draft: FlashAttention computes exact attention in tiles that fit in the GPU's on-chip SRAM, so the "
               "N × N attention matrix is never written to high-bandwidth memory. Its memory grows linearly with "
               "the sequence length instead of quadratically, and the paper reports a 3x speed-up on GPT-2 at 1k "
               "tokens and 2.4x on the Long Range Arena, both on A100 GPUs. Our reading group reproduced 2.9x at 2k "
               "tokens once the fused kernels were enabled. Because the result is exact, it is a drop-in "
               "replacement: no retraining, no accuracy to trade, which is why we list it first in the table and "
               "treat the approximate methods after it as answers to a different question.")
TURNS: tuple[tuple[tuple[str, str, str | None], ...], ...] = (
    (("user", "Start with FlashAttention: what speed-up does the paper report, and on which GPU?", None),
     ("assistant", "FlashAttention (Dao et al., 2022) reports 3x on GPT-2 at 1k tokens and 2.4x on the Long Range "
      "Arena, on A100 GPUs; memory grows linearly with the sequence length.", None)),
    (("user", "Check our library for the Reformer paper.", None),
     ("assistant", "Searching the library for “Reformer LSH attention memory”.", "search-1"),
     ("tool", "3 hits: Reformer: The Efficient Transformer (Kitaev, Kaiser, Levskaya, 2020), pages 1, 5 and 8.",
      "search-1"),
     ("assistant", "The Reformer replaces dot-product attention with LSH attention, O(L log L), and its reversible "
      "layers store activations once instead of once per layer.", None)),
    (("user", "And Longformer?", None),
     ("assistant", "Longformer (Beltagy et al., 2020) combines a 512-token sliding window with global attention on "
      "a few task tokens, and reaches 4,096 tokens on a 16 GB GPU.", None)),
    (("user", "Maria asked whether we cover BigBird.", None),
     ("assistant", "Not yet: BigBird (Zaheer et al., 2020) adds random attention to Longformer's pattern; two "
      "sentences after Longformer would do.", None)),
    (("user", "Let's settle the table: one row per method, columns complexity, longest sequence, hardware.", None),
     ("assistant", "Draft table: FlashAttention O(N²) exact, 16k tokens, A100; Reformer O(N log N), 64k tokens, "
      "8 × V100; Longformer O(N), 4,096 tokens, 16 GB GPU.", None)),
    (("user", "Say 'exact' rather than 'full' for FlashAttention, and 'approximate' for the other two.", None),
     ("assistant", "Changed: the table says exact for FlashAttention and approximate for Reformer and "
      "Longformer.", None)),
    (("user", "Which of them did the reading group benchmark?", None),
     ("assistant", "Only FlashAttention: 2.9x at 2k tokens on the lab's A100 with fused kernels, on 27 "
      "November.", None)),
    (("user", "Write the FlashAttention paragraph now.", None),
     ("assistant", FLASH_DRAFT, None)),
    (("user", "Good. Next the Reformer paragraph, shorter.", None),
     ("assistant", "Draft: The Reformer trades exactness for memory: LSH buckets similar keys so each query attends "
      "to its bucket only, and reversible layers recompute activations instead of storing them.", None)),
    (("user", "Send both paragraphs to Maria before Friday.", None),
     ("assistant", "Noted as a plan: send the FlashAttention and Reformer paragraphs to Maria by Friday "
      "4 December.", None)),
)
"""The exchanges after the task, oldest first: (role, text, tool call id) per message."""
TABLE_TURNS = (4, 5)
"""The turns (indexes into :data:`TURNS`) about the comparison table: the sub-topic folded by hand."""
TABLE_TOPIC = "The comparison table"
PINNED_TURN = 5
"""The turn whose request (a decision: "exact", not "full") is pinned before the table is folded."""
SOFT_SHARE = 0.75
"""The share of the context window the tour's sliding window runs at: past the soft threshold only."""
GAUGE_SHARE = 0.78
"""The share of the context window the picture's gauge shows once all is folded: past the soft threshold again (the
window rounded up to 64 tokens, which keeps it past 70 %)."""


def add_tour_conversation(lib: Library, project: str) -> tuple[str, int]:
    """Add the session and its conversation under ``project`` and fold it as described above.

    Returns:
        The session's path and the context window the picture shows: the prompt at :data:`GAUGE_SHARE` of it.
    """
    session = scopes.create_scope(lib, "session", SESSION_KEY, parent=project, name="Survey chat").path
    messages = [NewMessage(TASK)]
    turn_starts = []
    for turn in TURNS:
        turn_starts.append(len(messages) + 1)
        messages += [NewMessage(text, ChatRole(role), call) for role, text, call in turn]
    appended = conversations.append_many(lib, session, messages)
    window = int(conversations.prompt_tokens(lib, session) / SOFT_SHARE)
    conversations.compact(lib, session, context_window=window)
    conversations.set_pinned(lib, appended[turn_starts[PINNED_TURN] - 1].id, True)
    first = turn_starts[TABLE_TURNS[0]]
    last = turn_starts[TABLE_TURNS[-1]] + len(TURNS[TABLE_TURNS[-1]]) - 1
    conversations.compact_range(lib, session, first, last, topic=TABLE_TOPIC)
    shown = conversations.prompt_tokens(lib, session) / GAUGE_SHARE
    return session, -(-int(shown) // 64) * 64
