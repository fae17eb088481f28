"""The ``vancetope`` command groups, shared by the modules that register commands on them."""

from __future__ import annotations

from .context import CommandGroup
from .review_commands import review_app

app = CommandGroup(help="Vancetope: scoped research memory from the terminal.", no_args_is_help=True,
                    pretty_exceptions_enable=False, add_completion=False)
memory = CommandGroup(help="Add, upload, search, browse, tag, move and publish documents.", no_args_is_help=True)
scope_app = CommandGroup(help="Create, list and choose scopes; their promotion rules and sibling setting.",
                          no_args_is_help=True)
index_app = CommandGroup(help="The search index: status, run, rebuild.", no_args_is_help=True)
search_app = CommandGroup(help="Saved searches: save, list, run, rename, forget (one-off searches: `memory search`).",
                           no_args_is_help=True)
rule_app = CommandGroup(help="Auto-promote rules: tags that ask for a document's promotion.", no_args_is_help=True)
app.add_typer(memory, name="memory")
app.add_typer(scope_app, name="scope")
app.add_typer(index_app, name="index")
app.add_typer(review_app, name="review")
app.add_typer(search_app, name="search")
scope_app.add_typer(rule_app, name="rule")
