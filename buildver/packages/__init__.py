"""Unreal packages (``.uasset``, ``.umap``): the header's versions, what they mean for an engine build, and
scanning folders of them."""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.packages.engine_ini import zero_engine_version_warning
    from buildver.packages.object_versions import RELEASE_OBJECT_VERSIONS, ReleaseObjectVersions, object_versions_for
    from buildver.packages.reader import parse_package_summary, read_package_summary
    from buildver.packages.scanning import iter_packages, scan
    from buildver.packages.summary import CustomVersionFormat, PackageSummary
    from buildver.packages.verdicts import ScanResult, ScanStatus, classify, scan_file

__all__ = [
    "RELEASE_OBJECT_VERSIONS",
    "CustomVersionFormat",
    "PackageSummary",
    "ReleaseObjectVersions",
    "ScanResult",
    "ScanStatus",
    "classify",
    "iter_packages",
    "object_versions_for",
    "parse_package_summary",
    "read_package_summary",
    "scan",
    "scan_file",
    "zero_engine_version_warning",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "CustomVersionFormat": "summary",
            "PackageSummary": "summary",
            "parse_package_summary": "reader",
            "read_package_summary": "reader",
            "RELEASE_OBJECT_VERSIONS": "object_versions",
            "ReleaseObjectVersions": "object_versions",
            "object_versions_for": "object_versions",
            "ScanResult": "verdicts",
            "ScanStatus": "verdicts",
            "classify": "verdicts",
            "scan_file": "verdicts",
            "iter_packages": "scanning",
            "scan": "scanning",
            "zero_engine_version_warning": "engine_ini",
        },
    )
