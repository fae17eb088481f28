"""Topic trees from the terminal (issue 14): ``topics show|atoms`` to browse a scope's tree and
``topics rename|move|merge|split|move-atom|create|delete`` to edit it by hand, over ``services.topics``.

Each edit is one undo step of the person at this computer (``vancetope undo`` takes it back) and pins what it set,
so that the digest keeps it. ``topics search`` and ``topics rebuild`` join the group from their own modules.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.atoms import Atom
from ..core.topics import Topic, TopicTree
from ..services import scopes, topics
from .apps import topics_app
from .context import JsonOption, LibraryOption, ScopeOption, emit, open_library, out

TopicArgument = Annotated[str, typer.Argument(help="The topic's id (doc_…; `topics show` lists them).")]


@topics_app.command("show")
def topics_show(
    depth: Annotated[int | None, typer.Option("--depth", "-d", min=0, help="Down to this depth (0: the root only; "
                                              "default: the whole tree).")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show a scope's topic tree, indented, with its atom counts (own / whole subtree): `topics show --depth 2`."""
    with open_library(library) as lib:
        tree = topics.get_tree(lib, scopes.resolve_scope(lib, scope))
        if depth is not None:
            tree = tree.model_copy(update={"topics": [t for t in tree.topics if t.depth <= depth]})
        emit(as_json, tree, lambda: _tree(tree))


@topics_app.command("atoms")
def topics_atoms(
    topic_id: TopicArgument,
    recursive: Annotated[bool, typer.Option("--recursive", "-r", help="The atoms of its whole subtree.")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """List a topic's atoms and the sources they were read from."""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope) if scope else None
        found = topics.topic_atoms(lib, topic_id, recursive=recursive, acting_scope=acting)
        sources = topics.topic_sources(lib, topic_id, recursive=recursive, acting_scope=acting)

        def human() -> None:
            if not found:
                out.print("No atoms in this topic.")
            for atom in found:
                _atom(atom)
            if sources:
                out.print("[bold]Sources[/bold]")
            for source in sources:
                gone = " (purged)" if source.gone else ""
                out.print(f"  {escape(source.title)}{gone}  [dim]{source.document_id} · {source.atoms} "
                          f"atom{'s' if source.atoms != 1 else ''}[/dim]")

        emit(as_json, {"atoms": found, "sources": sources}, human)


@topics_app.command("rename")
def topics_rename(topic_id: TopicArgument, label: Annotated[str, typer.Argument(help="The new label.")],
                  library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Rename a topic (pinned: the digest keeps the name). `undo` takes it back."""
    with open_library(library) as lib:
        done = topics.rename_topic(lib, topic_id, label, user_action=topics.user_action(lib, "Rename topic", topic_id))
        emit(as_json, done, lambda: _done("Renamed", done))


@topics_app.command("move")
def topics_move(topic_id: TopicArgument,
                parent_id: Annotated[str, typer.Argument(help="The new parent topic, in the same tree.")],
                library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Hang a topic (with its subtree) under another topic of its tree (pinned there)."""
    with open_library(library) as lib:
        done = topics.move_topic(lib, topic_id, parent_id, user_action=topics.user_action(lib, "Move topic", topic_id))
        emit(as_json, done, lambda: _done("Moved", done))


@topics_app.command("merge")
def topics_merge(keep_id: Annotated[str, typer.Argument(help="The topic kept.")],
                 other_ids: Annotated[list[str], typer.Argument(help="The topics merged into it (retired).")],
                 library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Merge topics into one: their atoms and children move to the kept one, they are retired."""
    with open_library(library) as lib:
        done = topics.merge_topics(lib, keep_id, other_ids,
                                   user_action=topics.user_action(lib, "Merge topics into", keep_id))
        emit(as_json, done, lambda: _done("Merged into", done))


@topics_app.command("split")
def topics_split(
    topic_id: TopicArgument,
    group: Annotated[list[str] | None, typer.Option("--group", "-g", help="Comma-separated atom ids of one new "
                                                    "topic (repeat for each; default: cut by meaning).")] = None,
    label: Annotated[list[str] | None, typer.Option("--label", "-l", help="The label of each new topic, in the "
                                                    "groups' order (default: their best keywords).")] = None,
    parts: Annotated[int, typer.Option("--parts", "-n", min=2, help="How many topics a cut by meaning "
                                       "makes.")] = 2,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Split a topic's atoms into new child topics: `topics split doc_… -g doc_a,doc_b -g doc_c`, or by meaning."""
    with open_library(library) as lib:
        groups = [[i for i in g.split(",") if i.strip()] for g in group] if group else None
        made = topics.split_topic(lib, topic_id, groups, parts=parts, labels=label or None,
                                  user_action=topics.user_action(lib, "Split topic", topic_id))

        def human() -> None:
            for topic in made:
                _done("Made", topic)

        emit(as_json, made, human)


@topics_app.command("move-atom")
def topics_move_atom(
    atom_id: Annotated[str, typer.Argument(help="The atom (doc_…).")],
    to_topic: Annotated[str, typer.Argument(help="The topic it goes to.")],
    from_topic: Annotated[str | None, typer.Option("--from", help="Only out of this topic (default: out of every "
                                                   "other topic of the tree).")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Put an atom in another topic of its scope's tree (pinned there)."""
    with open_library(library) as lib:
        before = topics.topics_of(lib, atom_id)
        done = topics.move_atom(lib, atom_id, to_topic, from_topic,
                                user_action=topics.user_action(lib, "Move atom to topic", to_topic))
        # A repeated move changes nothing: say so rather than "Moved" again.
        verb = "The atom is already in" if topics.topics_of(lib, atom_id) == before else "Moved the atom to"
        emit(as_json, done, lambda: _done(verb, done))


@topics_app.command("create")
def topics_create(
    label: Annotated[str, typer.Argument(help="The new topic's label.")],
    parent_id: Annotated[str, typer.Option("--parent", "-p", help="The topic it goes under.")],
    summary: Annotated[str, typer.Option(help="A sentence or two saying what it holds.")] = "",
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Make a topic under another one (label and place pinned)."""
    with open_library(library) as lib:
        done = topics.create_topic(lib, label, parent_id, summary=summary,
                                   user_action=topics.user_action(lib, "New topic under", parent_id))
        emit(as_json, done, lambda: _done("Made", done))


@topics_app.command("delete")
def topics_delete(topic_id: TopicArgument, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Delete a topic: its atoms and children go to its parent (`undo` brings it back)."""
    with open_library(library) as lib:
        parent = topics.delete_topic(lib, topic_id, user_action=topics.user_action(lib, "Delete topic", topic_id))
        emit(as_json, parent, lambda: _done("Deleted; its atoms and children are now in", parent))


def _tree(tree: TopicTree) -> None:
    if tree.root_id is None:
        out.print(f"{escape(tree.scope)} has no topic tree yet ({tree.unplaced} atoms): the digest builds it "
                  "(`vancetope digest run`).")
        return
    state = "consolidated" if tree.consolidated else "cold start: rebuilt by each digest"
    out.print(f"[bold]{escape(tree.scope)}[/bold]  [dim]{tree.atoms} atoms in topics, {tree.unplaced} not placed "
              f"yet; {state}[/dim]")
    for topic in tree.topics:
        if topic.is_root:
            continue
        pins = f" [dim]pinned: {', '.join(topic.pinned)}[/dim]" if topic.pinned else ""
        out.print(f"{'  ' * (topic.depth - 1)}{escape(topic.label)}  [dim]{topic.own_atoms}/{topic.atoms} · "
                  f"{topic.id}[/dim]{pins}")


def _done(verb: str, topic: Topic) -> None:
    where = " › ".join(topic.path) or topic.label
    out.print(f"{verb} [bold]{escape(where)}[/bold]  [dim]{topic.id} · {topic.atoms} atoms[/dim]")


def _atom(atom: Atom) -> None:
    source = f" · from {escape(atom.source_title)}" if atom.source_title else ""
    kind = escape(f"[{atom.type.value}]")
    out.print(f"  {kind} {escape(atom.text)}  [dim]{atom.id}{source}[/dim]")
