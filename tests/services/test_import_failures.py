"""Every per-file failure of an import, wherever it is raised, is that file's outcome: the folder goes
on, and the failed file leaves nothing half-written (no document, chunk, full-text row or job)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from vancetope_desktop.services import imports
from vancetope_desktop.store.blobs import hash_file
from vancetope_desktop.store.db import read_session, write_session


def _notes(folder: Path, names: list[str]) -> dict[str, Path]:
    """Small notes whose originals all land in different folders of the blob store."""
    folder.mkdir()
    paths: dict[str, Path] = {}
    shards: set[str] = set()
    for name in names:
        path = folder / f"{name}.md"
        salt = 0
        while True:
            path.write_text(f"# Note {name}\n\nA note about {name} ({salt}).\n", encoding="utf-8")
            if hash_file(path)[:2] not in shards:
                break
            salt += 1
        shards.add(hash_file(path)[:2])
        paths[name] = path
    return paths


def test_database_and_file_store_failures_cost_one_file_each(library, tmp_path):
    notes = _notes(tmp_path / "folder", ["a-poisoned", "b-fine", "c-unstorable", "d-fine"])
    notes["a-poisoned"].write_text("# Poisoned\n\nThe database refuses this one.\n", encoding="utf-8")
    # A real database failure for one file: the chunk insert aborts inside the import's transaction.
    with write_session(library.engine) as session:
        session.execute(text("CREATE TRIGGER refuse_poison BEFORE INSERT ON chunk WHEN NEW.text LIKE '%refuses%' "
                             "BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END"))
    # A real file-store failure for another: a file stands where its blob's folder must go.
    digest = hash_file(notes["c-unstorable"])
    (library.blobs.root / digest[:2]).write_text("in the way", encoding="utf-8")

    report = imports.upload(library, [tmp_path / "folder"])

    by_name = {Path(o.path).stem: o for o in report.outcomes}
    assert list(by_name) == ["a-poisoned", "b-fine", "c-unstorable", "d-fine"]
    assert by_name["b-fine"].status == by_name["d-fine"].status == "imported"
    poisoned, unstorable = by_name["a-poisoned"], by_name["c-unstorable"]
    assert poisoned.status == "failed" and poisoned.document_id is None
    assert poisoned.reason == ("a-poisoned.md failed while saving it in the library: "
                               "IntegrityError: refused by the test trigger")
    assert unstorable.status == "failed" and unstorable.document_id is None
    assert unstorable.reason.startswith("c-unstorable.md failed while storing the original in the library: ")
    # Nothing of the two failed files anywhere: one document, chunk, full-text row and job per note imported.
    with read_session(library.engine) as session:
        def count(sql: str) -> int:
            return session.execute(text(f"SELECT count(*) FROM {sql}")).scalar_one()
        titles = [t for (t,) in session.execute(text("SELECT title FROM document WHERE type != 'folder'"))]
        rows = {table: count(table) for table in ("chunk", "chunk_fts", "index_job")}
    assert sorted(titles) == ["Note b-fine", "Note d-fine"]
    assert rows == {"chunk": 2, "chunk_fts": 2, "index_job": 2}
