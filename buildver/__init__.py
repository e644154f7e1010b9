"""buildver: Unreal-style build and data versions (Build.version, UpdateLocalVersion, FEngineVersion).

The names below are what scripts may use; each wing (``buildver.versions``, ``buildver.packages``,
``buildver.projects``, ``buildver.stamp``, ``buildver.guard``, ``buildver.serialization``) has a face of its own
with more. Everything but the version values and the errors is imported on first use, so that ``import buildver``
stays cheap for every command (``buildver._faces``).
"""

from typing import TYPE_CHECKING

from buildver._faces import lazy_face
from buildver.errors import BuildverError, InvalidVersionError
from buildver.versions.engine_version import EngineVersion, VersionComparison, VersionComponent

if TYPE_CHECKING:
    from buildver.changes import FileChange, apply_changes
    from buildver.errors import PackageFormatError, VersionFileError
    from buildver.packages import (
        PackageSummary,
        ScanResult,
        ScanStatus,
        object_versions_for,
        read_package_summary,
        scan_file,
    )
    from buildver.projects import CheckResult, ProjectReport, check_plugin, check_project
    from buildver.versions import (
        BuildVersion,
        VersionFile,
        compatible_engine_version,
        current_engine_version,
        load_build_version,
    )

__all__ = [
    "BuildVersion",
    "BuildverError",
    "CheckResult",
    "EngineVersion",
    "FileChange",
    "InvalidVersionError",
    "PackageFormatError",
    "PackageSummary",
    "ProjectReport",
    "ScanResult",
    "ScanStatus",
    "VersionComparison",
    "VersionComponent",
    "VersionFile",
    "VersionFileError",
    "apply_changes",
    "check_plugin",
    "check_project",
    "compatible_engine_version",
    "current_engine_version",
    "load_build_version",
    "object_versions_for",
    "read_package_summary",
    "scan_file",
]
__version__ = "0.1.0"

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_face(
        __name__,
        {
            "FileChange": "changes",
            "apply_changes": "changes",
            "PackageFormatError": "errors",
            "VersionFileError": "errors",
            "PackageSummary": "packages",
            "ScanResult": "packages",
            "ScanStatus": "packages",
            "object_versions_for": "packages",
            "read_package_summary": "packages",
            "scan_file": "packages",
            "CheckResult": "projects",
            "ProjectReport": "projects",
            "check_plugin": "projects",
            "check_project": "projects",
            "BuildVersion": "versions",
            "VersionFile": "versions",
            "compatible_engine_version": "versions",
            "current_engine_version": "versions",
            "load_build_version": "versions",
        },
    )
