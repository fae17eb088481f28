"""normalize_text and decode_text_bytes, on crafted strings and on the corpus's badly encoded files."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.ingest.normalize import compose_spacing_accents, decode_text_bytes, normalize_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("eﬃcient ﬁnal ﬂag oﬀer ﬄuid ﬅop ﬆar", "efficient final flag offer ffluid stop star"),
        ("effi-\ncient", "efficient"),
        ("a state-of-the-\nart method", "a state-of-the-art method"),
        ("Smith-\nJones", "Smith-\nJones"),  # next line starts uppercase: a real hyphen, kept
        ("soft\u00adhyphen and effi\u00ad\ncient", "softhyphen and efficient"),
        ("zero\u200bwidth\u2060joiner\ufeff", "zerowidthjoiner"),
        ("many   spaces\tand\u00a0nbsp  ", "many spaces and nbsp"),
        ("para one\n\n\n\n\npara two", "para one\n\npara two"),
        ("\n\n  indented code\n    deeper  \n\n", "  indented code\n    deeper"),  # indentation kept
        ("e\u0301te\u0301", "été"),  # NFC
        ("bad\x03control\x00chars", "badcontrolchars"),
        ("line\r\nbreaks\rmixed", "line\nbreaks\nmixed"),
        # A compound at a line end keeps its hyphen: both halves are words, the join is not.
        ("the planet-\nwarming gases", "the planet-warming gases"),
        ("a self-\nreported score", "a self-reported score"),
        # …a word the typesetter split is joined, even when its pieces happen to be words too.
        ("inter-\nnational", "international"),
        ("difficult to com-\npile", "difficult to compile"),
        ("Neil Arm-\nstrong", "Neil Armstrong"),  # a name
        ("Zusammen-\narbeit", "Zusammenarbeit"),  # words the list does not know: joined, as before
        ("Super-\nCDMS", "Super-\nCDMS"),
        # Arabic presentation forms become the letters a keyboard types.
        ("\ufee3\ufeae\ufea3\ufe92\ufe8e \ufefb", "مرحبا لا"),
    ],
)
def test_normalize_text(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # TeX prints the accent as its own glyph before the letter (all from corpus/papers).
        ("R¨as¨anen", "Räsänen"),
        ("Lemaˆıtre–Tolman", "Lemaître–Tolman"),  # circumflex over a dotless i
        ("na¨ıve", "naïve"),
        ("Universit`a di Napoli", "Università di Napoli"),
        ("Amparo `a Pesquisa", "Amparo à Pesquisa"),
        ("Kry´sci´nski, Koˇcisk´y", "Kryściński, Kočiský"),
        ("Lourenc¸o", "Lourenço"),  # a cedilla may come after its letter
        # Left alone: no precomposed letter (math hats and bars), quotes, code, apostrophes.
        ("ˆf and t¯tH", "ˆf and t¯tH"),
        ("``PAGER-M: a protocol''", "``PAGER-M: a protocol''"),
        ("run `make` first", "run `make` first"),
        ("Student´s t-test, ALZHEIMER´S", "Student´s t-test, ALZHEIMER´S"),
        ("the authors´ roles", "the authors´ roles"),
    ],
)
def test_compose_spacing_accents(raw: str, expected: str) -> None:
    assert compose_spacing_accents(raw) == expected


def test_code_keeps_trailing_minus() -> None:
    assert normalize_text("total = a -\nb", join_hyphens=False) == "total = a -\nb"
    assert normalize_text("x = value-\nother", join_hyphens=False) == "x = value-\nother"


def test_emoji_joiners_survive() -> None:
    family = "👩\u200d👩\u200d👧"
    assert normalize_text(family) == family


def test_decode_utf8_and_bom() -> None:
    assert decode_text_bytes("héllo".encode()) == ("héllo", [])
    assert decode_text_bytes(b"\xef\xbb\xbf---\ntitle: x\n---\n") == ("---\ntitle: x\n---\n", [])


def test_decode_cp1252_is_not_mistaken_for_chinese() -> None:
    text, warnings = decode_text_bytes("café résumé Größe °C".encode("cp1252"))
    assert text == "café résumé Größe °C"
    assert warnings and "Windows-1252" in warnings[0]


@pytest.mark.corpus
def test_decode_latin1_note(corpus: Path) -> None:
    text, warnings = decode_text_bytes((corpus / "notes/latin1-encoded-table.md").read_bytes())
    assert "Boiling Points °C" in text
    assert warnings


@pytest.mark.corpus
def test_decode_gbk_bibtex(corpus: Path) -> None:
    text, warnings = decode_text_bytes((corpus / "refs/gbk-encoded-chinese.bib").read_bytes())
    assert "凯撒" in text and "测试期刊" in text
    assert "GB18030" in warnings[0]
