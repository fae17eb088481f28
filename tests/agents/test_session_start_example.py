"""The session start example (resources/examples/session_start.py) runs and prints the block it promises."""

import importlib.util
import re
from pathlib import Path

import pytest

from vancetope_desktop.services.library import Library

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "resources" / "examples" / "session_start.py"
HEADINGS = ("## Conventions (`group/team`)", "## Project decisions (`project/starter`)", "## Agent state (`agent/tau`)")


def _example():
    spec = importlib.util.spec_from_file_location("session_start_example", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # embeds nine short memories: loads the model's document encoder unless an earlier test did
def test_example_starts_a_session_within_its_budgets(tmp_path, capsys):
    # In this process rather than a subprocess: the embedder is shared by the process's libraries, so a suite that
    # has loaded the model already does not pay for it again.
    library = tmp_path / "library"
    assert _example().main(["--library", str(library)]) == 0
    out = capsys.readouterr().out
    blocks = re.findall(r"^(# Session start: agent/tau on project/starter\n.*?)\n\n\((\d+) of (\d+) tokens\)$",
                        out, re.MULTILINE | re.DOTALL)
    assert [budget for _block, _tokens, budget in blocks] == ["2000", "160"]
    (whole, _, _), (small, _, _) = blocks
    with Library.open(library) as lib:
        count = lib.embedder().count_tokens
        for block, tokens, budget in blocks:
            assert count(block) == int(tokens) <= int(budget)
    for block in (whole, small):
        assert [line for line in block.splitlines() if line.startswith("## ")] == list(HEADINGS)
    # The default budget holds every memory, each once with its id and type, in its own namespace's section.
    sections = dict(zip(HEADINGS, re.split(r"^## .*$", whole, flags=re.MULTILINE)[1:], strict=True))
    types = {h: re.findall(r"^- `doc_[0-9a-f]{12}` (\w+): ", s, re.MULTILINE) for h, s in sections.items()}
    assert types == {HEADINGS[0]: ["feedback", "feedback", "user"], HEADINGS[1]: ["project", "project", "reference"],
                     HEADINGS[2]: sorted(types[HEADINGS[2]], key=lambda t: t != "project")}
    assert sorted(types[HEADINGS[2]]) == ["episode", "feedback", "project"]
    assert "Insight: Add a vector index in the same deploy" in sections[HEADINGS[2]]
    # The small budget keeps every section and says what each left out.
    assert small.count("more not shown (token budget)") == 3
    assert re.search(r"^decisions: 1 shown; left out: doc_[0-9a-f]{12}, doc_[0-9a-f]{12}$", out, re.MULTILINE)
