"""buildver: Unreal-style build and data versions (Build.version, UpdateLocalVersion, FEngineVersion).

The names below are what scripts may use; each wing (``buildver.versions``, ``buildver.packages``,
``buildver.projects``, ``buildver.stamp``, ``buildver.guard``, ``buildver.serialization``) has a face of its own
with more. Each name is imported on first use, so that ``import buildver`` stays cheap for every command
(``_lazy_face``).
"""

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from buildver.changes import FileChange, apply_changes
    from buildver.errors import BuildverError, InvalidVersionError, PackageFormatError, VersionFileError
    from buildver.packages import (
        PackageSummary,
        ScanResult,
        ScanStatus,
        object_versions_for,
        read_package_summary,
        scan_file,
    )
    from buildver.projects import (
        CheckResult,
        Place,
        PlaceKind,
        ProjectReport,
        check_plugin,
        check_project,
        compatible_engine_version,
        current_engine_version,
        find_place,
        game_versions,
    )
    from buildver.versions import (
        BuildVersion,
        EngineVersion,
        VersionComparison,
        VersionComponent,
        VersionFile,
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
    "Place",
    "PlaceKind",
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
    "find_place",
    "game_versions",
    "load_build_version",
    "object_versions_for",
    "read_package_summary",
    "scan_file",
]
__version__ = "0.1.0"


def _lazy_face(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the face of ``package``: each name of ``exports`` (name → module
    relative to ``package``) is imported from its module when first asked for, then kept in the face.

    Every command imports some module of a wing, which runs the wing's ``__init__`` first: a face that imported
    its whole wing would make ``buildver show`` pay for the update-local rules, and so on. So a face lists its
    public names and the module of each, and PEP 562's module ``__getattr__`` imports that module the first time
    a name is asked for. The same names are imported under ``TYPE_CHECKING`` in the face, for type checkers;
    ``tests/test_layout.py`` checks that both agree and that every name resolves. It lives here, not in a module
    of its own, because this module is loaded by every command anyway (one module fewer at each start).
    """

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__


if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "FileChange": "changes",
            "apply_changes": "changes",
            "BuildverError": "errors",
            "InvalidVersionError": "errors",
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
            "EngineVersion": "versions",
            "VersionComparison": "versions",
            "VersionComponent": "versions",
            "VersionFile": "versions",
            "Place": "projects",
            "PlaceKind": "projects",
            "compatible_engine_version": "projects",
            "current_engine_version": "projects",
            "find_place": "projects",
            "game_versions": "projects",
            "load_build_version": "versions",
        },
    )
