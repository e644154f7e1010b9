"""Build synthetic Unreal package headers for the tests: the layouts the real fixtures lack.

Written from the reference's table (``../shared/reference/package-summary.md`` section 2) independently of
``buildver.packages.reader``, so that the reader is checked against a second reading of the same rules. The bytes after
the summary are a filler standing for the name, import and export tables, followed by the closing tag.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace

TAG = 0x9E2A83C1
FILTER_EDITOR_ONLY = 0x80000000

EngineVersionFields = tuple[int, int, int, int, str]
"""major, minor, patch, the raw 32-bit changelist (bit 31: licensee), branch."""

EMPTY_VERSION: EngineVersionFields = (0, 0, 0, 0, "")


def guid_fields(text: str) -> tuple[int, int, int, int]:
    """The four uint32 of an FGuid from its DigitsWithHyphens text."""
    digits = text.replace("-", "")
    return tuple(int(digits[i : i + 8], 16) for i in range(0, 32, 8))  # type: ignore[return-value]


@dataclass(frozen=True)
class CustomVersionEntry:
    """A custom version to write: a GUID (or, for LegacyFileVersion -2, an enum tag), a version and a name."""

    key: str | int
    version: int
    friendly_name: str = ""


@dataclass(frozen=True)
class SyntheticPackage:
    """The fields of one package summary; ``build()`` gives the bytes of a whole (small) package file."""

    legacy_file_version: int = -7
    file_version_ue4: int = 522
    file_version_ue5: int = 0
    licensee: int = 0
    custom_versions: tuple[CustomVersionEntry, ...] = ()
    package_name: str = "None"
    package_flags: int = 0x40000
    saved_by: EngineVersionFields = (4, 27, 2, 18319896, "++UE4+Release-4.27")
    compatible_with: EngineVersionFields = (4, 27, 0, 17155196, "++UE4+Release-4.27")
    engine_changelist: int = 0
    """Written instead of the engine versions when FileVersionUE4 is below 336."""
    big_endian: bool = False
    utf16: bool = False
    """Write every string in the UTF-16 form (negative length)."""
    saved_hash: bytes = bytes(range(20))
    name_count: int = 3
    additional_packages_to_cook: tuple[str, ...] = ()
    chunk_ids: tuple[int, ...] = ()
    body_size: int = 64
    end_tag: bool = True
    overrides: dict[str, int] = field(default_factory=dict)
    """Raw values to write in place of computed ones: ``name_offset``, ``total_header_size``,
    ``compression_flags``, ``compressed_chunks``, ``texture_allocations``, ``custom_version_count``."""

    @property
    def unversioned(self) -> bool:
        return self.file_version_ue4 == 0 and self.file_version_ue5 == 0 and self.licensee == 0

    def with_(self, **changes: object) -> SyntheticPackage:
        return replace(self, **changes)  # type: ignore[arg-type]

    def build(self) -> bytes:
        """The whole file: the summary, a filler for the tables, and the closing tag."""
        summary_size = len(self._summary(0, 0))
        total_header_size = summary_size + self.body_size
        summary = self._summary(summary_size, total_header_size)
        tail = self._pack("I", TAG) if self.end_tag else b""
        return summary + b"\xab" * self.body_size + tail

    def summary_size(self) -> int:
        return len(self._summary(0, 0))

    # -- encoding --------------------------------------------------------------------------------------------

    def _pack(self, fmt: str, *values: int) -> bytes:
        return struct.pack((">" if self.big_endian else "<") + fmt, *values)

    def _string(self, text: str) -> bytes:
        if not text:
            return self._pack("i", 0)
        if self.utf16:
            encoded = (text + "\0").encode("utf-16-be" if self.big_endian else "utf-16-le")
            return self._pack("i", -(len(encoded) // 2)) + encoded
        return self._pack("i", len(text) + 1) + text.encode("latin-1") + b"\0"

    def _guid(self, text: str) -> bytes:
        return self._pack("4I", *guid_fields(text))

    def _engine_version(self, version: EngineVersionFields) -> bytes:
        major, minor, patch, raw_changelist, branch = version
        return self._pack("3HI", major, minor, patch, raw_changelist) + self._string(branch)

    def _custom_versions(self) -> bytes:
        legacy = self.legacy_file_version
        if legacy > -2:
            return b""
        count = self.overrides.get("custom_version_count", len(self.custom_versions))
        out = self._pack("i", count)
        for entry in self.custom_versions:
            if legacy == -2:
                assert isinstance(entry.key, int)
                out += self._pack("Ii", entry.key, entry.version)
            else:
                assert isinstance(entry.key, str)
                out += self._guid(entry.key) + self._pack("i", entry.version)
                if legacy >= -5:
                    out += self._string(entry.friendly_name)
        return out

    def _summary(self, name_offset: int, total_header_size: int) -> bytes:
        o = self.overrides
        name_offset = o.get("name_offset", name_offset)
        total_header_size = o.get("total_header_size", total_header_size)
        legacy, ue4, ue5 = self.legacy_file_version, self.file_version_ue4, self.file_version_ue5
        # An unversioned -9 package has the 5.6+ layout, whatever versions it does not store.
        saved_hash_layout = ue5 >= 1016 or (self.unversioned and legacy <= -9)
        editor = not self.package_flags & FILTER_EDITOR_ONLY
        p = self._pack
        out = p("I", TAG) + p("i", legacy)
        if legacy != -4:
            out += p("i", 864 if not self.unversioned else 0)
        out += p("i", ue4)
        if legacy <= -8:
            out += p("i", ue5)
        out += p("i", self.licensee)
        if saved_hash_layout:
            out += self.saved_hash + p("i", total_header_size)
        out += self._custom_versions()
        if not saved_hash_layout:
            out += p("i", total_header_size)
        out += self._string(self.package_name) + p("I", self.package_flags)
        out += p("ii", self.name_count, name_offset)
        if ue5 >= 1008:
            out += p("ii", 0, 0)
        if editor and ue4 >= 516:
            out += self._string("")
        if ue4 >= 459:
            out += p("ii", 0, 0)
        out += p("iiii", 1, name_offset, 1, name_offset)  # exports, imports
        if ue5 >= 1015:
            out += p("iiii", 0, 0, 0, 0)
        if ue5 >= 1014:
            out += p("i", 0)
        out += p("i", name_offset)  # DependsOffset
        if ue4 >= 384:
            out += p("ii", 0, 0)
        if ue4 >= 510:
            out += p("i", 0)
        out += p("i", 0)  # ThumbnailTableOffset
        if ue5 >= 1018:
            out += p("ii", 0, 0)
        if not saved_hash_layout:
            out += self._guid("11111111-2222-3333-4444-555555555555")
        if editor and ue4 >= 518:
            out += self._guid("66666666-7777-8888-9999-AAAAAAAAAAAA")
            if ue4 < 520:
                out += self._guid("BBBBBBBB-CCCC-DDDD-EEEE-FFFFFFFFFFFF")
        out += p("i", 1) + p("ii", 1, self.name_count)  # Generations
        if ue4 >= 336:
            out += self._engine_version(self.saved_by)
        else:
            out += p("I", self.engine_changelist)
        if ue4 >= 444:
            out += self._engine_version(self.compatible_with)
        out += p("I", o.get("compression_flags", 0))
        out += p("i", o.get("compressed_chunks", 0))
        out += p("I", 0)  # PackageSource
        out += p("i", len(self.additional_packages_to_cook))
        for package in self.additional_packages_to_cook:
            out += self._string(package)
        if legacy > -7:
            out += p("i", o.get("texture_allocations", 0))
        out += p("i", 0) + p("q", 0)  # AssetRegistryDataOffset, BulkDataStartOffset
        if ue4 >= 224:
            out += p("i", 0)
        if ue4 >= 326:
            out += p("i", len(self.chunk_ids)) + b"".join(p("i", chunk) for chunk in self.chunk_ids)
        elif ue4 >= 278:
            out += p("i", 0)
        if ue4 >= 507:
            out += p("ii", 0, 0)
        if ue5 >= 1001:
            out += p("i", 0)
        if ue5 >= 1002:
            out += p("q", 0)
        if ue5 >= 1009:
            out += p("i", 0)
        return out


CORE = "375EC13C-06E4-48FB-B500-84F0262A717E"
"""FCoreObjectVersion."""
FOLIAGE = "430C4D19-7154-4970-8769-9B69DF90B0E5"

ERAS: dict[str, SyntheticPackage] = {
    # LegacyFileVersion -2: pre-4.0 betas; enum custom versions, EngineChangelist instead of engine versions.
    "-2": SyntheticPackage(
        legacy_file_version=-2,
        file_version_ue4=281,
        custom_versions=(CustomVersionEntry(0xF99D40C1, 1),),
        engine_changelist=1234567,
        package_flags=0x1,
    ),
    # -3: 4.0 to 4.6; guid custom versions with friendly names.
    "-3": SyntheticPackage(
        legacy_file_version=-3,
        file_version_ue4=385,
        custom_versions=(CustomVersionEntry(FOLIAGE, 1, "FoliageVer"),),
        saved_by=(4, 4, 3, 2318281, "++depot+UE4-Releases+4.4"),
    ),
    # -4: no LegacyUE3Version field (never seen in the wild).
    "-4": SyntheticPackage(
        legacy_file_version=-4,
        file_version_ue4=434,
        custom_versions=(CustomVersionEntry(FOLIAGE, 2, "FoliageVer"),),
        saved_by=(4, 7, 0, 2452471, "++depot+UE4-Releases+4.7"),
    ),
    # -5: 4.7; guid custom versions, TextureAllocations, CompatibleWith (444) not yet.
    "-5": SyntheticPackage(
        legacy_file_version=-5,
        file_version_ue4=434,
        custom_versions=(CustomVersionEntry(FOLIAGE, 3, "FoliageVer"), CustomVersionEntry(CORE, 1, "Core")),
        saved_by=(4, 7, 5, 2517429, "++depot+UE4-Releases+4.7"),
    ),
    "-6": SyntheticPackage(
        legacy_file_version=-6,
        file_version_ue4=482,
        custom_versions=(CustomVersionEntry(CORE, 1),),
        saved_by=(4, 10, 4, 2872498, "++depot+UE4-Releases+4.10"),
        compatible_with=(4, 10, 0, 2758231, "++depot+UE4-Releases+4.10"),
    ),
    "-7": SyntheticPackage(custom_versions=(CustomVersionEntry(CORE, 3),)),
    "-8": SyntheticPackage(
        legacy_file_version=-8,
        file_version_ue5=1013,
        custom_versions=(CustomVersionEntry(CORE, 4),),
        package_name="/Game/Maps/Entry",
        saved_by=(5, 5, 4, 40574608, "++UE5+Release-5.5"),
        compatible_with=(5, 5, 0, 37670630, "++UE5+Release-5.5"),
    ),
    "-9": SyntheticPackage(
        legacy_file_version=-9,
        file_version_ue5=1018,
        custom_versions=(CustomVersionEntry(CORE, 5),),
        package_name="/Game/Maps/Entry",
        saved_by=(5, 7, 1, 47537391, "++UE5+Release-5.7"),
        compatible_with=(5, 7, 0, 46245336, "++UE5+Release-5.7"),
    ),
}
"""One typical package per LegacyFileVersion."""
