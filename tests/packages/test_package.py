"""The package-header reader: real fixtures, synthetic headers of every era, and hostile bytes."""

from __future__ import annotations

import csv
import itertools
import os
import random
import struct
from pathlib import Path

import helpers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from package_builder import CORE, ERAS, FILTER_EDITOR_ONLY, FOLIAGE, CustomVersionEntry, SyntheticPackage

import buildver.packages.reader
from buildver import EngineVersion
from buildver.errors import BuildverError, PackageFormatError
from buildver.packages.object_versions import (
    KNOWN_MAX_FILE_VERSION_UE4,
    KNOWN_MAX_FILE_VERSION_UE5,
    RELEASE_OBJECT_VERSIONS,
    object_versions_for,
)
from buildver.packages.reader import parse_package_summary, read_package_summary
from buildver.packages.summary import CustomVersionFormat, PackageSummary
from buildver.versions.custom_versions import StoredCustomVersion

FIXTURES = helpers.FIXTURES  # the shared real packages (skipped where absent)
MANIFEST = FIXTURES / "MANIFEST.tsv"


def _manifest() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


ROWS = _manifest()
needs_fixtures = pytest.mark.skipif(not ROWS, reason=f"the fixtures are absent ({FIXTURES})")


def parse(package: SyntheticPackage) -> PackageSummary:
    return parse_package_summary(package.build(), "synthetic.uasset")


def V(text: str) -> EngineVersion:
    return EngineVersion.parse(text)


class TestFixtures:
    """Every real package in ../shared/fixtures/uasset reads exactly as MANIFEST.tsv lists it."""

    @needs_fixtures
    @pytest.mark.parametrize("row", ROWS, ids=[row["path"] for row in ROWS])
    def test_reads_as_listed(self, row: dict[str, str]) -> None:
        path = FIXTURES / row["path"]
        size = path.stat().st_size
        if size != int(row["size"]):
            # The shared copy was replaced after the manifest was written (seen on this machine:
            # ue57/Actor.uasset became a text hex dump of another fixture). That is a fault of the copy, not of
            # the reader; test_a_replaced_fixture_is_reported_never_crashes covers how such a file is read.
            pytest.skip(f"{path} is {size} bytes but MANIFEST.tsv lists {row['size']}: not the listed file")
        summary = read_package_summary(path)
        assert summary.legacy_file_version == int(row["LegacyFileVersion"])
        assert summary.file_version_ue4 == int(row["FileVersionUE4"])
        assert summary.file_version_ue5 == int(row["FileVersionUE5"])
        assert summary.file_version_licensee == int(row["Licensee"])
        assert summary.is_unversioned == (row["versioning"] == "unversioned")
        assert len(summary.custom_versions) == int(row["n_custom_versions"])
        assert summary.package_flags == int(row["PackageFlags"], 16)
        assert str(summary.saved_by_engine_version) == row["SavedByEngineVersion"]
        assert str(summary.compatible_with_engine_version) == row["CompatibleWithEngineVersion"]
        assert summary.newer_format is None
        assert not summary.is_cooked
        assert not summary.byte_swapped
        # The release that saved it writes versions at least this new (the table agrees with real saves).
        assert summary.saved_by_engine_version is not None
        assert summary.newer_than(summary.saved_by_engine_version) is None

    @needs_fixtures
    def test_a_replaced_fixture_is_reported_never_crashes(self, tmp_path: Path) -> None:
        # Seen on a shared machine: ue57/Actor.uasset replaced by a text hex dump of another fixture. Such a file,
        # and a real package cut short, read as a clean PackageFormatError naming the file.
        original = (FIXTURES / ROWS[0]["path"]).read_bytes()
        replaced = {
            "hex-dump.uasset": original.hex(" ", 16).encode(),
            "cut-short.uasset": original[:64],
        }
        for name, data in replaced.items():
            path = tmp_path / name
            path.write_bytes(data)
            with pytest.raises(PackageFormatError) as caught:
                read_package_summary(path)
            assert str(caught.value).startswith(f"{path}: byte ")

    @needs_fixtures
    def test_custom_versions_are_sorted_guids_in_unreal_text_form(self) -> None:
        row = next(row for row in ROWS if row["path"].startswith("uasset-rs/UE55/"))
        summary = read_package_summary(FIXTURES / row["path"])
        guids = [entry.guid for entry in summary.custom_versions]
        assert CORE in guids
        assert guids == sorted(guids)  # Unreal sorts by key before saving
        assert all(entry.friendly_name is None for entry in summary.custom_versions)
        assert summary.custom_version_format is CustomVersionFormat.OPTIMIZED

    @needs_fixtures
    def test_reads_more_than_the_first_chunk_when_the_summary_needs_it(self, monkeypatch: pytest.MonkeyPatch) -> None:
        row = next(row for row in ROWS if row["path"].startswith("uasset-rs/UE56/"))
        expected = read_package_summary(FIXTURES / row["path"])
        monkeypatch.setattr(buildver.packages.reader, "HEADER_CHUNK", 40)
        assert read_package_summary(FIXTURES / row["path"]) == expected


class TestListedAsFile:
    """``listed_as_file=True`` (the scan of a tree) skips a stat for short files and changes no outcome."""

    @needs_fixtures
    @pytest.mark.parametrize("chunk", [40, 4096, 64 * 1024])
    def test_every_fixture_reads_the_same(self, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
        monkeypatch.setattr(buildver.packages.reader, "HEADER_CHUNK", chunk)
        for row in ROWS:
            path = FIXTURES / row["path"]
            assert read_package_summary(path, listed_as_file=True) == read_package_summary(path), row["path"]

    @pytest.mark.parametrize("chunk", [64, 64 * 1024])
    def test_truncated_and_empty_files_fail_the_same(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
    ) -> None:
        monkeypatch.setattr(buildver.packages.reader, "HEADER_CHUNK", chunk)
        data = ERAS["-8"].build()
        for length in sorted({0, 3, 4, 31, 40, 64, 65, 200, len(data) - 1, len(data)}):
            path = tmp_path / f"Cut{length}.uasset"
            path.write_bytes(data[:length])
            outcomes: list[PackageSummary | str] = []
            for listed in (False, True):
                try:
                    outcomes.append(read_package_summary(path, listed_as_file=listed))
                except PackageFormatError as error:
                    outcomes.append(str(error))
            assert outcomes[0] == outcomes[1], length

    @pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
    def test_a_fifo_in_place_of_a_listed_file_reads_as_empty_without_waiting(self, tmp_path: Path) -> None:
        fifo = tmp_path / "Pipe.uasset"
        os.mkfifo(fifo)
        with pytest.raises(PackageFormatError, match="the file is 0 bytes"):
            read_package_summary(fifo, listed_as_file=True)

    def test_a_folder_in_place_of_a_listed_file_cannot_be_read(self, tmp_path: Path) -> None:
        with pytest.raises(PackageFormatError, match="cannot read: is a directory"):
            read_package_summary(tmp_path, listed_as_file=True)


class TestPrimitives:
    """FGuid text, FString encodings and FEngineVersion with the licensee bit."""

    def test_guid_is_printed_as_unreal_does_not_as_python_uuid(self) -> None:
        on_disk = bytes.fromhex("3CC15E37FB48E406F08400B57E712A26")  # FCoreObjectVersion, from the reference
        package = ERAS["-7"].with_(custom_versions=(CustomVersionEntry(CORE, 3),))
        assert on_disk in package.build()
        assert parse(package).custom_versions == (StoredCustomVersion(CORE, 3),)

    @pytest.mark.parametrize("big_endian", [False, True])
    def test_utf16_strings(self, big_endian: bool) -> None:
        package = ERAS["-8"].with_(
            utf16=True,
            big_endian=big_endian,
            package_name="/Game/Café/地图",
            saved_by=(5, 5, 4, 40574608, "++UE5+Release-5.5"),
        )
        summary = parse(package)
        assert summary.package_name == "/Game/Café/地图"
        assert summary.saved_by_engine_version == V("5.5.4-40574608+++UE5+Release-5.5")

    def test_one_byte_strings_are_latin1(self) -> None:
        assert parse(ERAS["-7"].with_(package_name="/Game/Café")).package_name == "/Game/Café"

    def test_licensee_bit_is_decoded(self) -> None:
        package = ERAS["-7"].with_(saved_by=(4, 27, 2, 0x80000000 | 1234, "++Studio+Main"))
        saved_by = parse(package).saved_by_engine_version
        assert saved_by == EngineVersion(4, 27, 2, 1234, "++Studio+Main", licensee=True)

    @pytest.mark.parametrize(
        ("ue4", "raw", "expected"),
        [
            # FixCorruptEngineVersion: Set(4, 26, 0, GetChangelist(), GetBranch()) clears the bit, and GetBranch()
            # turns every "+" of the stored branch into "/".
            (521, (4, 26, 0, 0x80000000 | 14830424, "++UE4+Release-4.26"), "4.26.0-14830424+//UE4/Release-4.26"),
            (521, (4, 26, 0, 0x80000000 | 12740027, "+Fork+A+B"), "4.26.0-12740027+/Fork/A/B"),
            (521, (4, 26, 0, 0x80000000 | 12740027, ""), "4.26.0-12740027"),
            # Left alone: from 522 on, below changelist 12740027, another release, or no licensee bit.
            (522, (4, 26, 0, 0x80000000 | 14830424, "++UE4+Release-4.26"), None),
            (521, (4, 26, 0, 0x80000000 | 12740026, "++UE4+Release-4.26"), None),
            (521, (4, 26, 1, 0x80000000 | 14830424, "++UE4+Release-4.26"), None),
            (521, (4, 25, 0, 0x80000000 | 14830424, "++UE4+Release-4.25"), None),
            (521, (4, 26, 0, 14830424, "++UE4+Release-4.26"), None),
        ],
    )
    def test_corrupt_426_licensee_flag_is_fixed_before_522_as_unreal_does(
        self, ue4: int, raw: tuple[int, int, int, int, str], expected: str | None
    ) -> None:
        summary = parse(ERAS["-7"].with_(file_version_ue4=ue4, saved_by=raw, compatible_with=raw))
        major, minor, patch, raw_changelist, branch = raw
        unchanged = EngineVersion.from_raw_changelist(major, minor, patch, raw_changelist, branch)
        for version in (summary.saved_by_engine_version, summary.compatible_with_engine_version):
            assert version is not None
            if expected is None:
                assert version == unchanged
            else:
                assert (version.to_string(), version.licensee) == (expected, False)
                assert version.branch == expected.partition("+")[2]


class TestEras:
    """Synthetic packages of every LegacyFileVersion, in both byte orders."""

    @pytest.mark.parametrize("era", list(ERAS))
    @pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
    def test_each_era_reads_back(self, era: str, big_endian: bool) -> None:
        package = ERAS[era].with_(big_endian=big_endian)
        summary = parse(package)
        assert summary.legacy_file_version == package.legacy_file_version
        assert summary.file_version_ue4 == package.file_version_ue4
        assert summary.file_version_ue5 == package.file_version_ue5
        assert summary.byte_swapped is big_endian
        assert summary.package_name == package.package_name
        assert summary.package_flags == package.package_flags
        assert summary.newer_format is None
        assert len(summary.custom_versions) == len(package.custom_versions)
        assert summary.total_header_size == package.summary_size() + package.body_size

    def test_enum_custom_versions_become_guids_with_the_tag_in_the_last_digits(self) -> None:
        summary = parse(ERAS["-2"])
        assert summary.custom_version_format is CustomVersionFormat.ENUMS
        assert summary.custom_versions == (StoredCustomVersion("00000000-0000-0000-0000-0000F99D40C1", 1),)

    @pytest.mark.parametrize("era", ["-3", "-4", "-5"])
    def test_guid_custom_versions_keep_their_friendly_name(self, era: str) -> None:
        summary = parse(ERAS[era])
        assert summary.custom_version_format is CustomVersionFormat.GUIDS
        assert summary.custom_versions[0].guid == FOLIAGE
        assert summary.custom_versions[0].friendly_name == "FoliageVer"

    def test_legacy_minus_one_has_no_custom_versions(self) -> None:
        summary = parse(ERAS["-3"].with_(legacy_file_version=-1, custom_versions=()))
        assert summary.custom_versions == ()
        assert summary.custom_version_format is None

    @pytest.mark.parametrize(
        ("changelist", "expected"), [(1234567, "4.0.0-1234567"), (0, "0.0.0-0"), (0x80000000 | 5, "4.0.0-5")]
    )
    def test_old_engine_changelist_field(self, changelist: int, expected: str) -> None:
        summary = parse(ERAS["-2"].with_(engine_changelist=changelist))
        assert str(summary.saved_by_engine_version) == expected
        # Before CompatibleWithEngineVersion existed (444) the loader copies SavedByEngineVersion.
        assert summary.compatible_with_engine_version == summary.saved_by_engine_version
        assert summary.saved_by_engine_version is not None
        assert summary.saved_by_engine_version.licensee == bool(changelist & 0x80000000)

    def test_compatible_with_is_copied_before_444(self) -> None:
        summary = parse(ERAS["-5"])
        assert summary.compatible_with_engine_version == V("4.7.5-2517429+++depot+UE4-Releases+4.7")

    def test_saved_hash_layout_of_56(self) -> None:
        package = ERAS["-9"].with_(file_version_ue5=1017, saved_hash=b"\x11" * 20)
        summary = parse(package)
        assert summary.saved_hash == b"\x11" * 20
        assert summary.file_version_ue5 == 1017

    def test_empty_engine_versions(self) -> None:
        summary = parse(ERAS["-7"].with_(saved_by=(0, 0, 0, 0, ""), compatible_with=(0, 0, 0, 0, "")))
        assert summary.saved_by_engine_version == EngineVersion(0, 0, 0)
        assert summary.saved_by_engine_version is not None
        assert not summary.saved_by_engine_version.has_changelist

    def test_additional_packages_and_chunk_ids_are_skipped(self) -> None:
        package = ERAS["-8"].with_(additional_packages_to_cook=("/Game/A", "/Game/B"), chunk_ids=(0, 7, 9))
        assert parse(package).package_name == "/Game/Maps/Entry"


class TestCookedAndUnversioned:
    """Cooked packages drop editor-only fields; unversioned ones store no versions at all."""

    @pytest.mark.parametrize("era", ["-7", "-8", "-9"])
    def test_cooked_versioned_package(self, era: str) -> None:
        package = ERAS[era].with_(
            package_flags=FILTER_EDITOR_ONLY | 0x200 | 0x2000,
            saved_by=(0, 0, 0, 0, ""),
            compatible_with=(0, 0, 0, 0, ""),
            end_tag=False,  # a cooked package ends its tag in the .uexp
        )
        summary = parse(package)
        assert summary.is_cooked
        assert not summary.is_unversioned
        assert summary.saved_by_engine_version == EngineVersion(0, 0, 0)

    @pytest.mark.parametrize("era", ["-7", "-8", "-9"])
    @pytest.mark.parametrize("big_endian", [False, True], ids=["le", "be"])
    def test_unversioned_package(self, era: str, big_endian: bool) -> None:
        package = ERAS[era].with_(
            file_version_ue4=0,
            file_version_ue5=0,
            custom_versions=(),
            package_name="/Game/Maps/Entry",
            package_flags=FILTER_EDITOR_ONLY | 0x2000,
            end_tag=False,
            big_endian=big_endian,
        )
        summary = parse(package)
        assert summary.is_unversioned
        assert summary.is_cooked
        assert summary.package_flags == FILTER_EDITOR_ONLY | 0x2000
        assert summary.package_name == "/Game/Maps/Entry"
        assert summary.saved_by_engine_version is None
        assert summary.compatible_with_engine_version is None
        # Unversioned packages carry no object versions, but their layout still dates them.
        assert (summary.newer_than(V("5.5.4")) is not None) == (era == "-9")

    def test_unversioned_package_whose_layout_is_not_recognized_keeps_the_versions(self) -> None:
        package = ERAS["-8"].with_(file_version_ue4=0, file_version_ue5=0, overrides={"total_header_size": 10**8})
        summary = parse(package)
        assert summary.is_unversioned
        assert summary.package_flags is None
        assert summary.is_cooked  # counted as cooked: unversioned content is cooked content


class TestNewerFormats:
    """A header newer than this reader knows returns what could be read, and says so."""

    def test_legacy_file_version_below_minus_nine(self) -> None:
        data = ERAS["-9"].with_(legacy_file_version=-10).build()
        summary = parse_package_summary(data)
        assert summary.legacy_file_version == -10
        assert summary.newer_format is not None
        assert "-10" in summary.newer_format
        assert not summary.has_file_versions
        assert not summary.is_unversioned
        assert summary.saved_by_engine_version is None
        assert summary.newer_than(V("5.7.0")) is not None
        assert summary.newer_than(V("9.0.0")) is None  # a release the table does not know

    def test_newer_file_version_with_a_known_layout_is_read_fully(self) -> None:
        summary = parse(ERAS["-9"].with_(file_version_ue5=KNOWN_MAX_FILE_VERSION_UE5 + 1))
        assert summary.newer_format is not None
        assert "newest known layout" in summary.newer_format
        assert summary.saved_by_engine_version == V("5.7.1-47537391+++UE5+Release-5.7")

    def test_a_too_new_ue4_save_with_the_known_layout_is_read_fully(self) -> None:
        # UE4 loaders read a too-new summary up to DependsOffset; buildver tries the whole known layout.
        summary = parse(ERAS["-7"].with_(file_version_ue4=KNOWN_MAX_FILE_VERSION_UE4 + 1))
        assert summary.newer_format is not None
        assert "newest known layout" in summary.newer_format
        assert [stored.guid for stored in summary.custom_versions] == [CORE]
        assert summary.package_flags == 0x40000

    @pytest.mark.parametrize("legacy", [-7, -8, -9])
    def test_a_too_new_save_whose_later_fields_changed_keeps_only_its_versions(self, legacy: int) -> None:
        # 5.6+ loaders (-9) leave right after the licensee version, older ones after DependsOffset; buildver
        # relies on neither contract (docs/package-rules.md section 3, gate 7): the whole layout checks out, or
        # only the versions are kept. The compression flags lie after DependsOffset in every layout.
        package = ERAS[str(legacy)].with_(
            file_version_ue4=KNOWN_MAX_FILE_VERSION_UE4 + 1, overrides={"compression_flags": 0x7FFF0000}
        )
        summary = parse_package_summary(package.build())
        assert summary.file_version_ue4 == KNOWN_MAX_FILE_VERSION_UE4 + 1
        assert summary.newer_format is not None
        assert "newest known layout" not in summary.newer_format
        assert summary.custom_versions == ()
        assert summary.package_flags is None

    def test_newer_file_version_with_an_unknown_layout_stops_after_the_versions(self) -> None:
        data = bytearray(ERAS["-9"].with_(file_version_ue4=KNOWN_MAX_FILE_VERSION_UE4 + 1).build())
        data[24:] = b"\xff" * (len(data) - 24)  # whatever a newer engine writes after the licensee version
        summary = parse_package_summary(bytes(data))
        assert (summary.file_version_ue4, summary.file_version_ue5) == (KNOWN_MAX_FILE_VERSION_UE4 + 1, 1018)
        assert summary.newer_format is not None
        assert summary.package_flags is None
        assert summary.saved_by_engine_version is None


class TestReleaseTable:
    """The object versions each engine release writes (the reference's section 8)."""

    def test_table_is_ordered_and_monotonic(self) -> None:
        keys = [(entry.major, entry.minor) for entry in RELEASE_OBJECT_VERSIONS]
        assert keys == sorted(keys)
        for older, newer in itertools.pairwise(RELEASE_OBJECT_VERSIONS):
            assert newer.legacy_file_version <= older.legacy_file_version
            assert newer.file_version_ue4 >= older.file_version_ue4
            assert newer.file_version_ue5 >= older.file_version_ue5

    @pytest.mark.parametrize(
        ("release", "ue4", "ue5"),
        [("4.26.2", 522, 0), ("4.19.0", 516, 0), ("5.0.3", 522, 1004), ("5.7.0", 522, 1018), ("5.8.0", 522, 1018)],
    )
    def test_lookup(self, release: str, ue4: int, ue5: int) -> None:
        entry = object_versions_for(V(release))
        assert entry is not None
        assert (entry.file_version_ue4, entry.file_version_ue5) == (ue4, ue5)

    def test_a_56_package_is_newer_than_55_writes(self) -> None:
        # A 5.6 save: its object versions, and Dev-Core as 5.6 registers it (the era's 5.7 save has a newer one).
        summary = parse(ERAS["-9"].with_(file_version_ue5=1017, custom_versions=(CustomVersionEntry(CORE, 4),)))
        reason = summary.newer_than(V("5.5.4"))
        assert reason is not None
        assert "LegacyFileVersion -9" in reason
        assert summary.newer_than(V("5.6.0")) is None
        assert parse(ERAS["-8"].with_(file_version_ue5=1012)).newer_than(V("5.3.2")) == (
            "FileVersionUE5 1012 is newer than 5.3 writes (1009)"
        )

    @pytest.mark.parametrize(
        ("changes", "reason"),
        [
            ({}, None),
            ({"file_version_ue5": 1019}, "FileVersionUE5 1019 is newer than 5.8 writes (1018)"),
            ({"file_version_ue4": 523}, "FileVersionUE4 523 is newer than 5.8 writes (522)"),
            ({"legacy_file_version": -10}, "LegacyFileVersion -10 is newer than 5.8 writes (-9)"),
        ],
        ids=["as-5.8-writes", "newer-ue5", "newer-ue4", "newer-legacy"],
    )
    def test_a_package_is_checked_against_what_58_writes(self, changes: dict[str, int], reason: str | None) -> None:
        # 5.8's row was read in its source (unicorn2022/UE5.8.0): L -9, V4 522, V5 1018, as 5.7 writes.
        summary = parse_package_summary(ERAS["-9"].with_(**changes).build())
        assert summary.newer_than(V("5.8.0")) == reason


class TestNotAPackage:
    """Files that are something else raise PackageFormatError(not_a_package=True) naming the file."""

    @pytest.mark.parametrize(
        ("data", "reason"),
        [
            (b"[/Script/Engine.Engine]\nZeroEngineVersionWarning=0\n" * 2, "a text file"),
            (struct.pack("<IIII", 1, 80, 0, 0) + bytes(64), "IoStore (Zen)"),
            (struct.pack("<IIII", 0, 80, 0, 0) + bytes(64), "IoStore (Zen)"),
            (b"ACE7" + bytes(64), "encrypted"),
            (struct.pack("<Ii", 0x9E2A83C1, 0x0000_0361 | (7 << 16)) + bytes(64), "Unreal Engine 3 package"),
            (bytes(range(200, 256)) * 2, "starts with 0x"),
        ],
        ids=["text", "zen", "zen0", "ace7", "ue3", "binary"],
    )
    def test_recognised(self, tmp_path: Path, data: bytes, reason: str) -> None:
        path = tmp_path / "Thing.uasset"
        path.write_bytes(data)
        with pytest.raises(PackageFormatError) as caught:
            read_package_summary(path)
        assert caught.value.not_a_package
        assert reason in str(caught.value)
        assert str(caught.value).startswith(f"{path}: byte ")
        assert isinstance(caught.value, BuildverError)
        assert caught.value.exit_code == 1

    @pytest.mark.parametrize("data", [b"", b"\xc1", b"\xc1\x83\x2a\x9e", b"\xc1\x83\x2a\x9e" + bytes(20)])
    def test_a_too_short_package_is_corrupt(self, tmp_path: Path, data: bytes) -> None:
        path = tmp_path / "Short.uasset"
        path.write_bytes(data)
        with pytest.raises(PackageFormatError, match="a package has at least 32") as caught:
            read_package_summary(path)
        assert not caught.value.not_a_package

    def test_a_file_of_zeros_is_corrupt(self) -> None:
        with pytest.raises(PackageFormatError, match="zeros only") as caught:
            parse_package_summary(bytes(4096), "Zeros.uasset")
        assert not caught.value.not_a_package

    def test_a_summary_longer_than_the_limit_is_corrupt(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(buildver.packages.reader, "HEADER_CHUNK", 64)
        monkeypatch.setattr(buildver.packages.reader, "MAX_SUMMARY_SIZE", 100)
        path = tmp_path / "Long.uasset"
        path.write_bytes(ERAS["-7"].with_(package_name="/Game/" + "x" * 200).build())
        with pytest.raises(PackageFormatError, match="would make the summary longer than 100 bytes"):
            read_package_summary(path)

    def test_missing_file_and_folder(self, tmp_path: Path) -> None:
        with pytest.raises(PackageFormatError, match=r"Missing\.uasset: byte 0: cannot read: no such file"):
            read_package_summary(tmp_path / "Missing.uasset")
        with pytest.raises(PackageFormatError, match="cannot read"):
            read_package_summary(tmp_path)


IMPOSSIBLE = [
    ({"custom_version_count": -1}, 0, "the count of custom versions is negative"),
    ({"custom_version_count": 10**6}, 0, "custom versions of 20 bytes or more run past the end"),
    ({"compression_flags": 0x1000}, 0, "invalid compression flags 0x00001000"),
    ({"compressed_chunks": 1}, 0, "package-level compression"),
    ({"name_offset": 7}, 0, "impossible name table"),
    ({"total_header_size": 10**6}, 0, "TotalHeaderSize 1000000 is not between"),
]


class TestImpossibleValues:
    """Headers with impossible values raise PackageFormatError with the byte offset and the reason."""

    @pytest.mark.parametrize(("overrides", "_", "reason"), IMPOSSIBLE, ids=[case[2] for case in IMPOSSIBLE])
    def test_reason(self, overrides: dict[str, int], _: int, reason: str) -> None:
        with pytest.raises(PackageFormatError, match=reason) as caught:
            parse(ERAS["-7"].with_(overrides=overrides))
        assert caught.value.offset > 0
        assert not caught.value.not_a_package

    def test_texture_allocations_must_be_zero(self) -> None:
        with pytest.raises(PackageFormatError, match="NumTextureAllocations is 3, not 0"):
            parse(ERAS["-6"].with_(overrides={"texture_allocations": 3}))

    def test_name_offset_must_be_the_end_of_the_summary_for_epic_builds(self) -> None:
        package = ERAS["-7"]
        shifted = package.with_(overrides={"name_offset": package.summary_size() + 8})
        with pytest.raises(PackageFormatError, match=r"NameOffset \d+ is not where the summary ends"):
            parse(shifted)
        # A licensee build may extend the summary.
        assert parse(shifted.with_(licensee=3)).file_version_licensee == 3

    @pytest.mark.parametrize(("length", "reason"), [(-(2**31), "impossible length"), (2**30, "impossible length")])
    def test_impossible_string_length(self, length: int, reason: str) -> None:
        data = bytearray(ERAS["-7"].build())
        at = 4 * 5 + 4 + 20 + 4  # tag, versions, custom version count, one entry, TotalHeaderSize
        struct.pack_into("<i", data, at, length)
        with pytest.raises(PackageFormatError, match=reason) as caught:
            parse_package_summary(bytes(data), "Bad.uasset")
        assert str(caught.value) == f"Bad.uasset: byte {at}: PackageName has an impossible length ({length})"

    def test_file_version_below_the_oldest_loadable(self) -> None:
        with pytest.raises(PackageFormatError, match="FileVersionUE4 100 is below 214"):
            parse(ERAS["-3"].with_(file_version_ue4=100))

    def test_uncooked_package_must_end_with_the_tag(self) -> None:
        data = ERAS["-8"].build()
        with pytest.raises(PackageFormatError, match="does not end with the package tag") as caught:
            parse_package_summary(data[:-1])
        assert caught.value.offset == len(data) - 5


# -- hostile bytes: truncation and mutation ------------------------------------------------------------------


def _samples() -> list[tuple[str, bytes]]:
    """A few real files per format (when the fixtures are here) and one synthetic package per era."""
    samples = [(f"synthetic{era}", package.build()) for era, package in ERAS.items()]
    samples += [("synthetic-be", ERAS["-8"].with_(big_endian=True, utf16=True).build())]
    seen: set[tuple[str, str, str]] = set()
    for row in ROWS:
        key = (row["LegacyFileVersion"], row["FileVersionUE4"], row["FileVersionUE5"])
        path = FIXTURES / row["path"]
        if key in seen or path.stat().st_size != int(row["size"]):
            continue
        seen.add(key)
        samples.append((row["path"], path.read_bytes()))
    return samples


SAMPLES = _samples()


def _assert_clean_outcome(data: bytes) -> PackageSummary | PackageFormatError:
    """Either a summary or a PackageFormatError that an explicit check raised (not the last-resort net)."""
    try:
        return parse_package_summary(data, "fuzz.uasset")
    except PackageFormatError as exc:
        error = exc
    assert "unexpected bytes" not in error.reason
    return error


class TestHostileBytes:
    """No exception but PackageFormatError ever escapes, whatever the bytes."""

    @pytest.mark.parametrize(("name", "data"), SAMPLES, ids=[name for name, _ in SAMPLES])
    def test_truncated_at_every_offset_of_the_header(self, name: str, data: bytes) -> None:
        summary = parse_package_summary(data)
        assert summary.total_header_size is not None
        header_end = summary.total_header_size
        for length in [*range(header_end + 1), len(data) // 2, len(data) - 4, len(data) - 1]:
            outcome = _assert_clean_outcome(data[:length])
            assert isinstance(outcome, PackageFormatError), f"{name} cut at {length} was accepted"
            assert not outcome.not_a_package
            assert 0 <= outcome.offset <= length

    @pytest.mark.parametrize(("name", "data"), SAMPLES, ids=[name for name, _ in SAMPLES])
    def test_mutated(self, name: str, data: bytes) -> None:
        rng = random.Random(f"buildver-{name}")
        header_end = parse_package_summary(data).total_header_size
        assert header_end is not None
        extremes = [0, 1, -1, 2**31 - 1, -(2**31), 0x7FFF, len(data), len(data) + 1]
        for _ in range(400):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(header_end)
                if rng.random() < 0.5:
                    mutated[at] = rng.randrange(256)
                else:
                    at -= at % 4
                    struct.pack_into("<i", mutated, min(at, len(mutated) - 4), rng.choice(extremes))
            _assert_clean_outcome(bytes(mutated))

    @settings(max_examples=300, deadline=None)
    @given(st.binary(max_size=600))
    def test_arbitrary_bytes(self, data: bytes) -> None:
        _assert_clean_outcome(data)

    @settings(max_examples=300, deadline=None)
    @given(
        st.sampled_from([b"\xc1\x83\x2a\x9e", b"\x9e\x2a\x83\xc1"]),
        st.integers(-12, 0),
        st.lists(st.sampled_from([0, 1, -1, 214, 522, 1004, 1016, 1018, 2**31 - 1, -(2**31)]), max_size=8),
        st.binary(max_size=400),
    )
    def test_arbitrary_bytes_after_a_tag(self, tag: bytes, legacy: int, numbers: list[int], rest: bytes) -> None:
        order = "<" if tag[0] == 0xC1 else ">"
        data = tag + struct.pack(f"{order}i", legacy) + b"".join(struct.pack(f"{order}i", n) for n in numbers)
        _assert_clean_outcome(data + rest)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs (os.mkfifo) exist only on POSIX systems")
def test_a_fifo_named_like_a_package_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "Pipe.uasset"
    os.mkfifo(fifo)
    with pytest.raises(PackageFormatError, match="not a regular file") as caught:
        read_package_summary(fifo)
    assert caught.value.not_a_package
