"""Sharing a document with a scope across the visibility rule, the read rule, and `vancetope memory share`."""

import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import DocumentNotFound, InvalidInput, ScopeNotFound, ScopeNotVisible
from vancetope_desktop.services import documents, folders, scopes, sharing
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session

TP12, TP13 = "think-process/tp_12", "think-process/tp_13"


@pytest.fixture
def doc(library):
    """A fact in tp_12, with a sibling tp_13 and a second session s2 (tp_21) in project/inbox."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp_21", parent="session/s2")
    return documents.add_text(library, "Counterargument: sparse patterns lose long-range recall.", scope=TP12,
                              tags=["contradiction"])


def test_share_unshare_and_inherited_shares(library, doc):
    assert sharing.shared_with(library, doc.id) == []
    shared = sharing.share_document(library, doc.id, TP13)
    assert shared == sharing.Sharing(document_id=doc.id, scope=TP12, shared_with=[TP13])
    assert sharing.share_document(library, doc.id, TP13).shared_with == [TP13]  # twice: no change
    sharing.share_document(library, doc.id, "session/s2")
    assert sharing.shared_with(library, doc.id) == ["session/s2", TP13]
    assert sharing.is_shared_with(library, doc.id, TP13)
    assert sharing.is_shared_with(library, doc.id, "think-process/tp_21")  # through its session
    assert not sharing.is_shared_with(library, doc.id, "project/inbox")

    assert sharing.unshare_document(library, doc.id, "think-process/tp_21").shared_with == ["session/s2", TP13]
    assert sharing.is_shared_with(library, doc.id, "think-process/tp_21")  # still shared with its session
    assert sharing.unshare_document(library, doc.id, "session/s2").shared_with == [TP13]
    assert not sharing.is_shared_with(library, doc.id, "think-process/tp_21")


def test_share_is_refused_when_pointless_or_impossible(library, doc):
    with pytest.raises(InvalidInput, match=r"sees .* already"):
        sharing.share_document(library, doc.id, TP12)
    project_doc = documents.add_text(library, "Project fact", scope="project/inbox")
    with pytest.raises(InvalidInput, match="an ancestor"):
        sharing.share_document(library, project_doc.id, TP13)
    folder = folders.create_folder(library, "Drafts", scope=TP12)
    with pytest.raises(InvalidInput, match="folder"):
        sharing.share_document(library, folder.id, TP13)
    documents.set_status(library, doc.id, DocumentStatus.DELETED)
    with pytest.raises(InvalidInput, match="trash"):
        sharing.share_document(library, doc.id, TP13)
    with pytest.raises(DocumentNotFound):
        sharing.share_document(library, "doc_000000000000", TP13)
    with pytest.raises(ScopeNotFound):
        sharing.share_document(library, project_doc.id, "think-process/nope")
    with pytest.raises(InvalidInput):
        sharing.share_document(library, project_doc.id, "no-slash")


def test_shares_survive_edits_restores_and_moves_and_make_no_version(library, doc):
    sharing.share_document(library, doc.id, TP13)
    assert documents.get_document(library, doc.id).version == 1  # a share is not an edit of the document
    documents.update_document(library, doc.id, content="Counterargument, revised.", metadata={"relevance": "high"})
    documents.tag_document(library, doc.id, add=["reviewed"])
    documents.restore_version(library, doc.id, 1)
    assert sharing.shared_with(library, doc.id) == [TP13]
    assert "shared_documents" not in documents.get_document(library, doc.id).metadata


def test_purged_documents_leave_the_share_lists(library, doc):
    other = documents.add_text(library, "Another note", scope=TP12)
    sharing.share_document(library, doc.id, TP13)
    documents.set_status(library, doc.id, DocumentStatus.DELETED)
    documents.purge_document(library, doc.id)
    sharing.share_document(library, other.id, TP13)  # the next write of tp_13's list drops the purged id
    with read_session(library.engine) as session:
        assert session.get(tables.ScopeRow, TP13).settings == {"shared_documents": [other.id]}


def test_read_rule_grants_and_refusals(library, doc):
    assert sharing.read_grant(library, TP12, doc) is sharing.ReadGrant.OWN
    project_doc = documents.add_text(library, "Project fact", scope="project/inbox")
    assert sharing.read_grant(library, TP12, project_doc) is sharing.ReadGrant.ANCESTOR
    assert sharing.read_grant(library, TP13, doc) is None
    assert sharing.read_grant(library, "project/inbox", doc) is None  # descendants are not visible either
    assert not sharing.sibling_visible(library, TP13, doc)  # the sibling-results setting is off by default
    with pytest.raises(ScopeNotVisible, match="not a sibling's"):
        sharing.check_read(library, TP13, doc)
    with pytest.raises(ScopeNotVisible, match="not its descendants'"):
        sharing.check_read(library, "session/s1", doc)
    with pytest.raises(ScopeNotVisible, match="not another think process's"):
        sharing.check_read(library, "think-process/tp_21", doc)
    sharing.share_document(library, doc.id, TP13)
    assert sharing.check_read(library, TP13, doc) is sharing.ReadGrant.SHARED


def test_rule_text_for_each_relation(library, doc):
    scopes.create_scope(library, "group", "g2")
    scopes.create_scope(library, "project", "other", parent="group/default")
    assert sharing.visibility_rule(library, "group/default", "group/g2").endswith("not a sibling's")
    assert sharing.visibility_rule(library, "project/inbox", "project/other").startswith("a project sees")
    assert sharing.visibility_rule(library, "session/s2", "project/other").endswith("not another project's")
    assert sharing.visibility_rule(library, "group/g2", TP12).endswith("not another think process's")


@pytest.fixture
def share_cli(tmp_path):
    runner = CliRunner()
    library = tmp_path / "lib"

    def invoke(*args, code=0):
        result = runner.invoke(app, [*args, "--library", str(library)])
        assert result.exit_code == code, result.output + str(result.exception)
        return result

    with Library.open(library) as lib:
        scopes.create_scope(lib, "session", "s1", parent="project/inbox")
        scopes.create_scope(lib, "think-process", "tp_12", parent="session/s1")
        scopes.create_scope(lib, "think-process", "tp_13", parent="session/s1")
        doc_id = documents.add_text(lib, "A result of tp_12", scope=TP12, doc_type=DocumentType.RESULT).id
    return invoke, doc_id


def test_cli_memory_share(share_cli):
    cli, doc_id = share_cli
    shared = json.loads(cli("memory", "share", doc_id, "--with", TP13, "--json").stdout)
    assert shared == {"document_id": doc_id, "scope": TP12, "shared_with": [TP13]}
    assert f"{doc_id} (in {TP12}) is shared with {TP13}" in cli("memory", "share", doc_id).stdout
    removed = json.loads(cli("memory", "share", doc_id, "--with", TP13, "--remove", "--json").stdout)
    assert removed["shared_with"] == []
    assert "shared with no other scope" in cli("memory", "share", doc_id).stdout
    assert "--remove --with" in cli("memory", "share", doc_id, "--remove", code=2).output
    assert json.loads(cli("memory", "share", doc_id, "--with", "session/s1", "--json").stdout)["shared_with"] == [
        "session/s1"]
    assert "no document" in cli("memory", "share", "doc_000000000000", "--with", TP13, code=3).output
    assert "already" in cli("memory", "share", doc_id, "--with", TP12, code=2).output
