"""Document filters: the index-free form for rows found by id selects exactly what the plain form does."""

import json

from sqlalchemy import text

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.store.db import read_session
from vancetope_desktop.store.filters import SqlFilter


def test_row_sql_selects_the_same_documents_and_skips_the_composite_index(library):
    scopes.create_scope(library, "session", "s_1", parent="project/inbox")
    ids = [documents.add_text(library, f"note {i}", doc_type=DocumentType.NOTE).id for i in range(3)]
    ids.append(documents.add_text(library, "a result", doc_type=DocumentType.RESULT, scope="session/s_1").id)
    ids.append(documents.add_text(library, "a fact", doc_type=DocumentType.FACT, scope="session/s_1").id)
    where = SqlFilter().and_scopes(["project/inbox"], ["session/s_1"]).and_in("status", ["active"])
    where.and_in("type", ["note", "result", "fact"])
    with read_session(library.engine) as session:
        def found(fragment):
            sql = f"SELECT d.id FROM document d WHERE d.id IN (SELECT value FROM json_each(:ids)) AND {fragment}"
            params = {**where.params, "ids": json.dumps(ids)}
            plan = " ".join(row[3] for row in session.exec(text("EXPLAIN QUERY PLAN " + sql), params=params).all())
            return sorted(row[0] for row in session.exec(text(sql), params=params).all()), plan

        plain, _ = found(where.sql)
        by_row, plan = found(where.row_sql)
    assert by_row == plain == sorted(ids[:4])  # the session's fact is not a result: not visible
    assert "ix_document_scope_status_type" not in plan
