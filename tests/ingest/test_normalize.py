"""normalize_text and compose_spacing_accents on crafted strings."""

from __future__ import annotations

import pytest

from vancetope_desktop.ingest.normalize import compose_spacing_accents, normalize_text


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
        ("bad\x03control\x00chars", "badcontrol\ufffdchars"),  # NUL: the store's U+FFFD (core.text.without_nul)
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
