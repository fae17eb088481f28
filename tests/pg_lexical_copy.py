"""A SQLite library's documents and chunks copied into a PostgreSQL database with its lexical index (issue 17).

The PostgreSQL lexical search (``index/pg_lexical``) is not wired into ``Library`` yet: its tests and
tests/benchmarks/bench_pg_lexical.py compare it with FTS5 on the very same chunks (same ids, titles and texts) by
copying them. The tables are SQLModel's own (``store/tables``), created by ``metadata.create_all``.
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine, delete, insert, select, text
from sqlmodel import Session, SQLModel

from vancetope_desktop.store import pg_fulltext, tables

COPIED = (tables.ScopeRow, tables.DocumentRow, tables.TagRow, tables.ChunkRow)
"""The tables the keyword search reads (scopes for the documents' keys, tags for the filters)."""
BATCH = 2_000
"""Chunks indexed per statement batch."""


def postgres_engine(url: str) -> Engine:
    """An engine on ``url`` (``postgresql://…``, psycopg 3) with the copied tables and the lexical tables created."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    SQLModel.metadata.create_all(engine, tables=[row.__table__ for row in COPIED])
    with Session(engine) as session:
        pg_fulltext.create_tables(session)
        session.commit()
    return engine


def copy_library(source: Engine, target: Engine) -> int:
    """Replace ``target``'s copied tables with ``source``'s rows and index every chunk; return the chunks indexed."""
    with source.connect() as reading, Session(target) as session:
        for row in reversed(COPIED):  # the lexical rows go with their chunks (ON DELETE CASCADE)
            session.execute(delete(row.__table__))
        for row in COPIED:
            values = [dict(found._mapping) for found in reading.execute(select(row.__table__))]
            if values:
                # Parents first: a scope's parent path is shorter; documents in folders are not copied in order.
                if row is tables.ScopeRow:
                    values.sort(key=lambda scope: len(scope["path"]))
                session.execute(insert(row.__table__), values)
        titles = dict(reading.execute(select(tables.DocumentRow.id, tables.DocumentRow.title)).all())
        chunks = [(chunk_id, titles[document], body) for chunk_id, document, body in reading.execute(
            select(tables.ChunkRow.id, tables.ChunkRow.document_id, tables.ChunkRow.text)).all()]
        for start in range(0, len(chunks), BATCH):
            pg_fulltext.index_chunks(session, chunks[start:start + BATCH])
        session.commit()
    # Statistics and the visibility map (index-only scans of the postings) now, as autovacuum gives them a little later.
    with target.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM ANALYZE scope, document, document_tag, chunk, chunk_lexical, chunk_term"))
    return len(chunks)

