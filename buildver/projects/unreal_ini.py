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
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from buildver.errors import BuildverError

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


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_BREAK = {"\r\n": re.compile("\r\n"), "\r": re.compile("\r(?!\n)"), "\n": re.compile("(?<!\r)\n")}
_SPECIAL = re.compile(r"[|\\{}]|//")
"""What makes ParseLineExtended depart from the physical line (quotes alone change nothing without these)."""
CPP_SPACE = " \t\n\v\f\r"
"""What ``FChar::IsWhitespace`` (``iswspace`` in the C locale) trims."""
_UBT_SPACE = " \t"
_ENGINE_PREFIXES = {action.value: action for action in IniAction if action is not IniAction.SET}
_UBT_PREFIXES = {"+": IniAction.ADD_UNIQUE, "-": IniAction.REMOVE, "!": IniAction.CLEAR}


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

    Lookups do not read every line: a key is found by scanning the text for its own lines (``lookup``), so a
    file is read in time and memory that grow with the lines of the keys asked for, not with every line's record.
    The full readings (``entries``, ``engine``, ``ubt``, ``line_starts``) are made only when asked for."""

    path: str
    data: bytes
    encoding: IniEncoding
    text: str
    _readings: dict[IniReader, _Reading] = field(default_factory=dict, compare=False, repr=False)
    """Each reader's full reading, made the first time it is asked for (the editor's checks ask)."""
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

    def entries(self, reader: IniReader = IniReader.ENGINE) -> tuple[IniEntry, ...]:
        """Every key line the reader takes, in file order."""
        return self._reading(reader).entries

    def sections(self, reader: IniReader = IniReader.ENGINE) -> tuple[str, ...]:
        """The section names, in order of first appearance (a repeated section is one section)."""
        if self._fast(reader):
            pattern = _ENGINE_HEADER if reader is IniReader.ENGINE else _UBT_HEADER
            names: Iterable[str] = dict.fromkeys(pattern.findall(self.text))
        else:
            names = (header.name for header in self._reading(reader).headers)
        seen: dict[str, str] = {}
        for name in names:
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
        return bisect_right(self.line_starts, offset)

    def physical_line(self, number: int) -> str:
        """The 1-based physical line ``number`` without its line break."""
        starts = self.line_starts
        end = starts[number] if number < len(starts) else len(self.text)
        return self.text[starts[number - 1] : end].rstrip("\r\n")

    def _fast(self, reader: IniReader) -> bool:
        """Whether every physical line is one of the reader's lines (nothing joins or splits lines), so that a key's
        lines and the headers before them can be found by scanning the text."""
        name = "fast-" + reader.value
        fast = self._cache.get(name)
        if fast is None:
            fast = _SPECIAL.search(self.text) is None if reader is IniReader.ENGINE else "\\" not in self.text
            self._cache[name] = fast
        return bool(fast)

    def _key_lines(self, reader: IniReader, section: str, key: str, index: int) -> list[_Line]:
        """The key's lines in the section as the reader reads them: (action, value, ``index``, where), ``where``
        a text offset when the lines were found by scanning (``_fast``), else the physical line."""
        if self._fast(reader) and _scannable_key(key):
            lowered = self._cache.get("lowered")
            if lowered is None:
                lowered = self._cache["lowered"] = self.text.lower()
            if key.lower() not in lowered:  # type: ignore[operator]  # only this method stores it
                return []  # a key line's key, lowered, is in the text lowered (ASCII lowers alike in any context)
            scan = _scan_engine if reader is IniReader.ENGINE else _scan_ubt
            return scan(self.text, section.lower(), key, index)
        section_name, key_name = section.lower(), key.lower()
        return [
            (entry.action, entry.value, index, entry.line)
            for entry in self._reading(reader).entries
            if entry.key.lower() == key_name and entry.section.lower() == section_name
        ]

    def _line_numbers(self, reader: IniReader, key: str, wheres: Iterable[int]) -> dict[int, int]:
        """The physical line of each ``where`` from :meth:`_key_lines`."""
        if not (self._fast(reader) and _scannable_key(key)):
            return {where: where for where in wheres}
        text = self.text
        cr = "\r" in text
        numbers: dict[int, int] = {}
        line, previous = 1, 0
        for offset in sorted(set(wheres)):
            line += text.count("\n", previous, offset)
            if cr:
                line += text.count("\r", previous, offset) - text.count("\r\n", previous, offset)
            numbers[offset] = line
            previous = offset
        return numbers

    def _reading(self, reader: IniReader) -> _Reading:
        reading = self._readings.get(reader)
        if reading is None:
            read = _read_engine if reader is IniReader.ENGINE else _read_ubt
            paused = gc.isenabled()
            gc.disable()  # millions of small records: the collector's passes would cost more than the reading
            try:
                reading = read(self.text, self.line_starts)
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
    return tuple(_values(documents, section, key, reader, everything=True))


def effective_value(
    documents: Iterable[IniDocument], section: str, key: str, *, reader: IniReader = IniReader.ENGINE
) -> IniValue | None:
    """The single value the reader gives: the engine's ``Find`` takes the last value, UnrealBuildTool the first."""
    values = _values(documents, section, key, reader, everything=False)
    return values[0] if values else None


def _values(
    documents: Iterable[IniDocument], section: str, key: str, reader: IniReader, *, everything: bool
) -> list[IniValue]:
    """The merged values (all of them, or only the one a single read gives), each with its file and line."""
    paused = gc.isenabled()
    gc.disable()  # a key of a million lines makes a million small tuples: the collector's passes would cost more
    try:
        return _merged_values(tuple(documents), section, key, reader, everything=everything)
    finally:
        if paused:
            gc.enable()


def _merged_values(
    documents: tuple[IniDocument, ...], section: str, key: str, reader: IniReader, *, everything: bool
) -> list[IniValue]:
    lines: list[_Line] = []
    for index, document in enumerate(documents):
        lines += document._key_lines(reader, section, key, index)
    merge = _merge_engine if reader is IniReader.ENGINE else _merge_ubt
    merged = merge(lines)
    if not everything:
        merged = merged[-1:] if reader is IniReader.ENGINE else merged[:1]
    numbers = [
        document._line_numbers(reader, key, (where for value, i, where in merged if i == index))
        for index, document in enumerate(documents)
    ]
    return [IniValue(value, documents[index].path, numbers[index][where]) for value, index, where in merged]


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
        line = _count_lines(body[: exc.start].decode(encoding.codec, "replace"))
        raise IniError(f"{path}: line {line}: bytes that are not {encoding.codec.upper()} (byte {exc.start})") from None
    nul = text.find("\0")
    if nul >= 0:
        line = _count_lines(text[:nul])
        raise IniError(f"{path}: line {line}: a NUL character: Unreal stops reading the file there")
    return encoding, text


def _count_lines(text: str) -> int:
    return len(_LINE_BREAK.findall(text)) + 1


def physical_lines(text: str, line_starts: Sequence[int]) -> list[str]:
    """The text's physical lines, without their line breaks."""
    """Each physical line without its line break, as ``ReadLine`` returns them."""
    ends = [*line_starts[1:], len(text)]
    return [text[start:end].rstrip("\r\n") if end > start else "" for start, end in zip(line_starts, ends, strict=True)]


def _read_engine(text: str, line_starts: Sequence[int]) -> _Reading:
    """``FConfigFile::CombineFromBuffer`` (A) over ``ParseLineExtended`` (C)."""
    entries: list[IniEntry] = []
    headers: list[_Header] = []
    section: str | None = None
    position, size = 0, len(text)
    line_end = -1
    while position < size:
        while position < size and text[position] in "\r\n":
            position += 1
        if position >= size:
            break
        start = position
        if position > line_end:  # '|' starts several logical lines in one physical line: its end is found once
            line_break = _LINE_BREAK.search(text, position)
            line_end = line_break.start() if line_break else size
        logical, end, position = _line_extended(text, position, line_end)
        first_line = bisect_right(line_starts, start)
        last_line = bisect_right(line_starts, max(start, end - 1))
        line = logical.rstrip(CPP_SPACE)
        if len(line) >= 2 and line[0] == "[" and line[-1] == "]":
            section = line[1:-1]
            headers.append(_Header(section, first_line))
            continue
        if section is None or not line or line[0] == ";":
            continue
        equals = line.find("=")
        if equals < 0:
            continue
        key = line[:equals].lstrip(CPP_SPACE)
        key = key.removeprefix("~")  # "~ is a packaging [marker] and should be skipped at runtime"
        action = _ENGINE_PREFIXES.get(key[:1], IniAction.SET) if key else IniAction.SET
        if action is not IniAction.SET:
            key = key[1:]
        key = key.rstrip(CPP_SPACE)
        value = line[equals + 1 :].strip(CPP_SPACE)
        if value.startswith('"'):
            value = _quoted_string(value)
        entries.append(IniEntry(section, action, key, value, first_line, last_line))
    return _Reading(tuple(entries), tuple(headers))


def _line_extended(text: str, position: int, line_end: int) -> tuple[str, int, int]:
    """``ParseLineExtended`` as 4.x to 5.1 call it from the config reader: the logical line, where its text ends,
    and where the next one starts. ``line_end`` is where the physical line at ``position`` ends.

    Linear: the text is looked at from ``position`` to the logical line's end only (a line of ``a|a|a|...`` is many
    short logical lines, each read once)."""
    size = len(text)
    special = _SPECIAL.search(text, position, line_end)
    if special is None:  # nothing ParseLineExtended would treat specially: the line as it is
        plain = text[position:line_end]
        position = line_end
        while position < size and text[position] in "\r\n":
            position += 1
        return plain, line_end, position
    bar = special.start()
    if special.group() == "|" and text.find('"', position, bar) < 0:  # plain text up to a '|': the line ends there
        logical = text[position:bar]
        position = bar
        while position < size and text[position] in "\r\n|":
            position += 1
        return logical, bar, position
    out: list[str] = []
    quoted = ignore = False
    depth = 0
    while position < size and (text[position] not in "\r\n" or depth > 0):
        char = text[position]
        if not quoted and text.startswith("//", position):
            ignore = True
        if not quoted and char == "|":
            break
        following = text[position + 1] if position + 1 < size else ""
        if char in "\r\n":  # a line break inside braces
            out.append(" ")
            position += 1
            if position < size and text[position] in "\r\n":
                position += 1
        elif not quoted and char == "\\" and following and following in "\r\n":
            out.append(" ")
            position += 2
            if position < size and text[position] in "\r\n":
                position += 1
        elif not quoted and char == "{":
            depth += 1
            position += 1
        elif not quoted and char == "}" and depth > 0:
            depth -= 1
            position += 1
        elif quoted and not ignore and char == "\\" and following and following in '"\\':
            out.append(char + following)
            position += 2
        else:
            if char == '"':
                quoted = not quoted
            if not ignore:
                out.append(char)
            position += 1
    end = position
    while position < size and text[position] in "\r\n|":
        position += 1
    return "".join(out), end, position


_OCTAL, _HEX = "01234567", "0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "r": "\r", "t": "\t"}


def _quoted_string(value: str) -> str:
    """``FParse::QuotedString`` (C): the text between the quotes, escapes resolved; the rest of the value dropped."""
    out: list[str] = []
    position, size = 1, len(value)
    while position < size:
        char = value[position]
        if char in '"\r\n':
            break
        position += 1
        if char != "\\":
            out.append(char)
            continue
        escape = value[position] if position < size else ""
        following = value[position + 1] if position + 1 < size else ""
        if escape and escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            position += 1
        elif escape and escape in _OCTAL:
            digits = _take(value, position, _OCTAL, 3)
            out.append(chr(int(digits, 8)))
            position += len(digits)
        elif escape in ("x", "u", "U") and following and following in _HEX:
            digits = _take(value, position + 1, _HEX, {"x": size, "u": 4, "U": 8}[escape])
            code = int(digits, 16) & (0xFFFF if escape == "x" else 0xFFFFFFFF)  # \x is cast to a 16-bit TCHAR
            out.append(chr(code) if code <= 0x10FFFF else "?")
            position += 1 + len(digits)
        else:  # an unknown escape keeps its backslash
            out.append("\\" + escape)
            position += 1
    return "".join(out)


def _take(text: str, position: int, allowed: str, limit: int) -> str:
    end = position
    while end < len(text) and end - position < limit and text[end] in allowed:
        end += 1
    return text[position:end]


def _read_ubt(text: str, line_starts: Sequence[int]) -> _Reading:
    """``ConfigFile.ReadIntoSections`` and ``TryAddConfigLine`` (F)."""
    lines = physical_lines(text, line_starts)
    entries: list[IniEntry] = []
    headers: list[_Header] = []
    section: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        first_line = index + 1
        index += 1
        start = len(line) - len(line.lstrip(_UBT_SPACE))
        if start == len(line):
            continue
        if line.rstrip(_UBT_SPACE).endswith("\\"):
            # an escaped line break (a backslash last before trailing blanks): the next line is appended, the
            # backslash kept; a blank line appended leaves the backslash last. Joined once: linear.
            parts = [line]
            while index < len(lines):
                parts.append(lines[index])
                index += 1
                tail = parts[-1].rstrip(_UBT_SPACE)
                if tail and not tail.endswith("\\"):
                    break
            line = "".join(parts)
        end = len(line.rstrip(_UBT_SPACE))
        end = max(end, start)
        if line[start] == ";" or line.startswith("//", start):
            continue
        if line[start] == "[":
            section = None
            if line[end - 1] == "]" and end - 1 > start:
                section = line[start + 1 : end - 1]
                headers.append(_Header(section, first_line))
            continue
        if section is not None:
            entry = _ubt_entry(section, line, start, end, first_line, index)
            if entry is not None:
                entries.append(entry)
    return _Reading(tuple(entries), tuple(headers))


def _ubt_entry(section: str, line: str, start: int, end: int, first_line: int, last_line: int) -> IniEntry | None:
    equals = line.find("=", start, end)
    if equals < 0 and line[start] != "!":
        return None
    key_start = start
    action = _UBT_PREFIXES.get(line[start], IniAction.SET)
    if action is not IniAction.SET:
        key_start += 1
        while key_start < len(line) and line[key_start] in _UBT_SPACE:
            key_start += 1
    if action is IniAction.CLEAR and equals < 0:
        return IniEntry(section, action, line[key_start:].strip(), "", first_line, last_line)
    key_end = equals
    while key_end > key_start and line[key_end - 1] in _UBT_SPACE:
        key_end -= 1
    if key_start >= equals:
        return None
    value_start = equals + 1
    while value_start < end and line[value_start] in _UBT_SPACE:
        value_start += 1
    value_end = end
    if value_end >= value_start + 2 and line[value_start] == '"' and line[value_end - 1] == '"':
        value_start += 1
        value_end -= 1
    return IniEntry(section, action, line[key_start:key_end], line[value_start:value_end], first_line, last_line)


# Merging ------------------------------------------------------------------------------------------------------------


_Line = tuple[IniAction, str, int, int]
"""A key's line: its action, its value, the document's index in the hierarchy, and its offset or line in it (one
tuple a line: a key of a million lines is a million of them)."""
_Merged = tuple[str, int, int]
"""A value, the document's index and its offset or line."""


def _merge_engine(lines: Sequence[_Line]) -> list[_Merged]:
    """The commands of ``CombineFromBuffer`` (A) on one key's lines, with its ``@`` struct keys.

    Linear: removed values are left as holes (dropped from the end at once), and each value's live positions are
    kept in order, so ``+`` (is an equal value there?) and ``-`` (the last equal value) do not scan the array."""
    values: list[_Merged | None] = []  # None: removed
    where: dict[str, list[int]] = {}  # a value -> the positions in ``values`` that hold it, in order
    struct_key: str | None = None

    def add(found: _Merged) -> None:
        where.setdefault(found[0], []).append(len(values))
        values.append(found)

    for action, value, index, at in lines:
        if action is IniAction.STRUCT_KEY:
            struct_key = value
            continue
        if action is IniAction.PER_OBJECT_STRUCT_KEY:
            continue
        found = (value, index, at)
        adds = action is IniAction.SET or action is IniAction.ADD_UNIQUE or action is IniAction.ADD
        if adds and struct_key is not None and _replace_keyed_struct(values, where, struct_key, found):
            continue
        if action is IniAction.SET:
            last = values[-1] if values else None
            if last is not None:  # Find gives the key's last pair; its value is replaced in place (H)
                where[last[0]].pop()
                where.setdefault(value, []).append(len(values) - 1)
                values[-1] = found
            else:
                add(found)
        elif action is IniAction.ADD_UNIQUE:
            if not where.get(value):
                add(found)
        elif action is IniAction.ADD:
            add(found)
        elif action is IniAction.REMOVE:
            positions = where.get(value)
            if positions:
                values[positions.pop()] = None
                while values and values[-1] is None:
                    values.pop()
        elif action is IniAction.CLEAR:
            values.clear()
            where.clear()
    return [pair for pair in values if pair is not None]


def _replace_keyed_struct(
    values: list[_Merged | None], where: dict[str, list[int]], struct_key: str, found: _Merged
) -> bool:
    """``HandleArrayOfKeyedStructsCommand`` (A): an entry whose ``Name=`` token matches is replaced in place."""
    match = struct_key + "="
    token = _struct_token(found[0], match)
    if not token:
        return False
    for index, pair in enumerate(values):
        if pair is not None and _struct_token(pair[0], match) == token:
            where[pair[0]].remove(index)
            positions = where.setdefault(found[0], [])
            positions.append(index)
            positions.sort()
            values[index] = found
            return True
    return False


def _struct_token(value: str, match: str) -> str:
    """``ExtractPropertyValue`` (A): the token after ``Name=`` (``FString::Find`` ignores case)."""
    at = value.lower().find(match.lower())
    if at < 0:
        return ""
    start = at + len(match)
    if value[start : start + 1] == '"':
        end = value.find('"', start + 1)
        return value[start + 1 : end if end >= 0 else len(value)]
    end = start
    while end < len(value) and (value[end].isalnum() or value[end] == "_"):
        end += 1
    return value[start:end]


def _merge_ubt(lines: Sequence[_Line]) -> list[_Merged]:
    """``ConfigHierarchySection`` (G): a plain line replaces every value, ``+`` appends, ``-`` removes any case.

    Linear: a ``-`` line records when it removed its value (in any case); a value added before that is gone."""
    values: list[tuple[int, _Merged]] | None = None  # (when it was added, the value)
    removed: dict[str, int] = {}  # a value, lowered -> when a '-' line last removed it
    for when, (action, value, index, where) in enumerate(lines):
        if action is IniAction.CLEAR:
            values = None
        elif values is None or action is IniAction.SET:
            if values is not None or action is IniAction.SET or action is IniAction.ADD_UNIQUE:
                values, removed = [(when, (value, index, where))], {}
        elif action is IniAction.ADD_UNIQUE:
            values.append((when, (value, index, where)))
        elif action is IniAction.REMOVE:
            removed[value.lower()] = when
    if values is None:
        return []
    return [found for when, found in values if removed.get(found[0].lower(), -1) < when]


# Scanning for one key ----------------------------------------------------------------------------------------------

_LINE_START = r"(?:(?<=[\r\n])|\A)"
_ENGINE_HEADER = re.compile(_LINE_START + r"\[([^\r\n]*)\][ \t\v\f]*(?=[\r\n]|\Z)")
"""A section header as the engine reads it when no line is joined or split: ``[`` first, ``]`` last."""
_UBT_HEADER = re.compile(_LINE_START + r"[ \t]*\[([^\r\n]*)\][ \t]*(?=[\r\n]|\Z)")
_UBT_CLEAR_ALL = re.compile(_LINE_START + r"[ \t]*!([^\r\n=]*)(?=[\r\n]|\Z)")
"""UnrealBuildTool's ``!Key`` without ``=`` (any key: the name is stripped of any whitespace, then compared)."""
_NOT_SCANNABLE_FIRST = frozenset("+-.!@*~;/[ \t\v\f\r\n")


def _scannable_key(key: str) -> bool:
    """Whether a key's lines can be told by a pattern alone: ASCII, no ``=``, no line syntax or blank at its ends."""
    return (
        bool(key)
        and key.isascii()
        and key[0] not in _NOT_SCANNABLE_FIRST
        and key[-1] not in " \t\v\f\r\n\x1c\x1d\x1e\x1f\x85"
        and not any(char in key for char in "=\r\n")
    )


_ENGINE_ACTIONS = {"": IniAction.SET, **_ENGINE_PREFIXES}
_UBT_ACTIONS = {"": IniAction.SET, **_UBT_PREFIXES}


def _scan_engine(text: str, section: str, key: str, index: int) -> list[_Line]:
    """The engine's lines of ``key`` in ``section`` (lowered), found by pattern in a text where every physical
    line is a logical line (``IniDocument._fast``): each candidate line, then the nearest header above it."""
    pattern = re.compile(
        _LINE_START + r"[ \t\v\f]*~?([+.\-!@*]?)(" + re.escape(key) + r")[ \t\v\f]*=([^\r\n]*)", re.IGNORECASE
    )
    key_name = key.lower()
    found: list[_Line] = []
    inside = False
    low = 0
    for match in pattern.finditer(text):
        start = match.start()
        header = _header_above(text, low, start, engine=True)
        low = match.end()
        if header is not _NO_HEADER:
            inside = header is not None and header.lower() == section
        if not inside or match.group(2).lower() != key_name:
            continue
        value = match.group(3).strip(CPP_SPACE)
        if value.startswith('"'):
            value = _quoted_string(value)
        found.append((_ENGINE_ACTIONS[match.group(1)], value, index, start))
    return found


def _scan_ubt(text: str, section: str, key: str, index: int) -> list[_Line]:
    """UnrealBuildTool's lines of ``key`` in ``section`` (lowered), found by pattern in a text without continued
    lines (``IniDocument._fast``), as :func:`_ubt_entry` reads them."""
    pattern = re.compile(
        _LINE_START + r"[ \t]*([+\-!]?)[ \t]*(" + re.escape(key) + r")[ \t]*=([^\r\n]*)", re.IGNORECASE
    )
    key_name = key.lower()
    candidates: list[tuple[int, int, IniAction, str]] = []
    for match in pattern.finditer(text):
        if match.group(2).lower() != key_name:
            continue
        value = match.group(3).strip(_UBT_SPACE)
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        candidates.append((match.start(), match.end(), _UBT_ACTIONS[match.group(1)], value))
    clears = [
        (match.start(), match.end(), IniAction.CLEAR, "")
        for match in _UBT_CLEAR_ALL.finditer(text)
        if match.group(1).strip().lower() == key_name
    ]
    if clears:
        candidates = sorted([*candidates, *clears], key=lambda candidate: candidate[0])
    found: list[_Line] = []
    inside = False
    low = 0
    for start, end, action, value in candidates:
        header = _header_above(text, low, start, engine=False)
        low = end
        if header is not _NO_HEADER:
            inside = header is not None and header.lower() == section
        if inside:
            found.append((action, value, index, start))
    return found


_NO_HEADER = "\0no header"
"""What :func:`_header_above` gives when no header line lies in the range (a NUL never reaches a name)."""


def _header_above(text: str, low: int, high: int, *, engine: bool) -> str | None:
    """The last header line between the line starts ``low`` and ``high``: its name, None for UnrealBuildTool's
    ``[`` line without ``]`` (no section), :data:`_NO_HEADER` when there is none.

    Linear over all calls with rising ranges: each line in the range is looked at once, from its last ``[``."""
    while True:
        bracket = text.rfind("[", low, high)
        if bracket < 0:
            return _NO_HEADER
        line_start = max(text.rfind("\n", low, bracket), text.rfind("\r", low, bracket), low - 1) + 1
        if engine:
            if text.startswith("[", line_start):
                header = _ENGINE_HEADER.match(text, line_start)
                if header is not None:
                    return header.group(1)
        else:
            first = line_start
            while text[first] in _UBT_SPACE:
                first += 1
            if text[first] == "[":
                header = _UBT_HEADER.match(text, line_start)
                return None if header is None else header.group(1)
        high = line_start
