"""The object versions each Unreal Engine release writes into the packages it saves.

Source: ``docs/package-rules.md`` §8 (observed from real saves, by SavedByEngineVersion, and the
UAssetAPI/CUE4Parse values for the releases without a sample). Where a sample came from an
Epic main-branch build and the tools name a different release value, the table keeps the larger one, so that a
package saved by that release is never reported as newer than it.

A package whose LegacyFileVersion is below the release's, or whose FileVersionUE4/UE5 is above it, cannot be
loaded by that release without losing data: its linker refuses it ("Unable to load package ... MaxExpected").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from buildver.packages.tree_tables import VersionTables
    from buildver.versions.engine_version import EngineVersion

__all__ = [
    "KNOWN_MAX_FILE_VERSION_UE4",
    "KNOWN_MAX_FILE_VERSION_UE5",
    "KNOWN_MIN_LEGACY_FILE_VERSION",
    "RELEASE_OBJECT_VERSIONS",
    "ReleaseObjectVersions",
    "newer_than_release",
    "newer_than_tables",
    "object_versions_for",
]


@dataclass(frozen=True, slots=True)
class ReleaseObjectVersions:
    """What one ``major.minor`` release writes: its LegacyFileVersion and its newest UE4/UE5 object versions."""

    major: int
    minor: int
    legacy_file_version: int
    file_version_ue4: int
    file_version_ue5: int = 0

    @property
    def release(self) -> str:
        """``"major.minor"``."""
        return f"{self.major}.{self.minor}"


def _release(major: int, minor: int, legacy: int, ue4: int, ue5: int = 0) -> ReleaseObjectVersions:
    return ReleaseObjectVersions(major, minor, legacy, ue4, ue5)


RELEASE_OBJECT_VERSIONS: tuple[ReleaseObjectVersions, ...] = (
    # 4.0 to 4.6 wrote LegacyFileVersion -3 (guid-based custom versions).
    _release(4, 0, -3, 342),
    _release(4, 1, -3, 352),
    _release(4, 2, -3, 367),  # a main-branch 4.2 sample; the tools say 363
    _release(4, 3, -3, 382),  # the tools' release value; a main-branch sample wrote 371
    _release(4, 4, -3, 385),
    _release(4, 5, -3, 401),
    _release(4, 6, -3, 413),
    _release(4, 7, -5, 434),
    # 4.8 and 4.9 were not sampled: the tools' object versions, and -6 (the newer candidate) so that no
    # package those releases wrote is ever reported as too new for them.
    _release(4, 8, -6, 451),
    _release(4, 9, -6, 482),
    _release(4, 10, -6, 482),
    _release(4, 11, -6, 498),
    _release(4, 12, -6, 504),
    _release(4, 13, -6, 505),
    _release(4, 14, -7, 508),
    _release(4, 15, -7, 510),
    _release(4, 16, -7, 513),
    _release(4, 17, -7, 513),
    _release(4, 18, -7, 514),
    _release(4, 19, -7, 516),
    _release(4, 20, -7, 516),
    _release(4, 21, -7, 517),
    _release(4, 22, -7, 517),
    _release(4, 23, -7, 517),
    _release(4, 24, -7, 518),
    _release(4, 25, -7, 518),
    _release(4, 26, -7, 522),
    _release(4, 27, -7, 522),
    _release(5, 0, -8, 522, 1004),
    _release(5, 1, -8, 522, 1008),
    _release(5, 2, -8, 522, 1009),
    _release(5, 3, -8, 522, 1009),
    _release(5, 4, -8, 522, 1012),
    _release(5, 5, -8, 522, 1013),
    _release(5, 6, -9, 522, 1017),
    _release(5, 7, -9, 522, 1018),
)

_BY_RELEASE = {(entry.major, entry.minor): entry for entry in RELEASE_OBJECT_VERSIONS}

KNOWN_MIN_LEGACY_FILE_VERSION = -9
"""The newest package summary layout this reader knows (UE 5.6 and later)."""
KNOWN_MAX_FILE_VERSION_UE4 = 522
"""EUnrealEngineObjectUE4Version's last value (CORRECT_LICENSEE_FLAG, 4.26 and later)."""
KNOWN_MAX_FILE_VERSION_UE5 = 1018
"""EUnrealEngineObjectUE5Version's last known value (IMPORT_TYPE_HIERARCHIES, 5.7)."""


def object_versions_for(version: EngineVersion) -> ReleaseObjectVersions | None:
    """The object versions of ``version``'s ``major.minor`` release, or None for a release the table lacks.

    >>> from buildver.versions.engine_version import EngineVersion
    >>> object_versions_for(EngineVersion(5, 3, 2)).file_version_ue5
    1009
    >>> object_versions_for(EngineVersion(6, 0, 0)) is None
    True
    """
    return _BY_RELEASE.get((version.major, version.minor))


def newer_than_release(
    release: ReleaseObjectVersions,
    legacy_file_version: int,
    file_version_ue4: int | None,
    file_version_ue5: int | None,
) -> str | None:
    """Why a package with these versions is newer than ``release`` writes, or None when it is not.

    ``None`` for a file version means it was not read (a summary layout newer than this reader knows);
    0 means unversioned, which is never newer.
    """
    if legacy_file_version < release.legacy_file_version:
        return (
            f"LegacyFileVersion {legacy_file_version} is newer than {release.release} writes "
            f"({release.legacy_file_version})"
        )
    if file_version_ue4 is not None and file_version_ue4 > release.file_version_ue4:
        return f"FileVersionUE4 {file_version_ue4} is newer than {release.release} writes ({release.file_version_ue4})"
    if file_version_ue5 is not None and file_version_ue5 > release.file_version_ue5:
        return f"FileVersionUE5 {file_version_ue5} is newer than {release.release} writes ({release.file_version_ue5})"
    return None


def newer_than_tables(
    tables: VersionTables,
    release: ReleaseObjectVersions | None,
    legacy_file_version: int,
    file_version_ue4: int | None,
    file_version_ue5: int | None,
    file_version_licensee: int | None,
) -> str | None:
    """Why a package with these versions is newer than the engine whose ``tables`` these are, or None.

    Unreal's linker (``LinkerLoad.cpp``, 4.x and 5.x: "Unable to load package ... PackageVersion %i, MaxExpected %i :
    LicenseePackageVersion %i, MaxExpected %i") refuses a package whose UE4 or UE5 object version is above
    ``GPackageFileUEVersion`` or whose licensee version is above ``GPackageFileLicenseeUEVersion``; the summary's
    reader refuses a LegacyFileVersion below the one it writes. The LegacyFileVersion is the tree's, else
    ``release``'s. Without object versions in ``tables`` (a tree without ObjectVersion.h), ``release`` decides.
    """
    limits = tables.object_versions
    if limits is None:
        if release is None:
            return None
        return newer_than_release(release, legacy_file_version, file_version_ue4, file_version_ue5)
    source = f"; {tables.source}"
    legacy = (
        limits.legacy_file_version
        if limits.legacy_file_version is not None
        else (None if release is None else release.legacy_file_version)
    )
    if legacy is not None and legacy_file_version < legacy:
        return f"LegacyFileVersion {legacy_file_version} is newer than this engine writes ({legacy}{source})"
    for name, value, limit in (
        ("FileVersionUE4", file_version_ue4, limits.file_version_ue4),
        ("FileVersionUE5", file_version_ue5, limits.file_version_ue5),
        ("FileVersionLicenseeUE", file_version_licensee, limits.file_version_licensee),
    ):
        if value is not None and value > limit:
            return f"{name} {value} is newer than this engine writes ({limit}, {limits.where}{source})"
    return None
