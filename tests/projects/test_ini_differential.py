"""The lazy reader (issue 30 item 3) gives exactly the answers of the reader before it (``ini_oracle.py``, a frozen
copy) for every section and key, with both readers: random files built from every piece of line syntax, and the
real files in tests/data/ini."""

from __future__ import annotations

from pathlib import Path

import ini_oracle as old
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildver.projects import unreal_ini as new

DATA = Path(__file__).resolve().parents[1] / "data" / "ini"
READERS = [(new.IniReader.ENGINE, old.IniReader.ENGINE), (new.IniReader.UBT, old.IniReader.UBT)]

NAMES = ["K", "k", "Key", "S", "s", "T", "\u212a", "K ", " K", "K.x", "İ"]
PIECES = [
    *NAMES,
    "[", "]", "[S]", "[s]", "[T]", "[]", "=", "+", "-", ".", "!", "@", "*", "~", "^", ";", "//", "/",
    "|", "\\", "{", "}", '"', "'", " ", "\t", "\v", "\x0c", "\xa0", "\n", "\r\n", "\r", "\n\n",
    "v", "V", "Name=a", "name=\"b\"", "\\x41", "\\101", "\\u00e9", "\\n", "1",
]  # fmt: skip
LINE = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
TEXT = st.lists(LINE, max_size=25).map("\n".join)
PLAIN_LINE = st.lists(st.sampled_from([p for p in PIECES if not any(c in p for c in "|\\{}/")]), max_size=8)
PLAIN = st.lists(PLAIN_LINE.map("".join), max_size=25).map("\n".join)
"""Files where no line is joined or split: the ones the lazy reader scans (the others it reads line by line)."""
ENCODINGS = st.sampled_from([("", "utf-8"), ("\ufeff", "utf-8"), ("\ufeff", "utf-16-le"), ("\ufeff", "utf-16-be")])


def _asked(texts: list[bytes]) -> tuple[list[str], list[str]]:
    sections, keys = set(NAMES), set(NAMES)
    for text in texts:
        document = old.parse_ini(text, "A.ini")
        for reader in old.IniReader:
            sections.update(document.sections(reader))
            for entry in document.entries(reader):
                sections.add(entry.section)
                keys.add(entry.key)
    return sorted(sections), sorted(keys)


def _compare(texts: list[bytes], sections: list[str] | None = None, keys: list[str] | None = None) -> None:
    asked_sections, asked_keys = _asked(texts)
    sections = asked_sections if sections is None else sections
    keys = asked_keys if keys is None else keys
    for reader, old_reader in READERS:
        new_documents = [new.parse_ini(text, f"{i}.ini") for i, text in enumerate(texts)]
        old_documents = [old.parse_ini(text, f"{i}.ini") for i, text in enumerate(texts)]
        for new_document, old_document in zip(new_documents, old_documents, strict=True):
            assert new_document.sections(reader) == old_document.sections(old_reader)
            assert new_document.newline == old_document.newline
        for section in sections:
            for key in keys:
                got = new.lookup(new_documents, section, key, reader=reader)
                want = old.lookup(old_documents, section, key, reader=old_reader)
                assert [(v.value, v.path, v.line) for v in got] == [(v.value, v.path, v.line) for v in want], (
                    section,
                    key,
                    reader,
                )
                one = new.effective_value(new_documents, section, key, reader=reader)
                other = old.effective_value(old_documents, section, key, reader=old_reader)
                assert (one and (one.value, one.path, one.line)) == (other and (other.value, other.path, other.line))


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_a_random_file_reads_as_before_for_every_key(text: str) -> None:
    _compare([text.encode()])


@settings(max_examples=400, deadline=None)
@given(PLAIN, ENCODINGS)
def test_a_random_file_without_joined_lines_reads_as_before_for_every_key(text: str, encoding: tuple[str, str]) -> None:
    bom, codec = encoding
    _compare([(bom + text).encode(codec)])


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=2, max_size=3))
def test_a_random_hierarchy_reads_as_before_for_every_key(texts: list[str]) -> None:
    _compare([text.encode() for text in texts])


@pytest.mark.parametrize("path", sorted(p for p in DATA.rglob("*.ini")), ids=lambda p: str(p.relative_to(DATA)))
def test_a_real_file_reads_as_before_for_every_key(path: Path) -> None:
    _compare([path.read_bytes()])
