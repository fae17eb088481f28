"""The start of an agent's session (seed 001 "Pattern de démarrage de session"), on a small library of its own.

The library holds what a team of agents would have written over earlier sessions:

    group/team           Team              conventions every project shares (feedback memories)
      project/starter    Vantage Starter   the project's decisions (project and reference memories)
      agent/tau          Tau               the agent's own state: current work, priorities, an episode
    session/monday       a session of project/starter, run by agent/tau

Then the session starts: ``memory_session_start`` makes the seed's three recalls (the project's group for the
global conventions, the project, the agent) in one call and returns one Markdown block within a token budget,
each memory with its id and memory type under a heading naming its namespace. A second call with a small budget
shows how the sections share it: the short ones stay whole, the long one is cut and says what it left out.

Run it from the repository with the project's Python (the memories are embedded on the CPU, a few seconds)::

    python resources/examples/session_start.py                  # a fresh temporary library
    python resources/examples/session_start.py --library PATH    # keeps it (PATH must not hold a library yet)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, episodes, indexing, scopes
from vancetope_desktop.services.library import Library

SESSION = "session/monday"
SMALL_BUDGET = 160

MEMORIES = (
    ("group/team", "feedback", "Every error the product raises is a typed error with a one-line reason; never a bare "
     "exception."),
    ("group/team", "feedback", "Commit in small steps, each message saying what now works and why."),
    ("group/team", "user", "Alice reviews the pull requests and prefers short answers."),
    ("project/starter", "project", "Architecture decision: the landing page uses OKLCH colour tokens only; hex and "
     "HSL were removed."),
    ("project/starter", "project", "Architecture decision: Convex holds the data and the vector index; the schema "
     "is deployed before the functions that use it."),
    ("project/starter", "reference", "The design system's tokens are documented in docs/tokens.md."),
    ("agent/tau", "project", "Current work: migrating the pricing page to the OKLCH tokens; priority after that: "
     "the dark theme."),
    ("agent/tau", "feedback", "Priority rule from Alice: fix failing deploys before starting new pages."),
)
EPISODE = {"context": "Deploying Convex schema changes", "goal": "Add vector index to memories table",
           "action": "Ran npx convex deploy after editing schema.ts",
           "outcome": "Deploy failed: the vector index needs the embedding field to exist first",
           "insight": "Add a vector index in the same deploy as its embedding field. Order matters.",
           "severity": "major"}


def heading(text: str) -> None:
    """Print a section heading of the example's own output."""
    print(f"\n=== {text} " + "=" * max(0, 72 - len(text)))


def build(lib: Library) -> None:
    """The team's scopes and memories, embedded so that recall finds them by meaning."""
    scopes.create_scope(lib, "group", "team", name="Team")
    scopes.create_scope(lib, "project", "starter", parent="group/team", name="Vantage Starter")
    scopes.create_scope(lib, "agent", "tau", parent="group/team", name="Tau")
    scopes.create_scope(lib, "session", "monday", parent="project/starter", agent="agent/tau")
    for namespace, memory_type, text in MEMORIES:
        documents.add_text(lib, text, doc_type=DocumentType.NOTE, scope=namespace, memory_type=memory_type)
    episodes.store_episode(lib, "agent/tau", created_by="agent/tau", **EPISODE)
    indexing.try_drain(lib)
    print(f"stored {len(MEMORIES)} memories and 1 episode in group/team, project/starter and agent/tau; "
          f"{SESSION} is run by agent/tau")


def run(lib: Library) -> None:
    """Build the library, then start the agent's session twice: the default budget, then a small one."""
    build(lib)
    tools = MemoryTools(lib, SESSION)
    heading(f"memory_session_start() from {SESSION}")
    start = tools.memory_session_start()
    print(start.markdown)
    print(f"\n({start.tokens} of {start.token_budget} tokens)")

    heading(f"memory_session_start(token_budget={SMALL_BUDGET})")
    small = tools.memory_session_start(token_budget=SMALL_BUDGET)
    print(small.markdown)
    print(f"\n({small.tokens} of {small.token_budget} tokens)")
    for section in small.sections:
        left = f"; left out: {', '.join(section.omitted)}" if section.omitted else ""
        print(f"{section.kind}: {len(section.memories)} shown{left}")


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, create the library and run the example; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, help="a new library folder (default: a fresh temporary one)")
    args = parser.parse_args(argv)
    if args.library and (args.library / "library.sqlite").exists():
        parser.error(f"{args.library} holds a library already: give a new folder")
    with (tempfile.TemporaryDirectory(prefix="vancetope-example-") as temporary,
          Library.open(args.library or Path(temporary) / "library") as lib):
        run(lib)
    return 0


if __name__ == "__main__":
    sys.exit(main())
