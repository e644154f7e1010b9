"""Hostile bytes that the package reader accepts: the versions it reports must be the bytes at their offsets.

The other hostile-bytes tests (``test_package.py``) check that only PackageFormatError escapes. These check the
values of every summary a mutated or random header still gives: LegacyFileVersion, FileVersionUE4/UE5, the
licensee version, the SavedHash, TotalHeaderSize and the optimized custom versions are read from the offsets the
reference's table gives (``docs/package-rules.md`` section 2), computed here without the reader; and the file read
from disk gives the same answer as its bytes in memory.
"""

from __future__ import annotations

import random
import struct
import tempfile
from pathlib import Path

import pytest
from helpers import real_samples
from hypothesis import given, settings
from hypothesis import strategies as st
from package_builder import CORE, ERAS, FOLIAGE, CustomVersionEntry

from buildver.errors import PackageFormatError
from buildver.packages.reader import parse_package_summary, read_package_summary
from buildver.packages.summary import PackageSummary

TAG_LITTLE = b"\xc1\x83\x2a\x9e"
NEWEST_KNOWN_LEGACY = -9
SAVED_HASH_UE5 = 1016


def parse_or_error(data: bytes) -> PackageSummary | PackageFormatError:
    try:
        return parse_package_summary(data, "fuzz.uasset")
    except PackageFormatError as error:
        return error


def check_versions_are_the_bytes(data: bytes, summary: PackageSummary) -> None:
    """The reported versions are the int32s at the offsets the layout gives, in the tag's byte order."""
    order = "<" if data[:4] == TAG_LITTLE else ">"
    assert summary.byte_swapped is (order == ">")

    def i32(at: int) -> int:
        value: int = struct.unpack_from(order + "i", data, at)[0]
        return value

    legacy = i32(4)
    assert summary.legacy_file_version == legacy
    if legacy < NEWEST_KNOWN_LEGACY:  # a newer LegacyFileVersion: nothing after it is read
        assert (summary.file_version_ue4, summary.file_version_ue5, summary.file_version_licensee) == (0, 0, 0)
        assert summary.newer_format is not None
        return
    at = 8 if legacy == -4 else 12  # LegacyUE3Version is absent in -4 only
    ue4 = i32(at)
    ue5 = i32(at + 4) if legacy <= -8 else 0
    licensee = i32(at + 8 if legacy <= -8 else at + 4)
    assert summary.file_version_ue4 == ue4
    assert summary.file_version_ue5 == ue5
    assert summary.file_version_licensee == licensee
    after_versions = at + (12 if legacy <= -8 else 8)
    if summary.total_header_size is not None:
        assert 0 < summary.total_header_size <= len(data)
    unversioned = ue4 == ue5 == licensee == 0
    saved_hash_layout = ue5 >= SAVED_HASH_UE5 or (unversioned and legacy <= -9)
    custom_at = after_versions
    if saved_hash_layout and (summary.total_header_size is not None or summary.saved_hash is not None):
        if not unversioned:
            assert summary.saved_hash == data[after_versions : after_versions + 20]
        assert summary.total_header_size == i32(after_versions + 20)
        custom_at = after_versions + 24
    elif not unversioned and summary.newer_format is None:
        assert summary.saved_hash is None
    if legacy <= -6 and summary.total_header_size is not None:
        # The optimized container: a count, then a GUID (four uint32) and an int32 version per entry.
        count = i32(custom_at)
        entries = [struct.unpack_from(order + "4Ii", data, custom_at + 4 + 20 * n) for n in range(count)]
        expected = [
            (f"{a:08X}-{b >> 16:04X}-{b & 0xFFFF:04X}-{c >> 16:04X}-{c & 0xFFFF:04X}{d:08X}", v)
            for a, b, c, d, v in entries
        ]
        assert [(c.guid, c.version) for c in summary.custom_versions] == expected
        if not saved_hash_layout:
            assert summary.total_header_size == i32(custom_at + 4 + 20 * count)


def check_file_reads_as_bytes(data: bytes, outcome: PackageSummary | PackageFormatError) -> None:
    """The file on disk reads exactly as its bytes in memory: the same summary, or the same error."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.uasset"
        path.write_bytes(data)
        try:
            from_file: PackageSummary | PackageFormatError = read_package_summary(path)
        except PackageFormatError as error:
            from_file = error
    if isinstance(outcome, PackageSummary):
        assert from_file == outcome
    else:
        assert isinstance(from_file, PackageFormatError)
        assert (from_file.offset, from_file.reason) == (outcome.offset, outcome.reason)


def _samples() -> list[tuple[str, bytes]]:
    samples = [(f"synthetic{era}", package.build()) for era, package in ERAS.items()]
    samples += [
        ("synthetic-1016", ERAS["-9"].with_(file_version_ue5=1016).build()),
        ("synthetic-be-1017", ERAS["-9"].with_(file_version_ue5=1017, big_endian=True).build()),
        (
            "synthetic-3-custom",
            ERAS["-8"].with_(custom_versions=(CustomVersionEntry(CORE, 4), CustomVersionEntry(FOLIAGE, 9))).build(),
        ),
    ]
    return samples + real_samples(per_format=1)


SAMPLES = _samples()


@pytest.mark.parametrize(("name", "data"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_every_sample_reads_its_versions_from_their_offsets(name: str, data: bytes) -> None:
    summary = parse_package_summary(data, name)
    check_versions_are_the_bytes(data, summary)


@pytest.mark.parametrize(("name", "data"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_mutated_headers_accepted_report_the_bytes_at_their_offsets(name: str, data: bytes) -> None:
    rng = random.Random(f"buildver-values-{name}")
    header_end = parse_package_summary(data).total_header_size
    assert header_end is not None
    extremes = [0, 1, -1, 2**31 - 1, -(2**31), 213, 214, 522, 523, 1015, 1016, 1018, 1019, -8, -9, -10]
    accepted = 0
    for trial in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(min(header_end, 64) if trial % 2 else header_end)
            if rng.random() < 0.5:
                mutated[at] = rng.randrange(256)
            else:
                at -= at % 4
                struct.pack_into("<i" if data[:4] == TAG_LITTLE else ">i", mutated, at, rng.choice(extremes))
        outcome = parse_or_error(bytes(mutated))
        if isinstance(outcome, PackageSummary):
            accepted += 1
            check_versions_are_the_bytes(bytes(mutated), outcome)
        if trial % 30 == 0:
            check_file_reads_as_bytes(bytes(mutated), outcome)
    # The check must have run: many mutations (in the filler, the names) leave a readable package.
    assert accepted > 0


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([TAG_LITTLE, TAG_LITTLE[::-1]]),
    st.integers(-11, -1),
    st.lists(st.sampled_from([0, 1, 214, 522, 1015, 1016, 1018, 2**31 - 1, -1]), min_size=3, max_size=10),
    st.binary(max_size=300),
)
def test_arbitrary_headers_accepted_report_the_bytes_at_their_offsets(
    tag: bytes, legacy: int, numbers: list[int], rest: bytes
) -> None:
    order = "<" if tag == TAG_LITTLE else ">"
    data = tag + struct.pack(order + "i", legacy) + b"".join(struct.pack(order + "i", n) for n in numbers) + rest
    outcome = parse_or_error(data)
    if isinstance(outcome, PackageSummary):
        check_versions_are_the_bytes(data, outcome)
