"""A flat JSON object read with the position of every member, so that values can be replaced in place.

Build.version files are written by several tools (UBT with tabs, UnrealGameSync with 2 spaces, ue4-docker
with 4), on Windows and Linux. Editing them by position keeps everything the caller did not change: key order
and spelling, unknown keys, indentation, separators, line endings, a BOM and the final newline.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile each field's annotation text into
# a ForwardRef at import, which every command pays (benchmarks/bench_core.py, import time).

import json
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["JsonLayout", "JsonLayoutError", "Member", "encode_string", "line_and_column", "parse_object"]

_WHITESPACE = " \t\n\r"
_BOM = "\ufeff"


def line_and_column(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of the character at ``index``."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


class JsonLayoutError(ValueError):
    """Malformed JSON; ``position`` is the character index of the fault in the text (after any BOM)."""

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.line, self.column = line_and_column(text, position)


# NamedTuples rather than dataclasses: equally immutable, and five times cheaper to create at import, which
# every command that reads Build.version pays (benchmarks/bench_core.py).
class Member(NamedTuple):
    """One ``"key": value`` of the top-level object, with the character spans of its key and value."""

    key: str
    value: object
    key_start: int
    key_end: int
    value_start: int
    value_end: int


class JsonLayout(NamedTuple):
    """The text of a JSON object and the style it is written in."""

    text: str
    members: tuple[Member, ...]
    bom: bool
    newline: str
    indent: str
    separator: str
    """Between a key and its value, e.g. ``": "``."""
    member_separator: str
    """Between one member and the next, e.g. ``",\n\t"`` or ``", "`` in a one-line file."""
    object_start: int
    """Index just after the opening ``{``."""


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r} in a nested object")
        result[key] = value
    return result


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_refuse_duplicates)
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _message(error: json.JSONDecodeError) -> str:
    # The standard library's messages read "Invalid control character at"; drop the dangling word.
    return error.msg.lower().removesuffix(" at")


def _skip_whitespace(text: str, index: int) -> int:
    length = len(text)
    while index < length and text[index] in _WHITESPACE:
        index += 1
    return index


def _expect(text: str, index: int, what: str) -> str:
    if index >= len(text):
        raise JsonLayoutError(f"unexpected end of file, expected {what}", text, index)
    return text[index]


def _describe(text: str, index: int) -> str:
    return repr(text[index]) if index < len(text) else "end of file"


def parse_object(text: str) -> JsonLayout:
    """Parse ``text`` (a whole file, BOM allowed) as one JSON object and record where each member is."""
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    index = _skip_whitespace(text, 0)
    if index == len(text):
        raise JsonLayoutError("the file is empty", text, index)
    if text[index] != "{":
        raise JsonLayoutError(f"expected '{{' to open the object, found {_describe(text, index)}", text, index)
    object_start = index + 1
    index = _skip_whitespace(text, object_start)
    members: list[Member] = []
    if _expect(text, index, "a key or '}'") != "}":
        while True:
            if _expect(text, index, "a key in double quotes") != '"':
                found = _describe(text, index)
                raise JsonLayoutError(f"expected a key in double quotes, found {found}", text, index)
            key_start = index
            try:
                key, key_end = _scanstring(text, index + 1)
            except json.JSONDecodeError as exc:
                raise JsonLayoutError(_message(exc), text, exc.pos) from exc
            index = _skip_whitespace(text, key_end)
            if _expect(text, index, "':'") != ":":
                raise JsonLayoutError(f"expected ':' after key {key!r}, found {_describe(text, index)}", text, index)
            value_start = _skip_whitespace(text, index + 1)
            try:
                value, value_end = _DECODER.raw_decode(text, value_start)
            except json.JSONDecodeError as exc:
                raise JsonLayoutError(f"{_message(exc)} in {key!r}", text, exc.pos) from exc
            except (ValueError, RecursionError) as exc:
                raise JsonLayoutError(f"{exc} (key {key!r})", text, value_start) from exc
            members.append(Member(key, value, key_start, key_end, value_start, value_end))
            index = _skip_whitespace(text, value_end)
            separator = _expect(text, index, "',' or '}'")
            if separator == "}":
                break
            if separator != ",":
                raise JsonLayoutError(f"expected ',' or '}}', found {_describe(text, index)}", text, index)
            index = _skip_whitespace(text, index + 1)
    end = _skip_whitespace(text, index + 1)
    if end != len(text):
        raise JsonLayoutError(f"unexpected {_describe(text, end)} after the closing '}}'", text, end)
    newline = "\r\n" if "\r\n" in text else "\n"
    indent = _detect_indent(text, members)
    return JsonLayout(
        text=text,
        members=tuple(members),
        bom=bom,
        newline=newline,
        indent=indent,
        separator=_detect_separator(text, members),
        member_separator=(
            text[members[0].value_end : members[1].key_start] if len(members) > 1 else "," + newline + indent
        ),
        object_start=object_start,
    )


def _detect_indent(text: str, members: list[Member]) -> str:
    if not members:
        return "\t"
    start = members[0].key_start
    line_start = text.rfind("\n", 0, start) + 1
    indent = text[line_start:start]
    return indent if indent.strip(" \t") == "" and "{" not in indent else "\t"


def _detect_separator(text: str, members: list[Member]) -> str:
    if not members:
        return ": "
    return text[members[0].key_end : members[0].value_start]


def encode_string(value: str) -> str:
    """A JSON string as Unreal's JsonWriter escapes it: control characters escaped, non-ASCII kept."""
    parts = ['"']
    for char in value:
        if char == '"':
            parts.append('\\"')
        elif char == "\\":
            parts.append("\\\\")
        elif char in _SHORT_ESCAPES:
            parts.append(_SHORT_ESCAPES[char])
        elif ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            parts.append(f"\\u{ord(char):04X}")
        else:
            parts.append(char)
    parts.append('"')
    return "".join(parts)


_SHORT_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def with_edits(layout: JsonLayout, edits: list[tuple[int, int, str]]) -> str:
    """The layout's text (without BOM) with each ``(start, end, replacement)`` applied; spans must not overlap."""
    pieces: list[str] = []
    position = 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        pieces.append(layout.text[position:start])
        pieces.append(replacement)
        position = end
    pieces.append(layout.text[position:])
    return "".join(pieces)
