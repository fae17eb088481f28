"""decode_text_bytes: BOMs, UTF-8, and legacy encodings told apart by charset-normalizer and plausibility."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.ingest.encoding import decode_text_bytes
from vancetope_desktop.ingest.registry import extract_file

# (text, encoding it is written in, the name the warning must give); short and long texts per language.
LEGACY = [
    ("Привет, мир!", "cp1251", "Windows-1251"),
    ("Москва", "cp1251", "Windows-1251"),
    ("Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных губерний "
     "даст мощный толчок подъёму сельского хозяйства.", "cp1251", "Windows-1251"),
    ("Съешь же ещё этих мягких французских булок, да выпей чаю.", "koi8_r", "KOI8-R"),
    ("日本語のテキスト", "shift_jis", "Shift-JIS"),
    ("東京都の天気予報です。", "shift_jis", "Shift-JIS"),
    ("いろはにほへと ちりぬるを わかよたれそ つねならむ うゐのおくやま けふこえて あさきゆめみし ゑひもせす。"
     "吾輩は猫である。名前はまだ無い。", "shift_jis", "Shift-JIS"),
    ("東京都の天気予報です。明日は晴れでしょう。", "euc_jp", "EUC-JP"),
    ("안녕하세요", "euc_kr", "EUC-KR"),
    ("서울의 날씨", "euc_kr", "EUC-KR"),
    ("키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다. 대한민국의 수도는 서울이다.",
     "euc_kr", "EUC-KR"),
    ("Καλημέρα κόσμε", "iso8859_7", "Greek"),
    ("Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Η γρήγορη καφέ αλεπού πηδάει πάνω από το τεμπέλικο σκυλί.",
     "cp1253", "Greek"),
    ("Café crème", "latin_1", "Windows-1252"),
    ("Noël à Paris", "latin_1", "Windows-1252"),
    ("Le coeur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter en canoë au delà des îles, près du "
     "mälström où brûlent les novae.", "latin_1", "Windows-1252"),
    ("Größe °C – „Anführungszeichen“ café résumé", "cp1252", "Windows-1252"),
    ("Zażółć gęślą jaźń – polski tekst", "cp1250", "Windows-1250"),
    ("中文测试", "gbk", "GB18030"),
    ("我能吞下玻璃而不伤身体。这是一个测试。", "gbk", "GB18030"),
    ("我能吞下玻璃而不傷身體。這是一個測試。", "big5", "Big5"),
    ("مرحبا بالعالم، هذا نص عربي", "cp1256", "Arabic"),
]


@pytest.mark.parametrize(("text", "encoding", "label"), LEGACY, ids=[f"{e}-{t[:8]}" for t, e, _ in LEGACY])
def test_legacy_encodings(text: str, encoding: str, label: str) -> None:
    decoded, warnings = decode_text_bytes(text.encode(encoding))
    assert decoded == text
    assert warnings == [warnings[0]] and warnings[0].startswith("not UTF-8: decoded as ") and label in warnings[0]


def test_utf8_and_boms_are_silent() -> None:
    assert decode_text_bytes("héllo 日本".encode()) == ("héllo 日本", [])
    assert decode_text_bytes(b"\xef\xbb\xbf---\ntitle: x\n---\n") == ("---\ntitle: x\n---\n", [])
    assert decode_text_bytes("\ufeffПривет".encode("utf-16-le")) == ("Привет", [])
    assert decode_text_bytes("\ufeffПривет".encode("utf-16-be")) == ("Привет", [])
    assert decode_text_bytes("\ufeffΚαλημέρα".encode("utf-32")) == ("Καλημέρα", [])
    assert decode_text_bytes(b"plain ascii") == ("plain ascii", [])


def test_broken_bytes_after_a_bom_are_replaced_and_said() -> None:
    text, warnings = decode_text_bytes(b"\xef\xbb\xbfok \xff")
    assert text == "ok \ufffd" and "replaced" in warnings[0]


def test_mostly_utf8_keeps_utf8_and_reads_stray_bytes_as_cp1252() -> None:
    data = ("Größe °C, café, naïve. " * 20).encode() + "Größe".encode("cp1252")
    text, warnings = decode_text_bytes(data)
    assert text == "Größe °C, café, naïve. " * 20 + "Größe"
    assert warnings == ["mostly UTF-8: 2 invalid byte(s) read as Windows-1252"]


@pytest.mark.corpus
def test_corpus_latin1_note(corpus: Path) -> None:
    text, warnings = decode_text_bytes((corpus / "notes/latin1-encoded-table.md").read_bytes())
    assert "Boiling Points °C" in text
    assert warnings == ["not UTF-8: decoded as Windows-1252"]


@pytest.mark.corpus
def test_corpus_gbk_bibtex(corpus: Path) -> None:
    text, warnings = decode_text_bytes((corpus / "refs/gbk-encoded-chinese.bib").read_bytes())
    assert "凯撒" in text and "测试期刊" in text
    assert warnings == ["not UTF-8: decoded as GB18030 (Chinese)"]


@pytest.mark.corpus
def test_corpus_utf8_files_stay_silent(corpus: Path) -> None:
    for path in sorted((corpus / "notes").glob("*.md")):
        if path.name != "latin1-encoded-table.md" and path.stat().st_size:
            assert decode_text_bytes(path.read_bytes())[1] == [], path.name


def test_an_imported_cp1251_text_file_says_its_encoding(tmp_path: Path) -> None:
    path = tmp_path / "отчёт.txt"
    path.write_bytes("Отчёт о проделанной работе.\n\nВсё готово.".encode("cp1251"))
    extraction = extract_file(path)
    assert extraction.chunks[0].text == "Отчёт о проделанной работе.\n\nВсё готово."
    assert extraction.warnings == ["not UTF-8: decoded as Windows-1251 (Cyrillic)"]
