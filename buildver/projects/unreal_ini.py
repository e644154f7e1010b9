"""Unreal's config files (``.ini``), read the way Unreal reads them and edited in place, every other byte kept.

Unreal has two readers of a project's config, and they disagree on details, so a document is read by both:

- the engine's (C++ ``FConfigFile``), which the editor and the game use; ``ProjectVersion`` is read by it;
- UnrealBuildTool's (C# ``ConfigFile`` and ``ConfigHierarchy``), which packaging uses; Android's ``StoreVersion`` and
  iOS's ``VersionInfo`` are read by it.

Sources (repository@commit, file, function), one letter each in the table below:

- A: elmachotroso/unreal_devtoolbox@9d0f90ca (5.1.1), ``Runtime/Core/Private/Misc/ConfigCacheIni.cpp``,
  ``FConfigFile::CombineFromBuffer`` (a file combined into the hierarchy: prefixes are commands) and
  ``FConfigSection::HandleAddCommand`` / ``HandleArrayOfKeyedStructsCommand``; the same code at @1c24a3df (5.0.3);
  the same line rules in an unnamed 4.x copy (``find_string``, ``Cmd=='+' || ... || Cmd == '*'``).
- B: unicorn2022/UE5.8.0@5d9a05c1 (5.8.0), ``ConfigCacheIni.cpp``, ``FillFileFromBuffer``,
  ``FConfigFile::ProcessCommand`` and ``ShouldExportQuotedString`` (what Unreal quotes when it writes a value).
- C: elmachotroso/unreal_devtoolbox@9d0f90ca, ``Runtime/Core/Private/Misc/Parse.cpp``, ``ParseLineExtended``
  (``bExact`` false) and ``ParseQuotedString``; D: unicorn2022/UE5.8.0@5d9a05c1, ``Parse.cpp``,
  ``ParseLineExtended`` with the flags ``FillFileFromBuffer`` passes.
- E: elmachotroso/unreal_devtoolbox@9d0f90ca, ``Runtime/Core/Private/Misc/FileHelper.cpp``,
  ``FFileHelper::BufferToString`` (what ``LoadFileToString`` decodes).
- F: elmachotroso/unreal_devtoolbox@9d0f90ca, ``Programs/UnrealBuildTool/System/ConfigFile.cs``,
  ``ReadIntoSections`` and ``TryAddConfigLine``; G: the same commit, ``System/ConfigHierarchy.cs``,
  ``ConfigHierarchySection`` (the merge) and ``TryGetValue``.
- H: elmachotroso/unreal_devtoolbox@9d0f90ca, ``Runtime/Core/Public/Containers/Set.h`` (``LinkElement`` puts a new
  element first in its hash chain, ``Rehash`` relinks in array order) and ``Map.h`` (``MultiFind`` reverses that
  chain "to maintain order", ``RemoveSingle`` walks it): ``FConfigSection::Find`` gives the *last* pair of a key.

=================================  ==========================================================  ======================
rule                               engine (C++)                                                UnrealBuildTool (C#)
=================================  ==========================================================  ======================
encoding                           UTF-16 LE/BE with a BOM (even size only), else UTF-8, a      .NET ``StreamReader``:
                                   UTF-8 BOM skipped (E); buildver refuses undecodable bytes    the same BOMs (F)
                                   and NUL, where Unreal would stop or substitute
lines                              ends at CR or LF; blank lines skipped (A)                    ``ReadLine``: CR, LF,
                                                                                                CRLF (F)
continuation                       ``\\`` before the line break joins with a space; a ``{``     a line ending in ``\\``
                                   not in quotes joins lines until ``}``; braces dropped (C)    takes the next line,
                                                                                                backslash kept (F)
``|`` outside quotes               starts a new line (C, 5.1; no longer in 5.8, D)              nothing special
comments                           ``;`` as the line's first character (no leading space);     ``;`` or ``//`` as the
                                   ``//`` outside quotes ends the line anywhere (A, C)          first non-blank (F)
section header                     ``[`` first (no leading space), ``]`` last after trimming    ``[`` first non-blank,
                                   (A); same name again: the same section, merged (A)          ``]`` last; merged; a
                                                                                                ``[`` line without
                                                                                                ``]`` drops the lines
                                                                                                after it (F)
key=value                          first ``=``; key and value trimmed of whitespace; ``~``      first ``=``; space and
                                   dropped before the key (A)                                   tab trimmed (F)
quoted value                       ``"..."`` with escapes (``\\"`` ``\\\\`` ``\\n`` ``\\t``     outer quotes dropped,
                                   octal, ``\\x``, ``\\u``, ``\\U``); text after the closing    nothing unescaped (F)
                                   quote dropped (C)
prefix ``+``                       add unless the same value is there (case-sensitive) (A)     add, even a duplicate
prefix ``.``                       add, even a duplicate (A)                                    part of the key (F)
prefix ``-``                       remove the last equal value, case-sensitive (A, H)          remove every equal
                                                                                                value, any case (G)
prefix ``!``                       remove every value of the key (A)                            the same (G)
prefix ``@``                       ``@Key=Name``: later ``Key`` lines whose ``Name=`` matches   part of the key (F)
                                   an entry replace it (A); ``*``: the same for per-object
                                   sections, not modelled here
plain ``Key=Value``                replaces the key's last value, else adds one (A, B, H)      replaces all values (G)
single value read                  the last value (H)                                          the first value (G)
names                              section and key names ignore case (FString, FName)           ignore case (F, G)
=================================  ==========================================================  ======================

5.8 (B, D) also knows ``^`` (empty the key) and no longer splits at ``|``; this module reads as 5.1 does, and the
writer refuses what would read differently. Not modelled: ``ConfigRedirects.ini`` section and key renames, ``%GAME%``
style expansions, the engine's own ``Base*.ini`` files (callers say what a missing key defaults to).

Editing in place is ``buildver.projects.ini_edit``'s.
"""

from __future__ import annotations

import enum
import gc
import heapq
import os
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from types import ModuleType

from buildver.errors import BuildverError
from buildver.projects.ini_scan import (
    CPP_SPACE,
    Copies,
    Lines,
    Run,
    engine_headers,
    engine_key_runs,
    engine_lines,
    engine_parse,
    fast_name,
    may_hold,
    ubt_headers,
    ubt_key_runs,
    ubt_lines,
    ubt_parse,
)

__all__ = [
    "CPP_SPACE",
    "IniAction",
    "IniDocument",
    "IniEncoding",
    "IniEntry",
    "IniError",
    "IniReader",
    "IniValue",
    "effective_value",
    "lookup",
    "parse_ini",
    "physical_lines",
]


class IniError(BuildverError):
    """An ini file that cannot be read, or a value that cannot be written safely: ``<file>: line N: <what>``."""


class IniReader(enum.Enum):
    """Which of Unreal's two config readers a value is read with."""

    ENGINE = "engine"
    """The engine's ``FConfigFile``: the editor and the game (``ProjectVersion``)."""
    UBT = "ubt"
    """UnrealBuildTool's ``ConfigHierarchy``: packaging (Android's and iOS's versions)."""


class IniEncoding(enum.Enum):
    """How the file's text is encoded, as ``FFileHelper::BufferToString`` tells them apart."""

    UTF8 = "UTF-8"
    UTF8_BOM = "UTF-8 with a byte-order mark"
    UTF16_LE = "UTF-16 little-endian with a byte-order mark"
    UTF16_BE = "UTF-16 big-endian with a byte-order mark"

    @property
    def codec(self) -> str:
        """The Python codec of the text after the byte-order mark."""
        return _CODECS[self][0]

    @property
    def bom(self) -> bytes:
        """The byte-order mark the file starts with (empty for plain UTF-8)."""
        return _CODECS[self][1]


_CODECS = {
    IniEncoding.UTF8: ("utf-8", b""),
    IniEncoding.UTF8_BOM: ("utf-8", b"\xef\xbb\xbf"),
    IniEncoding.UTF16_LE: ("utf-16-le", b"\xff\xfe"),
    IniEncoding.UTF16_BE: ("utf-16-be", b"\xfe\xff"),
}


class IniAction(enum.Enum):
    """A line's prefix as written; what it does depends on the reader (UnrealBuildTool's ``+`` adds duplicates)."""

    SET = ""
    ADD_UNIQUE = "+"
    ADD = "."
    REMOVE = "-"
    CLEAR = "!"
    STRUCT_KEY = "@"
    PER_OBJECT_STRUCT_KEY = "*"


@dataclass(frozen=True, slots=True)
class IniEntry:
    """One key line as one reader reads it: its section, prefix, key, value and physical lines."""

    section: str
    action: IniAction
    key: str
    value: str
    line: int
    """The first physical line (1-based)."""
    last_line: int
    """The last physical line: more than ``line`` when the line was continued."""


@dataclass(frozen=True, slots=True)
class IniValue:
    """A value a reader ends up with, and the file and line that set it."""

    value: str
    path: str
    line: int


SCAN_FROM = 64 * 1024
"""From this many characters on, a key's lines are scanned for (``ini_scan``); a smaller file is read line by line
once per reader, which costs less than compiling the scanning patterns of each key (tens of milliseconds)."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_BREAK = {"\r\n": re.compile("\r\n"), "\r": re.compile("\r(?!\n)"), "\n": re.compile("(?<!\r)\n")}
_ACTIONS = {action.value: action for action in IniAction}


@dataclass(frozen=True, slots=True)
class _Header:
    name: str
    line: int


@dataclass(frozen=True, slots=True)
class _Reading:
    entries: tuple[IniEntry, ...]
    headers: tuple[_Header, ...]


@dataclass(frozen=True, slots=True)
class IniDocument:
    """One config file: its bytes, its text, and what each of Unreal's readers reads from it. No I/O.

    A lookup reads only what it needs: the key's own lines are found by patterns that pass over the others in bulk
    (``buildver.projects.ini_scan``), and only the asked key's lines are merged, so a file is read in time linear
    in its size and in memory that grows with the key's distinct values, whatever its shape. The full readings
    (``entries``, ``line_starts``) are made only when asked for."""

    path: str
    data: bytes
    encoding: IniEncoding
    text: str
    _readings: dict[IniReader, _Reading] = field(default_factory=dict, compare=False, repr=False)
    """Each reader's full reading, made the first time it is asked for."""
    _cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @property
    def line_starts(self) -> tuple[int, ...]:
        """The text offset where each physical line starts (made on first use)."""
        starts = self._cache.get("line_starts")
        if starts is None:
            text = self.text
            found = [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
            if len(found) > 1 and found[-1] == len(text):
                found.pop()  # a final line break does not start a line
            starts = self._cache["line_starts"] = tuple(found)
        return starts  # type: ignore[return-value]  # only this property stores it

    @property
    def engine(self) -> _Reading:
        """What the engine's reader reads."""
        return self._reading(IniReader.ENGINE)

    @property
    def ubt(self) -> _Reading:
        """What UnrealBuildTool's reader reads."""
        return self._reading(IniReader.UBT)

    @property
    def newline(self) -> str:
        """The file's most common line break ("\\n" when it has none)."""
        text = self.text
        crlf = text.count("\r\n")
        counts = {"\r\n": crlf, "\r": text.count("\r") - crlf, "\n": text.count("\n") - crlf}
        best = max(counts.values())
        if not best:
            return "\n"
        tied = [brk for brk, count in counts.items() if count == best]
        # Counter.most_common over the breaks in file order: among equal counts, the one seen first wins
        return min(tied, key=lambda brk: _LONE_BREAK[brk].search(text).start())  # type: ignore[union-attr]

    @property
    def line_count(self) -> int:
        """The number of physical lines (a final line break does not start one)."""
        text = self.text
        if not text:
            return 1
        breaks = line_number(text, len(text)) - 1
        return breaks + (0 if text[-1] in "\r\n" else 1)

    def entries(self, reader: IniReader = IniReader.ENGINE) -> tuple[IniEntry, ...]:
        """Every key line the reader takes, in file order."""
        return self._reading(reader).entries

    def sections(self, reader: IniReader = IniReader.ENGINE) -> tuple[str, ...]:
        """The section names, in order of first appearance (a repeated section is one section)."""
        seen: dict[str, str] = {}
        for name, _start in _headers(self.text, reader):
            seen.setdefault(name.lower(), name)
        return tuple(seen.values())

    def get(self, section: str, key: str, *, reader: IniReader = IniReader.ENGINE) -> str | None:
        """The value the reader ends up with for a single-valued key, or None when the file leaves none."""
        found = effective_value((self,), section, key, reader=reader)
        return None if found is None else found.value

    def get_all(self, section: str, key: str, *, reader: IniReader = IniReader.ENGINE) -> tuple[str, ...]:
        """The key's values as an array, in the reader's order."""
        return tuple(found.value for found in lookup((self,), section, key, reader=reader))

    def value(self, section: str, key: str, *, reader: IniReader = IniReader.ENGINE) -> IniValue | None:
        """Like :meth:`get`, with the line that set the value."""
        return effective_value((self,), section, key, reader=reader)

    def line_of(self, offset: int) -> int:
        """The 1-based physical line of a text offset."""
        return line_number(self.text, offset)

    def physical_line(self, number: int) -> str:
        """The 1-based physical line ``number`` without its line break."""
        starts = self.line_starts
        end = starts[number] if number < len(starts) else len(self.text)
        return self.text[starts[number - 1] : end].rstrip("\r\n")

    def key_runs(self, reader: IniReader, section: str, key: str) -> list[Run]:
        """The key's lines in the section as the reader reads them, as runs (``buildver.projects.ini_scan``):
        scanned for in a large file, taken from the full reading of a small one (or of an unusual name)."""
        if len(self.text) >= SCAN_FROM and fast_name(section, key):
            if not (may_hold(self.text, key) and may_hold(self.text, f"[{section}]")):
                return []
            memo = f"runs {reader.value} {section.lower()} {key.lower()}"
            runs = self._cache.get(memo)
            if runs is None:
                scan = engine_key_runs if reader is IniReader.ENGINE else ubt_key_runs
                runs = self._cache[memo] = scan(self.text, section, key)  # the editor asks twice, show thrice
            return runs  # type: ignore[return-value]  # only this method stores it
        section_name, key_name = section.lower(), key.lower()
        starts = self.line_starts
        return [
            Copies(entry.action.value, entry.value, starts[entry.line - 1], 0, 1, 0)
            for entry in self._reading(reader).entries
            if entry.key.lower() == key_name and entry.section.lower() == section_name
        ]  # the lines of a name the patterns do not take, from the full reading: one line each, at its line's start

    def _reading(self, reader: IniReader) -> _Reading:
        reading = self._readings.get(reader)
        if reading is None:
            paused = gc.isenabled()
            gc.disable()  # millions of small records: the collector's passes would cost more than the reading
            try:
                reading = _read_engine(self.text) if reader is IniReader.ENGINE else _read_ubt(self.text)
            finally:
                if paused:
                    gc.enable()
            self._readings[reader] = reading
        return reading


def parse_ini(data: bytes, path: str) -> IniDocument:
    """Read a config file's bytes; ``path`` names it in messages. Raises IniError for bytes Unreal would mangle."""
    encoding, text = _decode(data, path)
    return IniDocument(path, data, encoding, text)


def lookup(
    documents: Iterable[IniDocument], section: str, key: str, *, reader: IniReader = IniReader.ENGINE
) -> tuple[IniValue, ...]:
    """The key's values after the documents are combined in order (a hierarchy, as each reader merges it)."""
    return tuple(_values(tuple(documents), section, key, reader, everything=True))


def effective_value(
    documents: Iterable[IniDocument], section: str, key: str, *, reader: IniReader = IniReader.ENGINE
) -> IniValue | None:
    """The single value the reader gives: the engine's ``Find`` takes the last value, UnrealBuildTool the first."""
    values = _values(tuple(documents), section, key, reader, everything=False)
    return values[0] if values else None


def line_number(text: str, offset: int, start: int = 0, line: int = 1) -> int:
    """The 1-based physical line of ``offset``, counting from ``start`` (a line's start) on ``line``: line breaks
    are CR, LF and CRLF, and an offset on the LF of a CRLF is still on the CR's line."""
    line += text.count("\n", start, offset) + text.count("\r", start, offset)
    return line - text.count("\r\n", start, offset + 1)


# Reading ------------------------------------------------------------------------------------------------------------


def _decode(data: bytes, path: str) -> tuple[IniEncoding, str]:
    size = len(data)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        if size % 2:
            raise IniError(
                f"{path}: line 1: a UTF-16 byte-order mark but an odd number of bytes ({size}): "
                "Unreal would read it as UTF-8"
            )
        encoding = IniEncoding.UTF16_LE if data[0] == 0xFF else IniEncoding.UTF16_BE
    elif data.startswith(b"\xef\xbb\xbf"):
        encoding = IniEncoding.UTF8_BOM
    else:
        encoding = IniEncoding.UTF8
    body = data[len(encoding.bom) :]
    try:
        text = body.decode(encoding.codec)
    except UnicodeDecodeError as exc:
        before = body[: exc.start].decode(encoding.codec, "replace")
        line = line_number(before, len(before))
        raise IniError(f"{path}: line {line}: bytes that are not {encoding.codec.upper()} (byte {exc.start})") from None
    nul = text.find("\0")
    if nul >= 0:
        raise IniError(f"{path}: line {line_number(text, nul)}: a NUL character: Unreal stops reading the file there")
    return encoding, text


def physical_lines(text: str, line_starts: Sequence[int]) -> list[str]:
    """Each physical line without its line break, as ``ReadLine`` returns them."""
    ends = [*line_starts[1:], len(text)]
    return [text[start:end].rstrip("\r\n") if end > start else "" for start, end in zip(line_starts, ends, strict=True)]


class _Lines:
    """Physical line numbers of rising offsets, each counted from the one before."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def of(self, offset: int) -> int:
        if offset < self.offset:  # not rising: count from the start again
            self.offset, self.line = 0, 1
        self.line = line_number(self.text, offset, self.offset, self.line)
        self.offset = offset
        return self.line


def _read_engine(text: str) -> _Reading:
    """``FConfigFile::CombineFromBuffer`` (A) over ``ParseLineExtended`` (C), every line."""
    entries: list[IniEntry] = []
    headers: list[_Header] = []
    section: str | None = None
    lines = _Lines(text)
    for logical, start, end in engine_lines(text):
        parsed = engine_parse(logical)
        if parsed is None:
            continue
        first = lines.of(start)
        if parsed.header is not None:
            section = parsed.header
            headers.append(_Header(section, first))
        elif section is not None:
            last = line_number(text, max(start, end - 1), start, first)
            entries.append(IniEntry(section, _ACTIONS[parsed.action], parsed.key, parsed.value, first, last))
    return _Reading(tuple(entries), tuple(headers))


def _read_ubt(text: str) -> _Reading:
    """``ConfigFile.ReadIntoSections`` and ``TryAddConfigLine`` (F), every line."""
    entries: list[IniEntry] = []
    headers: list[_Header] = []
    section: str | None = None
    lines = _Lines(text)
    for line, start, end in ubt_lines(text):
        parsed = ubt_parse(line)
        if parsed is None:
            continue
        first = lines.of(start)
        if parsed.resets:
            section = parsed.header
            if section is not None:
                headers.append(_Header(section, first))
        elif section is not None:
            last = line_number(text, max(start, end - 1), start, first)
            entries.append(IniEntry(section, _ACTIONS[parsed.action], parsed.key, parsed.value, first, last))
    return _Reading(tuple(entries), tuple(headers))


def _headers(text: str, reader: IniReader) -> Iterator[tuple[str, int]]:
    """Each run of equal section headers the reader takes: its name and where its first line starts."""
    for header in (engine_headers if reader is IniReader.ENGINE else ubt_headers)(text):
        yield header.name, header.first


# Merging ------------------------------------------------------------------------------------------------------------
#
# A key's lines come from the scanner as runs (``Copies``: identical lines, ``Lines``: plain lines read in chunks);
# each line is named by a reference, its run's index in the hierarchy's list shifted left 40 bits plus its place in
# the run, so that the merges keep numbers in arrays, not a record a line, and find lines and line numbers only for
# the values they return.

_SHIFT = 40
_Item = tuple[int, Run]
"""A run, with the index of its document in the hierarchy."""


_CORE: list[ModuleType | None] = []


def ini_core() -> ModuleType | None:
    """The compiled core (``buildver.projects._ini_native``) when this install has one and ``BUILDVER_PURE_PYTHON``
    does not turn it off; else None, and the Python readers read every file, with the same results."""
    if not _CORE:
        core: ModuleType | None = None
        if os.environ.get("BUILDVER_PURE_PYTHON", "") in ("", "0"):
            try:
                from buildver.projects import _ini_native as core
            except ImportError:
                core = None
        _CORE.append(core)
    return _CORE[0]


def _values(
    documents: tuple[IniDocument, ...], section: str, key: str, reader: IniReader, *, everything: bool
) -> list[IniValue]:
    """The merged values (all of them, or only the one a single read gives), each with its file and line: from the
    compiled core when there is one and it takes the name, else from :func:`_python_values`."""
    core = ini_core()
    if core is None or not fast_name(section, key):
        return _python_values(documents, section, key, reader, everything=everything)
    found = core.key_values(
        [document.text for document in documents], section, key, reader is IniReader.UBT, everything, _STRUCT_WORK
    )
    if isinstance(found, tuple):  # the line of an '@' struct key past the work buildver does
        document, line = found
        raise _too_much_work(documents[document].path, line, section, key)
    return [IniValue(value, documents[document].path, line) for value, document, line in found]


def _python_values(
    documents: tuple[IniDocument, ...], section: str, key: str, reader: IniReader, *, everything: bool
) -> list[IniValue]:
    """The merged values as the Python readers find them (the scanner's runs, merged here)."""
    paused = gc.isenabled()
    gc.disable()  # a key of a million distinct values makes a million small objects: the passes would cost more
    try:
        items: list[_Item] = [
            (index, run) for index, document in enumerate(documents) for run in document.key_runs(reader, section, key)
        ]
        if not items:
            return []
        texts = [document.text for document in documents]
        try:
            if reader is IniReader.ENGINE:
                merged = _merge_engine(items, texts, everything=everything)
            else:
                merged = _merge_ubt(items, texts, everything=everything)
        except _TooMuchWork as exc:
            where = _located([("", exc.ref)], items, documents)[0]
            raise _too_much_work(where.path, where.line, section, key) from None
        return _located(merged, items, documents)
    finally:
        if paused:
            gc.enable()


def _too_much_work(path: str, line: int, section: str, key: str) -> IniError:
    return IniError(
        f"{path}: line {line}: the '@' struct keys of {key} in [{section}] are compared with more than "
        f"{_STRUCT_WORK} values: Unreal compares every value at each line; buildver does not read such a file"
    )


def _lines_of(run: Lines, text: str, reader: IniReader) -> Iterator[tuple[str, str]]:
    """A chunk's lines of the key: each one's prefix and value."""
    if run.added:
        for value in run.pattern.findall(text, run.start, run.end):
            yield "+", value
    elif reader is IniReader.ENGINE:
        for action, key, value in run.pattern.findall(text, run.start, run.end):
            if key:
                yield action, value
    else:
        for action, key, value, _bang, cleared in run.pattern.findall(text, run.start, run.end):
            if key:
                yield action, (value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value)
            elif cleared:
                yield "!", ""


def _located(merged: list[tuple[str, int]], items: list[_Item], documents: tuple[IniDocument, ...]) -> list[IniValue]:
    """Each merged value with its file and line (offsets found per run, line numbers counted per file)."""
    offsets: dict[int, int] = {}
    wanted: dict[int, list[int]] = {}
    for _value, ref in merged:
        wanted.setdefault(ref >> _SHIFT, []).append(ref & ((1 << _SHIFT) - 1))
    for index, places in wanted.items():
        document, run = items[index]
        text = documents[document].text
        if isinstance(run, Copies):
            for place in places:
                offsets[(index << _SHIFT) | place] = run.start + place * run.unit
        else:
            needed, last = set(places), max(places)
            place = -1
            for found in run.pattern.finditer(text, run.start, run.end):
                if not (run.added or found.group(2) or (run.pattern.groups > 3 and found.group(5))):
                    continue  # another line of the chunk
                place += 1
                if place in needed:
                    offsets[(index << _SHIFT) | place] = found.start()
                    if place == last:
                        break
    counters = [_Lines(document.text) for document in documents]
    located: dict[int, int] = {}
    for ref in sorted(offsets, key=lambda ref: (items[ref >> _SHIFT][0], offsets[ref])):
        located[ref] = counters[items[ref >> _SHIFT][0]].of(offsets[ref])
    return [IniValue(value, documents[items[ref >> _SHIFT][0]].path, located[ref]) for value, ref in merged]


def _run_lines(
    items: list[_Item], texts: list[str], reader: IniReader, start: int = 0, stop: int | None = None
) -> Iterator[tuple[str, str, int, int]]:
    """Each run from ``start`` as (prefix, value, reference of its first line, count): a ``Copies`` run at once,
    a chunk line by line."""
    for index in range(start, len(items) if stop is None else stop):
        document, run = items[index]
        base = index << _SHIFT
        if isinstance(run, Copies):
            yield run.action, run.value, base, run.times
        else:
            for place, (action, value) in enumerate(_lines_of(run, texts[document], reader)):
                yield action, value, base | place, 1


def _first_action(item: _Item, texts: list[str]) -> str:
    """The prefix of a run's first line (a chunk starts with a line of the key)."""
    document, run = item
    if isinstance(run, Copies):
        return run.action
    if run.added:
        return "+"
    first = run.pattern.match(texts[document], run.start, run.end)
    assert first is not None
    return "!" if run.pattern.groups > 3 and first.group(5) else first.group(1)


def _merge_engine(items: list[_Item], texts: list[str], *, everything: bool) -> list[tuple[str, int]]:
    """The commands of ``CombineFromBuffer`` (A) on one key's lines: each value and the reference of its line.

    Lines before the last ``!`` change nothing (it empties the key), unless an ``@`` struct key comes before it."""
    if any(run.action == "@" if isinstance(run, Copies) else run.struct for _document, run in items):
        return _StructMerge(everything).run(_run_lines(items, texts, IniReader.ENGINE))
    start = 0
    for index in range(len(items) - 1, -1, -1):
        if _first_action(items[index], texts) == "!":
            start = index
            break
    removable = _removed_values(items, texts, start)
    if not (everything or removable) and all(
        run.added if isinstance(run, Lines) else run.action == "+" for _document, run in items[start:]
    ):
        last = _last_added(items, texts, start)
        if last is not None:
            return [last]
    merge = _EngineMerge(keep=everything or bool(removable), removable=removable)
    for index in range(start, len(items)):
        document, run = items[index]
        base = index << _SHIFT
        if isinstance(run, Copies):
            merge.line(run.action, run.value, base, run.times)
        elif merge.keep:
            for place, (action, value) in enumerate(_lines_of(run, texts[document], IniReader.ENGINE)):
                merge.line(action, value, base | place, 1)
        elif run.added:
            merge.tail_added(run.pattern.findall(texts[document], run.start, run.end), base)
        else:
            merge.tail_lines(run.pattern.findall(texts[document], run.start, run.end), base)
    return merge.result(everything)


_ADDED_TRIES = 8
"""How many of the last ``+`` values :func:`_last_added` looks for earlier before it merges every line instead."""


def _last_added(items: list[_Item], texts: list[str], start: int) -> tuple[str, int] | None:
    """The engine's last value when every line from ``start`` is a ``+`` line (an array written out): the last
    value that was not there yet, found from the end by looking for each candidate in the lines before it (one
    pattern pass), without a dictionary of every value. None after ``_ADDED_TRIES`` values that were there."""
    tries = 0
    for index in range(len(items) - 1, start - 1, -1):
        document, run = items[index]
        if isinstance(run, Copies):
            candidates: Iterable[tuple[str, int]] = [(run.value, 0)]
        else:
            values = run.pattern.findall(texts[document], run.start, run.end)
            candidates = ((value, values.index(value)) for value in reversed(dict.fromkeys(values)))
        for value, place in candidates:
            if not _added_before(value, items, texts, start, index):
                return value, (index << _SHIFT) | place
            tries += 1
            if tries >= _ADDED_TRIES:
                return None
    return None  # pragma: no cover - the first line of the first run is never there before


def _added_before(value: str, items: list[_Item], texts: list[str], start: int, stop: int) -> bool:
    """Whether a ``+`` line of ``items[start:stop]`` has ``value``: a chunk's line with it ends ``=value`` (and
    spaces) at its first ``=``."""
    found = re.compile(rf"=[ \t\v\f]*+{re.escape(value)}[ \t\v\f]*+(?=[\r\n|]|\Z)")
    for document, run in items[start:stop]:
        if isinstance(run, Copies):
            if run.value == value:
                return True
            continue
        text = texts[document]
        for match in found.finditer(text, run.start, run.end):
            at = match.start()
            line = max(run.start, *(text.rfind(char, run.start, at) + 1 for char in "\r\n|"))
            if text.find("=", line, at) < 0:
                return True
    return False


def _removed_values(items: list[_Item], texts: list[str], start: int) -> set[str]:
    """The values that ``-`` lines from ``start`` name: only they need to be found again in the array."""
    removed: set[str] = set()
    for document, run in items[start:]:
        if isinstance(run, Copies):
            if run.action == "-":
                removed.add(run.value)
        elif run.removes:
            removed.update(
                value for action, value in _lines_of(run, texts[document], IniReader.ENGINE) if action == "-"
            )
    return removed


class _EngineMerge:
    """The engine's array of one key as runs of equal values (a value, its first line's reference, a count).

    Linear: each value's runs are kept in order only for the values a ``-`` line names, so ``-`` (the last equal
    value) finds its run at once; ``+`` asks a count. When no ``-`` line follows and only the last value is asked
    for, no run is kept at all: the array only grows or has its last value replaced."""

    def __init__(self, *, keep: bool, removable: set[str]) -> None:
        self.keep = keep
        self.removable = removable
        self.values: list[str | None] = []
        self.refs = array("q")
        self.counts = array("q")
        self.live: dict[str, int] = {}
        """Each value there and how many times (a value with none is taken out)."""
        self.where: dict[str, list[int]] = {}
        self.size = 0
        self.last: tuple[str, int] | None = None
        """The last value and its line's reference."""

    def line(self, action: str, value: str, ref: int, count: int) -> None:
        """One line, or ``count`` equal lines from ``ref`` on."""
        if action == "+":
            if value not in self.live:
                self.append(value, ref, 1)  # the first adds it, the others find it there
        elif action == ".":
            self.append(value, ref, count)
        elif action == "":
            self.set(value, ref + count - 1)  # a plain line replaces the last value: the last of the run wins
        elif action == "-":
            self.remove(value, count)
        elif action == "!":
            self.clear()
        # '*' (per-object struct keys) is not modelled: the line is passed over

    def tail_lines(self, lines: list[tuple[str, str, str]], base: int) -> None:
        """A chunk's lines (``findall``'s prefix, key, value; the key empty for the chunk's other lines) when no
        run is kept (no ``-`` line follows): the steps of :meth:`line` on local names, and a chunk of ``+`` lines
        alone (an array written out) in dictionary operations, without a Python step a line."""
        if not lines:
            return
        actions, keys, values = zip(*lines, strict=True)
        actions, values = tuple(compress(actions, keys)), tuple(compress(values, keys))
        kinds = set(actions)
        if kinds == {"+"}:
            self.tail_added(values, base)
            return
        if kinds == {""}:  # each replaces the value the one before set: only the last one's is left
            if self.last is not None:
                self._drop_one(self.last[0])
            else:
                self.size = 1
            self.live[values[-1]] = self.live.get(values[-1], 0) + 1
            self.last = (values[-1], base | (len(values) - 1))
            return
        live, size, last = self.live, self.size, self.last
        for place, (action, value) in enumerate(zip(actions, values, strict=True)):
            assert size == 0 or last is not None
            if action == "+":
                if value in live:
                    continue
                live[value] = 1
                size += 1
            elif action == ".":
                live[value] = live.get(value, 0) + 1
                size += 1
            elif action == "":
                if last is not None:
                    self._drop_one(last[0])
                else:
                    size = 1
                live[value] = live.get(value, 0) + 1
            elif action == "!":
                live.clear()
                size, last = 0, None
                continue
            else:
                continue
            last = (value, base | place)
        self.size, self.last = size, last

    def tail_added(self, values: Sequence[str], base: int) -> None:
        """``+`` lines only: the values not yet there are added in the order they first come."""
        live = self.live
        fresh = dict.fromkeys(values)
        new = set(fresh).difference(live)
        if not new:
            return
        live.update(dict.fromkeys(new, 1))
        self.size += len(new)
        for value in reversed(fresh):  # the last value added is the last new one
            if value in new:
                self.last = (value, base | values.index(value))
                return

    def _drop_one(self, value: str) -> None:
        """One copy of ``value`` fewer; a value with none left is no longer there (``+`` asks ``in``)."""
        count = self.live[value] - 1
        if count:
            self.live[value] = count
        else:
            del self.live[value]

    def clear(self) -> None:
        self.values = []
        self.refs = array("q")
        self.counts = array("q")
        self.live = {}
        self.where = {}
        self.size = 0
        self.last = None

    def append(self, value: str, ref: int, count: int) -> None:
        self.live[value] = self.live.get(value, 0) + count
        self.size += count
        self.last = (value, ref + count - 1)
        if self.keep:
            if value in self.removable:
                self.where.setdefault(value, []).append(len(self.values))
            self.values.append(value)
            self.refs.append(ref)
            self.counts.append(count)

    def set(self, value: str, ref: int) -> None:
        """``Find`` gives the key's last pair; its value is replaced in place (H), or a pair is added."""
        if not self.size:
            self.append(value, ref, 1)
            return
        assert self.last is not None
        old = self.last[0]
        self._drop_one(old)
        self.size -= 1
        if not self.keep:
            self.append(value, ref, 1)
            return
        group = len(self.values) - 1
        if self.counts[group] > 1:
            self.counts[group] -= 1
            self.append(value, ref, 1)
            return
        if old in self.where:
            self.where[old].pop()  # the last group is the last of its value's groups
        self.values.pop()
        self.refs.pop()
        self.counts.pop()
        self.append(value, ref, 1)

    def remove(self, value: str, count: int) -> None:
        """``RemoveSingle``, ``count`` times: the last equal value each time."""
        groups = self.where.get(value)
        while count and groups:
            group = groups[-1]
            taken = min(count, self.counts[group])
            self.counts[group] -= taken
            self.live[value] -= taken
            if not self.live[value]:
                del self.live[value]
            self.size -= taken
            count -= taken
            if not self.counts[group]:
                self.values[group] = None
                groups.pop()
        values = self.values
        while values and values[-1] is None:
            values.pop()
            self.refs.pop()
            self.counts.pop()
        last = values[-1] if values else None
        self.last = None if last is None else (last, self.refs[-1] + self.counts[-1] - 1)

    def result(self, everything: bool) -> list[tuple[str, int]]:
        if not everything:
            return [self.last] if self.size and self.last is not None else []
        return [
            (value, ref + place)
            for value, ref, count in zip(self.values, self.refs, self.counts, strict=True)
            if value is not None
            for place in range(count)
        ]


_STRUCT_WORK = 1_000_000
"""How many values may be looked at again when an ``@`` struct key changes: Unreal compares every value of the
section at each line (quadratic); past this, buildver refuses the file rather than take minutes."""


class _Slot:
    """A place in the engine's array under struct keys: a value, its line's reference, and how many equal lines
    (added while their token was empty) it stands for."""

    __slots__ = ("count", "ref", "value")

    def __init__(self, value: str, ref: int, count: int) -> None:
        self.value, self.ref, self.count = value, ref, count


class _StructMerge:
    """The engine's array of one key when ``@`` struct keys are in play (``HandleArrayOfKeyedStructsCommand``, A):
    a line whose ``Name=`` token matches an existing value's replaces the first such value in place.

    Values are kept one a line (runs of equal lines added while the token is empty stay one slot with a count);
    each value's places and each token's places are heaps checked when read, so no step scans the array. A new
    struct key indexes the array once."""

    def __init__(self, everything: bool) -> None:
        self.everything = everything
        self.struct_key: str | None = None
        self.struct_ref = 0
        """The line of the struct key in use (named when the work is refused)."""
        self.tokens: dict[str, list[int]] | None = None
        """Each token of the struct key in use -> a heap of the places that had it (None: to be made)."""
        self.work = 0
        self.slots: list[_Slot | None] = []
        self.live: dict[str, int] = {}
        self.where: dict[str, list[int]] = {}
        """Each value -> a heap of minus the places that had it."""

    def clear(self) -> None:
        self.slots = []
        self.live = {}
        self.where = {}
        if self.struct_key is not None:
            self.tokens = {}

    def run(self, lines: Iterator[tuple[str, str, int, int]]) -> list[tuple[str, int]]:
        for action, value, ref, count in lines:
            if action == "@":
                if value != self.struct_key:
                    self.struct_key = value
                    self.struct_ref = ref + count - 1
                    self.tokens = None
                continue
            if action in ("", "+", ".") and self.struct_key and _struct_token(value, self.struct_key + "="):
                # equal lines with a token: each replaces the one the first replaced or added: the last one stays
                ref, count = ref + count - 1, 1
                if self._replaced(value, ref):
                    continue
            if action == "":
                self._set(value, ref + count - 1)
            elif action == "+":
                if not self.live.get(value):
                    self._append(value, ref, 1)
            elif action == ".":
                self._append(value, ref, count)
            elif action == "-":
                self._remove(value, count)
            elif action == "!":
                self.clear()
        slots = [slot for slot in self.slots if slot is not None]
        if not self.everything:
            return [(slots[-1].value, slots[-1].ref + slots[-1].count - 1)] if slots else []
        return [(slot.value, slot.ref + place) for slot in slots for place in range(slot.count)]

    def _append(self, value: str, ref: int, count: int) -> None:
        place = len(self.slots)
        self.slots.append(_Slot(value, ref, count))
        self.live[value] = self.live.get(value, 0) + count
        self._placed(place, value)

    def _placed(self, place: int, value: str) -> None:
        heapq.heappush(self.where.setdefault(value, []), -place)
        if self.tokens is not None and self.struct_key is not None:
            token = _struct_token(value, self.struct_key + "=")
            if token:
                heapq.heappush(self.tokens.setdefault(token, []), place)

    def _trim(self) -> None:
        slots = self.slots
        while slots and slots[-1] is None:
            slots.pop()

    def _set(self, value: str, ref: int) -> None:
        self._trim()
        if not self.slots:
            self._append(value, ref, 1)
            return
        place = len(self.slots) - 1
        slot = self.slots[place]
        assert slot is not None
        self.live[slot.value] -= 1
        if slot.count == 1:
            slot.value, slot.ref = value, ref
            self.live[value] = self.live.get(value, 0) + 1
            self._placed(place, value)
        else:
            slot.count -= 1
            self._append(value, ref, 1)

    def _remove(self, value: str, count: int) -> None:
        heap = self.where.get(value)
        while count and heap:
            place = -heap[0]
            slot = self.slots[place] if place < len(self.slots) else None
            if slot is None or slot.value != value:
                heapq.heappop(heap)
                continue
            taken = min(count, slot.count)
            slot.count -= taken
            self.live[value] -= taken
            count -= taken
            if not slot.count:
                self.slots[place] = None
                heapq.heappop(heap)
        self._trim()

    def _replaced(self, value: str, ref: int) -> bool:
        assert self.struct_key is not None
        match = self.struct_key + "="
        token = _struct_token(value, match)
        if self.tokens is None:
            self._index(match)
        assert self.tokens is not None
        heap = self.tokens.get(token)
        while heap:
            place = heap[0]
            slot = self.slots[place] if place < len(self.slots) else None
            if slot is None or _struct_token(slot.value, match) != token:
                heapq.heappop(heap)
                continue
            self.live[slot.value] -= 1
            slot.value, slot.ref = value, ref
            self.live[value] = self.live.get(value, 0) + 1
            heapq.heappush(self.where.setdefault(value, []), -place)
            return True
        return False

    def _index(self, match: str) -> None:
        """Index the array by the new struct key's tokens: runs of equal values with a token become one slot a
        value (only the first of them can be replaced, so each must be a place of its own)."""
        slots: list[_Slot | None] = []
        for slot in self.slots:
            if slot is None:
                continue
            self.work += slot.count
            if slot.count != 1 and _struct_token(slot.value, match):
                slots.extend(_Slot(slot.value, slot.ref + place, 1) for place in range(slot.count))
            else:
                slots.append(slot)
        if self.work > _STRUCT_WORK:
            raise _TooMuchWork(self.struct_ref)
        self.slots = slots
        self.where = {}
        self.tokens = {}
        for place, kept in enumerate(slots):
            assert kept is not None
            self._placed(place, kept.value)


class _TooMuchWork(Exception):
    """An ``@`` struct key changed over more values than ``_STRUCT_WORK``: the reference of its line."""

    def __init__(self, ref: int) -> None:
        super().__init__(ref)
        self.ref = ref


_TOKEN_CHARS = re.compile(r"\w*+")


def _struct_token(value: str, match: str) -> str:
    """``ExtractPropertyValue`` (A): the token after ``Name=`` (``FString::Find`` ignores case)."""
    at = value.lower().find(match.lower())
    if at < 0:
        return ""
    start = at + len(match)
    if value[start : start + 1] == '"':
        end = value.find('"', start + 1)
        return value[start + 1 : end if end >= 0 else len(value)]
    found = _TOKEN_CHARS.match(value, start)
    assert found is not None  # a loop that may take nothing
    return value[start : found.end()]


def _merge_ubt(items: list[_Item], texts: list[str], *, everything: bool) -> list[tuple[str, int]]:
    """``ConfigHierarchySection`` (G): a plain line replaces every value, ``+`` appends, ``-`` removes any case, ``!``
    empties the key. Only lines from the last plain or ``!`` line count; a value survives unless a ``-`` line of
    its value (any case) comes after it. Only the first value asked for: the first that survives, found after one
    pass for the ``-`` lines, without keeping the others."""
    start = 0
    for index in range(len(items) - 1, -1, -1):
        if _first_action(items[index], texts) in ("", "!"):
            start = index
            break
    removed: dict[str, int] = {}  # a value, lowered -> the last '-' line of it
    started = False  # a value was set or added since the start ('-' lines before that are passed over)
    for index in range(start, len(items)):
        run = items[index][1]
        if started and isinstance(run, Lines) and not run.removes:
            continue
        for action, value, ref, count in _run_lines(items, texts, IniReader.UBT, index, index + 1):
            if action in ("", "+"):
                started = True
            elif action == "-" and started:
                removed[value.lower()] = ref + count - 1
            elif action == "!":
                started = False
                removed = {}
    found: list[tuple[str, int]] = []
    for action, value, ref, count in _run_lines(items, texts, IniReader.UBT, start):
        if action == "!":
            found = []
        elif action == "" or action == "+":
            if action == "":
                found = []
                ref, count = ref + count - 1, 1  # each plain line replaces every value: the last one stays
            if removed.get(value.lower(), -1) < ref:
                if not everything:
                    return [(value, ref)]  # the first value that survives: equal lines later do not change it
                found.extend((value, ref + place) for place in range(count))
    return found
