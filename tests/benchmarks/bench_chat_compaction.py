"""Conversation compaction on LoCoMo (issue 15): what is still found after early sessions are folded, and what it saves.

Run: ``.venv/bin/python tests/benchmarks/bench_chat_compaction.py [--window 2048] [--rebuild]``

* Data: ``eval/locomo/locomo-dev.json`` (5 conversations, 2,760 turns, 762 questions of categories 1-4; evaluation
  only, read in place). Each conversation is played as one process (``session/<conversation>``) through
  ``services.conversations``: at the start of each LoCoMo session a system message "Session 3 — 1:56 pm on 8 May,
  2023" (a chat log's session marker: the dates later questions ask about), then its turns as messages
  ``"Caroline: …"`` (the first speaker as ``user``, the second as ``assistant``; a shared photo's caption kept as
  in ``bench_locomo.py``'s ``speaker`` recipe). Before each session, the sliding window runs with a context window of
  ``--window`` tokens (default 2,048: a small model's, so that early sessions are folded), as an agent would at the
  start of a turn. The built-in summariser writes the summaries. Then the index is drained (every message and
  summary embedded); the library is cached under ``$TMPDIR/chat-compaction/<window>-<hash>``.
* Rankings, each ``services.search.search`` restricted to the process's scope, 10 hits:
  - **uncompacted**: the messages only (``types=[message]``) — the same library as an uncompacted one but for the
    summaries' words in the BM25 statistics;
  - **summaries + originals**: messages and ``archived_chat`` summaries together (rolled-up summaries too: they
    are archived, but each is still the record of its own range); a summary hit takes a place among
    the 10 and is credited with nothing (conservative: it must not push the originals out); the range-credited
    variant credits a summary hit with the evidence turns of the range it folded (its own messages only); and the
    product's default search (active documents only: the summaries in force, the active one and the topics', beside
    the messages);
  - **summaries alone**: the ``archived_chat`` summaries; a question's evidence turn counts as found when the summary
    that folded it is among the first k summaries (k = 1, 3), beside the chance level k / (summaries of the process).
* Metric: dialog-level recall@10 as in ``bench_locomo.py`` (the share of a question's evidence turns among the
  turns of the first 10 hits), averaged over the questions. Token reduction: the prompt's conversation tokens at the
  end (``prompt_tokens``: summary + pinned + live messages) against every message's tokens, and the mean over the
  session starts.
* Entity survival: the names and numbers (``generation.chat_summary.entities``) of the first compaction's folded
  messages, the share the active summary still mentions (``chat_summary.mentions``) after 1, 5 and 20
  compactions, averaged over the conversations that reached that many (LoCoMo has 19-32 sessions each; with a
  2,048-token window most sessions start with one).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import table
from bench_locomo import LOCOMO, Question, _said, load

from vancetope_desktop.core.conversations import ChatRole
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.memories import MemoryType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.chat_summary import entities, mentions
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import indexing, scopes
from vancetope_desktop.services import search as search_service
from vancetope_desktop.services.conversations import NewMessage
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library

SURVIVAL_AFTER = (1, 5, 20)
"""Compactions after which the first range's entities are looked for (issue 15)."""
K = 10
EVERY_SUMMARY = (DocumentStatus.ACTIVE, DocumentStatus.ARCHIVED)
"""Statuses searched when summaries are: a rolled-up summary is archived (the newer one ``updates`` it) but is still
the record of its own range."""


def process_of(conversation: str) -> str:
    return f"session/{conversation}"


BUILT_BY = ("core/conversations.py", "services/conversations.py", "generation/chat_summary.py",
            "generation/builtin.py", "generation/summary.py")
"""The modules whose code decides what the played library holds: a change to one of them plays it again."""


def cache_folder(window: int) -> Path:
    package = Path(__file__).parents[2] / "vancetope_desktop"
    code = hashlib.sha256(b"".join((package / name).read_bytes() for name in BUILT_BY)).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / "chat-compaction" / f"{window}-{code}"


def build(folder: Path, window: int) -> None:
    """Play every conversation through the service into ``folder`` (atomically), recording what each step did."""
    turns, _ = load()
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = Library.open(partial / "library", settings=Settings())
    mapping: dict[str, str] = {}
    record: dict[str, dict] = {}
    try:
        start = time.perf_counter()
        for conversation in dict.fromkeys(t.conversation for t in turns):
            process = process_of(conversation)
            scopes.create_scope(lib, "session", conversation, parent=DEFAULT_PROJECT)
            mine = [t for t in turns if t.conversation == conversation]
            speakers = list(dict.fromkeys(t.speaker for t in mine))
            steps: dict = {"starts": [], "survival": {}, "compactions": 0, "total_tokens": 0}
            first_entities: list[str] | None = None
            for session in dict.fromkeys(t.session for t in mine):
                result = chat.compact(lib, process, context_window=window)
                if result.folded:
                    steps["compactions"] += 1
                    if first_entities is None:
                        folded = chat.archived_messages(lib, result.archive.id)
                        first_entities = entities("\n".join(m.content for m in folded))
                        steps["first_entities"] = first_entities
                    if steps["compactions"] in SURVIVAL_AFTER:
                        steps["survival"][steps["compactions"]] = chat.active_summary(lib, process).summary
                steps["starts"].append(chat.prompt_tokens(lib, process))
                said = [t for t in mine if t.session == session]
                batch = [NewMessage(f"Session {session} — {said[0].date:%-I:%M %p on %-d %B, %Y}", ChatRole.SYSTEM)]
                batch += [NewMessage(_said(t), ChatRole.USER if t.speaker == speakers[0] else ChatRole.ASSISTANT)
                          for t in said]
                added = chat.append_many(lib, process, batch)
                steps["total_tokens"] += sum(m.tokens for m in added)
                for message, turn in zip(added[1:], said, strict=True):
                    mapping[message.id] = turn.dia_id
            steps["end_tokens"] = chat.prompt_tokens(lib, process)
            steps["summaries"] = len(chat.archives(lib, process))
            record[conversation] = steps
            print(f"{conversation}: {len(mine)} turns, {steps['compactions']} compactions, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
        played = time.perf_counter() - start
        report = indexing.try_drain(lib)
        assert report is not None and not report.failed, report
        (partial / "build.json").write_text(json.dumps({
            "mapping": mapping, "record": record, "play_seconds": played,
            "drain_seconds": time.perf_counter() - start - played, "load": os.getloadavg()[0]}), encoding="utf-8")
    finally:
        lib.close()
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def ranges(lib: Library, conversation: str) -> dict[str, set[str]]:
    """Each summary's id → the message ids it folded itself."""
    return {a.id: set(a.message_ids) for a in chat.archives(lib, process_of(conversation))}


def survival(steps: dict, after: int) -> float:
    """The share of the first folded range's entities the active summary mentions after ``after`` compactions."""
    wanted = steps.get("first_entities") or []
    summary = steps["survival"][str(after)]
    return sum(mentions(summary, e) for e in wanted) / max(len(wanted), 1)


def ask(lib: Library, process: str, question: Question, **filters) -> list[str]:
    """The ids of the first :data:`K` hits of ``services.search`` for ``question`` in ``process`` alone."""
    return [h.document.id for h in search_service.search(lib, question.text, scope=process, scopes=[process],
                                                          limit=K, **filters).hits]


def recall(questions: Sequence[Question], ranked: dict[int, list[str]], credit: dict[str, set[str]],
           mapping: dict[str, str], k: int) -> float:
    """Dialog recall@k: a message hit credits its turn, a summary hit the turns in ``credit`` (maybe none)."""
    total = 0.0
    for number, question in enumerate(questions):
        found: set[str] = set()
        for hit in ranked[number][:k]:
            if hit in mapping:
                found.add(mapping[hit])
            found |= {mapping[m] for m in credit.get(hit, ()) if m in mapping}
        total += len(set(question.evidence) & found) / len(question.evidence)
    return total / max(len(questions), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--window", type=int, default=2048, help="the model's context window, in tokens")
    parser.add_argument("--rebuild", action="store_true", help="play the conversations again")
    args = parser.parse_args()
    if not LOCOMO.exists():
        sys.exit(f"LoCoMo not found at {LOCOMO} (set VANCETOPE_SHARED)")
    folder = cache_folder(args.window)
    if args.rebuild or not (folder / "build.json").exists():
        build(folder, args.window)
    built = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    mapping: dict[str, str] = built["mapping"]
    _, questions = load()
    lib = Library.open(folder / "library", settings=Settings())
    rows, survival_rows = [], []
    try:
        by_conversation: dict[str, list[Question]] = {}
        for question in questions:
            by_conversation.setdefault(question.conversation, []).append(question)
        sums = {"uncompacted": 0.0, "both": 0.0, "in-force": 0.0, "both-credited": 0.0, "alone@1": 0.0, "alone@3": 0.0,
                "chance@1": 0.0, "chance@3": 0.0}
        for conversation, asked in by_conversation.items():
            process = process_of(conversation)
            folded = ranges(lib, conversation)
            originals: dict[int, list[str]] = {}
            both: dict[int, list[str]] = {}
            alone: dict[int, list[str]] = {}
            in_force: dict[int, list[str]] = {}
            for number, question in enumerate(asked):
                originals[number] = ask(lib, process, question, types=[DocumentType.MESSAGE])
                both[number] = ask(lib, process, question, types=[DocumentType.MESSAGE, DocumentType.NOTE],
                                   statuses=EVERY_SUMMARY)
                in_force[number] = ask(lib, process, question, types=[DocumentType.MESSAGE, DocumentType.NOTE])
                alone[number] = ask(lib, process, question, types=[DocumentType.NOTE],
                                    memory_types=[MemoryType.ARCHIVED_CHAT], statuses=EVERY_SUMMARY)
            weight = len(asked)
            sums["uncompacted"] += weight * recall(asked, originals, {}, mapping, K)
            sums["both"] += weight * recall(asked, both, {}, mapping, K)
            sums["both-credited"] += weight * recall(asked, both, folded, mapping, K)
            sums["in-force"] += weight * recall(asked, in_force, {}, mapping, K)
            for k in (1, 3):
                sums[f"alone@{k}"] += weight * recall(asked, alone, folded, mapping, k)
                sums[f"chance@{k}"] += weight * min(1.0, k / max(len(folded), 1))
            steps = built["record"][conversation]
            starts = steps["starts"]
            rows.append([conversation, len(asked), steps["compactions"], steps["summaries"],
                         f"{steps['total_tokens']:,}", f"{steps['end_tokens']:,}",
                         f"{sum(starts) / max(len(starts), 1):,.0f}",
                         f"{1 - steps['end_tokens'] / max(steps['total_tokens'], 1):.1%}"])
            survival_rows.append([conversation, len(steps.get("first_entities", []))]
                                 + [f"{survival(steps, n):.0%}" if str(n) in steps["survival"] else "-"
                                    for n in SURVIVAL_AFTER])
        n = len(questions)
        print(table(f"Tokens (window {args.window:,}; play {built['play_seconds']:.0f} s, drain "
                    f"{built['drain_seconds']:.0f} s, load {built['load']:.1f})",
                    ["conversation", "questions", "compactions", "summaries", "all messages' tokens",
                     "prompt at the end", "mean prompt at session starts", "reduction"], rows))
        print(table(f"Evidence recall@{K} ({n} questions)", ["ranking", f"R@{K}"], [
            ["uncompacted (messages only)", f"{sums['uncompacted'] / n:.5f}"],
            ["summaries + archived originals (summary hits credited nothing)", f"{sums['both'] / n:.5f}"],
            ["summaries + archived originals (summary hits credited their range)", f"{sums['both-credited'] / n:.3f}"],
            ["the product's default search (messages, the summaries in force: active and topic)",
             f"{sums['in-force'] / n:.4f}"],
            ["summaries alone, the folding summary among the first 1", f"{sums['alone@1'] / n:.3f}"
             f" (chance {sums['chance@1'] / n:.3f})"],
            ["summaries alone, among the first 3", f"{sums['alone@3'] / n:.3f} (chance {sums['chance@3'] / n:.3f})"],
        ]))
        means = []
        for after in SURVIVAL_AFTER:
            values = [survival(s, after) for s in built["record"].values() if str(after) in s["survival"]]
            means.append(f"{sum(values) / len(values):.0%} ({len(values)})" if values else "-")
        print(table("Entities of the first folded range still in the active summary (conversations that got there)",
                    ["conversation", "entities", *(f"after {n}" for n in SURVIVAL_AFTER)],
                    [*survival_rows, ["mean", "", *means]]))
    finally:
        lib.close()


if __name__ == "__main__":
    main()
