"""Hostile bytes that the Build.version reader accepts: what it read must be what the bytes say.

The other hostile-bytes tests check that only VersionFileError escapes. These check the values when a file is
accepted: every member equals what a second JSON reader (Python's ``json``) finds in the same bytes, the file
renders back byte for byte, and a changed value reads back changed with every other value kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from buildver.errors import VersionFileError
from buildver.versions.build_version import FIELDS, BuildVersion, VersionFile, parse_build_version

DATA = Path(__file__).parents[1] / "data" / "build_version"
LAYOUTS = sorted(DATA.glob("*.version"))
FILE = Path("Build/Build.version")


def parse_or_error(data: bytes) -> VersionFile | VersionFileError:
    try:
        return parse_build_version(data, FILE)
    except VersionFileError as error:
        return error


def plain_json(data: bytes) -> dict[str, Any] | None:
    """The members as Python's json reads them, or None where it cannot stand as a second reader: bytes it
    refuses, or a member named twice (the two readers may keep different ones)."""
    pairs_seen: list[list[tuple[str, Any]]] = []

    def keep(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        pairs_seen.append(pairs)
        return dict(pairs)

    try:
        text = data.decode("utf-8-sig")
        document = json.loads(text, object_pairs_hook=keep)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    top_keys = [key.casefold() for key, _ in pairs_seen[-1]]
    if len(top_keys) != len(set(top_keys)):
        return None
    return {key.casefold(): value for key, value in document.items()}


def check_values_are_the_bytes(data: bytes, version_file: VersionFile) -> None:
    """Every value read is the one in the bytes, and the file renders back unchanged."""
    assert version_file.render() == data
    members = plain_json(data)
    if members is None:
        return
    record = version_file.record
    for field in FIELDS:
        value = members.get(field.name.casefold())
        got = getattr(record, field.attribute)
        if value is None:
            continue
        if field.kind == "flag" and type(value) is int:
            assert got is (value != 0), field.name
        elif (field.kind in ("component", "changelist") and type(value) is int) or (
            field.kind == "string" and isinstance(value, str)
        ):
            assert got == value, field.name


def check_an_edit_reads_back(version_file: VersionFile) -> None:
    """A changed changelist reads back changed, and nothing else moves."""
    record = version_file.record
    edited = record.replace(changelist=(record.changelist + 1) % 2**31)
    reread = parse_build_version(version_file.render(edited), FILE).record
    assert reread == edited
    assert isinstance(reread, BuildVersion)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_accepted_are_read_as_a_json_reader_reads_them(data: bytes) -> None:
    result = parse_or_error(data)
    if isinstance(result, VersionFile):
        check_values_are_the_bytes(data, result)
        check_an_edit_reads_back(result)


@st.composite
def mutated_layouts(draw: st.DrawFn) -> bytes:
    """A historical Build.version with one to four bytes replaced, deleted or inserted, digits most often."""
    mutated = bytearray(draw(st.sampled_from(LAYOUTS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(mutated) - 1))
        action = draw(st.sampled_from(["replace", "delete", "insert"]))
        byte = draw(st.sampled_from(b'0123456789-+."\\ ,:{}eE') | st.integers(0, 255))
        if action == "replace":
            mutated[position] = byte
        elif action == "delete":
            del mutated[position]
        else:
            mutated.insert(position, byte)
    return bytes(mutated)


@settings(max_examples=400, deadline=None)
@given(mutated_layouts())
def test_mutated_files_accepted_are_read_as_a_json_reader_reads_them(data: bytes) -> None:
    result = parse_or_error(data)
    if isinstance(result, VersionFile):
        check_values_are_the_bytes(data, result)
        check_an_edit_reads_back(result)


@given(
    st.sampled_from(LAYOUTS),
    st.sampled_from([field for field in FIELDS if field.kind != "string"]),
    st.integers(0, 2**31 - 1),
)
def test_a_number_written_into_a_real_file_is_the_number_read(layout: Path, field: Any, number: int) -> None:
    """Each number member of each historical layout replaced by any number in its range reads as that number."""
    document = json.loads(layout.read_bytes().decode("utf-8-sig"))
    limit = 65535 if field.kind == "component" else 2**31 - 1
    number = number % (limit + 1)
    original = layout.read_bytes()
    if field.name not in document:
        return
    old = json.dumps(document[field.name]).encode()
    at = original.index(f'"{field.name}"'.encode())
    value_at = original.index(old, at + len(field.name) + 2)
    data = original[:value_at] + str(number).encode() + original[value_at + len(old) :]
    result = parse_build_version(data, FILE)
    expected: object = (number != 0) if field.kind == "flag" else number
    assert getattr(result.record, field.attribute) == expected
    check_values_are_the_bytes(data, result)
