"""The duplicate guard's threshold (``Settings.memory_duplicate_threshold``): cosine similarities of the
bundled model between paraphrases, and between different facts on the same topic, written for this purpose.

Run: ``.venv/bin/python tests/benchmarks/bench_duplicate_guard.py``

Each pair is embedded as ``services.memory_guard`` embeds a memory (``Embedder.encode_queries``, the same
vectors as the index's). Prints both sorted lists and, for each candidate threshold, how many paraphrases
it catches and how many different facts it flags. The last three pairs of ``DIFFERENT`` are restatements
with a changed value: flagging them is wanted (the caller is asked, and ``update`` supersedes the old one).
"""

from __future__ import annotations

import numpy as np

from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index.embedder import Embedder

PARAPHRASES = [
 ("The landing page uses OKLCH colour tokens only.", "Only OKLCH tokens are used for colours on the landing page."),
 ("Deploys go through the staging cluster first.", "We always deploy to the staging cluster before anything else."),
 ("Alice prefers short answers without bullet lists.", "Alice likes brief replies, no bullet points."),
 ("Vector indexes must be added in the same deploy as the embedding field.",
  "Add the vector index in the same deploy as its embedding field."),
 ("Never use shadcn components in this project.", "This project must not use shadcn components."),
 ("The API rate limit is 100 requests per minute.", "The API allows 100 requests each minute."),
 ("Run the tests with pytest -q before every commit.", "Before committing, always run pytest -q."),
 ("The design documents live in the docs/specs folder.", "Design specs are kept under docs/specs."),
 ("Bob is the reviewer for database migrations.", "Database migrations are reviewed by Bob."),
 ("Use UTC for every stored timestamp.", "All timestamps are stored in UTC."),
 ("The release branch is cut every second Tuesday.", "Every other Tuesday we cut the release branch."),
 ("Clerk handles authentication in the middleware.", "Authentication is done by Clerk in middleware."),
 ("Keep commit messages under 72 characters per line.", "Commit message lines stay below 72 characters."),
 ("The staging database is reset every night at 2 am.", "Every night at 2 am the staging database gets reset."),
 ("Prefer composition over inheritance in the UI code.", "In UI code, favour composition rather than inheritance."),
]
DIFFERENT = [
 ("Deploys go through the staging cluster first.", "Deploys go straight to the production cluster."),
 ("The API rate limit is 100 requests per minute.", "The API rate limit is 1000 requests per hour."),
 ("Bob is the reviewer for database migrations.", "Carol is the reviewer for frontend changes."),
 ("Use UTC for every stored timestamp.", "Dates are shown to the user in their local time zone."),
 ("The release branch is cut every second Tuesday.", "The release notes are written by the product team."),
 ("Clerk handles authentication in the middleware.", "Authorization rules live in the database policies."),
 ("Run the tests with pytest -q before every commit.", "The CI pipeline runs the slow tests nightly."),
 ("The design documents live in the docs/specs folder.", "Screenshots for the README live in docs/images."),
 ("The staging database is reset every night at 2 am.", "The production database is backed up every hour."),
 ("Keep commit messages under 72 characters per line.", "Pull request titles start with the ticket number."),
 ("Prefer composition over inheritance in the UI code.", "The UI code uses PySide6 with Qt widgets."),
 ("Vector indexes must be added in the same deploy as the embedding field.",
  "The embedding model is all-MiniLM-L6-v2."),
 ("The landing page uses OKLCH colour tokens only.", "The landing page uses hex colour codes only."),
 ("Alice prefers short answers without bullet lists.", "Alice prefers long answers with bullet lists."),
 ("Never use shadcn components in this project.", "Use shadcn components for every form."),
]


def similarities(pairs: list[tuple[str, str]], embedder: Embedder) -> np.ndarray:
    """Cosine of each pair (the vectors are unit length)."""
    left = embedder.encode_queries([a for a, _ in pairs])
    right = embedder.encode_queries([b for _, b in pairs])
    return (left * right).sum(axis=1)


def main() -> None:
    embedder = Embedder.from_settings(Settings())
    same, other = similarities(PARAPHRASES, embedder), similarities(DIFFERENT, embedder)
    print("paraphrases    ", " ".join(f"{v:.3f}" for v in np.sort(same)))
    print("different facts", " ".join(f"{v:.3f}" for v in np.sort(other)))
    print("threshold  paraphrases caught  different flagged")
    for cut in (0.7, 0.75, 0.8, 0.85, 0.9):
        caught, flagged = int((same >= cut).sum()), int((other >= cut).sum())
        print(f"{cut:9.2f}  {caught:>9} / {len(same)}  {flagged:>12} / {len(other)}")


if __name__ == "__main__":
    main()
