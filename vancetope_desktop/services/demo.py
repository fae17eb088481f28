"""The demo library offered on first start: seed 000 §8, the "Transformer Efficiency Review" project.

Everything the demo holds is data under ``resources/demo/``: ``demo.yaml`` lists the scopes and
documents (kind, file or text, folder, tags, source), and the files hold the original text written for
the demo. The three "papers" are Markdown summaries rendered to real PDFs at install time with PyMuPDF's
``Story`` (HTML layout) and imported like any upload, so the demo exercises the same path as a user's
files: PDF extraction, metadata, chunking and indexing.

The install only queues indexing; the app's indexer (or ``indexing.try_drain``) embeds the chunks. It refuses up
front, before writing anything, when the library's embedding model cannot run (``Library.model_problem``): a demo
without search by meaning shows nothing of what it is for. A demo left half installed (by a crash, or by a version
that did not check the model first) is finished by installing it again: what exists is kept, what is missing added.
"""

from __future__ import annotations

import html
import io
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, model_validator
from sqlmodel import select

from ..core.documents import DocumentType, Source, SourceType
from ..core.errors import EmbeddingModelMissing, ScopeError, ScopeNotFound, VancetopeError
from ..core.scopes import ScopePath
from ..ingest.markdown import markdown_parser, split_front_matter
from ..ingest.registry import extract_file
from ..resources import resource_path
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import read_session, write_session
from . import documents, folders, imports, records, review, scopes
from .library import Library

DEMO_GROUP = "group/ml-research"
DEMO_PROJECT = "project/transformer-efficiency"
DEMO_NOTICE = "Demo summary written for Vancetope Desktop, not the original paper."
DEMO_SOURCE = "Vancetope demo"
"""A demo paper's source path (``Vancetope demo: papers/vaswani2017.md``): the file it was imported from
lived in a temporary folder that is deleted at the end of the install."""
DEMO_KEY = "demo_document"
"""The metadata key under which the install records which demo document a document is (its manifest name,
:attr:`DemoDocument.name`): how a later install knows it, however the user edited it since."""

Kind = Literal["paper", "fact", "note", "result", "reference"]
_TEXT_TYPES: dict[str, DocumentType] = {
    "fact": DocumentType.FACT, "note": DocumentType.NOTE, "result": DocumentType.RESULT,
    "reference": DocumentType.REFERENCE,
}
# A4 in points, with margins that leave room for the footer line.
_PAGE = (0.0, 0.0, 595.0, 842.0)
_FRAME = (62.0, 60.0, 533.0, 780.0)


class DemoSource(BaseModel):
    """A document's provenance in the manifest (seed §3.1 ``source``)."""

    type: SourceType = SourceType.MANUAL
    think_process: str | None = None
    node: str | None = None

    def to_source(self) -> Source:
        """The core :class:`Source` value."""
        return Source(type=self.type, think_process_id=self.think_process, node_id=self.node)


class DemoScope(BaseModel):
    """A scope to create: its path (``kind/key``), human name and parent path."""

    path: str
    name: str
    parent: str | None = None


class DemoRequest(BaseModel):
    """A promotion the document's think process asks for, waiting in the review queue (seed §8)."""

    to: str = "project"
    reason: str


class DemoDocument(BaseModel):
    """One document of the manifest; exactly one of ``file`` (relative to ``resources/demo``) or ``text``."""

    kind: Kind
    scope: str
    folder: str | None = None
    file: str | None = None
    text: str | None = None
    title: str | None = None
    tags: list[str] = Field(default_factory=list)
    source: DemoSource | None = None
    request: DemoRequest | None = None

    @model_validator(mode="after")
    def _one_body(self) -> DemoDocument:
        if (self.file is None) == (self.text is None):
            raise ValueError("a demo document needs exactly one of 'file' and 'text'")
        if self.kind == "paper" and self.file is None:
            raise ValueError("a demo paper needs a Markdown 'file' to render")
        return self

    @property
    def name(self) -> str:
        """How the report names the document: the file name (a paper's ``.pdf``), else its title or first line."""
        if self.file is not None:
            path = Path(self.file)
            return path.with_suffix(".pdf").name if self.kind == "paper" else path.name
        return self.title or (self.text or "").strip().splitlines()[0]


class DemoManifest(BaseModel):
    """``resources/demo/demo.yaml``: the scopes (parents first), the documents, and the scope to open."""

    version: int = 1
    project: str
    scopes: list[DemoScope]
    documents: list[DemoDocument]

    @model_validator(mode="after")
    def _unique_names(self) -> DemoManifest:
        names = [d.name for d in self.documents]
        if len(set(names)) != len(names):
            raise ValueError("demo document names must be unique (the report maps names to ids)")
        return self


class DemoReport(BaseModel):
    """What :func:`install_demo` created.

    Attributes:
        project: the demo project's path (now the current scope).
        think_processes: the think process scopes' paths.
        scopes: every scope created, parents first.
        documents: document name (``vaswani2017.pdf``, ``extraction_flash.md``, a fact's text…) → id.
        failures: one message per document that could not be added (the rest were added).
        cancelled: True when ``cancel`` fired before anything was written (then nothing was created).
        kept: names of the documents an earlier, unfinished install had added (they are in ``documents`` too).
    """

    project: str
    think_processes: list[str] = Field(default_factory=list)
    scopes: list[str] = Field(default_factory=list)
    documents: dict[str, str] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)
    cancelled: bool = False
    kept: list[str] = Field(default_factory=list)

    @property
    def document_ids(self) -> list[str]:
        """Ids of the documents created, in manifest order."""
        return list(self.documents.values())


def load_manifest() -> DemoManifest:
    """Read and validate ``resources/demo/demo.yaml``.

    Raises:
        FileNotFoundError: the resources are missing (a broken install).
        pydantic.ValidationError: the manifest breaks the schema.
    """
    data = yaml.safe_load(resource_path("demo", "demo.yaml").read_text(encoding="utf-8"))
    return DemoManifest.model_validate(data)


def is_library_empty(lib: Library) -> bool:
    """True when the library holds no document at all, in any status (folders count as documents).

    The app offers the demo on first start when this is True.
    """
    with read_session(lib.engine) as session:
        return session.exec(select(tables.DocumentRow.id).limit(1)).first() is None


def install_demo(lib: Library, *, progress: Callable[[str], None] | None = None,
                 cancel: Callable[[], bool] | None = None) -> DemoReport:
    """Create the demo's scopes, folders and documents in one go, then make the demo project current.

    The papers are rendered to PDF first, in a temporary folder; ``cancel`` is honoured only during
    that phase, so a cancelled install leaves nothing behind and a started one completes. Indexing is queued,
    not awaited. A demo installed in part before (a crash, an older version) is finished: its scopes, folders
    and documents are kept (known by the :data:`DEMO_KEY` recorded, edited or not; see :func:`_installed_part`)
    and the missing ones added.

    Args:
        progress: called with a short human-readable message before each step.
        cancel: polled before each paper is rendered; True stops the install before any write.

    Returns:
        A :class:`DemoReport`; per-document problems are listed in ``failures``, not raised.

    Raises:
        EmbeddingModelMissing: the library's embedding model cannot run here (the message says what to install);
            nothing was written.
        ScopeError: the demo is installed already, every scope and document of it.
        FileNotFoundError: the demo resources are missing.
    """
    manifest = load_manifest()
    say = progress or (lambda _message: None)
    problem = lib.model_problem()
    if problem is not None:
        raise EmbeddingModelMissing(f"the demo library needs the embedding model to search its papers by meaning, "
                                    f"and nothing was installed: {problem}")
    present_scopes, present = _installed_part(lib, manifest)
    if _complete(manifest, present_scopes, present):
        raise ScopeError(f"the demo library is installed already ({manifest.project} and its documents exist)")
    report = DemoReport(project=manifest.project, documents=dict(present), kept=list(present))
    with tempfile.TemporaryDirectory(prefix="vancetope-demo-") as temporary:
        pdfs: dict[int, Path] = {}
        papers = [(i, d) for i, d in enumerate(manifest.documents) if d.kind == "paper" and d.name not in present]
        for done, (index, spec) in enumerate(papers, start=1):
            if cancel is not None and cancel():
                report.cancelled = True
                return report
            say(f"Rendering {spec.name} ({done}/{len(papers)})")
            pdfs[index] = render_paper(resource_path("demo", spec.file or ""), Path(temporary) / spec.name)
        if cancel is not None and cancel():
            report.cancelled = True
            return report
        say("Creating the demo project")
        for scope in manifest.scopes:
            path = ScopePath.parse(scope.path)
            if scope.path not in present_scopes:
                scopes.create_scope(lib, path.kind.value, path.key, parent=scope.parent, name=scope.name)
            report.scopes.append(str(path))
        report.think_processes = [p for p in report.scopes if p.startswith("think-process/")]
        folder_ids: dict[tuple[str, str], str] = {}
        for index, spec in enumerate(manifest.documents):
            if spec.name in present:
                continue
            say(f"Adding {spec.name}")
            try:
                folder_id = _folder(lib, spec, folder_ids)
                if spec.kind == "paper":
                    _add_paper(lib, spec, pdfs[index], folder_id, report)
                else:
                    report.documents[spec.name] = _add_text(lib, spec, folder_id, report.documents)
                if spec.request is not None:
                    review.request_promotion(lib, report.documents[spec.name], spec.request.to,
                                             requested_by=spec.scope, reason=spec.request.reason)
            except VancetopeError as error:
                report.failures.append(f"{spec.name}: {error}")
    scopes.use_scope(lib, manifest.project)
    say("Demo library ready")
    return report


def is_installed(lib: Library) -> bool:
    """True when every scope and document of the demo is in the library (an install would be refused); False when
    none is, or only part (an install finishes it)."""
    manifest = load_manifest()
    return _complete(manifest, *_installed_part(lib, manifest))


def _complete(manifest: DemoManifest, present_scopes: set[str], present: dict[str, str]) -> bool:
    return len(present_scopes) == len(manifest.scopes) and len(present) == len(manifest.documents)


def _installed_part(lib: Library, manifest: DemoManifest) -> tuple[set[str], dict[str, str]]:
    """What an earlier install left: the demo scopes that exist, and document name → id of the demo documents in
    them (active or not: a demo document the user deleted stays theirs to restore).

    A document is known by the :data:`DEMO_KEY` its install recorded in its metadata, so a demo text the user
    edited is still the demo's. Installs from before that key: a paper by the source path they recorded
    (``DEMO_SOURCE: papers/….md``), a text by the hash of its content in its scope (an edited one is not known).
    """
    existing: set[str] = set()
    for scope in manifest.scopes:
        try:
            scopes.get_scope(lib, scope.path)
        except ScopeNotFound:
            continue
        existing.add(scope.path)
    if not existing:
        return existing, {}
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.DocumentRow.id, tables.DocumentRow.scope_path, tables.DocumentRow.meta,
                                   tables.DocumentRow.content_hash).where(
            tables.DocumentRow.scope_path.in_(sorted(existing)))).all()  # type: ignore[attr-defined]
    by_key = {(meta or {})[DEMO_KEY]: i for i, _, meta, _ in rows if DEMO_KEY in (meta or {})}
    by_source = {(scope, (meta or {}).get("source_path")): i for i, scope, meta, _ in rows}
    by_hash = {(scope, digest): i for i, scope, _, digest in rows}
    found: dict[str, str] = {}
    for spec in manifest.documents:
        if spec.name in by_key:
            match: str | None = by_key[spec.name]
        elif spec.kind == "paper":
            match = by_source.get((spec.scope, f"{DEMO_SOURCE}: {spec.file}"))
        else:
            match = by_hash.get((spec.scope, hash_text(_text_parts(spec)[3])))
        if match is not None:
            found[spec.name] = match
    return existing, found


def _folder(lib: Library, spec: DemoDocument, cache: dict[tuple[str, str], str]) -> str | None:
    """The id of the document's folder (nested with ``/``), creating missing levels once (an earlier, unfinished
    install's folders are used)."""
    if not spec.folder:
        return None
    parent: str | None = None
    parts = [p.strip() for p in spec.folder.split("/") if p.strip()]
    for depth in range(1, len(parts) + 1):
        key = (spec.scope, "/".join(parts[:depth]))
        if key not in cache:
            with write_session(lib.engine) as session:
                cache[key] = folders.ensure_folder(session, spec.scope, parts[depth - 1], parent).id
                records.bump_change_counter(session)
        parent = cache[key]
    return parent


def _add_paper(lib: Library, spec: DemoDocument, pdf: Path, folder_id: str | None, report: DemoReport) -> None:
    # Rendered by render_paper a moment ago: trusted, so read in this process without a worker's start-up.
    outcome = imports.upload(lib, [pdf], scope=spec.scope, folder_id=folder_id, tags=spec.tags,
                             extractor=extract_file).outcomes[0]
    if outcome.document_id is not None:
        report.documents[spec.name] = outcome.document_id
        with write_session(lib.engine) as session:
            row = session.get(tables.DocumentRow, outcome.document_id)
            row.meta = {**row.meta, "source_path": f"{DEMO_SOURCE}: {spec.file}", DEMO_KEY: spec.name}
            session.add(row)
    if outcome.status != "imported":
        report.failures.append(f"{spec.name}: {outcome.status}: {outcome.reason}")


def _add_text(lib: Library, spec: DemoDocument, folder_id: str | None, added: dict[str, str]) -> str:
    """Add a fact, note, result or reference; a file's front matter gives its title and metadata.

    A result's ``input_docs`` (names of documents added before it) become its ``derived_from`` ids.
    """
    title, metadata, input_names, body = _text_parts(spec)
    inputs = [added[name] for name in input_names if name in added]
    doc = documents.add_text(
        lib, body, doc_type=_TEXT_TYPES[spec.kind], title=title, tags=spec.tags, scope=spec.scope,
        folder_id=folder_id, source=spec.source.to_source() if spec.source else None,
        metadata={**metadata, DEMO_KEY: spec.name},
        mime_type="text/markdown" if spec.file is not None else None, derived_from=inputs,
    )
    return doc.id


def _text_parts(spec: DemoDocument) -> tuple[str | None, dict[str, Any], list[str], str]:
    """``(title, metadata, input document names, body)`` of a text document: a file's front matter gives the
    first three, the rest of the file is the body; an inline ``text`` is the body."""
    if spec.file is None:
        return spec.title, {}, [], spec.text or ""
    front, body, _ = split_front_matter(resource_path("demo", spec.file).read_text(encoding="utf-8"))
    title = spec.title or front.pop("title", None)
    inputs = list(front.pop("input_docs", None) or [])
    return title, {**front, "file_name": Path(spec.file).name}, inputs, body


def render_paper(source: Path, target: Path) -> Path:
    """Render a demo paper's Markdown source to a PDF at ``target`` and return ``target``.

    The front matter (``title``, ``authors``, ``year``, ``venue``, ``arxiv``) becomes the title block
    and the PDF metadata (title, ``;``-separated authors, creation date in ``year``), which is where
    the importer's metadata reader (``ingest/pdfmeta.py``) finds authors and year. The body is
    Markdown with tables, laid out on A4 pages by PyMuPDF's ``Story``; each page gets a footer with
    the demo notice and its page number.

    Raises:
        OSError: the source cannot be read or the target written.
    """
    from ..ingest.mupdf import pymupdf  # deferred: PyMuPDF costs ~0.5 s to import and only the install needs it

    front, body, _ = split_front_matter(source.read_text(encoding="utf-8"))
    authors = [str(a) for a in front.get("authors", [])]
    page_html = _title_block(front, authors) + markdown_parser().render(body)
    css = resource_path("demo", "papers", "paper.css").read_text(encoding="utf-8")
    story = pymupdf.Story(page_html, user_css=css)
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    more = True
    while more:
        device = writer.begin_page(pymupdf.Rect(_PAGE))
        more, _ = story.place(pymupdf.Rect(_FRAME))
        story.draw(device)
        writer.end_page()
    writer.close()
    doc = pymupdf.open("pdf", buffer.getvalue())
    try:
        for page in doc:
            footer = f"Vancetope Desktop demo summary, not the original paper  |  page {page.number + 1} of {len(doc)}"
            page.insert_text((_FRAME[0], _PAGE[3] - 36), footer, fontname="helv", fontsize=7.5, color=(0.4, 0.4, 0.4))
        year = int(front.get("year", 2000))
        doc.set_metadata({
            "title": str(front.get("title", source.stem)), "author": "; ".join(authors), "subject": DEMO_NOTICE,
            "creator": "Vancetope Desktop", "producer": "PyMuPDF",
            "creationDate": f"D:{year:04d}0101000000", "modDate": f"D:{year:04d}0101000000",
        })
        doc.save(target, garbage=3, deflate=True)
    finally:
        doc.close()
    return target


def _title_block(front: dict[str, Any], authors: list[str]) -> str:
    """The first-page header: title, authors, venue line, and the boxed demo notice."""
    venue = ", ".join(str(v) for v in (front.get("venue"), front.get("year")) if v)
    if front.get("arxiv"):
        venue += f" · arXiv:{front['arxiv']}"
    original = front.get("original_title", front.get("title", ""))
    return (
        f"<h1>{html.escape(str(front.get('title', '')))}</h1>"
        f"<p class='authors'>Summarised from: {html.escape(', '.join(authors))}</p>"
        f"<p class='venue'>{html.escape(venue)}</p>"
        f"<p class='notice'><b>{html.escape(DEMO_NOTICE)}</b> A short original summary of"
        f" “{html.escape(str(original))}” for trying out Vancetope Desktop; read the original publication for"
        " its actual text, figures and results.</p>"
    )
