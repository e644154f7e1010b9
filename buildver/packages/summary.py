"""The versions and flags of an Unreal package header (FPackageFileSummary), as a record (no I/O).

``buildver.packages.reader`` reads it from a ``.uasset`` or ``.umap``; ``docs/package-rules.md`` has every rule.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from buildver.packages.engine_custom_versions import newer_custom_version
from buildver.packages.object_versions import (
    KNOWN_MIN_LEGACY_FILE_VERSION,
    newer_than_release,
    newer_than_tables,
    object_versions_for,
)
from buildver.versions.custom_versions import StoredCustomVersion
from buildver.versions.engine_version import EngineVersion

if TYPE_CHECKING:
    from buildver.packages.tree_tables import VersionTables

__all__ = [
    "PACKAGE_FILE_TAG",
    "PACKAGE_FILE_TAG_SWAPPED",
    "PKG_FILTER_EDITOR_ONLY",
    "CustomVersionFormat",
    "PackageSummary",
]

PACKAGE_FILE_TAG = 0x9E2A83C1
"""The first (and, in uncooked packages, the last) four bytes of a package: ``C1 83 2A 9E`` on disk."""
PACKAGE_FILE_TAG_SWAPPED = 0xC1832A9E
"""The tag of a package written with the opposite byte order: every number after it is big-endian."""

PKG_FILTER_EDITOR_ONLY = 0x80000000
"""PackageFlags bit of cooked packages: the editor-only fields are absent from their summary."""


class CustomVersionFormat(enum.Enum):
    """ECustomVersionSerializationFormat: how a summary stores its custom versions (chosen by LegacyFileVersion)."""

    ENUMS = "enums"
    """LegacyFileVersion -2: ``uint32 tag, int32 version``; Unreal turns the tag into ``FGuid(0, 0, 0, tag)``."""
    GUIDS = "guids"
    """LegacyFileVersion -3 to -5: ``FGuid key, int32 version, FString friendly name``."""
    OPTIMIZED = "optimized"
    """LegacyFileVersion -6 and below: ``FGuid key, int32 version``."""


@dataclass(frozen=True, slots=True)
class PackageSummary:
    """The versions and flags of one package header, as far as they could be read.

    ``file_version_ue5`` is 0 when the layout has no such field (LegacyFileVersion above -8). A header newer than
    this reader knows sets ``newer_format`` to the reason and keeps what could be read: after a LegacyFileVersion
    below -9 nothing else (the file versions are then 0 and ``has_file_versions`` is false).
    """

    legacy_file_version: int
    file_version_ue4: int
    file_version_ue5: int
    file_version_licensee: int
    custom_versions: tuple[StoredCustomVersion, ...] = ()
    package_name: str | None = None
    """``"None"`` in UE4 and 5.0 saves, the long package name (``/Game/...``) in 5.1+ saves."""
    package_flags: int | None = None
    """The raw on-disk PackageFlags; None when not read (a newer format, or an unversioned layout not recognized)."""
    total_header_size: int | None = None
    saved_hash: bytes | None = None
    """The 20-byte FIoHash of UE 5.6+ packages (FileVersionUE5 >= 1016)."""
    saved_by_engine_version: EngineVersion | None = None
    """Empty (0.0.0-0) when cooked or saved by an editor without a changelist; None when not read."""
    compatible_with_engine_version: EngineVersion | None = None
    byte_swapped: bool = False
    newer_format: str | None = None
    """Why this header is newer than this reader knows, or None."""

    @property
    def has_file_versions(self) -> bool:
        """False when the LegacyFileVersion is newer than this reader knows and nothing after it was read."""
        return self.legacy_file_version >= KNOWN_MIN_LEGACY_FILE_VERSION

    @property
    def is_unversioned(self) -> bool:
        """Unreal's rule (UE5): FileVersionUE4, FileVersionUE5 and the licensee version are all 0."""
        return (
            self.has_file_versions
            and self.file_version_ue4 == 0
            and self.file_version_ue5 == 0
            and self.file_version_licensee == 0
        )

    @property
    def is_cooked(self) -> bool:
        """PKG_FilterEditorOnly is set; an unversioned package whose flags could not be read counts as cooked."""
        if self.package_flags is None:
            return self.is_unversioned
        return bool(self.package_flags & PKG_FILTER_EDITOR_ONLY)

    @property
    def custom_version_format(self) -> CustomVersionFormat | None:
        """The custom-version layout that the LegacyFileVersion selects (None for -1, which has no container)."""
        if not self.has_file_versions or self.legacy_file_version > -2:
            return None
        if self.legacy_file_version == -2:
            return CustomVersionFormat.ENUMS
        if self.legacy_file_version >= -5:
            return CustomVersionFormat.GUIDS
        return CustomVersionFormat.OPTIMIZED

    def newer_than(self, engine: EngineVersion, tables: VersionTables | None = None) -> str | None:
        """Why ``engine``'s release cannot load this package, by its versions, or None.

        In the linker's order: the file versions newer than the release writes
        (:data:`buildver.packages.object_versions.RELEASE_OBJECT_VERSIONS`), then a custom version newer than the
        release registers (:mod:`buildver.packages.engine_custom_versions`). A release missing from a table gets
        no check of that kind; a custom version the release does not register (a plugin's) is not refused.
        With ``tables`` (read from the engine's tree, its plugins and the game), those decide instead, the licensee
        version too (:func:`buildver.packages.object_versions.newer_than_tables`).
        """
        release = object_versions_for(engine)
        if tables is not None:
            from buildver.packages.engine_custom_versions import check_against_tables

            known = self.has_file_versions
            newer = newer_than_tables(
                tables,
                release,
                self.legacy_file_version,
                self.file_version_ue4 if known else None,
                self.file_version_ue5 if known else None,
                self.file_version_licensee if known else None,
            )
            return newer if newer is not None else check_against_tables(self.custom_versions, tables)[0]
        if release is not None:
            if not self.has_file_versions:
                newer = newer_than_release(release, self.legacy_file_version, None, None)
            else:
                newer = newer_than_release(
                    release, self.legacy_file_version, self.file_version_ue4, self.file_version_ue5
                )
            if newer is not None:
                return newer
        return newer_custom_version(self.custom_versions, engine)
