"""Sentences and their offsets: the Markdown structure the built-in generator reads and what it leaves out."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED
from vancetope_desktop.generation.sentences import BlockKind, split_sentences

NOTE = """---
title: Weekly
tags: [lab]
---
# Weekly notes

The array stores charge. It was rebuilt on Monday, e.g. with new capacitors.

```python
print("Not a sentence. Nor this.")
```

$$
x = y. z = w.
$$

| a. | b. |
|----|----|
| c. | d. |

- [ ] send the draft to Anna
> A quoted line
> that goes on.

Inline math $V(f) \\subseteq V(g)$ stays whole. 我们昨天去了会议。下周五我们将提交报告。
"""


def test_blocks_leave_out_front_matter_code_math_and_tables():
    found = [(s.kind, s.text) for s in split_sentences(NOTE)]
    assert found == [
        (BlockKind.HEADING, "Weekly notes"),
        (BlockKind.PROSE, "The array stores charge."),
        (BlockKind.PROSE, "It was rebuilt on Monday, e.g. with new capacitors."),
        (BlockKind.ITEM, "send the draft to Anna"),
        (BlockKind.PROSE, "A quoted line\n> that goes on."),
        (BlockKind.PROSE, "Inline math $V(f) \\subseteq V(g)$ stays whole."),
        (BlockKind.PROSE, "我们昨天去了会议。"),
        (BlockKind.PROSE, "下周五我们将提交报告。"),
    ]
    assert all(NOTE[s.start:s.end] == s.text for s in split_sentences(NOTE))


def test_short_unpunctuated_lines_are_a_list_and_wrapped_prose_is_not():
    seed = SHARED / "seeds" / "002_94777b385e415d72.txt"
    if not seed.exists():
        pytest.skip("the seed texts are not here")
    text = seed.read_text(encoding="utf-8")
    items = [s.text for s in split_sentences(text) if s.kind is BlockKind.ITEM]
    assert items[:5] == ["import a source", "extract structured nodes", "connect them immediately",
                         "grow a memory graph over time", "derive a topic tree as a faster view on top"]
    assert "the durable atom ontology is now fact / event / plan" in items
    wrapped = ("Chunks are cut to the model's limit counted with its own tokenizer because the\n"
               "model silently truncates after 256 word pieces and the rest of a long chunk would\n"
               "never be searched at all")
    assert [s.text for s in split_sentences(wrapped)] == [wrapped]


def test_one_long_line_is_cut_between_sentences():
    text = "We met on 3 March 2025. " * 2_500  # 60,000 characters: three pieces for segtok
    sentences = split_sentences(text)
    assert len(sentences) == 2_500 and {s.text for s in sentences} == {"We met on 3 March 2025."}
