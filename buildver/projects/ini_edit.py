"""Unreal's config files edited in place: one key's value, every other byte kept.

:func:`with_value` edits only a key set by one plain ``Key=Value`` line that both of Unreal's readers read alike
(``buildver.projects.unreal_ini``): its value bytes change, nothing else (encoding, BOM, line endings, comments,
order, spacing and quoting stay). An absent key gets ``Key=Value`` at the end of the section's last occurrence, an
absent section is added at the end of the file. A value either reader would read differently is refused, and the
result is read again by both readers and compared before it is returned. ``docs/game-rules.md`` has the rules.

A large file (``unreal_ini.SCAN_FROM``) is not read line by line: the key's lines and the section's headers are
scanned for, and the check after a write reads the written line and the lines next to it, which is all a write of
one line can change (:meth:`_Writer._check_around`). A small file is read whole, before and after.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

from buildver.projects import ini_scan, unreal_ini
from buildver.projects.unreal_ini import (
    CPP_SPACE,
    IniAction,
    IniDocument,
    IniEntry,
    IniError,
    IniReader,
    effective_value,
    line_number,
    parse_ini,
)

__all__ = ["set_ini_value", "with_value", "write_line"]


def with_value(document: IniDocument, section: str, key: str, value: str) -> bytes:
    """The file's bytes with ``key`` in ``section`` set to ``value``; raises IniError when that is not safe."""
    return _Writer(document, section, key).write(value)


def write_line(document: IniDocument, section: str, key: str) -> int:
    """The physical line :func:`with_value` would write (its number before any line is added)."""
    return _Writer(document, section, key).target_line()


def set_ini_value(data: bytes, section: str, key: str, value: str, path: str) -> bytes:
    """``with_value(parse_ini(data, path), section, key, value)``."""
    return with_value(parse_ini(data, path), section, key, value)


# Writing ------------------------------------------------------------------------------------------------------------

_BREAKS_LINE = "\r\n\x85\u2028\u2029"


def _unsafe_value(value: str) -> str | None:
    """Why a value can never be written on one line, or None; anything else is tried and read back by both readers."""
    if any(char in _BREAKS_LINE for char in value):
        return "it holds a line break"
    if "\0" in value:
        return "it holds a NUL character"
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in value):
        return "it holds a control character"
    if value != value.strip():
        return "it starts or ends with whitespace, which both readers drop"
    if value.endswith("\\"):
        return "it ends with a backslash, which continues the line"
    return None


_NAME_SYNTAX = ('"', "\\", "{", "}", "|", "//", "=")


def _unsafe_name(name: str, what: str) -> str | None:
    if not name:
        return f"an empty {what}"
    problem = _unsafe_value(name)
    if problem is not None:
        return problem
    if any(syntax in name for syntax in _NAME_SYNTAX):
        return "it holds a quote, a backslash, a brace, '|', '//' or '='"
    if what == "key" and name[0] in "+-.!@*^~;[":
        return "a key cannot start with + - . ! @ * ^ ~ ; or ["
    if what == "section" and ("[" in name or "]" in name or name.startswith(";")):
        return "a section name cannot hold brackets or start with ';'"
    return None


class _KeyLine(NamedTuple):
    """The key's last line in the section as one reader reads it, and where its first physical line starts."""

    entry: IniEntry
    line_start: int


class _Head(NamedTuple):
    """A section header: its physical line, where its logical line starts and where its text ends."""

    line: int
    start: int
    end: int


class _Sections(NamedTuple):
    """Where one reader has the section's last header, and its first header on a later line (line, start)."""

    last: _Head | None
    following: tuple[int, int] | None


class _Writer:
    """One planned write of one key, and its checks."""

    def __init__(self, document: IniDocument, section: str, key: str) -> None:
        self.document = document
        self.section = section
        self.key = key
        self.path = document.path
        self.text = document.text
        self.small = len(self.text) < unreal_ini.SCAN_FROM or not ini_scan.fast_name(section, key)
        """A small file (or an unusual name) is read whole; a large one is scanned (see the module)."""
        self.engine_line, self.structs = self._key_line(IniReader.ENGINE)
        self.ubt_line, _ = self._key_line(IniReader.UBT)
        self._memo: dict[str, object] = {}
        """What :meth:`target_line` asks again in every message (each a scan of a large file)."""
        self._section_changes = False
        """Whether the written line may not be in the section: a header follows the section's last one on its own
        line, or the place after the section's last line is past a header."""
        self._syncs: dict[IniReader, tuple[int, bool]] = {}
        """Per reader, a line start before the anchor's line break, and whether the section is open there."""

    # What the file holds ------------------------------------------------------------------------------------------

    def _key_line(self, reader: IniReader) -> tuple[_KeyLine | None, bool]:
        """The key's last line in the section, and whether an ``@`` struct key line of it is there."""
        document, section_name, key_name = self.document, self.section.lower(), self.key.lower()
        core = unreal_ini.ini_core()
        if core is not None and ini_scan.fast_name(self.section, self.key):
            found, structs = core.key_line(self.text, self.section, self.key, reader is IniReader.UBT)
            if found is None:
                return None, structs
            action, value, start, _end, line, last = found
            entry = IniEntry(self.section, IniAction(action), self.key, value, line, last)
            return _KeyLine(entry, _line_start(self.text, start)), structs
        if self.small:
            lines = [
                entry
                for entry in document.entries(reader)
                if entry.section.lower() == section_name and entry.key.lower() == key_name
            ]
            if not lines:
                return None, False
            structs = any(entry.action is IniAction.STRUCT_KEY for entry in lines)
            return _KeyLine(lines[-1], document.line_starts[lines[-1].line - 1]), structs
        runs = document.key_runs(reader, self.section, self.key)
        if not runs:
            return None, False
        structs = any(run.action == "@" if isinstance(run, ini_scan.Copies) else run.struct for run in runs)
        action, value, start, end = _last_of(runs[-1], self.text, reader)
        text = self.text
        line = line_number(text, start)
        last = line_number(text, max(start, end - 1), start, line)
        return _KeyLine(
            IniEntry(self.section, IniAction(action), self.key, value, line, last), _line_start(text, start)
        ), structs

    def _sections(self, reader: IniReader) -> _Sections:
        """The section's last header in the reader's reading, and the first header on a line after it."""
        memo = f"sections-{reader.value}"
        if memo not in self._memo:
            self._memo[memo] = self._find_sections(reader)
        return self._memo[memo]  # type: ignore[return-value]

    def _find_sections(self, reader: IniReader) -> _Sections:
        name = self.section.lower()
        if self.small:
            headers = self.document._reading(reader).headers
            mine = [header.line for header in headers if header.name.lower() == name]
            if not mine:
                return _Sections(None, None)
            starts = self.document.line_starts
            later = min((header.line for header in headers if header.line > mine[-1]), default=None)
            start = starts[mine[-1] - 1]
            return _Sections(_Head(mine[-1], start, start), None if later is None else (later, starts[later - 1]))
        text = self.text
        core = unreal_ini.ini_core()
        if core is not None:  # a large file of a plain name (self.small is false): the headers found in C
            found = core.section_headers(text, self.section, reader is IniReader.UBT)
            if found is None:
                return _Sections(None, None)
            last_start, last_end, line, after, changes = found
            if changes:
                self._section_changes = True
            return _Sections(_Head(line, last_start, last_end), after)
        lines = _LineCounter(text)
        last: _Head | None = None
        following: tuple[int, int] | None = None
        engine = reader is IniReader.ENGINE
        last_start = (ini_scan.engine_last_header if engine else ini_scan.ubt_last_header)(text, self.section)
        if last_start is None:
            return _Sections(None, None)
        # the headers from the section's last one on: that one, then the first on a later line
        scan = ini_scan.engine_headers if engine else ini_scan.ubt_headers
        changes = False
        # the headers after the last one's line are each looked at: the first of them is the one asked for
        for header in scan(text, last_start, ini_scan.line_end(text, last_start)):
            if header.name.lower() == name:
                last = _Head(lines.of(header.last), header.last, header.end)
                following, changes = None, False
            elif last is not None and following is None:
                first = lines.of(header.first)
                if first > last.line:
                    following = (first, header.first)
                else:
                    changes = True  # another section starts on the header's line ('[S]|[T]')
                    if header.unit and lines.of(header.last) > last.line:
                        second = header.first + header.unit  # equal lines, each on a line of its own
                        following = (lines.of(second), second)
            if following is not None:
                break
        if changes:
            self._section_changes = True
        return _Sections(last, following)

    # Where the write goes -----------------------------------------------------------------------------------------

    def target_line(self) -> int:
        edited = self._edited_entry()
        if edited is not None:
            return edited.entry.line
        anchor = self._anchor()
        if anchor is not None:
            return anchor[0] + 1
        return self._new_section_line()

    def _edited_entry(self) -> _KeyLine | None:
        if "edited" not in self._memo:
            self._memo["edited"] = self._find_edited_entry()
        return self._memo["edited"]  # type: ignore[return-value]

    def _anchor(self) -> tuple[int, int] | None:
        if "anchor" not in self._memo:
            self._memo["anchor"] = self._find_anchor()
        return self._memo["anchor"]  # type: ignore[return-value]

    def write(self, value: str) -> bytes:
        for name, what in ((self.section, "section"), (self.key, "key")):
            problem = _unsafe_name(name, what)
            if problem is not None:
                raise IniError(f"{self.path}: line {self.target_line()}: cannot write the {what} {name!r}: {problem}")
        problem = _unsafe_value(value)
        if problem is not None:
            raise IniError(f"{self.path}: line {self.target_line()}: cannot write {value!r}: {problem}")
        edited = self._edited_entry()
        if edited is not None:
            result, expected = self._edit(edited, value)
        else:
            anchor = self._anchor()
            result, expected = self._append(anchor, value) if anchor is not None else self._add_section(value)
        self._check(result, value, expected)
        return result

    def _find_edited_entry(self) -> _KeyLine | None:
        """The one plain line both readers take the key's value from; None when the key has no value to edit."""
        engine, ubt = self.engine_line, self.ubt_line
        if engine is None and ubt is None:
            return None
        documents = (self.document,)
        if all(
            effective_value(documents, self.section, self.key, reader=reader) is None
            for reader in (IniReader.ENGINE, IniReader.UBT)
        ):
            return None  # every value removed or cleared: a new line at the end of the section sets it
        if (
            engine is not None
            and ubt is not None
            and engine.entry.action is ubt.entry.action is IniAction.SET
            and engine.entry.line == ubt.entry.line == engine.entry.last_line == ubt.entry.last_line
            and not self.structs
        ):
            return engine
        line = max(found.entry.line for found in (engine, ubt) if found is not None)
        raise IniError(
            f"{self.path}: line {line}: {self.key} is also set by '+', '-', '.', '!', '@' or continued lines, "
            "or read differently by the engine and UnrealBuildTool: buildver edits only a key set by one "
            "plain Key=Value line"
        )

    def _edit(self, edited: _KeyLine, value: str) -> tuple[bytes, _Expected]:
        entry = edited.entry
        assert self.ubt_line is not None
        ubt = self.ubt_line.entry
        line_start = edited.line_start
        line_end = ini_scan.line_end(self.text, line_start)
        content = self.text[line_start:line_end]
        equals = content.find("=")
        value_start = equals + 1
        while value_start < len(content) and content[value_start] in CPP_SPACE:
            value_start += 1
        value_end = len(content.rstrip(CPP_SPACE))
        raw = content[value_start:value_end]
        quoted = len(raw) >= 2 and raw[0] == raw[-1] == '"'
        written = raw[1:-1] if quoted else raw
        if not (entry.value == ubt.value == written) or (quoted and ('"' in written or "\\" in written)):
            raise IniError(
                f"{self.path}: line {entry.line}: the engine reads {entry.value!r} and UnrealBuildTool reads "
                f"{ubt.value!r} from {raw!r}: buildver does not rewrite a value written that way"
            )
        replacement = f'"{value}"' if quoted else value
        start = line_start + value_start + (1 if quoted else 0)
        end = line_start + value_end - (1 if quoted else 0)
        result = self._splice(start, end, value if quoted else replacement)
        new_end = line_end + len(value) - max(0, end - start)  # a blank value: nothing between the two
        return result, _Expected(
            edited_line=entry.line, line=(line_start, new_end), sync=((line_start, True), (line_start, True))
        )

    def _find_anchor(self) -> tuple[int, int] | None:
        """The last line of the section's last occurrence that is not blank or a comment (its number and where it
        starts), taken on to the end of a key line that runs across it; None without the section."""
        engine, ubt = self._sections(IniReader.ENGINE), self._sections(IniReader.UBT)
        if engine.last is None and ubt.last is None:
            return None
        if engine.last is None or ubt.last is None or engine.last.line != ubt.last.line:
            line = (engine.last or ubt.last).line  # type: ignore[union-attr]
            raise IniError(
                f"{self.path}: line {line}: the engine and UnrealBuildTool do not agree where section "
                f"[{self.section}] is: buildver does not add {self.key} to it"
            )
        header = engine.last.line
        text = self.text
        following = [place for place in (engine.following, ubt.following) if place is not None]
        body = _next_line(text, ini_scan.line_end(text, engine.last.start))
        stop_start = _line_start(text, min(following)[1]) if following else len(text)
        anchor, anchor_start = header, _line_start(text, engine.last.start)
        content = _last_content_line(text, body, stop_start)
        if content >= 0:
            anchor_start = content
            anchor = line_number(text, anchor_start, body, header + 1)
        if self.small:
            for entry in (*self.document.engine.entries, *self.document.ubt.entries):
                if entry.line <= anchor < entry.last_line:
                    anchor = entry.last_line
            return anchor, self.document.line_starts[anchor - 1]
        for reader, head in ((IniReader.ENGINE, engine.last), (IniReader.UBT, ubt.last)):
            anchor, anchor_start = self._across(reader, head, anchor, anchor_start)
        if following and anchor >= min(following)[0]:
            self._section_changes = True  # a line ran on past a header of the other reader: the key goes after it
        return anchor, anchor_start

    def _across(self, reader: IniReader, head: _Head, anchor: int, anchor_start: int) -> tuple[int, int]:
        """The anchor taken on through the reader's key lines that run across the end of its line (one after the
        other: a line can start where the one before ended), as the whole reading would. Where the reading got
        to is kept (``_syncs``): the check after the write reads on from there."""
        text = self.text
        start, open_section = (head.end, True) if reader is IniReader.ENGINE else (_next_line(text, head.end), True)
        while True:
            at = ini_scan.line_end(text, anchor_start)
            if at >= len(text):
                break
            if reader is IniReader.ENGINE:
                across = ini_scan.engine_line_across(text, start, at)
            else:
                across = ini_scan.ubt_line_across(text, start, at, open_section)
            start, open_section = across.sync, across.open
            if across.line is None:
                break
            line_start, end, logical = across.line
            if reader is IniReader.ENGINE:
                parsed = ini_scan.engine_parse(logical)
                entry = parsed is not None and parsed.header is None
            else:
                parsed_ubt = ini_scan.ubt_parse(logical)
                entry = across.open and parsed_ubt is not None and not parsed_ubt.resets
            last = line_number(text, max(line_start, end - 1), anchor_start, anchor)
            if not entry or last <= anchor:
                break
            anchor, anchor_start = last, _line_start(text, max(line_start, end - 1))
        self._syncs[reader] = (start, open_section)
        return anchor, anchor_start

    def _append(self, anchor: tuple[int, int], value: str) -> tuple[bytes, _Expected]:
        number, anchor_start = anchor
        text = self.text
        anchor_end = ini_scan.line_end(text, anchor_start)
        next_start = _next_line(text, anchor_end)
        newline = text[anchor_end:next_start] or self.document.newline
        line = f"{self.key}={value}"
        if next_start == anchor_end:  # the last line, without a line break
            result = self._splice(anchor_end, anchor_end, newline + line)
            at = anchor_end + len(newline)
        else:
            result = self._splice(next_start, next_start, line + newline)
            at = next_start
        return result, _Expected(added_after=number, line=(at, at + len(line)), sync=self._body_start())

    def _body_start(self) -> tuple[tuple[int, bool], tuple[int, bool]]:
        """Where each reader reads on from for sure before the written line (large files: where :meth:`_across`
        got to; the same in the text after the write, which adds after it)."""
        if self.small:
            return (0, True), (0, True)
        return self._syncs[IniReader.ENGINE], self._syncs[IniReader.UBT]

    def _new_section_line(self) -> int:
        text = self.text
        if not text:
            return 2
        count = self.document.line_count
        blank = 1 if _last_line(text).strip() else 0
        return count + blank + 2

    def _add_section(self, value: str) -> tuple[bytes, _Expected]:
        text = self.text
        newline = self.document.newline
        ends_with_break = bool(text) and text[-1] in "\r\n"
        prefix = ""
        if text and not ends_with_break:
            prefix += newline
        if text and _last_line(text).strip():
            prefix += newline
        addition = f"{prefix}[{self.section}]{newline}{self.key}={value}"
        if ends_with_break or not text:
            addition += newline
        header_at = len(text) + len(prefix)
        at = header_at + len(f"[{self.section}]{newline}")
        result = self._splice(len(text), len(text), addition)
        ubt_sync = (0, True)
        if not text.rstrip(" \t\r\n").endswith("\\"):
            # UnrealBuildTool joins a line to the one before only after a backslash (blank lines too, after one):
            # without one the new header starts a line, and the reading of the written line starts there
            ubt_sync = (header_at, True)
        return result, _Expected(
            new_section=True, line=(at, at + len(f"{self.key}={value}")), sync=((0, True), ubt_sync)
        )

    def _splice(self, start: int, end: int, replacement: str) -> bytes:
        """The original bytes with the text between two offsets replaced: every other byte is kept as it was."""
        document = self.document
        codec, bom = document.encoding.codec, document.encoding.bom
        byte_start = len(bom) + len(document.text[:start].encode(codec))
        byte_end = byte_start + len(document.text[start:end].encode(codec))
        return document.data[:byte_start] + replacement.encode(codec) + document.data[byte_end:]

    # Reading the result again -------------------------------------------------------------------------------------

    def _check(self, result: bytes, value: str, expected: _Expected) -> None:
        """Read the result with both readers: the key has the value, and every other line reads as before.

        In a large file whose written line reads alone (:meth:`_reads_alone`) in the section, as the last line of
        the key there in both readers, and without ``@`` struct keys, both readers read the value from it (a plain
        line is the last value for the engine, every value for UnrealBuildTool): it is not read again."""
        try:
            after = parse_ini(result, self.path)
        except IniError as exc:  # pragma: no cover - the checks above keep the bytes decodable
            raise IniError(f"{self.path}: writing {value!r} would leave a file Unreal cannot read: {exc}") from exc
        line = self.target_line()
        if self.small:
            alone = [_signature(after, reader) == expected.signature(self, reader, value) for reader in IniReader]
        else:
            alone = [self._reads_alone(after.text, reader, value, expected) for reader in IniReader]
        later = expected.added_after is not None and any(
            found.entry.line > expected.added_after for found in (self.engine_line, self.ubt_line) if found is not None
        )  # a reader's section runs on past the other's header, with lines of the key after the written one
        if self.small or not all(alone) or self.structs or expected.new_section or self._section_changes or later:
            for reader, name in ((IniReader.ENGINE, "the engine"), (IniReader.UBT, "UnrealBuildTool")):
                got = after.get(self.section, self.key, reader=reader)
                if got != value:
                    raise IniError(f"{self.path}: line {line}: cannot write {value!r}: {name} would read {got!r}")
        for reader, same in zip(IniReader, alone, strict=True):
            if not same:
                raise IniError(
                    f"{self.path}: line {line}: writing {value!r} would change how Unreal reads other lines "
                    f"({reader.value} reader); nothing was written"
                )

    def _reads_alone(self, new: str, reader: IniReader, value: str, expected: _Expected) -> bool:
        """A large file: the written line reads as one line of its own, the key and the value, from its first
        character to its line break. A reader decides where a line ends from its characters up to its line break
        (a character after it at most, the break); the text before the written line is as it was, so its lines
        read as before and end where they ended; the written line then starts where a line started before (a line
        running on into its place would have taken it in), and after its line break the next line starts where
        the one there started, with the same text after it: every other line reads as it did."""
        start, end = expected.line
        if new[end : end + 1] not in ("\r", "\n", ""):
            return False
        sync, open_section = expected.sync[0 if reader is IniReader.ENGINE else 1]
        if reader is IniReader.ENGINE:
            found = ini_scan.engine_line_across(new, sync, start).line
            if found is None or found[:2] != (start, end):
                return False
            parsed = ini_scan.engine_parse(found[2])
            return parsed is not None and parsed.header is None and _is_the_line(parsed, self.key, value)
        across = ini_scan.ubt_line_across(new, sync, start, open_section)
        if across.line is None or across.line[:2] != (start, end) or not across.open:
            return False
        parsed_ubt = ini_scan.ubt_parse(across.line[2])
        return parsed_ubt is not None and not parsed_ubt.resets and _is_the_line(parsed_ubt, self.key, value)


def _is_the_line(parsed: ini_scan.EngineLine | ini_scan.UbtLine, key: str, value: str) -> bool:
    return parsed.action == "" and parsed.key.lower() == key.lower() and parsed.value == value


@dataclass(frozen=True, slots=True)
class _Expected:
    """What the file should read as after a write, relative to before it."""

    edited_line: int | None = None
    added_after: int | None = None
    new_section: bool = False
    line: tuple[int, int] = (0, 0)
    """Where the written line starts and ends in the new text (before its line break)."""
    sync: tuple[tuple[int, bool], tuple[int, bool]] = ((0, True), (0, True))
    """Where the engine and UnrealBuildTool read on from for sure before it, and whether the section is open there
    (large files)."""

    def signature(self, writer: _Writer, reader: IniReader, value: str) -> tuple[object, ...]:
        before = writer.document._reading(reader)
        entries = [_entry_signature(entry) for entry in before.entries]
        headers = [header.name.lower() for header in before.headers]
        added = (writer.section.lower(), IniAction.SET, writer.key.lower(), value)
        if self.edited_line is not None:
            entries = [
                (*signature[:3], value) if entry.line == self.edited_line else signature
                for entry, signature in zip(before.entries, entries, strict=True)
            ]
        elif self.added_after is not None:
            at = sum(1 for entry in before.entries if entry.last_line <= self.added_after)
            entries.insert(at, added)
        else:
            entries.append(added)
            headers.append(writer.section.lower())
        return (tuple(entries), tuple(headers))


def _entry_signature(entry: IniEntry) -> tuple[str, IniAction, str, str]:
    return (entry.section.lower(), entry.action, entry.key.lower(), entry.value)


def _signature(document: IniDocument, reader: IniReader) -> tuple[object, ...]:
    reading = document._reading(reader)
    return (
        tuple(_entry_signature(entry) for entry in reading.entries),
        tuple(header.name.lower() for header in reading.headers),
    )


# Places in the text ---------------------------------------------------------------------------------------------------

_CONTENT_LINE = r"(?s:.*)(?<![^\r\n])(?P<line>)[^\S\r\n]*+(?!;|//)\S"
"""The last physical line (from a line's start, up to the end given) that is not blank or a comment: Python's
``strip`` takes what ``\\s`` takes; the greedy ``.*`` backtracks from the end in C."""


def _last_content_line(text: str, start: int, stop: int) -> int:
    """Where the last physical line in ``[start, stop)`` (``start`` a line's start, ``stop`` one or the end) that
    is not blank or a comment starts, or -1: a few lines looked at from the end, then the pattern (a section may
    end in many blank lines)."""
    end = stop
    for _ in range(64):
        if end <= start:
            return -1
        if end < len(text) or text.endswith(("\r", "\n")):
            end -= 2 if end - 2 >= start and text.startswith("\r\n", end - 2) else 1  # the line break before it
        line = max(_line_start(text, end), start)
        stripped = text[line:end].strip()
        if stripped and not stripped.startswith((";", "//")):
            return line
        end = line
    found = re.compile(_CONTENT_LINE).match(text, start, end)  # compiled once (re keeps it)
    return found.start("line") if found is not None else -1


def _line_start(text: str, offset: int) -> int:
    """Where the physical line holding ``offset`` starts."""
    return max(text.rfind("\r", 0, offset), text.rfind("\n", 0, offset)) + 1


def _next_line(text: str, end: int) -> int:
    """Where the line after the line break at ``end`` starts (CRLF is one break)."""
    if text.startswith("\r\n", end):
        return end + 2
    return end + 1 if end < len(text) else end


def _last_line(text: str) -> str:
    """The last physical line, without its line break."""
    end = len(text)
    if text.endswith("\r\n"):
        end -= 2
    elif text.endswith(("\r", "\n")):
        end -= 1
    return text[_line_start(text, end) : end]


class _LineCounter:
    """Physical line numbers of rising offsets, each counted from the one before."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def of(self, offset: int) -> int:
        if offset < self.offset:
            self.offset, self.line = 0, 1
        self.line = line_number(self.text, offset, self.offset, self.line)
        self.offset = offset
        return self.line


def _last_of(run: ini_scan.Run, text: str, reader: IniReader) -> tuple[str, str, int, int]:
    """A run's last line of the key: its prefix, its value, where it starts and where its text ends."""
    if isinstance(run, ini_scan.Copies):
        start = run.start + (run.times - 1) * run.unit
        return run.action, run.value, start, start + run.length
    last = None
    for found in run.pattern.finditer(text, run.start, run.end):
        if run.added or found.group(2) or (run.pattern.groups > 3 and found.group(5)):
            last = found
    assert last is not None
    end = last.end()
    while end > last.start() and text[end - 1] in "\r\n|":
        end -= 1
    if run.added:
        return "+", last.group(1), last.start(), end
    if reader is IniReader.UBT and last.group(5):
        return "!", "", last.start(), end
    value = last.group(3)
    if reader is IniReader.UBT and len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return last.group(1), value, last.start(), end
