"""buildver: Unreal-style build and data versions (Build.version, UpdateLocalVersion, FEngineVersion)."""

from buildver.engine_version import EngineVersion, VersionComparison, VersionComponent
from buildver.errors import BuildverError, InvalidVersionError

__all__ = ["BuildverError", "EngineVersion", "InvalidVersionError", "VersionComparison", "VersionComponent"]
__version__ = "0.1.0"
