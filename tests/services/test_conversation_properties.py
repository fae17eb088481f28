"""Property test of conversation memory (issue 15 "Evidence"): random conversations through every stage.

Each conversation is random (seeded): its length, who speaks, tool calls with their results, messages pinned on the
way, topic folds of random ranges. It is driven through the soft, hard and emergency stages of the sliding window
(with more messages between them) and its block composed at random budgets. After every step:

- every pinned message is live and verbatim (never folded, its text unchanged);
- marking an archive's messages again changes nothing (``mark_archived`` is idempotent), and so does running the
  same compaction again;
- every folded message is reachable from its archive, and every message the active summary stands for from it;
- no archive splits a tool call from its result (range folds widen, the sliding window folds units);
- the block is within its budget, or the budget is refused with ``BudgetTooSmall`` because the pinned messages do
  not fit.

The suite plays :data:`CONVERSATIONS` of them in one library with the built-in summariser (about 1.2 s of CPU each
on this machine); the issue's 1,000 run with ``VANCETOPE_PROPERTY_CONVERSATIONS=1000`` (too long for the suite's
budget; the last such run is in the README's figures).
"""

from __future__ import annotations

import os
import random

import pytest

from vancetope_desktop.core.conversations import STAGE_TABLE, ChatRole, MessageKind, fold_units
from vancetope_desktop.core.errors import BudgetTooSmall, InvalidInput
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import scopes
from vancetope_desktop.services.conversations import NewMessage
from vancetope_desktop.store.db import write_session

CONVERSATIONS = int(os.environ.get("VANCETOPE_PROPERTY_CONVERSATIONS", "12"))
"""How many random conversations the test plays (seeds 0 … n-1; the issue's run is 1,000)."""

NAMES = ["Maria", "Kenji", "Ana", "Oluwaseun", "Zoë", "Priya", "Tomás"]
PLACES = ["Vienna", "Osaka", "Lagos", "Montréal", "Tromsø"]
WORDS = ("the run on node {n} finished with loss {x:.3f}; {a} wants to compare it with {b}'s baseline in {p}",
         "did the {p} cluster accept job {n}? {a} asked twice",
         "we decided to keep checkpoint {n} and drop the others",
         "open question: does batch size {n} fit on {p}'s GPUs?",
         "{a} uploaded the dataset (version {n}) to the shared folder",
         "tool says: queue length {n}, ETA {x:.1f} hours")


def random_text(rng: random.Random) -> str:
    sentences = [rng.choice(WORDS).format(n=rng.randint(1, 9999), x=rng.random() * 10, a=rng.choice(NAMES),
                                          b=rng.choice(NAMES), p=rng.choice(PLACES))
                 for _ in range(rng.randint(1, 4))]
    return " ".join(s[0].upper() + s[1:] + "." for s in sentences)


def random_messages(rng: random.Random, count: int, start_call: int) -> list[NewMessage]:
    """``count``-odd messages: user turns, assistant replies, some assistant tool calls with one or two results."""
    messages: list[NewMessage] = []
    call = start_call
    while len(messages) < count:
        kind = rng.random()
        if kind < 0.35:
            messages.append(NewMessage(random_text(rng), ChatRole.USER, pinned=rng.random() < 0.05))
        elif kind < 0.8:
            messages.append(NewMessage(random_text(rng), ChatRole.ASSISTANT, pinned=rng.random() < 0.03))
        elif kind < 0.95:
            call += 1
            messages.append(NewMessage(random_text(rng), ChatRole.ASSISTANT, tool_call_id=f"call_{call}"))
            for _ in range(rng.randint(1, 2)):
                messages.append(NewMessage(random_text(rng), ChatRole.TOOL, tool_call_id=f"call_{call}"))
        else:
            messages.append(NewMessage(random_text(rng), ChatRole.SYSTEM))
    return messages


def check_invariants(lib, process: str, texts: dict[str, str]) -> None:
    every = chat.history(lib, process, limit=1000).messages
    for message in every:
        assert message.content == texts.get(message.id, message.content)  # originals never change
        if message.pinned:
            assert message.archived_in is None, f"pinned message {message.seq} of {process} was folded"
    units = fold_units([m for m in every if m.kind is MessageKind.MESSAGE])
    for unit in units:  # a tool call and its result are folded together or not at all
        assert len({m.archived_in for m in unit}) == 1, f"{process}: unit {[m.seq for m in unit]} split"
    archived = [m for m in every if m.archived_in]
    for archive in chat.archives(lib, process):
        originals = chat.archived_messages(lib, archive.id)
        assert [m.id for m in originals] == archive.message_ids
        with write_session(lib.engine) as session:
            assert chat.mark_archived(session, archive.message_ids, archive.id) == 0  # idempotent
    reachable = {m.id for a in chat.archives(lib, process) for m in chat.archived_messages(lib, a.id)}
    assert {m.id for m in archived} <= reachable
    active = chat.active_summary(lib, process)
    if active is not None:
        stands_for = {m.id for m in chat.archived_messages(lib, active.id, rolled_up=True)}
        sliding = {m.id for a in chat.archives(lib, process) if a.stage for m in chat.archived_messages(lib, a.id)}
        assert stands_for == sliding


def check_block(lib, process: str, rng: random.Random) -> None:
    for budget in (rng.randint(10, 200), rng.randint(200, 4000)):
        try:
            block = chat.compose_block(lib, process, budget)
        except BudgetTooSmall as error:
            assert "pinned messages" in str(error)
            pinned = [m for m in chat.live_messages(lib, process) if m.pinned]
            assert sum(m.tokens for m in pinned) > 0 or budget < 40
            continue
        assert block.tokens <= budget
        assert chat.token_counter(lib)(block.markdown) == block.tokens


def play(lib, number: int) -> None:
    rng = random.Random(number)
    process = f"session/p{number}"
    scopes.create_scope(lib, "session", f"p{number}", parent="project/inbox")
    texts: dict[str, str] = {}
    call = 0
    for stage in STAGE_TABLE:  # soft, then hard, then emergency, with more talk between them
        batch = random_messages(rng, rng.randint(4, 14), call)
        call += 20
        for message in chat.append_many(lib, process, batch):
            texts[message.id] = message.content
        live = [m for m in chat.live_messages(lib, process) if m.kind is MessageKind.MESSAGE]
        if rng.random() < 0.3 and live:  # a person pins something on the way
            chat.set_pinned(lib, rng.choice(live).id, True)
        tokens = chat.prompt_tokens(lib, process)
        window = max(1, int(tokens / (stage.trigger + 0.01)))
        result = chat.compact(lib, process, context_window=window)
        assert result.stage is stage.stage
        again = chat.compact(lib, process, context_window=window)
        assert again.folded == 0  # the same compaction twice folds nothing more
        check_invariants(lib, process, texts)
        live = [m for m in chat.live_messages(lib, process) if m.kind is MessageKind.MESSAGE]
        if len(live) > 3 and rng.random() < 0.4:  # a person folds a finished sub-topic
            first, last = sorted(rng.sample([m.seq for m in live], 2))
            try:
                chat.compact_range(lib, process, first, last, topic=f"Sub-topic {first}")
            except InvalidInput as error:  # only the refusals the issue names
                assert "already folded" in str(error) or "all pinned" in str(error) \
                    or "overlaps messages already folded" in str(error), error
            check_invariants(lib, process, texts)
        check_block(lib, process, rng)


@pytest.mark.slow
def test_random_conversations_through_every_stage(library):
    for number in range(CONVERSATIONS):
        play(library, number)
