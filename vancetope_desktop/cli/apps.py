"""The ``vancetope`` command groups, shared by the modules that register commands on them, and which module
registers each command (imported only when that command runs, or when help lists them: ``CommandGroup``).

To add a command: write it in a module of this package (``@memory.command("name")`` on the group imported
from here) and add ``("name", "module")`` to its group's list below, where ``--help`` should show it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .context import CommandGroup, set_global_library

app = CommandGroup(help="Vancetope: scoped research memory from the terminal.", no_args_is_help=True,
                   pretty_exceptions_enable=False, add_completion=False, commands=(
                       ("mcp", "mcp_commands"), ("about", "about_commands"), ("export", "citation_commands"),
                       ("cite", "citation_commands"), ("demo", "demo_commands"), ("undo", "undo_commands"),
                       ("redo", "undo_commands"), ("whoami", "identity_commands"),
                       *((group, "apps") for group in ("memory", "scope", "index", "review", "search", "atoms",
                                                       "chat", "digest", "generator", "topics", "settings",
                                                       "library")),
                   ))
memory = CommandGroup(help="Add, upload, search, browse, tag, move and publish documents.", no_args_is_help=True,
                      commands=(
                          ("add", "document_commands"), ("upload", "document_commands"),
                          ("search", "memory_search_commands"),
                          ("list", "document_commands"), ("browse", "document_commands"),
                          ("read", "document_commands"), ("tag", "document_commands"), ("share", "document_commands"),
                          ("mkdir", "document_commands"), ("move", "document_commands"),
                          ("edit", "document_commands"), ("versions", "document_commands"),
                          ("delete", "document_commands"), ("restore", "document_commands"),
                          ("archive", "document_commands"), ("purge", "document_commands"),
                          ("empty-trash", "document_commands"),
                          ("annotate", "annotation_commands"), ("annotations", "annotation_commands"),
                          ("edit-annotation", "annotation_commands"), ("export-annotations", "annotation_commands"),
                          ("citekey", "citation_commands"), ("duplicates", "duplicate_commands"),
                          ("graph", "graph_commands"),
                          ("recall", "memory_commands"), ("type", "memory_commands"),
                          ("session-start", "memory_commands"),
                          ("links", "note_commands"), ("backlinks", "note_commands"),
                          ("reading-status", "note_commands"), ("profile", "profile_commands"),
                          ("promote", "promotion_commands"), ("demote", "promotion_commands"),
                          ("request", "promotion_commands"), ("publish", "promotion_commands"),
                          ("history", "promotion_commands"),
                          ("relate", "relation_commands"), ("unrelate", "relation_commands"),
                          ("relations", "relation_commands"), ("conflicts", "relation_commands"),
                          ("settle", "relation_commands"),
                          ("tags", "tag_commands"), ("tag-rename", "tag_commands"), ("tag-merge", "tag_commands"),
                          ("tag-delete", "tag_commands"), ("episode", "apps"),
                      ))
scope_app = CommandGroup(help="Create, list and choose scopes; their promotion rules and sibling setting.",
                         no_args_is_help=True, commands=(
                             ("create", "scope_commands"), ("agent", "scope_commands"), ("list", "scope_commands"),
                             ("use", "scope_commands"), ("siblings", "promotion_commands"),
                             ("rules", "promotion_commands"), ("rule", "apps"),
                         ))
index_app = CommandGroup(help="The search index: status, run, rebuild.", no_args_is_help=True, commands=(
    ("status", "index_commands"), ("run", "index_commands"), ("rebuild", "index_commands"),
))
review_app = CommandGroup(help="The review queue: approve or reject requests to promote documents.",
                          no_args_is_help=True, commands=(
                              ("list", "review_commands"), ("show", "review_commands"),
                              ("approve", "review_commands"), ("reject", "review_commands"),
                          ))
search_app = CommandGroup(help="Saved searches: save, list, run, rename, forget (one-off searches: `memory search`).",
                          no_args_is_help=True, commands=tuple(
                              (name, "search_commands") for name in ("save", "list", "run", "rename", "forget")))
rule_app = CommandGroup(help="Auto-promote rules: tags that ask for a document's promotion.", no_args_is_help=True,
                        commands=tuple((name, "promotion_commands") for name in ("set", "off", "reset")))
episode_app = CommandGroup(help="Episodes: structured records of what happened (add, list, show, edit).",
                           no_args_is_help=True,
                           commands=tuple((name, "memory_commands") for name in ("add", "list", "show", "edit")))
atoms_app = CommandGroup(help="Atoms: facts, events (with when) and plans (with a due date and a status).",
                         no_args_is_help=True, commands=tuple((name, "atom_commands") for name in (
                             "add", "list", "show", "plan-update", "happened", "extract", "files-setting")))
chat_app = CommandGroup(help="A session's or think process's conversation: messages, pins, compaction into summaries "
                        "and the prompt block.", no_args_is_help=True,
                        commands=tuple((name, "chat_commands") for name in (
                            "append", "import", "pin", "history", "compose", "compact", "compact-range", "archives",
                            "parent")))
digest_app = CommandGroup(help="The daily digest: a day's writeup per scope, its atoms reconciled, undoable.",
                          no_args_is_help=True,
                          commands=tuple((name, "digest_commands") for name in ("run", "show", "undo")))
generator_app = CommandGroup(help="The generator of summaries, keywords, atoms and digests: show, use, key.",
                             no_args_is_help=True,
                             commands=tuple((name, "generator_commands") for name in ("show", "use", "key")))
settings_app = CommandGroup(help="The library's settings: show them all, set one (as the app's Settings dialog).",
                            no_args_is_help=True,
                            commands=tuple((name, "settings_commands") for name in ("show", "set")))
topics_app = CommandGroup(help="Topic trees: a scope's map of its atoms by topic, browsed and edited by hand.",
                          no_args_is_help=True, commands=(
                              *((name, "topic_commands") for name in ("show", "atoms", "rename", "move", "merge",
                                                                      "split", "move-atom", "create", "delete")),
                              ("search", "topic_search_commands"), ("rebuild", "topic_upkeep_commands"),
                          ))
library_app = CommandGroup(help="Libraries: create one (embedded, or a team library on servers), upgrade a team "
                           "library's database, say where a library's parts are, copy one into a new one.",
                           no_args_is_help=True, commands=(
                               *((name, "library_commands") for name in ("create", "upgrade", "info")),
                               ("migrate", "library_migrate_commands"),
                           ))
app.add_typer(memory, name="memory")
app.add_typer(scope_app, name="scope")
app.add_typer(index_app, name="index")
app.add_typer(review_app, name="review")
app.add_typer(search_app, name="search")
scope_app.add_typer(rule_app, name="rule")
memory.add_typer(episode_app, name="episode")
app.add_typer(atoms_app, name="atoms")
app.add_typer(chat_app, name="chat")
app.add_typer(digest_app, name="digest")
app.add_typer(generator_app, name="generator")
app.add_typer(topics_app, name="topics")
app.add_typer(settings_app, name="settings")
app.add_typer(library_app, name="library")


@app.callback()
def global_options(
    ctx: typer.Context,
    library: Annotated[Path | None, typer.Option(
        "--library", help="Library folder for the command that follows: `vancetope --library PATH review list` "
        "(a command's own --library wins; default $VANCETOPE_LIBRARY, else your data directory).",
        show_default=False,
    )] = None,
) -> None:
    """Vancetope: scoped research memory from the terminal (options before the command apply to it)."""
    set_global_library(ctx, library)
