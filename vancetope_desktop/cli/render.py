"""Human-readable output for the CLI (rich tables and trees)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from ..core.documents import DocumentInfo, DocumentType, VersionInfo
from ..core.profiles import is_current, profile_of, suggested_topics
from ..core.promotion import AuditEntry, PromotionRequest, PromotionRule, RequestDetail, RequestStatus, VisibilityChange
from ..core.reading import reading_status_of
from ..core.scope_info import ScopeInfo
from ..services.indexing import REBUILD_HINT, IndexStatus
from ..services.search import SearchResponse
from ..services.topic_search import TopicHit, TopicSearchResponse
from .context import err, key_column, out

if TYPE_CHECKING:  # types only: importing these services costs a search that prints no import report ~0.3 s
    from ..services.bibliography import BibliographyImport
    from ..services.documents import Renamed
    from ..services.imports import ImportReport
    from ..services.memory_guard import Remembered
    from ..services.relations import DocumentLinks

_ICON = {"note": "📝", "file": "📄", "result": "🧪", "fact": "💡", "event": "📅", "plan": "🎯", "reference": "🔗",
         "structured": "📊", "folder": "📁", "annotation": "🖍"}


def tag_text(tags: list[str]) -> str:
    return " ".join(f"#{t}" for t in tags)


def documents(docs: list[DocumentInfo], acting_scope: str | None = None) -> None:
    if not docs:
        out.print("No documents.")
        return
    table = Table(show_edge=False, pad_edge=False)
    key_column(table, "id", [doc.id for doc in docs])
    for column in ("type", "title", "tags", "scope", "state"):
        table.add_column(column, overflow="fold")
    for doc in docs:
        scope = doc.scope if doc.scope == acting_scope else f"↑ {doc.scope}"
        table.add_row(doc.id, kind_text(doc), escape(doc.title), escape(tag_text(doc.tags)), escape(scope),
                      doc.index_state.value if doc.status.value == "active" else doc.status.value)
    out.print(table)


def kind_text(doc: DocumentInfo) -> str:
    """A document's type, with its memory type for an agent memory: ``fact``, ``note · feedback``."""
    return doc.type.value + (f" · {doc.memory_type.value}" if doc.memory_type else "")


_SHOWN_FIELDS = ("authors", "year", "journal", "publisher", "doi", "entry_type", "citation_key", "entry_count",
                 "page_count", "original_name")
"""Metadata ``memory read`` prints, in this order (the rest is in ``--json``)."""


def document(doc: DocumentInfo, body: str | None, links: DocumentLinks | None = None) -> None:
    out.print(f"[bold]{escape(doc.title)}[/bold]  ({doc.id}, {kind_text(doc)}, {doc.scope})")
    if doc.tags:
        out.print(escape(tag_text(doc.tags)))
    for key in (k for k in _SHOWN_FIELDS if doc.metadata.get(k) not in (None, "", [])):
        value = doc.metadata[key]
        shown = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
        out.print(f"[dim]{key.replace('_', ' ')}:[/dim] {escape(shown)}")
    if links is not None:
        _links(links)
    _profile(doc)
    for warning in doc.metadata.get("import_warnings", []):
        out.print(f"[yellow]warning:[/yellow] {escape(str(warning))}")
    out.print(f"[dim]status:[/dim] {doc.status.value}, [dim]index:[/dim] {doc.index_state.value}"
              + (f" ({escape(doc.index_error)})" if doc.index_error else ""))
    if (reading := reading_status_of(doc.type, doc.metadata)) is not None:
        out.print(f"[dim]reading status:[/dim] {reading.value}")
    if doc.file_path:
        out.print(f"[dim]file:[/dim] {escape(doc.file_path)}")
    if body:
        out.print()
        out.print(escape(body))


def _profile(doc: DocumentInfo) -> None:
    """A source's summary, keywords and the topics it does not carry as tags yet (``core.profiles``)."""
    profile = profile_of(doc.metadata)
    if profile is None:
        return
    stale = "" if is_current(profile, doc.content_hash) else \
        f" (of version {profile.from_version}: the text changed since)"
    out.print(f"[dim]summary{stale}:[/dim] {escape(profile.summary or '(no sentence to summarise)')}")
    if profile.keywords:
        out.print(f"[dim]keywords:[/dim] {escape('; '.join(profile.keywords))}")
    if topics := suggested_topics(profile, doc.tags):
        out.print(f"[dim]suggested topics:[/dim] {escape(', '.join(topics))}  (add one: memory tag DOC --add TOPIC)")


def _links(links: DocumentLinks) -> None:
    """Related documents as "label: title (id)" lines; a bibliography's entries as a count and the first few."""
    rows = (("derived from", links.derived_from), ("listed in", links.listed_in), ("attachments", links.attachments),
            ("attached to", links.attached_to), ("links to", links.links_to), ("entries", links.entries[:5]))
    for label, linked in rows:
        if linked:
            more = f" … ({links.entry_count} in all)" if label == "entries" and links.entry_count > len(linked) else ""
            shown = "; ".join(f"{d.title} ({d.id})" for d in linked)
            out.print(f"[dim]{label}:[/dim] {escape(shown)}{more}")


def search(response: SearchResponse, *, explain: bool = False) -> None:
    """Print a search's hits; a tree search's (``services.topic_search``) also say how it searched (when it walked a
    topic tree, or ``explain``) and, per atom, its topic path, source and page."""
    for warning in response.warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    if isinstance(response, TopicSearchResponse) and (explain or response.mode == "tree"):
        # A flat search is the ordinary one: "no topic tree yet …: flat search" on every search told a person
        # nothing they could act on (a new user's trial); --explain still says it.
        cost = f"{response.atoms_scored:,} of {response.atoms:,} atoms scored" + (
            f", {response.topics_scored} of {response.topics} topics" if response.mode == "tree" else "")
        # The reason names the mode ("tree search, as asked, through …"): said once, not "tree search (tree search…)".
        out.print(f"[dim]{escape(response.mode_reason or response.mode + ' search')}: {cost}[/dim]")
    if not response.hits:
        out.print("No results." + (f" ({response.cut} weak matches left out.)" if response.cut else ""))
        return
    for hit in response.hits:
        doc = hit.document
        where = f" p.{hit.page}" if hit.page else ""
        scope = "" if hit.distance == 0 else f" [magenta]↑{doc.scope}[/magenta]"
        out.print(f"[bold]{hit.rank}. {escape(doc.title)}[/bold]{where}{scope}  [dim]{doc.id}[/dim]")
        if isinstance(hit, TopicHit):
            if hit.breadcrumbs:
                out.print(f"   [cyan]{escape(' · '.join(hit.breadcrumbs))}[/cyan]")
            if hit.source_id:
                page = f" p.{hit.source_page}" if hit.source_page else ""
                out.print(f"   [dim]from {escape(hit.source_title or hit.source_id)}{page} {hit.source_id}[/dim]")
        if explain:
            for line in hit.explanation.splitlines():
                out.print(f"   [dim]{escape(line)}[/dim]")
        else:
            meaning = "meaning –" if hit.meaning_basis == "estimate" else f"meaning {hit.meaning:.2f}"
            matched = f" ({escape(', '.join(hit.matched))})" if hit.matched else ""
            out.print(f"   [dim]score {hit.score:.2f} · {meaning} · keywords {hit.keyword:.2f}{matched} · "
                      f"scope ×{hit.scope_weight:g}[/dim]")
        if hit.snippet:
            out.print(f"   {escape(hit.snippet)}")
    if response.cut:
        out.print(f"[dim]{response.cut} weaker matches left out (below the relevance cut-off).[/dim]")


def search_json(response: SearchResponse) -> dict:
    """``response`` as ``--json`` prints it: like ``memory list --json``, without each document's full text (the
    passages carry what matched: a paper's content made one search 165 KB), with each hit's page and snippet."""
    return {**response.model_dump(mode="json"),
            "hits": [{**h.model_dump(mode="json", exclude={"document": {"content"}}), "page": h.page,
                      "snippet": h.snippet, **({"breadcrumbs": h.breadcrumbs} if isinstance(h, TopicHit) else {})}
                     for h in response.hits]}


def browse(scope: str, docs: list[DocumentInfo]) -> None:
    by_folder: dict[str | None, list[DocumentInfo]] = {}
    ids = {d.id for d in docs}
    for doc in docs:
        parent = doc.folder_id if doc.folder_id in ids else None
        by_folder.setdefault(parent, []).append(doc)
    tree = Tree(f"[bold]{escape(scope)}[/bold]")

    def add(node: Tree, parent: str | None) -> None:
        entries = sorted(by_folder.get(parent, []), key=lambda d: (d.type != DocumentType.FOLDER, d.title.casefold()))
        for doc in entries:
            label = f"{_ICON.get(doc.type.value, '')} {escape(doc.title)} [dim]{doc.id}[/dim]"
            if doc.tags:
                label += f" [cyan]{escape(tag_text(doc.tags))}[/cyan]"
            child = node.add(label)
            if doc.type == DocumentType.FOLDER:
                add(child, doc.id)

    add(tree, None)
    out.print(tree)


def scopes(items: list[ScopeInfo], current: str) -> None:
    tree = Tree("[bold]Scopes[/bold]")
    nodes: dict[str, Tree] = {}
    for scope in items:
        parent = nodes.get(scope.parent or "", tree)
        marker = " [green]← current[/green]" if scope.path == current else ""
        nodes[scope.path] = parent.add(f"{escape(scope.name)} [dim]{escape(scope.path)}[/dim]{marker}")
    out.print(tree)


def edited(doc: DocumentInfo, renamed: Renamed | None) -> None:
    """The outcome of ``memory edit``: the new version, and after a rename the notes whose links followed it
    and those left linking to the old title."""
    out.print(f"{doc.id} is now version {doc.version}")
    if renamed is not None:
        for note in renamed.updated:
            out.print(f"  links updated in {note.id} {escape(note.title)}")
        for note in renamed.not_updated:
            out.print(f"  [yellow]links left to the old title in {note.id} {escape(note.title)} "
                      "(an annotation, or a note you may not write)[/yellow]")


def versions(items: list[VersionInfo], current: DocumentInfo) -> None:
    table = Table(show_edge=False, pad_edge=False)
    # A version's reason is the change that replaced it, hence the column name.
    for column in ("version", "saved", "by", "title", "tags", "then changed by"):
        table.add_column(column)
    for version in items:
        table.add_row(str(version.number), version.created_at.strftime("%Y-%m-%d %H:%M:%S"),
                      escape(version.created_by or "—"), escape(version.title), escape(tag_text(version.tags)),
                      escape(version.reason))
    table.add_row(f"{current.version} (current)", current.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
                  escape(current.updated_by or "—"), escape(current.title), escape(tag_text(current.tags)), "")
    out.print(table)


def import_report(report: ImportReport) -> None:
    colours = {"imported": "green", "updated": "green", "duplicate": "yellow", "failed": "red",
               "needs_ocr": "yellow", "skipped": "dim"}
    for outcome in report.outcomes:
        colour = colours[outcome.status]
        line = f"[{colour}]{outcome.status:>9}[/{colour}] {escape(outcome.path)}"
        if outcome.document_id:
            line += f" → {outcome.document_id}"
        if outcome.chunks:
            line += f" ({_chunk_text(outcome.embedded_chunks, outcome.chunks - outcome.embedded_chunks)})"
        if outcome.reason:
            line += f": {escape(outcome.reason)}"
        (err if outcome.status == "failed" else out).print(line)
        for warning in outcome.warnings:
            out.print(f"          [yellow]warning:[/yellow] {escape(warning)}")
        if outcome.references is not None:
            _attachments(outcome.references)
    from ..services.imports import FOLDER_MERGED  # here: the import pipeline is for the commands that import

    for notice in report.notices:  # only a folder merge has a flag that undoes it
        hint = " (--keep-both-folders keeps a folder of its own)" if FOLDER_MERGED in notice else ""
        out.print(f"[yellow]{'note':>9}[/yellow] {escape(notice)}{hint}")
    counts: dict[str, int] = {}
    for outcome in report.outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    out.print(", ".join(f"{n} {status}" for status, n in counts.items()) or "Nothing to import.")
    embedded = sum(o.embedded_chunks for o in report.outcomes)
    words_only = sum(o.chunks for o in report.outcomes) - embedded
    if words_only:  # the figure "indexed … chunks" counts the embedded ones only
        out.print(f"{embedded} chunks embedded for search by meaning; {words_only} found by words only "
                  "(references, author lists, acknowledgements)")


def _chunk_text(embedded: int, words_only: int) -> str:
    """A file's chunks: those embedded, and those found by words only (a paper's references, author lists)."""
    return f"{embedded} chunks" + (f" + {words_only} by words only" if words_only else "")


def references(listing: BibliographyImport) -> None:
    """Pasted references: one line per entry (what it became), then the summary."""
    colours = {"imported": "green", "updated": "green", "unchanged": "dim", "merged": "yellow", "duplicate": "yellow"}
    for entry in listing.entries:
        colour = colours[entry.status]
        line = f"[{colour}]{entry.status:>9}[/{colour}] {entry.document_id} {escape(entry.title)}"
        out.print(line + (f": {escape(entry.reason)}" if entry.reason else ""))
    out.print(escape(listing.summary))


def _attachments(listing: BibliographyImport) -> None:
    """The files a bibliography's entries name that could not be attached (found ones are counted in its line)."""
    for attachment in listing.attachments:
        if not attachment.document_id:
            out.print(f"          [yellow]attachment {attachment.status}:[/yellow] {escape(attachment.path)}"
                      + (f" ({escape(attachment.reason)})" if attachment.reason else ""))


def import_failures(report: ImportReport) -> None:
    """One line per failed file on stderr (also in JSON mode, where stdout holds only the JSON)."""
    for outcome in report.failed:
        err.print(f"failed {escape(outcome.path)}: {escape(outcome.reason or '')}")


def index_status(status: IndexStatus) -> None:
    out.print(f"index model: {status.index_model} ({status.index_precision})")
    if status.model_problem is not None:
        out.print(f"[red]embedding model unavailable:[/red] {escape(status.model_problem)}")
    if status.reindex_needed:
        out.print(f"[yellow]settings ask for {status.settings_model} ({status.settings_precision}): "
                  "run `vancetope index rebuild`[/yellow]")
    for state, count in sorted(status.states.items()):
        out.print(f"{state:>12}: {count}")
    out.print(f"queued jobs: {status.queued_jobs}")
    if status.writer_pid:
        out.print(f"indexing is done by process {status.writer_pid}")
    for doc_id, title, reason in status.failures:
        out.print(f"[red]{doc_id}[/red] {escape(title)}: {escape(reason)}")
    for scope in status.vectors.scopes:
        out.print(f"vectors {escape(scope.scope)}: {scope.stored} of {scope.expected}"
                  + (" (work queued)" if scope.busy else ""))
    for problem in status.problems:
        out.print(f"[red]vector store:[/red] {escape(problem)}")
    if status.problems and not status.vectors.error:
        out.print(f"[yellow]rebuild the search index: {escape(REBUILD_HINT)}[/yellow]")


# -- promotion and review ---------------------------------------------------------------------------
def _when(at: datetime | None) -> str:
    return at.astimezone().strftime("%Y-%m-%d %H:%M") if at else ""


def _scopes(paths: list[str]) -> str:
    return ", ".join(paths) if paths else "nobody"


def moved(docs: list[DocumentInfo], change: VisibilityChange, verb: str) -> None:
    """The outcome of a promotion or demotion and who gained / lost sight of the documents."""
    if not docs:
        out.print(f"already in {escape(change.target_scope)}")
        return
    out.print(f"{verb} {len(docs)} document(s) to {escape(change.target_scope)}")
    out.print(f"  [green]now also seen from:[/green] {escape(_scopes(change.gains))}")
    out.print(f"  [yellow]no longer seen from:[/yellow] {escape(_scopes(change.loses))}")


def requested(items: list[PromotionRequest]) -> None:
    """Requests just made (or found pending already)."""
    for request in items:
        out.print(f"requested {request.id}: {escape(request.title)} ({request.document_id}) "
                  f"{escape(request.source_scope)} → {escape(request.target_scope)}")
    out.print(f"{len(items)} request(s) wait for review: `vancetope review list`")


def requests(items: list[PromotionRequest], scope_names: dict[str, str], status: str) -> None:
    """Requests grouped by the think process their documents come from, in the service's order."""
    if not items:
        out.print("No requests." if status == "all" else f"No {status} requests.")
        return
    groups: dict[str | None, list[PromotionRequest]] = {}
    for request in items:
        groups.setdefault(request.think_process, []).append(request)
    decided = status != RequestStatus.PENDING.value
    for think_process, group in groups.items():
        heading = f"{scope_names.get(think_process, think_process)} ({think_process})" if think_process \
            else "Not from a think process"
        out.print(f"[bold]{escape(heading)}[/bold]")
        table = Table(show_edge=False, pad_edge=False)
        for column in ("id", "title", "document", "from → to", "asked by", "reason", *(("status",) if decided else ())):
            # Ids stay whole, to be copied into `review approve`.
            table.add_column(column, overflow="fold", no_wrap=column in ("id", "document"))
        for r in group:
            title = escape(r.title) + (f"\n[cyan]updates {r.updates}[/cyan]" if r.updates else "")
            row = [r.id, title, r.document_id, escape(f"{r.source_scope} → {r.final_scope or r.target_scope}"),
                   escape(r.requested_by), escape(r.reason)]
            if decided:
                row.append(escape(r.status.value + (f": {r.decision_reason}" if r.decision_reason else "")))
            table.add_row(*row)
        out.print(table)
    pending = sum(r.status is RequestStatus.PENDING for r in items)
    if pending:
        out.print(f"[dim]{pending} pending: review show REQ · review approve REQ… [--to SCOPE] · "
                  "review reject REQ… --reason …[/dim]")


def request_detail(detail: RequestDetail) -> None:
    """One request with its document, the update diff and the document's history."""
    r, doc = detail.request, detail.document
    out.print(f"[bold]{r.id}[/bold]  {r.status.value}  {escape(r.source_scope)} → {escape(r.target_scope)}")
    out.print(f"[dim]asked by:[/dim] {escape(r.requested_by)} ({r.requester.value}), {_when(r.created_at)}"
              + (f": {escape(r.reason)}" if r.reason else ""))
    if r.status is not RequestStatus.PENDING:
        out.print(f"[dim]decided:[/dim] {r.status.value} by {escape(r.decided_by or '?')}, {_when(r.decided_at)}"
                  + (f" → {escape(r.final_scope)}" if r.final_scope else "")
                  + (f": {escape(r.decision_reason)}" if r.decision_reason else ""))
    out.print()
    if doc is None:
        out.print(f"{r.document_id} ({escape(r.title)}) no longer exists")
    else:
        out.print(f"[bold]{escape(doc.title)}[/bold]  ({doc.id}, {doc.type.value}, {escape(doc.scope)}, "
                  f"{doc.status.value})")
        if doc.tags:
            out.print(f"[dim]tags:[/dim] {escape(tag_text(doc.tags))}")
        if doc.source.node_id:
            node_type = doc.metadata.get("node_type")
            out.print(f"[dim]source node:[/dim] {escape(doc.source.node_id)}"
                      + (f" ({escape(str(node_type))})" if node_type else "")
                      + (f" of think process {escape(doc.source.think_process_id)}"
                         if doc.source.think_process_id else ""))
        if detail.derived_from:
            out.print("[dim]derived from:[/dim] " + ", ".join(
                f"{d.id} ({escape(d.title) if d.title is not None else 'gone'})" for d in detail.derived_from))
    if detail.updates is not None:
        out.print()
        out.print(f"[cyan]updates {detail.updates.id} ({escape(detail.updates.title)}) in "
                  f"{escape(detail.updates.scope)}[/cyan]: approving writes a new version of it")
        _diff(detail.diff or "")
    elif doc is not None and doc.content:
        out.print()
        out.print(escape(doc.content))
    if detail.history:
        out.print()
        out.print("[bold]History[/bold]")
        _entries(detail.history)


def _diff(text: str) -> None:
    if not text:
        out.print("[dim](same content)[/dim]")
        return
    colours = {"+": "green", "-": "red", "@": "cyan"}
    for line in text.splitlines():
        colour = None if line.startswith(("+++", "---")) else colours.get(line[:1])
        out.print(f"[{colour}]{escape(line)}[/{colour}]" if colour else escape(line))


def _entries(entries: list[AuditEntry]) -> None:
    table = Table(show_edge=False, pad_edge=False)
    for column in ("when", "what", "from → to", "who", "why", "request"):
        table.add_column(column, overflow="fold", no_wrap=column in ("when", "request"))
    for e in entries:
        where = f"{e.from_scope or ''} → {e.to_scope or ''}" if e.from_scope or e.to_scope else ""
        table.add_row(_when(e.at), e.action, escape(where), escape(e.actor), escape(e.reason), e.request_id or "")
    out.print(table)


def history(entries: list[AuditEntry], asked: list[PromotionRequest]) -> None:
    """A document's audit trail and its promotion requests."""
    if entries:
        _entries(entries)
    else:
        out.print("No moves, requests or decisions yet.")
    for r in asked:
        decision = f", {r.decision_reason}" if r.decision_reason else ""
        out.print(f"{r.id}: {r.status.value}{escape(decision)} ({escape(r.source_scope)} → "
                  f"{escape(r.final_scope or r.target_scope)}, asked by {escape(r.requested_by)})")


def approved(decided: list[PromotionRequest], before: dict[str, PromotionRequest]) -> None:
    """Approved requests: where each document went, or which document it updated."""
    for r in decided:
        earlier = before.get(r.id)
        merged = earlier is not None and earlier.updates is not None and r.final_scope == earlier.target_scope
        how = f"new version of {earlier.updates}" if merged and earlier else f"moved to {r.final_scope}"
        out.print(f"approved {r.id}: {escape(r.title)} ({r.document_id}) {escape(how)}")


def rejected(decided: list[PromotionRequest]) -> None:
    """Rejected requests: the documents stay where they are."""
    for r in decided:
        out.print(f"rejected {r.id}: {escape(r.title)} ({r.document_id}) stays in {escape(r.source_scope)}")


def rules(scope: str, items: list[PromotionRule], switched_off: dict[str, str] | None = None) -> None:
    """The auto-promote rules in force for documents in ``scope``, then those switched off (tag → where)."""
    for tag, where in (switched_off or {}).items():
        out.print(f"#{escape(tag)} is switched off (in {escape(where)}; `scope rule reset {escape(tag)} "
                  f"--scope {escape(where)}` turns it back on)")
    if not items:
        out.print(f"No auto-promote rules apply in {escape(scope)}.")
        return
    table = Table(show_edge=False, pad_edge=False, title=f"Auto-promote rules in {escape(scope)}")
    for column in ("tag", "to", "decision", "set in"):
        table.add_column(column)
    for rule in items:
        table.add_row(f"#{escape(rule.tag)}", escape(rule.target), "approved at once" if rule.auto_approve
                      else "reviewed", escape(rule.defined_in or "built in"))
    out.print(table)


def added(doc: DocumentInfo, kept: Remembered) -> None:
    """What `memory add` stored, the relations it made and what they archived."""
    out.print(f"added {doc.type.value} {doc.id} to {doc.scope}: {escape(doc.title)}")
    for edge in kept.relations:
        out.print(f"  {edge.type.value} {edge.target_id}" + (" (archived)" if edge.target_id in kept.archived else ""))
    if kept.atoms:
        out.print(f"  {len(kept.atoms)} atom{'s' if len(kept.atoms) != 1 else ''} read from it "
                  f"(`vancetope atoms list --source {doc.id}`)")
    for warning in kept.warnings:
        err.print(f"warning: {escape(warning)}")


def held_duplicate(kept: Remembered) -> None:
    """Why `memory add --on-duplicate return` stored nothing: the near-duplicates, closest first."""
    out.print(f"not added: {kept.document.id} is nearly the same ({escape(kept.document.title)}); "
              "--on-duplicate store adds it anyway, update replaces it")
    for found in kept.duplicates:
        out.print(f"  {found.similarity:.2f}  {found.id}  {escape(found.title)}")
