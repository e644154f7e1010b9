"""The config readers' compiled core (``buildver.projects._ini_native``) gives exactly what the Python readers give.

For every asked section and key whose names the core takes (``ini_scan.fast_name``), with both of Unreal's readers:

- ``key_values`` (the key's merged values over a hierarchy, all of them or the one a single read gives, ``@``
  struct keys included) against ``unreal_ini._python_values``: the same values, from the same file and physical
  line, in the same order, or the same refusal on the same line when struct keys change over more values than the
  work bound (lowered here so that small files reach it); and ``lookup``, which goes through the core;
- ``key_line`` (the key's last line in the section and whether an ``@`` line of it is there) against the Python
  full reading: the same prefix and value, the same logical line start, the same last physical line;
- ``section_headers`` (what the writer takes of a section's headers in a large file) against the Python scan;
- writes (``set_ini_value``, ``write_line``) with the core and without, as a small file and as a large one: the
  same bytes or the same refusal.

The files are the random and structured ones of ``test_ini_differential`` (every piece of line syntax, repeated
lines, repeated stretches, sections coming again), quoted values with every escape, continued lines, names beyond
ASCII, struct keys, hierarchies of them, the real files of ``tests/data/ini``, and a hand-written table with a few
cases for each rule of ``unreal_ini``'s table. The whole module is skipped where no compiler built the core.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ini_differential import (
    NAMES,
    PERIODIC,
    PERIODIC_MOVES,
    PLAIN,
    RECURRING,
    SPANNING,
    STRUCTURED,
    TEXT,
    WHOLE_LINES,
    WRITES,
)

from buildver.projects import ini_edit, ini_scan, unreal_ini
from buildver.projects.unreal_ini import IniDocument, IniReader, line_number, parse_ini

native = pytest.importorskip("buildver.projects._ini_native")

DATA = Path(__file__).resolve().parents[1] / "data" / "ini"
READERS = [IniReader.ENGINE, IniReader.UBT]
ASKED = sorted({*NAMES, "Name", "X", "v", "K~", "S/T", "S ", "[S]"})
"""Names asked of every file, besides the ones its lines hold (only the ``fast_name`` ones go to the core)."""
CODECS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16-le", "utf-16-be"])
BREAKS = st.sampled_from(["\n", "\r\n", "\r"])

Found = list[tuple[str, int, int]] | tuple[str, int, int]
"""Values as (value, index of the file in the hierarchy, 1-based physical line), or a refusal ("refused", index of
the file, line) of ``@`` struct keys that change over more values than the work bound."""


Headers = tuple[int, int, int, tuple[int, int] | None, bool] | None
"""What ``section_headers`` gives: where the section's last header starts and its text ends, its physical line,
the first header on a later line (line, start), and whether another section starts on the last header's line."""


class KeyLine(NamedTuple):
    """The key's last line in a section, as ``key_line`` gives it, with its physical lines."""

    action: str
    value: str
    start: int
    line: int
    last_line: int


# The two sides --------------------------------------------------------------------------------------------------


def _documents(data: list[bytes]) -> tuple[IniDocument, ...]:
    return tuple(parse_ini(one, str(index)) for index, one in enumerate(data))


def _python_values(
    documents: tuple[IniDocument, ...], section: str, key: str, reader: IniReader, *, everything: bool
) -> Found:
    try:
        found = unreal_ini._python_values(documents, section, key, reader, everything=everything)
    except unreal_ini.IniError as exc:
        message = str(exc)
    else:
        return [(value.value, int(value.path), value.line) for value in found]
    where = re.fullmatch(r"(\d+): line (\d+): the '@' struct keys of .* buildver does not read such a file", message)
    assert where is not None, message
    return ("refused", int(where[1]), int(where[2]))


def _core_values(texts: list[str], section: str, key: str, reader: IniReader, *, everything: bool) -> Found:
    found = native.key_values(texts, section, key, reader is IniReader.UBT, everything, unreal_ini._STRUCT_WORK)
    if isinstance(found, tuple):
        index, line = found
        return ("refused", index, line)
    values: list[tuple[str, int, int]] = found  # (value, file, line)
    return values


@contextmanager
def struct_work(bound: int) -> Iterator[None]:
    """Refuse ``@`` struct keys that change over more than ``bound`` values (both readers read the bound here)."""
    before = unreal_ini._STRUCT_WORK
    unreal_ini._STRUCT_WORK = bound
    try:
        yield
    finally:
        unreal_ini._STRUCT_WORK = before


@functools.cache
def _key_lines(text: str, reader: IniReader) -> dict[tuple[str, str], list[tuple[str, str, int, int]]]:
    """Each section's and key's lines (names lower-cased) as the reader takes them: (prefix, value, logical line
    start, end of its text). The same steps as ``unreal_ini``'s full readings, keeping the offsets."""
    found: dict[tuple[str, str], list[tuple[str, str, int, int]]] = {}
    section: str | None = None
    if reader is IniReader.ENGINE:
        for logical, start, end in ini_scan.engine_lines(text):
            parsed = ini_scan.engine_parse(logical)
            if parsed is None:
                continue
            if parsed.header is not None:
                section = parsed.header
            elif section is not None:
                line = (parsed.action, parsed.value, start, end)
                found.setdefault((section.lower(), parsed.key.lower()), []).append(line)
    else:
        for raw, start, end in ini_scan.ubt_lines(text):
            taken = ini_scan.ubt_parse(raw)
            if taken is None:
                continue
            if taken.resets:
                section = taken.header
            elif section is not None:
                line = (taken.action, taken.value, start, end)
                found.setdefault((section.lower(), taken.key.lower()), []).append(line)
    return found


def _last_line_of(text: str, start: int, end: int) -> int:
    line = line_number(text, start)
    return line_number(text, max(start, end - 1), start, line)


def _python_key_line(document: IniDocument, section: str, key: str, reader: IniReader) -> tuple[KeyLine | None, bool]:
    text, name = document.text, (section.lower(), key.lower())
    mine = _key_lines(text, reader).get(name, [])
    structs = any(action == "@" for action, _value, _start, _end in mine)
    if not mine:
        return None, structs
    action, value, start, end = mine[-1]
    last = KeyLine(action, value, start, line_number(text, start), _last_line_of(text, start, end))
    entry = [e for e in document.entries(reader) if (e.section.lower(), e.key.lower()) == name][-1]
    assert (entry.action.value, entry.value, entry.line, entry.last_line) == last[:2] + last[3:]  # the same line
    return last, structs


def _core_key_line(text: str, section: str, key: str, reader: IniReader) -> tuple[KeyLine | None, bool]:
    last, structs = native.key_line(text, section, key, reader is IniReader.UBT)
    if last is None:
        return None, structs
    action, value, start, end, line, last_line = last
    assert (line, last_line) == (line_number(text, start), _last_line_of(text, start, end))  # its own offsets' lines
    return KeyLine(action, value, start, line, last_line), structs


# The comparisons ------------------------------------------------------------------------------------------------


def _asked(documents: tuple[IniDocument, ...]) -> list[tuple[str, str]]:
    """The names asked of a hierarchy, only those the core takes: every section with every key, of the fixed names
    and of those its lines hold (each also in the other case); for a large file, each section its lines hold with
    its own keys and with K, and S with every key."""
    held: set[tuple[str, str]] = set()
    sections, keys = set(ASKED), set(ASKED)
    for document in documents:
        for reader in READERS:
            sections.update(document.sections(reader))
            for entry in document.entries(reader):
                held.add((entry.section, entry.key))
                sections.add(entry.section)
                keys.add(entry.key)
    pairs = {(section, key) for section in sections for key in keys}
    if len(pairs) > 4000:  # a real file: its own pairs, each of its sections with K, S with each of its keys
        pairs = {*held, *((section, "K") for section in sections), *(("S", key) for key in keys)}
    pairs |= {(section.swapcase(), key.swapcase()) for section, key in held}
    return sorted(pair for pair in pairs if ini_scan.fast_name(*pair))


def assert_same_values(documents: tuple[IniDocument, ...], section: str, key: str) -> None:
    """The core's merged values are the Python readers', for both readers, all values and the single one (or the
    same refusal, on the same line); and what ``lookup`` gives through the core."""
    texts = [document.text for document in documents]
    for reader in READERS:
        for everything in (True, False):
            want = _python_values(documents, section, key, reader, everything=everything)
            got = _core_values(texts, section, key, reader, everything=everything)
            assert got == want, (section, key, reader.value, everything)
        try:
            public: Found = [
                (value.value, int(value.path), value.line)
                for value in unreal_ini.lookup(documents, section, key, reader=reader)
            ]
        except unreal_ini.IniError:
            public = _python_values(documents, section, key, reader, everything=True)
            assert public[0] == "refused"
        assert public == _python_values(documents, section, key, reader, everything=True), (section, key)


def assert_same_key_line(document: IniDocument, section: str, key: str) -> None:
    """The core's last line of the key is the Python full reading's, for both readers."""
    for reader in READERS:
        got = _core_key_line(document.text, section, key, reader)
        assert got == _python_key_line(document, section, key, reader), (section, key, reader.value)


def compare(data: list[bytes]) -> None:
    """Every asked name of a hierarchy, merged; and every file's last line of each."""
    documents = _documents(data)
    asked = _asked(documents)
    for section, key in asked:
        assert_same_values(documents, section, key)
        for document in documents:
            assert_same_key_line(document, section, key)
    sections = sorted({section for section, _key in asked})
    if len(sections) > 24:  # a real file: the fixed names and a sample of its own (each costs the Python scan)
        sections = sorted({*(name for name in sections if name in ASKED), *sections[:: len(sections) // 12]})
    for section in sections:
        for document in documents:
            assert_same_headers(document, section)


@contextmanager
def pure_python() -> Iterator[None]:
    """Read and write without the compiled core (what ``BUILDVER_PURE_PYTHON=1`` does)."""
    before = list(unreal_ini._CORE)
    unreal_ini._CORE[:] = [None]
    try:
        yield
    finally:
        unreal_ini._CORE[:] = before


def _write(data: bytes, section: str, key: str, value: str) -> tuple[str, object, object]:
    try:
        written = ini_edit.set_ini_value(data, section, key, value, "t.ini")
        return ("done", written, ini_edit.write_line(parse_ini(data, "t.ini"), section, key))
    except unreal_ini.IniError as exc:
        return ("refused", str(exc), None)


@contextmanager
def scanning() -> Iterator[None]:
    """Read every file as a large one (``SCAN_FROM`` 0): the writer asks the core for the section's headers, and
    without the core the Python readers scan for them."""
    before = unreal_ini.SCAN_FROM
    unreal_ini.SCAN_FROM = 0
    try:
        yield
    finally:
        unreal_ini.SCAN_FROM = before


def compare_writes(data: bytes, writes: list[tuple[str, str, str]]) -> None:
    """Each write gives the same bytes (or the same refusal) and names the same line with the core, read as a small
    file and as a large one, as the Python readers give reading the file whole."""
    assert unreal_ini.ini_core() is native
    for section, key, value in writes:
        with pure_python():
            want = _write(data, section, key, value)
        for large in (False, True):
            with scanning() if large else contextlib.nullcontext():
                got = _write(data, section, key, value)
            assert got == want, (section, key, value, large)


@functools.cache
def _all_headers(text: str, reader: IniReader) -> list[tuple[str, int, int, int]]:
    """The reader's section headers, read whole: (name lower-cased, logical line start, end of its text, physical
    line)."""
    found = []
    if reader is IniReader.ENGINE:
        for logical, start, end in ini_scan.engine_lines(text):
            parsed = ini_scan.engine_parse(logical)
            if parsed is not None and parsed.header is not None:
                found.append((parsed.header.lower(), start, end, line_number(text, start)))
    else:
        for raw, start, end in ini_scan.ubt_lines(text):
            taken = ini_scan.ubt_parse(raw)
            if taken is not None and taken.header is not None:
                found.append((taken.header.lower(), start, end, line_number(text, start)))
    return found


def _python_headers(text: str, section: str, reader: IniReader) -> Headers:
    """``section_headers`` from the full reading: where the section's last header starts and its text ends, its
    physical line, the first header on a later physical line (its line and start), and whether another section's
    header comes on the last one's line."""
    headers = _all_headers(text, reader)
    mine = [place for place, header in enumerate(headers) if header[0] == section.lower()]
    if not mine:
        return None
    _name, start, end, line = headers[mine[-1]]
    after = headers[mine[-1] + 1 :]
    following = next(((header[3], header[1]) for header in after if header[3] > line), None)
    return start, end, line, following, any(header[3] == line for header in after)


def assert_same_headers(document: IniDocument, section: str) -> None:
    """The core's headers of the section are the ones of the full reading."""
    for reader in READERS:
        got = native.section_headers(document.text, section, reader is IniReader.UBT)
        assert got == _python_headers(document.text, section, reader), (section, reader.value)


def _with_breaks(text: str, brk: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", brk)


# The rules, a few cases each ------------------------------------------------------------------------------------


class Case(NamedTuple):
    data: bytes
    section: str
    key: str
    engine: list[tuple[str, int]]
    """The engine's values, each with its physical line."""
    ubt: list[tuple[str, int]]


def _case(text: str, engine: list[tuple[str, int]], ubt: list[tuple[str, int]], *, codec: str = "utf-8") -> Case:
    return Case(text.encode(codec), "S", "K", engine, ubt)


RULES = {
    # encoding
    "utf-8 with a byte-order mark": _case("[S]\nK=v\n", [("v", 2)], [("v", 2)], codec="utf-8-sig"),
    "utf-16 little-endian": _case("\ufeff[S]\r\nK=v\u00e9\r\n", [("v\u00e9", 2)], [("v\u00e9", 2)], codec="utf-16-le"),
    "utf-16 big-endian": _case(
        "\ufeff[S]\nK=\U0001f600\n", [("\U0001f600", 2)], [("\U0001f600", 2)], codec="utf-16-be"
    ),
    "non-ascii around the key": _case("[S]\n\u00e9=1\nK=\u4e2d\n", [("\u4e2d", 3)], [("\u4e2d", 3)]),
    # lines
    "lines end at cr": _case("[S]\rK=1\r\rK=2\r", [("2", 4)], [("2", 4)]),
    "lines end at crlf": _case("[S]\r\nK=1\r\n\r\nK=2", [("2", 4)], [("2", 4)]),
    "lines end at lf after cr": _case("[S]\n\rK=1\r\n\nK=2\n", [("2", 5)], [("2", 5)]),
    "blank lines skipped": _case("\n\n[S]\n\n  \nK=1\n\n", [("1", 6)], [("1", 6)]),
    # continuation
    "a backslash joins lines": _case("[S]\nK=a\\\nb\nX=1", [("a b", 2)], [("a\\b", 2)]),
    "a backslash before crlf": _case("[S]\r\nK=a\\\r\nb\r\n", [("a b", 2)], [("a\\b", 2)]),
    "a backslash then blanks": _case("[S]\nK=a\\  \nb\n", [("a\\", 2)], [("a\\  b", 2)]),
    "a backslash joins a blank line": _case("[S]\nK=a\\\n\nK=2\n", [("a K=2", 2)], [("a\\K=2", 2)]),
    "backslashes on many lines": _case("[S]\nK=a\\\nb\\\nc\n", [("a b c", 2)], [("a\\b\\c", 2)]),
    "braces join lines": _case("[S]\nK={a\nb}\nX=1\n", [("a b", 2)], [("{a", 2)]),
    "braces on one line dropped": _case("[S]\nK={a}{b}c\n", [("abc", 2)], [("{a}{b}c", 2)]),
    "braces in quotes kept": _case('[S]\nK="{a"\n', [("{a", 2)], [("{a", 2)]),
    "a brace never closed": _case("[S]\nK={a\nK=2\n", [("a K=2", 2)], [("2", 3)]),
    # |
    "a bar starts a line": _case("[S]\nK=a|K=b\n", [("b", 2)], [("a|K=b", 2)]),
    "a bar in quotes": _case('[S]\nK="a|b"\n', [("a|b", 2)], [("a|b", 2)]),
    "a bar then a header": _case("[T]\nX=1|[S]\nK=1\n", [("1", 3)], []),
    "a bar then a prefix": _case("[S]\nK=a|+K=c\n", [("a", 2), ("c", 2)], [("a|+K=c", 2)]),
    # comments
    "a semicolon first": _case("[S]\n;K=1\nK=2\n;K=3\n", [("2", 3)], [("2", 3)]),
    "a semicolon after blanks": _case("[S]\nK=2\n  ;K=3\n", [("2", 2)], [("2", 2)]),
    "slashes end the line": _case("[S]\nK=a//b\n", [("a", 2)], [("a//b", 2)]),
    "slashes first": _case("[S]\nK=1\n//K=2\n  //K=3\n", [("1", 2)], [("1", 2)]),
    "slashes in quotes": _case('[S]\nK="a//b"c\n', [("a//b", 2)], [('"a//b"c', 2)]),
    "slashes then a bar": _case("[S]\nK=a//|K=z\n", [("z", 2)], [("a//|K=z", 2)]),
    # section header
    "a header after blanks": _case("[T]\n [S]\nK=1\n", [], [("1", 3)]),
    "a header with blanks after": _case("[S]  \nK=1\n", [("1", 2)], [("1", 2)]),
    "the same section again": _case("[S]\nK=1\n[T]\nK=2\n[s]\n+K=3\n", [("1", 2), ("3", 6)], [("1", 2), ("3", 6)]),
    "a bracket line without its end": _case("[S]\nK=1\n[S\nK=2\n", [("2", 4)], [("1", 2)]),
    "a bracket line then the section": _case("[S\nK=1\n[S]\nK=2\n[x\nK=3", [("3", 6)], [("2", 4)]),
    "an empty header": _case("[S]\nK=1\n[]\nK=2\n", [("1", 2)], [("1", 2)]),
    "a header with text after": _case("[S]\nK=1\n[T]x\nK=2\n", [("2", 4)], [("1", 2)]),
    "a header with a comment after": _case("[T]\nK=1\n[S]//c\nK=2\n", [("2", 4)], []),
    # key=value
    "the first equals": _case("[S]\nK=a=b\n", [("a=b", 2)], [("a=b", 2)]),
    "blanks around the key and value": _case("[S]\n K = v \n", [("v", 2)], [("v", 2)]),
    "a tilde before the key": _case("[S]\n~K=t\n", [("t", 2)], []),
    "a vertical tab around the value": _case("[S]\nK=\x0bv\x0c\n", [("v", 2)], [("\x0bv\x0c", 2)]),
    "no equals": _case("[S]\nK=1\nK\n", [("1", 2)], [("1", 2)]),
    "an empty value": _case("[S]\nK=\n", [("", 2)], [("", 2)]),
    # quoted value
    "quotes dropped": _case('[S]\nK="q"\n', [("q", 2)], [("q", 2)]),
    "escaped quote and backslash": _case('[S]\nK="a\\"b\\\\c"\n', [('a"b\\c', 2)], [('a\\"b\\\\c', 2)]),
    "escaped line break and tab": _case('[S]\nK="a\\nb\\tc"\n', [("a\nb\tc", 2)], [("a\\nb\\tc", 2)]),
    "octal escapes": _case('[S]\nK="\\101\\7\\0101"\n', [("A\x07\x081", 2)], [("\\101\\7\\0101", 2)]),
    "hex escape of many digits": _case('[S]\nK="\\x0000000041z"\n', [("Az", 2)], [("\\x0000000041z", 2)]),
    "hex escape past a character": _case('[S]\nK="\\x1F600"\n', [("\uf600", 2)], [("\\x1F600", 2)]),
    "short u escape": _case('[S]\nK="\\u00e9\\u41"\n', [("\u00e9A", 2)], [("\\u00e9\\u41", 2)]),
    "long u escape": _case('[S]\nK="\\U0001F600"\n', [("\U0001f600", 2)], [("\\U0001F600", 2)]),
    "long u escape past the last character": _case('[S]\nK="\\U00110000x"\n', [("?x", 2)], [("\\U00110000x", 2)]),
    "text after the closing quote": _case('[S]\nK= "x" y\n', [("x", 2)], [('"x" y', 2)]),
    "a quote left open": _case('[S]\nK="a\nX=1\n', [("a", 2)], [('"a', 2)]),
    "a lone quote": _case('[S]\nK="\n', [("", 2)], [('"', 2)]),
    # prefixes
    "plus adds unless there": _case(
        "[S]\n+K=a\n+K=b\n+K=a\n+K=A\n", [("a", 2), ("b", 3), ("A", 5)], [("a", 2), ("b", 3), ("a", 4), ("A", 5)]
    ),
    "dot adds even a duplicate": _case("[S]\n.K=a\n.K=a\n", [("a", 2), ("a", 3)], []),
    "minus removes the last equal": _case("[S]\n.K=a\n.K=b\n.K=a\n-K=a\n", [("a", 2), ("b", 3)], []),
    "minus in any case for ubt": _case("[S]\n+K=a\n+K=b\n+K=a\n-K=A\n", [("a", 2), ("b", 3)], [("b", 3)]),
    "bang empties": _case("[S]\n+K=a\n!K=\n+K=b\n", [("b", 4)], [("b", 4)]),
    "bang without equals": _case("[S]\n+K=a\n!K\n+K=b\n", [("a", 2), ("b", 4)], [("b", 4)]),
    "star is a per-object struct key": _case("[S]\n*K=o\n+K=b\n", [("b", 3)], [("b", 3)]),
    "plus with blanks after it": _case("[S]\n+ K=w\n", [], [("w", 2)]),
    "tilde then plus": _case("[S]\n~+K=u\n", [("u", 2)], []),
    # plain key=value and the single read
    "plain replaces the last value": _case("[S]\n+K=a\n+K=b\nK=c\n", [("a", 2), ("c", 4)], [("c", 4)]),
    "plain after minus emptied": _case("[S]\n+K=a\n-K=a\nK=c\n", [("c", 4)], [("c", 4)]),
    # names
    "names ignore case": Case(b"[s]\nk=1\n[S]\n+K=2\n", "S", "k", [("1", 2), ("2", 4)], [("1", 2), ("2", 4)]),
    "the kelvin sign is a k": _case("[S]\n\u212a=1\n+k=2\n", [("1", 2), ("2", 3)], [("1", 2), ("2", 3)]),
    "the kelvin sign in a section": Case("[\u212a]\nX=1\n".encode(), "k", "X", [("1", 2)], [("1", 2)]),
    "a dotted key": Case(b"[S]\nK=1\nK.x=2\n", "S", "K.x", [("2", 3)], [("2", 3)]),
    "a dotted section": Case(b"[S.T]\nK=1\n[S]\nK=2\n", "S.T", "K", [("1", 2)], [("1", 2)]),
    "a key with a prefix character inside": Case(b"[S]\nK+=1\nK-x=2\n", "S", "K-x", [("2", 3)], [("2", 3)]),
    "another key with the key as prefix": _case("[S]\nKey=1\nK=2\nKe=3\n", [("2", 3)], [("2", 3)]),
    "every symbol a name may hold": Case(
        b"[S/T.x:#$%&'()*+,<>?@^`~!-]\nK:#$%&'()*+,<>?@^`~!-=1\n+K:#$%&'()*+,<>?@^`~!-=2\n",
        "S/T.x:#$%&'()*+,<>?@^`~!-",
        "K:#$%&'()*+,<>?@^`~!-",
        [("1", 2), ("2", 3)],
        [("1", 2), ("2", 3)],
    ),
    "no such section": Case(b"[S]\nK=1\n", "T", "K", [], []),
    "a key before any section": _case("K=1\n[S]\n", [], []),
}
"""One case or more for each row of the rules' table in ``unreal_ini``: the values both readers give (the Python
readers' answers, checked by hand against the table) and the core's."""


@pytest.mark.parametrize("case", list(RULES.values()), ids=list(RULES))
def test_each_rule_reads_the_same_in_the_core(case: Case) -> None:
    documents = _documents([case.data])
    for reader, want in ((IniReader.ENGINE, case.engine), (IniReader.UBT, case.ubt)):
        assert _python_values(documents, case.section, case.key, reader, everything=True) == [
            (value, 0, line) for value, line in want
        ]
    compare([case.data])


STRUCT_KEYS = {
    "an at line of the key": ("[S]\n@K=Name\n+K=(Name=a)\n+K=(Name=b)\nK=(Name=a,X=1)\n", True),
    "an at line after a bang": ("[S]\n+K=a\n!K=\n@K=Name\n+K=(Name=c)\n", True),
    "an at line in another section": ("[T]\n@K=Name\n[S]\n+K=a\n", False),
    "an at line of another key": ("[S]\n@X=Name\n+K=a\n", False),
    "an at line in quotes": ('[S]\nX="@K=Name"\n+K=a\n', False),
    "an at line after a bar": ("[S]\nX=1|@K=Name\n+K=a\n", True),
    "an at line for ubt only": ("[T]\n [S]\n@K=Name\n", False),
    "at lines changing the name": ("[S]\n@K=Name\n.K=(Name=a)\n.K=(Name=a)\n@K=X\nK=(X=1)\n-K=(Name=a)\n", True),
}
"""Whether the engine's reader sees an ``@`` struct key line of ``K`` in ``[S]`` (UnrealBuildTool never does)."""


@pytest.mark.parametrize(("text", "structs"), list(STRUCT_KEYS.values()), ids=list(STRUCT_KEYS))
def test_struct_keys_merge_the_same_in_the_core(text: str, structs: bool) -> None:
    assert native.key_line(text, "S", "K", False)[1] is structs
    assert native.key_line(text, "S", "K", True)[1] is False
    compare([text.encode()])
    with struct_work(1):
        compare([text.encode()])


@pytest.mark.parametrize(("bound", "want"), [(2, ("refused", 0, 5)), (3, [("(Name=a)", 0, 2), ("(Name=b,X=1)", 0, 6),
                                                                          ("(Name=c)", 0, 4)])])  # fmt: skip
def test_struct_keys_past_the_work_bound_are_refused_on_the_same_line_by_the_core(bound: int, want: Found) -> None:
    """An ``@`` line that makes the engine compare three values: read under a bound of three, refused under two."""
    text = "[S]\n.K=(Name=a)\n.K=(Name=b)\n.K=(Name=c)\n@K=Name\n+K=(Name=b,X=1)\n"
    with struct_work(bound):
        assert _core_values([text], "S", "K", IniReader.ENGINE, everything=True) == want
        compare([text.encode()])


STRUCT_LINES = ["@K=Name", "@K=X", "@k=name", "+K=(Name=a)", "+K=(Name=b)", ".K=(Name=a)", "K=(Name=a,X=1)",
                "-K=(Name=a)", "+K=(X=1)", "K=(Name=\"a\")", "!K=", "+K=a", ".K=a", "*K=Name", "[S]", "[T]",
                "K=(Name=c)|K=(Name=d)", "+K=(name=a)", "K=(Name=a)"]  # fmt: skip
STRUCTS = st.lists(st.sampled_from(STRUCT_LINES), max_size=24).map(lambda lines: "[S]\n" + "\n".join(lines))
"""Files of ``@`` struct keys and the lines they change."""


HIERARCHIES = {
    "a later file replaces": (["[S]\nK=1\n", "[S]\nK=2\n"], [("2", 1, 2)], [("2", 1, 2)]),
    "a later file adds": (["[S]\nK=1\n", "[S]\n+K=2\n"], [("1", 0, 2), ("2", 1, 2)], [("1", 0, 2), ("2", 1, 2)]),
    "a later file removes": (["[S]\n+K=1\n+K=2\n", "[S]\n-K=1\n"], [("2", 0, 3)], [("2", 0, 3)]),
    "a later file empties": (["[S]\nK=1\n", "[S]\n!K=\n", "[S]\n+K=3\n"], [("3", 2, 2)], [("3", 2, 2)]),
    "a file without the key": (["[S]\nK=1\n", "[T]\nK=2\n", ""], [("1", 0, 2)], [("1", 0, 2)]),
    "a section left open does not go on": (["[S]\n", "K=2\n"], [], []),
    "a continued line does not go on": (["[S]\nK=a\\", "b\n"], [("a\\", 0, 2)], [("a\\", 0, 2)]),
    "a brace does not go on": (
        ["[S]\nK={a", "}\n[S]\n+K=b\n"],
        [("a", 0, 2), ("b", 1, 3)],
        [("{a", 0, 2), ("b", 1, 3)],
    ),
}
"""Hierarchies of files: each file is read on its own and merged into what the ones before it left."""


@pytest.mark.parametrize(("texts", "engine", "ubt"), list(HIERARCHIES.values()), ids=list(HIERARCHIES))
def test_a_hierarchy_merges_the_same_in_the_core(
    texts: list[str], engine: list[tuple[str, int, int]], ubt: list[tuple[str, int, int]]
) -> None:
    data = [text.encode() for text in texts]
    documents = _documents(data)
    assert _python_values(documents, "S", "K", IniReader.ENGINE, everything=True) == engine
    assert _python_values(documents, "S", "K", IniReader.UBT, everything=True) == ubt
    compare(data)


HEADERS: dict[str, tuple[str, Headers, Headers]] = {
    "a later header": ("[S]\nK=1\n[T]\n", (0, 3, 1, (3, 8), False), (0, 3, 1, (3, 8), False)),
    "another section on the header's line": ("[S]|[T]\nX=1\n[U]", (0, 3, 1, (3, 12), True), None),
    "a header after blanks": ("[T]\n [S]\nX=1\n[U]\n", None, (4, 8, 2, (4, 13), False)),
    "a bracket line without its end": ("[S]\n[S\n[T]", (0, 3, 1, (3, 7), False), (0, 3, 1, (3, 7), False)),
    "a header with a comment": ("[S]\n[s]//c\nX=1|[T]\n[U]", (4, 10, 2, (3, 15), False), (0, 3, 1, (4, 19), False)),
    "a header in braces": ("[S]\nX={a\n[T]}\n[U]", (0, 3, 1, (4, 14), False), (0, 3, 1, (4, 14), False)),
    "a header after a continued line": ("[S]\nX=a\\\n[T]\n[U]", (0, 3, 1, (4, 13), False), (0, 3, 1, (4, 13), False)),
    "crlf": ("[S]\r\n[T]\r\n", (0, 3, 1, (2, 5), False), (0, 3, 1, (2, 5), False)),
    "cr and a bar": ("[S]\r[T]|[U]\r[V]", (0, 3, 1, (2, 4), False), (0, 3, 1, (2, 4), False)),
    # the Python scan passes over the repeated stretch's middle headers and finds the one at 30
    "a stretch of a header and a brace repeated": ("\n".join(["[S]|[T]", "K={a"] * 4), (0, 3, 1, (3, 17), True), None),
}
"""What ``section_headers`` gives of ``[S]`` for each reader (engine, UnrealBuildTool), read whole."""


@pytest.mark.parametrize(("text", "engine", "ubt"), list(HEADERS.values()), ids=list(HEADERS))
def test_the_core_finds_the_section_headers_of_the_full_reading(text: str, engine: Headers, ubt: Headers) -> None:
    assert [_python_headers(text, "S", reader) for reader in READERS] == [engine, ubt]
    assert [native.section_headers(text, "S", reader is IniReader.UBT) for reader in READERS] == [engine, ubt]


DIFFERENCES: dict[str, tuple[list[str], str, str]] = {
    # fast_name takes names of any length; the core refused 1024 characters and more (ValueError, a traceback)
    "a section name of 1024 characters": (["[" + "S" * 1024 + "]\nK=1\n"], "S" * 1024, "K"),
    "a key name of 1024 characters": (["[S]\n" + "K" * 1024 + "=1\n"], "S", "K" * 1024),
}
"""Hierarchies where the core once differed from the Python readers (found by hand and by long hypothesis runs)."""


@pytest.mark.parametrize(("texts", "section", "key"), list(DIFFERENCES.values()), ids=list(DIFFERENCES))
def test_a_difference_once_found_is_gone(texts: list[str], section: str, key: str) -> None:
    documents = _documents([text.encode() for text in texts])
    assert_same_values(documents, section, key)
    for document in documents:
        assert_same_key_line(document, section, key)


def test_only_names_the_core_takes_are_asked_of_it() -> None:
    asked = _asked(_documents([b"[S]\n\xe2\x84\xaa=1\n K =2\n[T T]\nX=1\n"]))
    assert all(ini_scan.fast_name(section, key) for section, key in asked)
    assert {("S", "K"), ("s", "k"), ("S", "X")} <= set(asked)
    assert not {section for section, _key in asked} & {"T T", "S ", "[S]"}


# Random and structured files ------------------------------------------------------------------------------------


ESCAPES = ["\\x", "\\X", "\\u", "\\U", "\\0", "\\1", "\\7", "\\8", "\\", '\\"', "\\\\", "\\n", "\\t",
           "\\r", "\\a", '"', "0", "4", "1", "F", "f", "D8", "DC00", "00", "0011", "110000", "FFFFFFFF", "7FFFFFFF",
           "g", " ", "|", "//", "{", "}", "\u00e9", "\u212a", "\U0001f600", ";", "\\U0001F600", "\\u4e2d", "\\377",
           "\\400", "\\x4E2D"]  # fmt: skip
QUOTED_LINE = st.builds(
    lambda prefix, key, space, body, close, tail: f'{prefix}{key}={space}"{"".join(body)}{close}{tail}',
    st.sampled_from(["", "", "+", ".", "-", "!", "@", "*", "~"]),
    st.sampled_from(["K", "k", "\u212a", "X", "Key"]),
    st.sampled_from(["", " ", "\t"]),
    st.lists(st.sampled_from(ESCAPES), max_size=8),
    st.sampled_from(['"', '"', ""]),
    st.sampled_from(["", " x", "//c", "|K=t", " \\"]),
)
QUOTED = st.builds(
    lambda lines, brk: "[S]" + brk + brk.join(lines),
    st.lists(st.one_of(QUOTED_LINE, st.sampled_from(WHOLE_LINES)), max_size=12),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
"""Files of quoted values with every escape (hex and octal of many digits, ``\\u``, ``\\U`` past the last
character, surrogates) and quotes left open."""
CONTINUED_LINES = ["K=a\\", "K=b", "+K=c\\", ".K=d \\ ", "\\", "\\ ", " \\\t", "", "  ", "{", "}", "K={a", "[S]\\",
                   "[S", "[S]", "[T]", "X=1", ";c\\", "//c\\", 'K="a\\', 'K="a\\"\\', "K=a\\|K=b", "!K\\", "-K=b",
                   "K=a \\\\", "K=a//\\", " [S]\\", "[S]\\ "]  # fmt: skip
CONTINUED = st.builds(
    lambda lines, brk, end: brk.join(lines) + end,
    st.lists(st.sampled_from(CONTINUED_LINES), max_size=16),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.sampled_from(["", "\n", "\\"]),
)
"""Files of lines ending in backslashes (the engine joins the next line with a space when the backslash is last,
UnrealBuildTool appends it when the backslash is the last character but blanks), blank lines between."""
NAMED = st.lists(
    st.sampled_from(["[S]", "[\u212a]", "[S\u00e9]", "[s]", "[\u0130]", "\u212a=1", "\u212aey=2", "K\u0131=3",
                     "Ke\u00ff=4", "K=\u00e9", "\u00e9=5", "Stra\u00dfe=6", "K\u212a=7", "kK=8", "[\u212a\u212a]",
                     "[S\u212a]", "[\u00a0S]", "\u00a0K=9", "K\u00a0=10", "\u2028K=11", "K=\u2029", "\x85K=12"]),
    max_size=16,
).map("\n".join)  # fmt: skip
"""Files whose section and key names are not ASCII, some of them equal to an ASCII name in any case."""


@settings(max_examples=40)
@given(TEXT, BREAKS)
def test_a_random_file_reads_the_same_in_the_core(text: str, brk: str) -> None:
    compare([_with_breaks(text, brk).encode()])


@settings(max_examples=40)
@given(PLAIN, CODECS)
def test_a_random_file_in_each_encoding_reads_the_same_in_the_core(text: str, codec: str) -> None:
    compare([(("\ufeff" if codec.startswith("utf-16") else "") + text).encode(codec)])


@settings(max_examples=40)
@given(STRUCTURED)
def test_a_file_of_repeated_lines_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(PERIODIC)
def test_a_file_of_a_stretch_repeated_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(PERIODIC_MOVES)
def test_a_file_of_moved_values_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(RECURRING)
def test_a_file_of_a_section_coming_again_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(st.lists(st.one_of(TEXT, STRUCTURED, PERIODIC_MOVES), min_size=2, max_size=3))
def test_a_hierarchy_reads_the_same_in_the_core(texts: list[str]) -> None:
    compare([text.encode() for text in texts])


@pytest.mark.parametrize("path", sorted(DATA.rglob("*.ini")), ids=lambda path: str(path.relative_to(DATA)))
def test_a_real_file_reads_the_same_in_the_core(path: Path) -> None:
    compare([path.read_bytes()])


@settings(max_examples=40)
@given(QUOTED)
def test_a_file_of_quoted_values_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(CONTINUED)
def test_a_file_of_continued_lines_reads_the_same_in_the_core(text: str) -> None:
    compare([text.encode()])


@settings(max_examples=40)
@given(NAMED, CODECS)
def test_a_file_of_names_beyond_ascii_reads_the_same_in_the_core(text: str, codec: str) -> None:
    compare([(("\ufeff" if codec.startswith("utf-16") else "") + text).encode(codec)])


WRITTEN = st.lists(st.tuples(*(st.sampled_from(choices) for choices in WRITES)), min_size=1, max_size=3)


@settings(max_examples=40)
@given(
    st.one_of(STRUCTURED, PERIODIC, RECURRING, TEXT, CONTINUED, QUOTED), st.sampled_from(["utf-8", "utf-16"]), WRITTEN
)
def test_a_write_gives_the_same_bytes_with_the_core(text: str, codec: str, writes: list[tuple[str, str, str]]) -> None:
    compare_writes(text.encode(codec), writes)


@pytest.mark.parametrize("text", SPANNING)
def test_a_key_added_after_a_line_that_runs_on_is_placed_the_same_with_the_core(text: str) -> None:
    compare_writes(text.encode(), [("S", "K", "2"), ("S", "Z", "v"), ("T", "K", "3"), ("S", "X", "7")])


@pytest.mark.parametrize("path", sorted(DATA.rglob("*.ini")), ids=lambda path: str(path.relative_to(DATA)))
def test_writing_to_a_real_file_gives_the_same_bytes_with_the_core(path: Path) -> None:
    document = parse_ini(path.read_bytes(), "t.ini")
    asked = [(entry.section, entry.key) for entry in document.entries(IniReader.UBT)][::7][:6]
    compare_writes(path.read_bytes(), [(section, key, "7") for section, key in asked] + [("New", "K", "1")])


@settings(max_examples=40)
@given(st.lists(STRUCTS, min_size=1, max_size=2), st.sampled_from([0, 1, 2, 5, unreal_ini._STRUCT_WORK]))
def test_struct_keys_merge_and_are_refused_the_same_in_the_core(texts: list[str], bound: int) -> None:
    with struct_work(bound):
        compare([text.encode() for text in texts])
