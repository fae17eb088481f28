"""Retrying a failed import in place: the stored original is extracted again, the document keeps its
identity, name and source, and a wrong or missing password leaves it failed without damage."""

from __future__ import annotations

import pytest

from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.services import documents, imports

pytestmark = pytest.mark.corpus


def test_retry_with_the_password_indexes_the_encrypted_pdf_in_place(library, corpus):
    source = corpus / "pdf-edge" / "encrypted-aes256-user-password.pdf"
    report = imports.upload(library, [source], tags=["secret"])
    doc_id = report.outcomes[0].document_id
    failed = documents.get_document(library, doc_id)
    assert failed.index_state == IndexState.FAILED

    again = imports.retry_import(library, doc_id)  # no password: still failed, nothing renamed
    assert again.status == "failed"
    still = documents.get_document(library, doc_id)
    assert still.title == failed.title
    assert still.metadata["original_name"] == source.name
    assert still.metadata["source_path"] == str(source.resolve())

    done = imports.retry_import(library, doc_id, password="asdfzxcv")
    assert done.status in ("imported", "updated") and done.document_id == doc_id
    fixed = documents.get_document(library, doc_id)
    assert fixed.index_state == IndexState.PENDING
    assert fixed.metadata["original_name"] == source.name
    assert fixed.metadata["source_path"] == str(source.resolve())
    assert fixed.tags == ["secret"]
    assert fixed.file_path == failed.file_path
    assert documents.list_chunks(library, doc_id)
    assert any(v.reason == "import retried" for v in documents.list_versions(library, doc_id))
    with pytest.raises(InvalidInput):
        imports.retry_import(library, doc_id)  # it no longer failed
