"""ORACLE ONLY: a frozen copy of buildver/projects/ini_edit.py at 00b120b (over ``ini_oracle``, the reader before
issue 30 item 3), the reference test_ini_differential.py compares the editor against. Never imported by buildver;
do not edit.

Unreal's config files edited in place: one key's value, every other byte kept.

:func:`with_value` edits only a key set by one plain ``Key=Value`` line that both of Unreal's readers read alike
(``buildver.projects.unreal_ini``): its value bytes change, nothing else (encoding, BOM, line endings, comments,
order, spacing and quoting stay). An absent key gets ``Key=Value`` at the end of the section's last occurrence, an
absent section is added at the end of the file. A value either reader would read differently is refused, and the
result is read again by both readers and compared before it is returned. ``docs/game-rules.md`` has the rules.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ini_oracle import (
    CPP_SPACE,
    IniAction,
    IniDocument,
    IniEntry,
    IniError,
    IniReader,
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


class _Writer:
    """One planned write of one key, and its checks."""

    def __init__(self, document: IniDocument, section: str, key: str) -> None:
        self.document = document
        self.section = section
        self.key = key
        self.path = document.path
        self.engine_lines = self._key_entries(IniReader.ENGINE)
        self.ubt_lines = self._key_entries(IniReader.UBT)

    def _key_entries(self, reader: IniReader) -> list[IniEntry]:
        section, key = self.section.lower(), self.key.lower()
        return [
            entry
            for entry in self.document.entries(reader)
            if entry.section.lower() == section and entry.key.lower() == key
        ]

    def target_line(self) -> int:
        edited = self._edited_entry()
        if edited is not None:
            return edited.line
        anchor = self._anchor_line()
        if anchor is not None:
            return anchor + 1
        return self._new_section_line()

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
            anchor = self._anchor_line()
            result, expected = self._append(anchor, value) if anchor is not None else self._add_section(value)
        self._check(result, value, expected)
        return result

    def _edited_entry(self) -> IniEntry | None:
        """The one plain line both readers take the key's value from; None when the key has no value to edit."""
        lines = [*self.engine_lines, *self.ubt_lines]
        if not lines:
            return None
        document = self.document
        no_values = not any(
            document.get_all(self.section, self.key, reader=reader) for reader in (IniReader.ENGINE, IniReader.UBT)
        )
        if no_values:
            return None  # every value removed or cleared: a new line at the end of the section sets it
        engine, ubt = self.engine_lines[-1:], self.ubt_lines[-1:]
        if (
            engine
            and ubt
            and engine[0].action is ubt[0].action is IniAction.SET
            and engine[0].line == ubt[0].line == engine[0].last_line == ubt[0].last_line
            and all(entry.action is not IniAction.STRUCT_KEY for entry in self.engine_lines)
        ):
            return engine[0]
        line = max(entry.line for entry in lines)
        raise IniError(
            f"{self.path}: line {line}: {self.key} is also set by '+', '-', '.', '!', '@' or continued lines, "
            "or read differently by the engine and UnrealBuildTool: buildver edits only a key set by one "
            "plain Key=Value line"
        )

    def _edit(self, entry: IniEntry, value: str) -> tuple[bytes, _Expected]:
        document = self.document
        ubt = self.ubt_lines[-1]
        line_start = document.line_starts[entry.line - 1]
        content = document.physical_line(entry.line)
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
        return result, _Expected(edited_line=entry.line)

    def _anchor_line(self) -> int | None:
        """The last line of the section's last occurrence that is not blank or a comment; None without the section."""
        document = self.document
        name = self.section.lower()
        engine = [h.line for h in document.engine.headers if h.name.lower() == name]
        ubt = [h.line for h in document.ubt.headers if h.name.lower() == name]
        if not engine and not ubt:
            return None
        if not engine or not ubt or engine[-1] != ubt[-1]:
            line = (engine or ubt)[-1]
            raise IniError(
                f"{self.path}: line {line}: the engine and UnrealBuildTool do not agree where section "
                f"[{self.section}] is: buildver does not add {self.key} to it"
            )
        header = engine[-1]
        following = [h.line for h in (*document.engine.headers, *document.ubt.headers) if h.line > header]
        stop = min(following, default=len(document.line_starts) + 1)
        anchor = header
        for number in range(header + 1, stop):
            stripped = document.physical_line(number).strip()
            if stripped and not stripped.startswith((";", "//")):
                anchor = number
        for entry in (*document.engine.entries, *document.ubt.entries):
            if entry.line <= anchor <= entry.last_line:
                anchor = max(anchor, entry.last_line)
        return anchor

    def _append(self, anchor: int, value: str) -> tuple[bytes, _Expected]:
        document = self.document
        starts = document.line_starts
        anchor_end = starts[anchor - 1] + len(document.physical_line(anchor))
        next_start = starts[anchor] if anchor < len(starts) else len(document.text)
        newline = document.text[anchor_end:next_start] or document.newline
        text = f"{self.key}={value}"
        if next_start == anchor_end:  # the last line, without a line break
            result = self._splice(anchor_end, anchor_end, newline + text)
        else:
            result = self._splice(next_start, next_start, text + newline)
        return result, _Expected(added_after=anchor)

    def _new_section_line(self) -> int:
        document = self.document
        if not document.text:
            return 2
        count = len(document.line_starts)
        blank = 1 if document.physical_line(count).strip() else 0
        return count + blank + 2

    def _add_section(self, value: str) -> tuple[bytes, _Expected]:
        document = self.document
        text = document.text
        newline = document.newline
        ends_with_break = bool(text) and text[-1] in "\r\n"
        prefix = ""
        if text and not ends_with_break:
            prefix += newline
        if text and document.physical_line(len(document.line_starts)).strip():
            prefix += newline
        addition = f"{prefix}[{self.section}]{newline}{self.key}={value}"
        if ends_with_break or not text:
            addition += newline
        return self._splice(len(text), len(text), addition), _Expected(new_section=True)

    def _splice(self, start: int, end: int, replacement: str) -> bytes:
        """The original bytes with the text between two offsets replaced: every other byte is kept as it was."""
        document = self.document
        codec, bom = document.encoding.codec, document.encoding.bom
        byte_start = len(bom) + len(document.text[:start].encode(codec))
        byte_end = byte_start + len(document.text[start:end].encode(codec))
        return document.data[:byte_start] + replacement.encode(codec) + document.data[byte_end:]

    def _check(self, result: bytes, value: str, expected: _Expected) -> None:
        """Read the result with both readers: the key has the value, and every other line reads as before."""
        try:
            after = parse_ini(result, self.path)
        except IniError as exc:  # pragma: no cover - the checks above keep the bytes decodable
            raise IniError(f"{self.path}: writing {value!r} would leave a file Unreal cannot read: {exc}") from exc
        line = self.target_line()
        for reader, name in ((IniReader.ENGINE, "the engine"), (IniReader.UBT, "UnrealBuildTool")):
            got = after.get(self.section, self.key, reader=reader)
            if got != value:
                raise IniError(f"{self.path}: line {line}: cannot write {value!r}: {name} would read {got!r}")
        for reader in IniReader:
            if _signature(after, reader) != expected.signature(self, reader, value):
                raise IniError(
                    f"{self.path}: line {line}: writing {value!r} would change how Unreal reads other lines "
                    f"({reader.value} reader); nothing was written"
                )


@dataclass(frozen=True, slots=True)
class _Expected:
    """What the file should read as after a write, relative to before it."""

    edited_line: int | None = None
    added_after: int | None = None
    new_section: bool = False

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
