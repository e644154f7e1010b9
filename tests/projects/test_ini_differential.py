"""The config reader and editor of issue 30 item 3 give exactly the answers of the ones before them (``ini_oracle.py``
and ``ini_edit_oracle.py``, frozen copies), with both of Unreal's readers: every line of the full readings, every
asked section and key, and every write (the same bytes, or the same refusal).

Each comparison runs twice: with the file read whole (as a small file is) and with the key's lines scanned for (as a
file of ``SCAN_FROM`` characters or more is), so that the scanning patterns are tested on small random files of every
piece of line syntax. The structured files repeat lines, so that the scanner's runs (equal lines) and chunks (plain
lines read by one pattern) are taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import ini_edit_oracle as old_edit
import ini_oracle as old
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildver.projects import ini_edit as new_edit
from buildver.projects import ini_scan
from buildver.projects import unreal_ini as new

pytestmark = pytest.mark.usefixtures("ini_readers")  # with the compiled core and in pure Python

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
"""Files where no line is joined or split."""
ENCODINGS = st.sampled_from([("", "utf-8"), ("\ufeff", "utf-8"), ("\ufeff", "utf-16-le"), ("\ufeff", "utf-16-be")])

WHOLE_LINES = [
    "[S]", "[s]", "[T]", "[S", " [S]", "[S]  ", "[S]|[T]", "K=v", "k=V", "+K=v1", "+K=v2", "+K=V2", "-K=v1", "-K=V1",
    "-K=v2", ".K=v1", ".K=v2", "!K=", "!K", "! K ", "@K=Name", "K=Name=a", "+K=Name=b", ".K=Name=a",
    '+K=(Name="a",X=1)', "X=1", "Key=1", 'K="q"', 'K="a|b"', "K=a|K=b", "K=a|+K=c", "K={a", "}", "K=a\\", "b", "",
    "  ", ";c", "//c", "K=//x", "K=a//|K=z", "+ K=w", "~K=t", "~+K=u", "K =sp", " K= sp ", "K=\t", "\u212a=kelvin",
    "K.x=1", "*K=o", "K=v1", "+K=", "-K=", ".K=", 'K="a\\"b"', "K=\\101", 'K= "x" y', "x=1|y=2", "[T]//c",
    "X=a\\", "X={b", "Y=c}", "X=a\\  ", "X=1|[S]", "[x", "K={}{a}{b}c", "K=//{a}x", "K={{a}}", "[S]{}",
]  # fmt: skip
"""Whole lines of every kind the readers tell apart, for files that repeat them."""
STRUCTURED = st.builds(
    lambda lines, separator, end: separator.join(line for line, times in lines for _ in range(times)) + end,
    st.lists(st.tuples(st.sampled_from(WHOLE_LINES), st.sampled_from([1, 1, 1, 2, 3, 7])), max_size=40),
    st.sampled_from(["\n", "\r\n", "\r", "|"]),
    st.sampled_from(["", "\n"]),
)
SWITCHES = ["[S]", "[s]", "[T]", "[U]", "K=1", "K=2", "k=V", "+K=v", ".K=v", "-K=v", "!K=", "!K", "@K=Name", "", ";c",
            "//c", "X=1", "[S", "K=a\\", "K={a", "}", "K=a|[T]", "[S]|K=3"]  # fmt: skip
PERIODIC = st.builds(
    lambda head, unit, times, tail, separator, end: separator.join(head + unit * times + tail) + end,
    st.lists(st.sampled_from(WHOLE_LINES), max_size=3),
    st.lists(st.one_of(st.sampled_from(SWITCHES), st.sampled_from(WHOLE_LINES)), min_size=1, max_size=6),
    st.integers(2, 9),
    st.lists(st.sampled_from(WHOLE_LINES), max_size=3),
    st.sampled_from(["\n", "\r\n", "\r", "|"]),
    st.sampled_from(["", "\n"]),
)
"""Files of a stretch of lines repeated (sections that change every few lines, the key in each): the scanner reads
the repetitions of a stretch from one of the key's lines to the next in one step."""
MOVES = [["-K=v", ".K=v"], ["-K=w", ".K=w"], ["-K=v", ".K=V"], ["-K=v", "+K=v"], ["-K=v", ".K=v", "-K=v", ".K=v"],
         [".K=v", "-K=v"], ["-K=v", "X=1", ".K=v"], ["-K=v"], [".K=w"], ["[T]"], ["[S]"], ["X=1"], ["K=1"], ["!K="],
         ["@K=Name"], ["-K=w", ".K=v"], ["+K=w"], [".K=v", ".K=v"], ["+K=v", ".K=v"], ["*K=v", ".K=v"]]  # fmt: skip
PERIODIC_MOVES = st.builds(
    lambda head, unit, times, separator: separator.join(head + [line for lines in unit for line in lines] * times),
    st.lists(st.sampled_from(WHOLE_LINES), max_size=3),
    st.lists(st.sampled_from(MOVES), min_size=1, max_size=4),
    st.integers(2, 9),
    st.sampled_from(["\n", "\r\n", "|"]),
)
"""Files of a stretch repeated whose lines of the key move values to the end of the engine's array (``-Key=x``
then ``.Key=x``), among others that do not: the scanner passes over the repetitions of the first kind."""
RECURRING_HEADERS = ["[S]", "[S]", "[S]", "[s]", "[T]", "[T]", "[U]", "[S{n}]", "[S] ", "[S]//c", "[S]|X={n}", "[S",
                     " [S]", "[S]{}", "[T]\\", "[T]|[S]"]  # fmt: skip
RECURRING_LINES = ["K={n}", "K={n}", "k=V{n}", "+K=v{n}", ".K=v{n}", "-K=v{n}", "!K=", "!K", "@K=N{n}", "X={n}",
                   "K=a{n}|X=1", "K = {n} ", "~K={n}", "*K={n}", *SWITCHES, *WHOLE_LINES]  # fmt: skip


def _recurring(headers: list[str], lines: list[str], separators: list[str]) -> st.SearchStrategy[str]:
    blocks = st.lists(
        st.tuples(st.sampled_from(headers), st.lists(st.sampled_from(lines), max_size=3)), min_size=4, max_size=24
    )
    return st.builds(
        lambda blocks, separator, end: (
            separator.join(
                line.replace("{n}", str(number))
                for number, (header, body) in enumerate(blocks)
                for line in [header, *body]
            )
            + end
        ),
        blocks,
        st.sampled_from(separators),
        st.sampled_from(["", "\n"]),
    )


RECURRING = st.one_of(
    _recurring(RECURRING_HEADERS, RECURRING_LINES, ["\n", "\r\n", "\r", "|"]),
    _recurring(
        ["[S]", "[S]", "[S]", "[S]"]
        + [header for header in RECURRING_HEADERS if "\\" not in header and "{" not in header],
        ["K={n}", "K={n}", "K={n}"]
        + [line for line in RECURRING_LINES[:14] if "|" not in line]
        + ["", "[x", "[S]x", " [T]"],
        ["\n", "\r\n", "\r"],
    ),
)
"""Files where sections come again and again, each time with other lines (numbered: no stretch repeats), and many
sections of other names: the scanner reads on through other sections to the section's next header, and finds the
section's last header without stopping at the others."""
SCANNED = (["S", "s", "T", "K", "Key", "K.x"], ["K", "k", "Key", "S", "T", "K.x", "v"])
"""The names asked when the patterns scan (each pair compiles its patterns once)."""


@contextmanager
def reading(*, scan: bool) -> Iterator[None]:
    """Read every file whole, or scan every file for the key's lines, whatever its size."""
    before = new.SCAN_FROM
    new.SCAN_FROM = 0 if scan else 1 << 62
    try:
        yield
    finally:
        new.SCAN_FROM = before


@contextmanager
def entering_once() -> Iterator[None]:
    """Scan with the key's skipping loops stopping at every entry into the section (``_SECTION_BLOCKS`` 1, not 64),
    so that small files have their repeated stretches without the key's lines passed over."""
    before = ini_scan._SECTION_BLOCKS
    ini_scan._SECTION_BLOCKS = 1
    ini_scan._engine_patterns.cache_clear()
    ini_scan._ubt_patterns.cache_clear()
    try:
        yield
    finally:
        ini_scan._SECTION_BLOCKS = before
        ini_scan._engine_patterns.cache_clear()
        ini_scan._ubt_patterns.cache_clear()


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


def _entries(document: new.IniDocument | old.IniDocument, reader: new.IniReader | old.IniReader) -> list[tuple]:  # type: ignore[type-arg]
    return [(e.section, e.action.value, e.key, e.value, e.line, e.last_line) for e in document.entries(reader)]  # type: ignore[arg-type]


def _compare(texts: list[bytes], *, scan: bool = False) -> None:
    sections, keys = SCANNED if scan else _asked(texts)
    with reading(scan=scan):
        for reader, old_reader in READERS:
            new_documents = [new.parse_ini(text, f"{i}.ini") for i, text in enumerate(texts)]
            old_documents = [old.parse_ini(text, f"{i}.ini") for i, text in enumerate(texts)]
            for new_document, old_document in zip(new_documents, old_documents, strict=True):
                assert _entries(new_document, reader) == _entries(old_document, old_reader)
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
                    assert (one and (one.value, one.path, one.line)) == (
                        other and (other.value, other.path, other.line)
                    )


WRITES = (["S", "s", "T", "K"], ["K", "k", "Key", "S", "v"], ["2", "v1", "a b", "x|y", "{a", "a//b", '"q"', 'a"b', "",
          " x", "y\\", "Name=c", "V1"])  # fmt: skip


def _outcome(write: object, error: type[Exception], *arguments: object) -> tuple[str, object]:
    try:
        return ("done", write(*arguments))  # type: ignore[operator]
    except error as exc:
        return ("refused", str(exc))


def _compare_writes(data: bytes, writes: list[tuple[str, str, str]]) -> None:
    for section, key, value in writes:
        want = _outcome(old_edit.set_ini_value, old.IniError, data, section, key, value, "t.ini")
        want_line = _outcome(old_edit.write_line, old.IniError, old.parse_ini(data, "t.ini"), section, key)
        for scan in (False, True):
            with reading(scan=scan):
                got = _outcome(new_edit.set_ini_value, new.IniError, data, section, key, value, "t.ini")
                got_line = _outcome(new_edit.write_line, new.IniError, new.parse_ini(data, "t.ini"), section, key)
            assert (got, got_line) == (want, want_line), (section, key, value, scan)


@settings(max_examples=300)
@given(TEXT)
def test_a_random_file_reads_as_before_for_every_key(text: str) -> None:
    _compare([text.encode()])


@settings(max_examples=150)
@given(TEXT)
def test_a_random_file_scanned_reads_as_before(text: str) -> None:
    _compare([text.encode()], scan=True)


@settings(max_examples=300)
@given(PLAIN, ENCODINGS)
def test_a_random_file_without_joined_lines_reads_as_before_for_every_key(text: str, encoding: tuple[str, str]) -> None:
    bom, codec = encoding
    _compare([(bom + text).encode(codec)])


@settings(max_examples=300)
@given(STRUCTURED, st.sampled_from(["utf-8", "utf-16"]))
def test_a_file_of_repeated_lines_scanned_reads_as_before(text: str, codec: str) -> None:
    _compare([text.encode(codec)], scan=True)


@settings(max_examples=300)
@given(PERIODIC, st.sampled_from(["utf-8", "utf-16"]))
def test_a_file_of_a_stretch_repeated_scanned_reads_as_before(text: str, codec: str) -> None:
    _compare([text.encode(codec)], scan=True)


@settings(max_examples=300)
@given(PERIODIC, st.sampled_from(["utf-8", "utf-16"]))
def test_a_file_of_a_stretch_repeated_scanned_stopping_at_each_entry_reads_as_before(text: str, codec: str) -> None:
    with entering_once():
        _compare([text.encode(codec)], scan=True)


@settings(max_examples=300)
@given(PERIODIC_MOVES)
def test_a_file_of_a_stretch_of_moved_values_repeated_scanned_reads_as_before(text: str) -> None:
    _compare([text.encode()], scan=True)


@settings(max_examples=300)
@given(RECURRING, st.sampled_from(["utf-8", "utf-16"]))
def test_a_file_of_a_section_coming_again_with_other_lines_scanned_reads_as_before(text: str, codec: str) -> None:
    _compare([text.encode(codec)], scan=True)


@settings(max_examples=100)
@given(st.lists(TEXT, min_size=2, max_size=3))
def test_a_random_hierarchy_reads_as_before_for_every_key(texts: list[str]) -> None:
    _compare([text.encode() for text in texts])


@settings(max_examples=100)
@given(st.lists(STRUCTURED, min_size=2, max_size=3))
def test_a_hierarchy_of_repeated_lines_scanned_reads_as_before(texts: list[str]) -> None:
    _compare([text.encode() for text in texts], scan=True)


@pytest.mark.parametrize("path", sorted(p for p in DATA.rglob("*.ini")), ids=lambda p: str(p.relative_to(DATA)))
def test_a_real_file_reads_as_before_for_every_key(path: Path) -> None:
    _compare([path.read_bytes()])


@pytest.mark.parametrize("path", sorted(p for p in DATA.rglob("*.ini")), ids=lambda p: str(p.relative_to(DATA)))
def test_a_real_file_scanned_reads_as_before(path: Path) -> None:
    _compare([path.read_bytes()], scan=True)


@settings(max_examples=300)
@given(
    STRUCTURED,
    st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
    st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3),
)
def test_a_write_gives_the_bytes_or_the_refusal_it_gave_before(
    text: str, codec: str, writes: list[tuple[str, str, str]]
) -> None:
    _compare_writes(text.encode(codec), writes)


@settings(max_examples=150)
@given(PERIODIC, st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3))
def test_a_write_to_a_file_of_a_stretch_repeated_gives_what_it_gave_before(
    text: str, writes: list[tuple[str, str, str]]
) -> None:
    _compare_writes(text.encode(), writes)


@settings(max_examples=150)
@given(PERIODIC, st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3))
def test_a_write_to_a_file_of_a_stretch_repeated_stopping_at_each_entry_gives_what_it_gave_before(
    text: str, writes: list[tuple[str, str, str]]
) -> None:
    with entering_once():
        _compare_writes(text.encode(), writes)


@settings(max_examples=150)
@given(RECURRING, st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3))
def test_a_write_to_a_file_of_a_section_coming_again_gives_what_it_gave_before(
    text: str, writes: list[tuple[str, str, str]]
) -> None:
    _compare_writes(text.encode(), writes)


@settings(max_examples=100)
@given(TEXT, st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3))
def test_a_write_to_a_random_file_gives_what_it_gave_before(text: str, writes: list[tuple[str, str, str]]) -> None:
    _compare_writes(text.encode(), writes)


@pytest.mark.parametrize("path", sorted(p for p in DATA.rglob("*.ini")), ids=lambda p: str(p.relative_to(DATA)))
def test_writing_to_a_real_file_gives_what_it_gave_before(path: Path) -> None:
    document = old.parse_ini(path.read_bytes(), "t.ini")
    asked = [(entry.section, entry.key) for entry in document.entries(old.IniReader.UBT)][:12]
    _compare_writes(path.read_bytes(), [(section, key, "7") for section, key in asked] + [("New", "K", "1")])


SPANNING = [
    "[S]\nX=a\\\n\n",
    "[S]\nX=a\\\n\n\n[T]\nY=1\n",
    "[S]\nX={a\n\n}\n\n[T]\n",
    "[S]\nX={a\n;c\n}\n",
    "[S]\nX=a\\\n;c\n\n[T]\n",
    "[S]\nX=a\\  \n\nY=b\n",
    "[S]\r\nX=a\\\r\n\r\n//c\r\n[T]\r\n",
    "[S]\nX=1|Y={a\n\n}\n",
    "[S]\nX={a\n}|Y={b\n\n}\n\n",
    "[S]\nX=a\\\n  \nb\n\n",
    "[S]\n[x\nX=a\\\n\n",
    "[S]|[T]\nX=1\n",
    "[S]\nK=1\n!K=\nX=a\\\n\n",
    "[T]\nX=1|[S]\nK=1\n!K\n",
    "[S]\nX=1|[T]\nK=1\n",
]
"""Sections whose last line runs on over the blank lines and comments after it, in one reader or both: a key added
to them goes after the whole of that line (or is refused)."""


@pytest.mark.parametrize("text", SPANNING)
def test_a_key_added_after_a_line_that_runs_on_is_placed_as_before(text: str) -> None:
    _compare_writes(text.encode(), [("S", "K", "2"), ("S", "Z", "v"), ("T", "K", "3")])


@settings(max_examples=100)
@given(PERIODIC)
def test_the_line_across_a_place_in_a_stretch_repeated_is_the_one_found_line_by_line(text: str) -> None:
    """UnrealBuildTool's line across each place, from the start: passing over repeated stretches of ``[`` lines
    (as it does) gives what reading every line gives (repetitions never passed: ``_PERIOD`` below any stretch)."""
    places = range(len(text) + 1)
    found = [ini_scan.ubt_line_across(text, 0, at, open_section) for at in places for open_section in (False, True)]
    before = ini_scan._PERIOD
    ini_scan._PERIOD = -1
    try:
        every = [ini_scan.ubt_line_across(text, 0, at, open_section) for at in places for open_section in (False, True)]
    finally:
        ini_scan._PERIOD = before
    assert found == every


@pytest.mark.parametrize(
    ("text", "following"),
    [
        # a '{' left open joins lines up to the next '|': each later '[S]' is inside a key line, and the stretch
        # 'K={a', '[S]|[T]' repeats; the first header on a later line than the section's last is line 3's '[T]'
        ("\n".join(["[S]|[T]", "K={a"] * 4), (3, 17)),
        ("\n".join(["[S]|[T]", "K={a"] * 9), (3, 17)),
        ("[S]|[T]|[T]|[T]|[T]|[T]\n[U]\n", (2, 24)),
    ],
)
def test_the_header_after_the_sections_last_is_found_past_a_repeated_stretch(
    text: str, following: tuple[int, int]
) -> None:
    """A large file's scan for the section's last header and the header after it (what the writer takes, to place a
    new key line) finds the first header on a later line, also where the text after the last header repeats."""
    document = new.parse_ini(text.encode(), "DefaultEngine.ini")
    want = [(header.line, header.name) for header in document._reading(new.IniReader.ENGINE).headers]
    assert [line for line, name in want if name == "S"] == [1]
    with reading(scan=True):
        sections = new_edit._Writer(document, "S", "K")._sections(new.IniReader.ENGINE)
    assert sections.last is not None
    assert (sections.last.line, sections.following) == (1, following)
