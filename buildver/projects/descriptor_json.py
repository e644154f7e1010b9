"""Unreal's descriptor JSON (``.uplugin``, ``.uproject``) read as Unreal reads it: keys without regard to case (a
repeated key: Unreal 5 the first, Unreal 4 the last), trailing commas allowed, comments not; UTF-8 or UTF-16 with its
byte-order mark (``docs/project-rules.md`` §2)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from buildver.errors import DescriptorError

__all__ = [
    "LATEST_DESCRIPTOR_FILE_VERSION",
    "entries",
    "file_version",
    "json_type",
    "read_object",
    "read_objects",
    "string_field",
]

LATEST_DESCRIPTOR_FILE_VERSION = 3
"""EPluginDescriptorVersion::Latest and EProjectDescriptorVersion::Latest (ProjectPluginUnification) in 4.x and 5.x."""


class _Keys:
    """Folds each JSON object's keys to lower case, as Unreal looks every key up case-insensitively, keeping the
    first (Unreal 5: RapidJSON's FindMemberCaseInsensitive) or the last (Unreal 4: FJsonObject's map) of keys that
    fold alike, and remembers which keys came more than once."""

    def __init__(self, keep_last: bool) -> None:
        self.keep_last = keep_last
        self.repeated: dict[str, list[object]] = {}

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        result: dict[str, object] = {}
        for key, value in pairs:
            folded = key.lower()
            if folded in result:
                self.repeated.setdefault(key, [result[folded]]).append(value)
                if not self.keep_last:
                    continue
            result[folded] = value
        return result


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(?=[ \t\n\r]*[\]}])', re.DOTALL)


def _blank_trailing_commas(text: str) -> str:
    """The text with each comma before a closing bracket turned into a space (positions stay the same).

    Unreal 5 parses descriptors with RapidJSON's trailing-comma flag; an empty ``{,}`` or ``[,]`` stays an error.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group()
        if token != ",":
            return token
        before = text[: match.start()].rstrip(" \t\n\r")
        return token if before.endswith(("{", "[", ",")) else " "

    return _STRING_OR_TRAILING_COMMA.sub(replace, text) if "," in text else text


def _decode(data: bytes, path: str) -> str:
    """The text of a descriptor as FFileHelper::LoadFileToString reads it: UTF-8, or UTF-16 with its byte-order mark."""
    if not data.strip():
        raise DescriptorError(f"{path}: the file is empty")
    try:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DescriptorError(f"{path}: byte {exc.start}: the file is not UTF-8 ({exc.reason})") from None


def read_object(data: bytes, path: str) -> dict[str, object]:
    """The descriptor's JSON object as Unreal 5 reads it (of keys that fold alike, the first)."""
    return read_objects(data, path)[0]


def read_objects(data: bytes, path: str) -> tuple[dict[str, object], dict[str, object], tuple[str, ...]]:
    """The descriptor's JSON object as Unreal 5 reads it and as Unreal 4 reads it, and a note on each key that
    comes more than once (the two readings differ only then).

    Neither reader refuses a repeated key: 5.x's RapidJSON keeps every member and its case-insensitive lookup finds
    the first; 4.x's FJsonObject keeps the last in its map (``docs/project-rules.md`` §2).
    """
    text = _blank_trailing_commas(_decode(data, path))
    first_keys = _Keys(keep_last=False)
    first = _parse(text, path, first_keys)
    if not first_keys.repeated:
        return first, first, ()
    last = _parse(text, path, _Keys(keep_last=True))
    notes = []
    for key, values in first_keys.repeated.items():
        count = f"{key!r} appears {len(values)} times"
        if all(value == values[0] for value in values):
            notes.append(f"{count}, with the same value each time: Unreal reads it as once")
        else:
            notes.append(
                f"{count} with different values (keys match without regard to case): Unreal 5 reads the first, "
                "Unreal 4 the last"
            )
    return first, last, tuple(notes)


def _parse(text: str, path: str, keys: _Keys) -> dict[str, object]:
    try:
        document = json.loads(text, object_pairs_hook=keys, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise DescriptorError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # NaN, an integer of thousands of digits, nesting Python cannot follow
        raise DescriptorError(f"{path}: not a descriptor ({str(exc) or type(exc).__name__})") from None
    if not isinstance(document, dict):
        raise DescriptorError(f"{path}: expected a JSON object, not {json_type(document)}")
    return document


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return repr(value)


def file_version(document: Mapping[str, object], path: str, legacy_key: str) -> int:
    """FileVersion (or the older spelling), which Unreal requires and checks before anything else."""
    key = "fileversion" if "fileversion" in document else legacy_key.lower()
    if key not in document:
        raise DescriptorError(f"{path}: no FileVersion: Unreal refuses a descriptor without one")
    value = document[key]
    name = "FileVersion" if key == "fileversion" else legacy_key
    if isinstance(value, bool) or not isinstance(value, int):
        raise DescriptorError(f"{path}: {name} must be an integer, not {json_type(value)}")
    if not 1 <= value <= LATEST_DESCRIPTOR_FILE_VERSION:
        raise DescriptorError(
            f"{path}: {name} {value} is not a descriptor version Unreal reads (1 to {LATEST_DESCRIPTOR_FILE_VERSION})"
        )
    return value


def string_field(document: Mapping[str, object], key: str, path: str) -> str:
    """An optional string field; null counts as absent, as in both of Unreal's readers."""
    value = document.get(key.lower())
    if value is None:
        return ""
    if not isinstance(value, str):
        # Unreal 5 turns a number into text and Unreal 4 may not: refuse rather than guess which text.
        raise DescriptorError(f"{path}: {key} must be a string, not {json_type(value)}")
    return value


def string_list(document: Mapping[str, object], key: str, path: str) -> tuple[str, ...]:
    """An optional array of strings (``AdditionalPluginDirectories``): Unreal's TryGetStringArrayField."""
    value = document.get(key.lower())
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DescriptorError(f"{path}: {key} must be an array, not {json_type(value)}")
    for index, entry in enumerate(value):
        if not isinstance(entry, str):
            raise DescriptorError(f"{path}: {key}[{index}] must be a string, not {json_type(entry)}")
    return tuple(value)


def entries(document: Mapping[str, object], key: str, path: str, required: tuple[str, ...]) -> tuple[str, ...]:
    """The names in an optional array of objects (Modules, Plugins), each with the fields Unreal requires."""
    value = document.get(key.lower())
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DescriptorError(f"{path}: {key} must be an array, not {json_type(value)}")
    names = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise DescriptorError(f"{path}: {key}[{index}] must be an object, not {json_type(entry)}")
        for field in required:
            field_value = entry.get(field.lower())
            if field_value is None:
                raise DescriptorError(f"{path}: {key}[{index}] has no {field!r} field, which Unreal requires")
            # Enabled may be a number or a string too: both of Unreal's readers turn those into a bool.
            if isinstance(field_value, (list, dict)) if field == "Enabled" else not isinstance(field_value, str):
                expected = "true or false" if field == "Enabled" else "a string"
                raise DescriptorError(
                    f"{path}: {key}[{index}] {field} must be {expected}, not {json_type(field_value)}"
                )
        name = entry["name"]
        assert isinstance(name, str)
        names.append(name)
    return tuple(names)
