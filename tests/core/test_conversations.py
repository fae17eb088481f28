"""The pure rules of conversation memory: stages, fold units, what a stage folds (core.conversations)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vancetope_desktop.core.conversations import (
    STAGE_TABLE,
    ChatMessage,
    ChatRole,
    MessageKind,
    Stage,
    Strength,
    check_range,
    fold_units,
    kept_tail_start,
    select_fold,
    stage_for,
    stage_rules,
)
from vancetope_desktop.core.errors import InvalidInput

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def msg(seq: int, role: str = "user", tokens: int = 10, *, pinned: bool = False, call: str | None = None,
        kind: MessageKind = MessageKind.MESSAGE) -> ChatMessage:
    return ChatMessage(id=f"doc_{seq}", process="session/s", seq=seq, role=ChatRole(role), kind=kind,
                       content=f"message {seq}", tokens=tokens, created_at=NOW, tool_call_id=call,
                       strength=Strength.PINNED if pinned else Strength.NORMAL)


def test_stage_is_the_strongest_trigger_reached():
    assert stage_for(690, 1000) is None
    assert stage_for(700, 1000).stage is Stage.SOFT
    assert stage_for(851, 1000).stage is Stage.HARD
    assert stage_for(2000, 1000).stage is Stage.EMERGENCY
    with pytest.raises(InvalidInput, match="context window"):
        stage_for(10, 0)


def test_thresholds_are_checked():
    assert [r.trigger for r in stage_rules((0.6, 0.8, 0.9))] == [0.6, 0.8, 0.9]
    assert stage_rules(None) is STAGE_TABLE
    for bad in ((0.9, 0.8, 0.95), (0.4, 0.8, 0.9), (0.7, 0.85), (0.7, 0.85, 1.5)):
        with pytest.raises(InvalidInput):
            stage_rules(bad)


def test_a_tool_result_stays_with_its_call():
    messages = [msg(1), msg(2, "assistant", call="c1"), msg(3, "tool", call="c1"), msg(4, "tool"),
                msg(5, "user"), msg(6, "tool")]
    units = [[m.seq for m in unit] for unit in fold_units(messages)]
    assert units == [[1], [2, 3, 4], [5], [6]]  # a result after a user message has no call to join


def test_results_find_their_call_by_id_across_other_messages():
    messages = [msg(1, "assistant", call="a"), msg(2, "assistant", call="b"), msg(3, "tool", call="a"),
                msg(4, "tool", call="b")]
    assert [[m.seq for m in u] for u in fold_units(messages)] == [[1, 3], [2, 4]]


def test_kept_tail_counts_turns_from_user_messages():
    messages = [msg(1), msg(2, "assistant"), msg(3), msg(4, "assistant"), msg(5), msg(6, "assistant")]
    assert kept_tail_start(messages, 1) == 4
    assert kept_tail_start(messages, 3) == 0
    assert kept_tail_start(messages, 9) == 0
    assert kept_tail_start(messages, 0) == 6


def test_select_fold_keeps_pinned_the_last_turns_and_pairs():
    messages = [msg(1, pinned=True), msg(2, "assistant", call="x"), msg(3, "tool", call="x", tokens=50)]
    messages += [msg(s, "user" if s % 2 == 0 else "assistant") for s in range(4, 20)]
    rule = STAGE_TABLE[0]  # soft: keeps the last 6 turns
    chosen = select_fold(messages, rule, tokens_in=900, context_window=1000, summary_growth=0)
    # not the pinned task (1); the call and its result together; nothing of the last six turns (from 8 on), even
    # though the target (500 tokens) is out of reach: the caller reports the shortfall
    assert [m.seq for m in chosen] == [2, 3, 4, 5, 6, 7]


def test_select_fold_stops_at_the_target():
    messages = [msg(s, "user" if s % 2 else "assistant", tokens=100) for s in range(1, 41)]
    chosen = select_fold(messages, STAGE_TABLE[0], tokens_in=4000, context_window=5000, summary_growth=100)
    # the soft target is 50 %: 2,500 tokens; freeing 1,600 (16 messages) reaches it with the summary's 100
    assert len(chosen) == 16


def test_soft_keeps_stitches_hard_folds_them():
    messages = [msg(1), msg(2, "system", kind=MessageKind.STITCH), *[msg(s, "user") for s in range(3, 13)]]
    soft = select_fold(messages, STAGE_TABLE[0], 10_000, 10_000, 0)
    hard = select_fold(messages, STAGE_TABLE[1], 10_000, 10_000, 0)
    assert 2 not in [m.seq for m in soft] and 2 in [m.seq for m in hard]


def test_a_stitch_reads_after_its_range():
    stitch = msg(9, "system", kind=MessageKind.STITCH).model_copy(update={"after_seq": 4})
    ordered = sorted([msg(5), stitch, msg(4), msg(3)], key=lambda m: m.order)
    assert [m.seq for m in ordered] == [3, 4, 9, 5]


def test_check_range():
    messages = [msg(1), msg(2), msg(3)]
    check_range(messages, 1, 3)
    with pytest.raises(InvalidInput, match="starts after"):
        check_range(messages, 3, 1)
    with pytest.raises(InvalidInput, match="no message 7"):
        check_range(messages, 2, 7)
