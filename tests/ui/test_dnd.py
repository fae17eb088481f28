"""Drag-and-drop helpers: document ids in our MIME type, local files out of whatever the OS drops."""

import unicodedata

import pytest
from PySide6.QtCore import QMimeData, QUrl

from vancetope_desktop.ui.dnd import (
    DOCUMENT_MIME,
    add_source_scopes,
    branch_refusal,
    decode_document_ids,
    decode_source_scopes,
    display_name,
    encode_document_ids,
    find_on_disk,
    has_droppable_urls,
    local_paths_from_mime,
    on_same_branch,
    scope_chain,
)

NAMES = {
    "spaces": "a paper with spaces.pdf",
    "nfc": unicodedata.normalize("NFC", "Café résumé.md"),
    "nfd": unicodedata.normalize("NFD", "Müller été.txt"),
    "cjk": "論文 データ.txt",
}


@pytest.fixture
def odd_files(tmp_path):
    """Files whose names need percent-encoding: spaces, accents in NFC and in NFD, CJK."""
    paths = {}
    for key, name in NAMES.items():
        path = tmp_path / name
        path.write_text(f"content of {key}", encoding="utf-8")
        paths[key] = path
    return paths


def _mime_with_urls(urls):
    mime = QMimeData()
    mime.setUrls(urls)
    return mime


def test_document_ids_round_trip_in_order_without_duplicates(qapp):
    mime = encode_document_ids(["doc_b", "doc_a", "doc_b", ""])
    assert mime.hasFormat(DOCUMENT_MIME)
    assert decode_document_ids(mime) == ["doc_b", "doc_a"]
    assert mime.text() == "doc_b\ndoc_a"


def test_decode_without_our_format_gives_nothing(qapp):
    mime = QMimeData()
    mime.setText("doc_a")
    assert decode_document_ids(mime) == []


def test_urls_of_corpus_papers_and_odd_names_are_found(qapp, corpus, odd_files):
    papers = sorted((corpus / "papers").glob("*.pdf"))[:3]
    wanted = [*papers, *odd_files.values()]
    paths, refused = local_paths_from_mime(_mime_with_urls([QUrl.fromLocalFile(str(p)) for p in wanted]))
    assert refused == []
    assert paths == wanted
    # The NFD name is used as the OS gave it, so the file opens.
    assert paths[-2].name == NAMES["nfd"]
    assert paths[-2].read_text(encoding="utf-8") == "content of nfd"


def test_percent_encoded_uri_list_text_is_decoded(qapp, odd_files):
    # What file managers put on the clipboard: CRLF lines, a comment, UTF-8 percent-encoding.
    lines = ["# dragged from a file manager", *(bytes(QUrl.fromLocalFile(str(p)).toEncoded()).decode()
                                               for p in odd_files.values())]
    assert all("%" in line for line in lines[1:])
    mime = QMimeData()
    mime.setData("text/uri-list", "\r\n".join(lines).encode("ascii"))
    paths, refused = local_paths_from_mime(mime)
    assert (paths, refused) == (list(odd_files.values()), [])


def test_plain_text_with_file_urls_is_a_fallback(qapp, odd_files):
    mime = QMimeData()
    mime.setText(f"file://{odd_files['spaces']}\nsome words\nfile://{odd_files['cjk']}\n")
    paths, refused = local_paths_from_mime(mime)
    assert paths == [odd_files["spaces"], odd_files["cjk"]]
    assert refused == []


def test_plain_text_without_urls_is_not_a_file_drop(qapp):
    mime = QMimeData()
    mime.setText("just a sentence /tmp/not-a-url")
    assert local_paths_from_mime(mime) == ([], [])
    assert not has_droppable_urls(mime)


def test_web_links_missing_files_and_other_schemes_are_refused_with_messages(qapp, tmp_path, odd_files):
    gone = tmp_path / "déjà parti.pdf"
    mime = _mime_with_urls([
        QUrl("https://arxiv.org/pdf/1706.03762"), QUrl.fromLocalFile(str(gone)),
        QUrl("mailto:someone@example.org"), QUrl.fromLocalFile(str(odd_files["spaces"])),
    ])
    paths, refused = local_paths_from_mime(mime)
    assert paths == [odd_files["spaces"]]
    assert refused[0] == "https://arxiv.org/pdf/1706.03762 is a web link, not a file: download it first"
    assert "déjà parti.pdf" in refused[1] and "no longer exists" in refused[1]
    assert refused[2] == "mailto:someone@example.org is not a local file"
    assert has_droppable_urls(mime)


def test_a_name_normalised_by_the_source_still_finds_the_nfd_file(qapp, odd_files):
    nfd_path = odd_files["nfd"]
    nfc_spelling = nfd_path.with_name(unicodedata.normalize("NFC", nfd_path.name))
    assert str(nfc_spelling) != str(nfd_path)
    paths, refused = local_paths_from_mime(_mime_with_urls([QUrl.fromLocalFile(str(nfc_spelling))]))
    assert refused == []
    assert [str(p) for p in paths] == [str(nfd_path)]  # the OS's spelling, byte for byte
    assert find_on_disk(nfc_spelling) == nfd_path


def test_the_same_file_twice_is_imported_once(qapp, odd_files):
    url = QUrl.fromLocalFile(str(odd_files["cjk"]))
    assert local_paths_from_mime(_mime_with_urls([url, url])) == ([odd_files["cjk"]], [])


def test_display_name_is_nfc(qapp, odd_files):
    assert display_name(odd_files["nfd"]).endswith(unicodedata.normalize("NFC", NAMES["nfd"]))


PARENTS = {"group/g": None, "project/p": "group/g", "project/q": "group/g", "session/s": "project/p",
           "think-process/tp_1": "session/s", "think-process/tp_2": "session/s"}


def test_source_scopes_travel_with_the_ids(qapp):
    mime = add_source_scopes(encode_document_ids(["doc_a", "doc_b"]), ["session/s", "", "session/s", "project/p"])
    assert decode_source_scopes(mime) == ["session/s", "project/p"]
    assert decode_document_ids(mime) == ["doc_a", "doc_b"]
    assert decode_source_scopes(encode_document_ids(["doc_a"])) == []  # a drag from elsewhere: unknown


def test_branches_of_the_scope_tree():
    assert scope_chain(PARENTS, "think-process/tp_1") == ["think-process/tp_1", "session/s", "project/p", "group/g"]
    assert scope_chain({"a/x": "b/y", "b/y": "a/x"}, "a/x") == ["a/x", "b/y"]  # bad data ends
    assert on_same_branch(PARENTS, "think-process/tp_1", "project/p")
    assert on_same_branch(PARENTS, "group/g", "think-process/tp_2")
    assert not on_same_branch(PARENTS, "think-process/tp_1", "think-process/tp_2")
    assert not on_same_branch(PARENTS, "project/q", "session/s")


def test_branch_refusal_names_the_scopes_and_leaves_unknown_ones_to_the_services():
    names = {"think-process/tp_2": "Hypothesis Check", "think-process/tp_1": "Paper Analysis"}
    assert branch_refusal(PARENTS, ["think-process/tp_1"], "project/p") is None
    assert branch_refusal(PARENTS, ["project/p", "think-process/tp_1"], "session/s") is None
    assert branch_refusal(PARENTS, ["think-process/tp_1"], "think-process/tp_2", names) == (
        "Hypothesis Check is on another branch than Paper Analysis: documents move only up (promote) or down "
        "(demote) their branch")
    assert branch_refusal(PARENTS, ["project/q"], "session/s") is not None
    assert branch_refusal(PARENTS, ["project/unknown"], "session/s") is None
    assert branch_refusal(PARENTS, [], "session/s") is None
