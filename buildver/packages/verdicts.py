"""Whether an engine can load a package safely: one :class:`ScanStatus` per package header.

The rules are those of Unreal's linker (``docs/unreal-rules.md``: ZeroEngineVersionWarning and the package
header rules). ``buildver.packages.scanning`` finds the packages under folders and applies these rules to each;
the guard applies them to staged packages. Nothing here prints or walks folders.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from buildver._records import trusted_builder
from buildver.errors import PackageFormatError
from buildver.packages.engine_custom_versions import custom_version_names, unregistered_custom_versions
from buildver.packages.reader import read_package_summary
from buildver.packages.summary import PackageSummary

if TYPE_CHECKING:
    from buildver.packages.tree_tables import VersionTables
    from buildver.versions.engine_version import EngineVersion

__all__ = ["ScanResult", "ScanStatus", "classify", "scan_file"]


class ScanStatus(enum.StrEnum):
    """What a package means for the current engine, from the worst to the most harmless."""

    NEWER_ENGINE = "newer-engine"
    """This engine cannot load it without losing data: it is not compatible with the package's
    CompatibleWithEngineVersion, or the package's file versions are newer than this release writes, or one of its
    custom versions is newer than this release registers."""
    CORRUPT = "corrupt"
    """Truncated, inconsistent or unreadable."""
    LFS_POINTER = "lfs-pointer"
    """A Git LFS pointer where the package should be: the checkout has not fetched it (``git lfs pull``), so nothing
    was checked. A failure, so that a CI job on such a checkout does not pass having read no package."""
    NOT_A_PACKAGE = "not-a-package"
    """Something else under a package name: a Zen/IoStore or encrypted package, a UE3 package, a text file."""
    TOO_NEW_FORMAT = "too-new-format"
    """A header layout newer than this tool knows (and not provably newer than this engine)."""
    UNDECIDABLE = "undecidable"
    """It carries a custom version the engine's release does not register itself (a plugin's): Unreal warns ("saved
    with a custom integration that is not present") and the load then depends on whether that plugin is there, at
    that custom version or later, which the package does not say. Not a failure."""
    EMPTY_ENGINE_VERSION = "empty-engine-version"
    """Saved by an editor without a changelist: Unreal warns "has been saved with empty engine version"."""
    UNVERSIONED = "unversioned"
    """Cooked: the header keeps no editor versions to check."""
    OK = "ok"

    @property
    def is_failure(self) -> bool:
        """The statuses that make ``assets scan`` exit 1."""
        return self in _FAILURES

    @property
    def description(self) -> str:
        """What the status means, in one line (the rules of ``assets scan``'s SARIF report)."""
        return _DESCRIPTIONS[self]


_FAILURES = frozenset({ScanStatus.NEWER_ENGINE, ScanStatus.CORRUPT, ScanStatus.LFS_POINTER})
_DESCRIPTIONS = {
    ScanStatus.NEWER_ENGINE: "saved by a newer engine: this engine cannot load it without losing data",
    ScanStatus.CORRUPT: "truncated, inconsistent or unreadable",
    ScanStatus.LFS_POINTER: "a Git LFS pointer where the package should be: nothing was checked (git lfs pull)",
    ScanStatus.NOT_A_PACKAGE: "something else under a package name (Zen/IoStore, encrypted, UE3, text)",
    ScanStatus.TOO_NEW_FORMAT: "a header layout newer than this buildver knows",
    ScanStatus.UNDECIDABLE: "a custom version this engine's release does not register: the plugin that does decides",
    ScanStatus.EMPTY_ENGINE_VERSION: "saved with an empty engine version: engines with a changelist warn",
    ScanStatus.UNVERSIONED: "cooked: the header keeps no editor versions to check",
    ScanStatus.OK: "this engine loads it",
}


@dataclass(frozen=True, slots=True)
class ScanResult:
    """One scanned file: its status, the versions read from its header (None when unknown) and why."""

    path: str
    status: ScanStatus
    legacy_file_version: int | None = None
    file_version_ue4: int | None = None
    file_version_ue5: int | None = None
    licensee_version: int | None = None
    saved_by: EngineVersion | None = None
    compatible_with: EngineVersion | None = None
    error: str | None = None
    """Why the status is newer-engine, too-new-format, undecidable (the custom versions, by GUID, name where known
    and number), lfs-pointer, not-a-package or corrupt; None otherwise."""

    def __reduce__(self) -> tuple[type[ScanResult], tuple[object, ...]]:
        # The constructor's arguments: about half the cost of the dataclass's field-by-field state when
        # ``scan(jobs=N)`` sends results back from the worker processes.
        return (
            ScanResult,
            (
                self.path,
                self.status,
                self.legacy_file_version,
                self.file_version_ue4,
                self.file_version_ue5,
                self.licensee_version,
                self.saved_by,
                self.compatible_with,
                self.error,
            ),
        )

    def to_json(self) -> dict[str, object]:
        """The object ``assets scan --json`` prints; engine versions in Unreal's ToString form."""
        return {
            "path": self.path,
            "status": str(self.status),
            "legacy_file_version": self.legacy_file_version,
            "file_version_ue4": self.file_version_ue4,
            "file_version_ue5": self.file_version_ue5,
            "licensee_version": self.licensee_version,
            "saved_by": None if self.saved_by is None else str(self.saved_by),
            "compatible_with": None if self.compatible_with is None else str(self.compatible_with),
            "error": self.error,
        }


# -- classifying one package ----------------------------------------------------------------------------------


_new_result = trusted_builder(ScanResult)
"""``ScanResult(...)`` at half the cost, for classify's values (see buildver._records)."""


def classify(
    path: str,
    summary: PackageSummary,
    engine: EngineVersion,
    warn_empty: bool = True,
    tables: VersionTables | None = None,
) -> ScanResult:
    """The status of a package for ``engine``, checked in the order Unreal's linker does.

    1. newer-engine: ``engine`` is not compatible with CompatibleWithEngineVersion ("saved with engine version newer
       than current and therefore can't be loaded"), or the file versions are newer than ``engine``'s release writes,
       or a custom version is newer than the release registers ("saved with a newer custom version than the
       current"; :mod:`buildver.packages.engine_custom_versions`);
    2. too-new-format: a header newer than this tool knows;
    3. unversioned: a cooked package (Unreal does not warn about the empty engine versions cooking writes);
    4. undecidable: a custom version that ``engine``'s release does not register itself (a plugin's, or one of
       another release): Unreal only warns, and then loads the package or not depending on the plugin, which the
       package does not name; the reason gives each such custom version's GUID, its name where a release's table
       knows it, and its number. Only where the release's table is known (not for a licensee build);
    5. empty-engine-version: SavedByEngineVersion has no changelist while ``engine`` has one and ``warn_empty``
       (``ZeroEngineVersionWarning``) is on;
    6. ok.

    ``tables`` (the tables read from the engine's tree, its plugins and the game:
    :mod:`buildver.packages.tree_tables`) decide the object, licensee and custom versions instead of the release's,
    for a licensee's build too; each reason then names them.
    """
    status, error = ScanStatus.OK, None
    compatible_with = summary.compatible_with_engine_version
    saved_by = summary.saved_by_engine_version
    if compatible_with is not None and not engine.is_compatible_with(compatible_with):
        status = ScanStatus.NEWER_ENGINE
        error = f"saved as compatible with {compatible_with}, which {engine} cannot load"
    elif (newer := summary.newer_than(engine, tables)) is not None:
        status, error = ScanStatus.NEWER_ENGINE, newer
    elif summary.newer_format is not None:
        status, error = ScanStatus.TOO_NEW_FORMAT, summary.newer_format
    elif summary.is_cooked or summary.is_unversioned:
        status = ScanStatus.UNVERSIONED
    elif (undecided := _undecided(summary, engine, tables)) is not None:
        status, error = ScanStatus.UNDECIDABLE, undecided
    elif warn_empty and saved_by is not None and not saved_by.has_changelist and engine.has_changelist:
        status = ScanStatus.EMPTY_ENGINE_VERSION
    known = summary.has_file_versions
    return _new_result(
        path,
        status,
        summary.legacy_file_version,
        summary.file_version_ue4 if known else None,
        summary.file_version_ue5 if known else None,
        summary.file_version_licensee if known else None,
        saved_by,
        compatible_with,
        error,
    )


def _undecided(summary: PackageSummary, engine: EngineVersion, tables: VersionTables | None) -> str | None:
    """Why the package is undecidable for ``engine``: the custom versions its release (or ``tables``) does not
    register; or None."""
    if not summary.custom_versions:
        return None
    if tables is not None:
        from buildver.packages.engine_custom_versions import check_against_tables

        return check_against_tables(summary.custom_versions, tables)[1]
    unchecked = unregistered_custom_versions(summary.custom_versions, engine)
    if not unchecked:
        return None
    release = f"{engine.major}.{engine.minor}"
    names = custom_version_names()
    listed = ", ".join(
        f"{stored.guid} {stored.version}"
        if stored.guid not in names
        else f"{names[stored.guid]!r} ({stored.guid}) {stored.version}"
        for stored in unchecked
    )
    return (
        f"{len(unchecked)} custom version{'s' if len(unchecked) != 1 else ''} that {release} does not register "
        "itself (a plugin's?): Unreal warns if nothing registers them, and refuses the package if a plugin "
        f"registers an older version: {listed}"
    )


def scan_file(
    path: str,
    engine: EngineVersion,
    warn_empty: bool = True,
    *,
    listed_as_file: bool = False,
    tables: VersionTables | None = None,
) -> ScanResult:
    """Read one package header and classify it; never raises for a bad file.

    ``listed_as_file``: ``path`` was just seen as a regular file in a folder listing (see read_package_summary).
    ``tables``: the engine's own tables (:func:`classify`).
    """
    try:
        summary = read_package_summary(path, listed_as_file=listed_as_file)
    except PackageFormatError as exc:
        return unreadable(path, exc)
    return classify(path, summary, engine, warn_empty, tables)


def unreadable(path: str, exc: PackageFormatError) -> ScanResult:
    """The result of a file the reader refused: lfs-pointer, not-a-package or corrupt, with the reader's reason."""
    if exc.lfs_pointer:
        status = ScanStatus.LFS_POINTER
    else:
        status = ScanStatus.NOT_A_PACKAGE if exc.not_a_package else ScanStatus.CORRUPT
    return ScanResult(path, status, error=str(exc))
