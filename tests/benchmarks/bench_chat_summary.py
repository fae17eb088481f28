"""How names and numbers survive repeated compactions of a conversation (issue 15, "A summary must keep…").

Run: ``.venv/bin/python tests/benchmarks/bench_chat_summary.py [--max-words 300]``

* Input: the 5 conversations of ``eval/locomo/locomo-dev.json`` (``VANCETOPE_SHARED``). Each session is one
  range; its turns are ``ChatTurn(role="user" for the first speaker, "assistant" for the other,
  text="<speaker>: <text>")``, as the conversation service passes LoCoMo turns.
* Rolling: ``summary_k = BuiltinGenerator().summarize_chat(range k, previous=summary_{k-1})`` with
  ``max_words`` 300. A conversation of fewer than 21 sessions has its sessions from the second on split in
  halves, in order, until it has 21 ranges, so that 20 compactions happen (the output says which); session 1
  stays whole, as it is the range followed.
* Figures after 1, 5 and 20 compactions, averaged over the conversations: the share of session 1's entities
  (``chat_summary.entities`` of its turns) that the rolling summary still mentions (``chat_summary.mentions``),
  and the share of all the entities of the ranges folded so far; the same shares in the summary's body alone
  (without its ``Names and numbers:`` line: what the entity guard adds); the summary's words and the seconds per
  compaction. Prints figures only (no assertions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from _common import SHARED, need, table

from vancetope_desktop.generation.base import ChatSummaryRequest, ChatTurn
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.chat_summary import entities, mentions, split_names

LOCOMO = SHARED / "eval" / "locomo" / "locomo-dev.json"
POINTS = (1, 5, 20)
MIN_RANGES = max(POINTS) + 1


def ranges(conversation: dict) -> tuple[list[list[ChatTurn]], int]:
    """The conversation's ranges of turns (one per session, split as the module doc says) and how many
    sessions were split."""
    numbers = sorted(int(key.split("_")[1]) for key, value in conversation.items()
                     if key.startswith("session_") and isinstance(value, list))
    first = conversation["speaker_a"]
    sessions = [[ChatTurn(seq=0, role="user" if turn["speaker"] == first else "assistant",
                          text=f"{turn['speaker']}: {turn['text']}") for turn in conversation[f"session_{n}"]]
                for n in numbers]
    out, split = [sessions[0]], 0
    for session in sessions[1:]:
        if len(sessions) + split < MIN_RANGES and len(session) > 1:
            half = len(session) // 2
            out += [session[:half], session[half:]]
            split += 1
        else:
            out.append(session)
    seq = 0
    numbered = []
    for turns in out:
        numbered.append([turn.model_copy(update={"seq": seq + i}) for i, turn in enumerate(turns)])
        seq += len(turns)
    return numbered, split


def share(summary: str, wanted: list[str]) -> float:
    """The share of ``wanted`` entities that ``summary`` mentions (1.0 when none are wanted)."""
    return sum(mentions(summary, name) for name in wanted) / len(wanted) if wanted else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-words", type=int, default=300)
    args = parser.parse_args()
    data = json.loads(need(LOCOMO, "the LoCoMo file").read_text(encoding="utf-8"))
    generator = BuiltinGenerator()
    first_share: dict[int, list[float]] = {k: [] for k in POINTS}
    all_share: dict[int, list[float]] = {k: [] for k in POINTS}
    words: dict[int, list[int]] = {k: [] for k in POINTS}
    body_first: dict[int, list[float]] = {k: [] for k in POINTS}
    body_all: dict[int, list[float]] = {k: [] for k in POINTS}
    rows, seconds = [], []
    for sample in data:
        conversation = sample["conversation"]
        folded, split = ranges(conversation)
        session_1 = entities("\n".join(turn.text for turn in folded[0]))
        seen: list[str] = []
        summary = ""
        row = [sample["sample_id"], str(len(folded)) + (f" ({split} split)" if split else ""), str(len(session_1))]
        for k, turns in enumerate(folded[:max(POINTS)], start=1):
            seen += [name for name in entities("\n".join(turn.text for turn in turns)) if name not in seen]
            start = time.perf_counter()
            summary = generator.summarize_chat(ChatSummaryRequest(turns=turns, previous=summary,
                                                                  max_words=args.max_words))
            seconds.append(time.perf_counter() - start)
            if k in POINTS:
                first_share[k].append(share(summary, session_1))
                all_share[k].append(share(summary, seen))
                words[k].append(len(summary.split()))
                body = split_names(summary)[0]
                body_first[k].append(share(body, session_1))
                body_all[k].append(share(body, seen))
                row += [f"{first_share[k][-1]:.0%}", f"{all_share[k][-1]:.0%} of {len(seen)}"]
        rows.append(row)
        if split:
            print(f"{sample['sample_id']}: {split} sessions after the first split in halves to reach "
                  f"{MIN_RANGES} ranges")
    heads = ["conversation", "ranges", "session-1 entities"]
    heads += [f"{label} after {k}" for k in POINTS for label in ("session 1", "all")]
    print(table("Per conversation: entities the rolling summary still mentions", heads, rows))
    print()
    print(table(f"max_words {args.max_words}; mean over {len(data)} conversations",
                ["compactions", "session-1 entities kept", "all earlier entities kept", "in the body alone (s1 / all)",
                 "summary words"],
                [[str(k), f"{statistics.mean(first_share[k]):.1%}", f"{statistics.mean(all_share[k]):.1%}",
                  f"{statistics.mean(body_first[k]):.1%} / {statistics.mean(body_all[k]):.1%}",
                  f"{statistics.mean(words[k]):.0f}"] for k in POINTS]))
    print(f"\nseconds per compaction: median {statistics.median(seconds):.2f}, max {max(seconds):.2f} "
          f"({len(seconds)} compactions)")


if __name__ == "__main__":
    main()
