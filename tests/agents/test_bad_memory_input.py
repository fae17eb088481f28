"""Bad input to agent memory, every face (issue 12): an unknown memory type or severity, a missing episode field, a
relation to a missing or invisible document, an ``updates`` cycle, a namespace that does not exist, an empty query.
Each is a typed error with a one-line reason from the Python tools, a tool error over MCP (the SDK's client), a
nonzero exit code with the reason from the CLI, and nothing is written (rows counted before and after)."""

import anyio
import pytest
from mcp.client.client import Client
from typer.testing import CliRunner

from tests.conftest import stored_counts
from vancetope_desktop.agents.mcp_server import ScopedMemory, build_server
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import (
    DocumentNotFound,
    EmptyQuery,
    InvalidEpisode,
    ScopeNotFound,
    ScopeNotVisible,
    UnknownMemoryType,
    UnknownRelationType,
    UpdatesCycle,
)
from vancetope_desktop.services import documents, graph, scopes
from vancetope_desktop.services.library import Library

S1 = "session/s1"
EPISODE = {"context": "Deploying Convex schema changes", "goal": "Add vector index", "action": "Ran the deploy",
           "outcome": "Deploy failed", "insight": "Schema first", "severity": "major"}
TOOL_CASES = {  # name → (tool, arguments with {a}, {b}, {x} for the ids of the :func:`prepared` notes, error, words)
    "unknown memory type": ("memory_store", {"content": "x", "memory_type": "lesson"}, UnknownMemoryType,
                            "memory_type"),
    "unknown memory type filter": ("memory_recall", {"query": "q", "memory_types": ["lesson"]}, UnknownMemoryType,
                                   "memory_types"),
    "unknown severity": ("memory_store_episode", {**EPISODE, "severity": "fatal"}, InvalidEpisode, "severity"),
    "missing episode field": ("memory_store_episode", {k: v for k, v in EPISODE.items() if k != "goal"},
                              InvalidEpisode, "goal"),
    "blank episode field": ("memory_store_episode", {**EPISODE, "insight": " "}, InvalidEpisode, "no insight"),
    "unknown relation type": ("memory_relate", {"source_id": "{b}", "target_id": "{a}", "type": "likes"},
                              UnknownRelationType, "type"),
    "relation to a missing document": ("memory_relate", {"source_id": "{b}", "target_id": "doc_missing",
                                                         "type": "supports"}, DocumentNotFound, "doc_missing"),
    "relates_to a missing document": ("memory_store", {"content": "x", "relates_to": {
        "target_id": "doc_missing", "type": "supports"}}, DocumentNotFound, "doc_missing"),
    "relation to an invisible document": ("memory_relate", {"source_id": "{b}", "target_id": "{x}",
                                                            "type": "supports"}, ScopeNotVisible, "not a sibling's"),
    "relates_to an invisible document": ("memory_store", {"content": "x", "relates_to": {
        "target_id": "{x}", "type": "extends"}}, ScopeNotVisible, "not a sibling's"),
    "updates cycle": ("memory_relate", {"source_id": "{a}", "target_id": "{b}", "type": "updates"}, UpdatesCycle,
                      "cycle"),
    "unknown namespace to recall": ("memory_recall", {"query": "q", "namespace": "agent/nobody"}, ScopeNotFound,
                                    "agent/nobody"),
    "unknown scope to store in": ("memory_store", {"content": "x", "scope": "agent/nobody"}, ScopeNotFound,
                                  "agent/nobody"),
    "unknown namespace of an episode": ("memory_store_episode", {**EPISODE, "namespace": "agent/nobody"},
                                        ScopeNotFound, "agent/nobody"),
    "empty recall": ("memory_recall", {"query": " "}, EmptyQuery, "empty"),
    "empty query": ("memory_query", {"question": ""}, EmptyQuery, "empty"),
}
EPISODE_OPTIONS = ["--context", "c", "--action", "a", "--outcome", "o", "--insight", "i"]
CLI_CASES = {  # name → (arguments with {a}, {b}, {x}, exit code, words of the reason)
    "unknown memory type": (["memory", "add", "x", "--memory-type", "lesson"], 2, "lesson"),
    "unknown memory type of a note": (["memory", "type", "{b}", "lesson", "--scope", S1], 2, "unknown memory type"),
    "unknown severity": (["memory", "episode", "add", *EPISODE_OPTIONS, "--goal", "g", "--severity", "fatal"], 2,
                         "fatal"),
    "missing episode field": (["memory", "episode", "add", *EPISODE_OPTIONS, "--severity", "major"], 2, "--goal"),
    "blank episode field": (["memory", "episode", "add", *EPISODE_OPTIONS, "--goal", " ", "--severity", "major"], 2,
                            "the episode has no goal"),
    "unknown relation type": (["memory", "relate", "{b}", "{a}", "--type", "likes", "--scope", S1], 2, "likes"),
    "relation to a missing document": (["memory", "relate", "{b}", "doc_missing", "--type", "supports", "--scope",
                                        S1], 3, "doc_missing"),
    "relates-to a missing document": (["memory", "add", "x", "--relates-to", "doc_missing", "--relation",
                                       "supports", "--scope", S1], 3, "doc_missing"),
    "relation to an invisible document": (["memory", "relate", "{b}", "{x}", "--type", "supports", "--scope", S1],
                                          4, "not a sibling's"),
    "updates cycle": (["memory", "relate", "{a}", "{b}", "--type", "updates", "--scope", S1], 2, "cycle"),
    "unknown namespace to recall": (["memory", "recall", "q", "--namespace", "agent/nobody"], 3, "agent/nobody"),
    "unknown namespace of an episode": (["memory", "episode", "add", *EPISODE_OPTIONS, "--goal", "g", "--severity",
                                         "major", "--namespace", "agent/nobody"], 3, "agent/nobody"),
    "unknown scope to add to": (["memory", "add", "x", "--scope", "agent/nobody"], 3, "agent/nobody"),
    "empty recall": (["memory", "recall", " ", "--namespace", S1], 2, "empty"),
    "empty search": (["memory", "search", " "], 2, "empty"),
}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """One library for the module (every case is refused, and each checks nothing was written): session s1 (run by
    agent tau) with notes a and b (b updates a, which is archived), and x in its sibling session s2. Returns the
    root and the ids by letter."""
    root = tmp_path_factory.mktemp("bad") / "lib"
    with Library.open(root) as lib:
        scopes.create_scope(lib, "agent", "tau", parent="project/inbox")
        scopes.create_scope(lib, "session", "s1", parent="project/inbox", agent="agent/tau")
        scopes.create_scope(lib, "session", "s2", parent="project/inbox")
        ids = {k: documents.add_text(lib, f"Note {k}", doc_type=DocumentType.NOTE, scope=scope).id
               for k, scope in (("a", S1), ("b", S1), ("x", "session/s2"))}
        graph.relate(lib, ids["b"], ids["a"], "updates", scope=S1)
    return root, ids


def _filled(value, ids):
    """``value`` with each ``{a}``-style placeholder replaced by the id of that note."""
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, list):
        return [_filled(v, ids) for v in value]
    return {k: _filled(v, ids) for k, v in value.items()}


@pytest.mark.parametrize("case", list(TOOL_CASES))
def test_python_tools(prepared, case):
    root, ids = prepared
    tool, arguments, error, words = TOOL_CASES[case]
    before = stored_counts(root)
    with Library.open(root) as lib, pytest.raises(error) as raised:
        MemoryTools(lib, S1).call(tool, _filled(arguments, ids))
    assert type(raised.value) is error and words in str(raised.value) and "\n" not in str(raised.value)
    assert stored_counts(root) == before


def test_mcp(prepared):
    """Every case of :data:`TOOL_CASES` in one session of the real server, through the SDK's client (in process)."""
    root, ids = prepared
    before = stored_counts(root)

    async def scenario(server):
        async with Client(server, mode="legacy") as client:
            return [await client.call_tool(tool, _filled(arguments, ids)) for tool, arguments, *_ in
                    TOOL_CASES.values()]

    with Library.open(root) as lib:
        results = anyio.run(scenario, build_server(ScopedMemory(lib, S1)))
    for (case, (_tool, _args, error, words)), result in zip(TOOL_CASES.items(), results, strict=True):
        text = "\n".join(part.text for part in result.content)
        assert result.is_error and text.startswith(f"{error.__name__}: ") and words in text, (case, text)
        assert "\n" not in text and result.structured_content is None, case
    assert stored_counts(root) == before


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli(prepared, case):
    root, ids = prepared
    arguments, code, words = CLI_CASES[case]
    before = stored_counts(root)
    result = CliRunner().invoke(app, [*_filled(arguments, ids), "--library", str(root)])
    assert result.exit_code == code, result.output
    assert words in " ".join(result.output.replace("│", " ").split()), result.output
    assert stored_counts(root) == before
