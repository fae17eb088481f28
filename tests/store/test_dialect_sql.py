"""The SQL forms that SQLite and PostgreSQL spell differently (``store/dialect_sql``): each one run on both databases
over the same stored document gives the same answer, and a JSON path that is not made of identifiers is refused."""

import json

import pytest
from sqlalchemy import text

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.store.db import read_session, write_session
from vancetope_desktop.store.dialect_sql import SqlForms

META = {"doi": "10.1/x", "year": 2020, "authors": ["Müller", "Ode"], "topic": {"parent": "doc_p"},
        "parts": [{"key": "missing note"}], "original_name": "Ünïcode.md"}


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL."""
    return any_library


def test_each_form_reads_the_same_on_both_databases(library):
    doc = documents.add_text(library, "Body.", doc_type=DocumentType.NOTE, title="Ünïcode", metadata=META)
    with read_session(library.engine) as session:
        forms = SqlForms.of(session)

        def one(sql: str, **params):
            return session.exec(text(f"SELECT {sql} FROM document d WHERE d.id = :id"),
                                params={"id": doc.id, **params}).one()

        assert one(f"{forms.text('d.metadata', 'doi')}, {forms.text('d.metadata', 'topic.parent')}") == (
            "10.1/x", "doc_p")
        year, authors = one(f"{forms.value('d.metadata', 'year')}, {forms.value('d.metadata', 'authors')}")
        assert year == 2020 and (json.loads(authors) if isinstance(authors, str) else authors) == ["Müller", "Ode"]
        assert one(f"{forms.kind('d.metadata', 'topic')}, {forms.kind('d.metadata', 'absent')}") == ("object", None)
        assert one(f"{forms.text(forms.valid('d.metadata'), 'doi')}") == ("10.1/x",)
        found = session.exec(text(
            f"SELECT j.value FROM document d, {forms.elements('d.metadata', 'authors', 'j')} WHERE d.id = :id "
            f"AND j.value IN ({forms.rows('names')})"), params={"id": doc.id, "names": json.dumps(["Müller"])}).all()
        assert [r[0] for r in found] == ["Müller"]
        keys = session.exec(text(
            f"SELECT {forms.element_text('j', 'key')} FROM document d, "
            f"{forms.elements('d.metadata', 'parts', 'j')} WHERE d.id = :id"), params={"id": doc.id}).all()
        assert [r[0] for r in keys] == ["missing note"]
        assert bool(one(f"{forms.has_key('d.metadata', 'doi')}")[0])
        assert bool(one(f"{forms.holds('d.metadata', ':needle')}", needle=forms.stored("Ünïcode.md"))[0])
        assert not bool(one(f"{forms.holds('d.metadata', ':needle')}", needle=forms.stored("Ünïcode.txt"))[0])
        assert one(f"CASE WHEN {forms.non_ascii('d.title')} THEN 1 ELSE 0 END, "
                   f"CASE WHEN {forms.non_ascii(forms.text('d.metadata', 'doi'))} THEN 1 ELSE 0 END") == (1, 0)
        pairs = session.exec(text(
            f"SELECT c.document_id, c.ordinal FROM {forms.listed_lists('pairs', 'j')} {forms.then_join} chunk c "
            f"ON c.document_id = {forms.at('j', 0)} AND c.ordinal = {forms.at('j', 1, integer=True)}"),
            params={"pairs": json.dumps([[doc.id, 0], [doc.id, 9]])}).all()
        assert [tuple(p) for p in pairs] == [(doc.id, 0)]


def test_new_rows_are_inserted_once_in_the_order_made(library):
    a, b, c = (documents.add_text(library, f"Note {i}.", doc_type=DocumentType.NOTE).id for i in range(3))
    with write_session(library.engine) as session:
        forms = SqlForms.of(session)
        insert = text(forms.insert_new("relation (source_id, target_id, type, created_at, created_by)",
                                       "VALUES (:s, :t, 'supports', :at, '')"))
        for target in (c, b, c):
            session.exec(insert, params={"s": a, "t": target, "at": "2026-12-03 00:00:00"})
        order = forms.insertion_order("r")
        rows = session.exec(text(f"SELECT r.target_id FROM relation r WHERE r.source_id = :s ORDER BY {order}"),
                            params={"s": a}).all()
    assert [r[0] for r in rows] == [c, b]


@pytest.mark.parametrize("path", ["doi')", "a.b c", "", "topic..parent"])
def test_a_json_path_that_is_not_identifiers_is_refused(path):
    for forms in (SqlForms("sqlite"), SqlForms("postgresql")):
        with pytest.raises(ValueError, match="a JSON path of identifiers"):
            forms.text("metadata", path)
