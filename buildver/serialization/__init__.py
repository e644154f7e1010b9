"""Versioned serialization of JSON data: Unreal's object and custom versions, O3DE's class versions and converters.

A document is ``{"$buildver": {"format", "engine", "licensee", "custom"}, "root": DATA}``; objects in the data
carry ``"$type"`` and ``"$version"``. Loading refuses data newer than the code and upgrades older data; saving
always writes the latest versions.
"""

from buildver.serialization.archive import Archive
from buildver.serialization.classes import ClassDecl, Converter, Deprecation, FieldUpgrade, Serializer
from buildver.serialization.document import (
    Dropped,
    LoadOptions,
    LoadResult,
    Replaced,
    Upgraded,
    load,
    save,
    upgrade_patch,
)
from buildver.serialization.document_header import (
    HEADER_FORMAT,
    DocumentVersions,
    StoredCustomVersion,
    VersionDifference,
    compare_versions,
    inspect,
)
from buildver.serialization.files import (
    UpgradePlan,
    dumps,
    inspect_file,
    load_file,
    plan_upgrade,
    remove_upgrade_leftovers,
    save_file,
    upgrade_file,
)
from buildver.serialization.schema import Schema, import_schema
from buildver.serialization.tree import DataNode
from buildver.serialization.versions import CustomVersion, CustomVersionRegistry, VersionEnum, latest_version

__all__ = [
    "HEADER_FORMAT",
    "Archive",
    "ClassDecl",
    "Converter",
    "CustomVersion",
    "CustomVersionRegistry",
    "DataNode",
    "Deprecation",
    "DocumentVersions",
    "Dropped",
    "FieldUpgrade",
    "LoadOptions",
    "LoadResult",
    "Replaced",
    "Schema",
    "Serializer",
    "StoredCustomVersion",
    "UpgradePlan",
    "Upgraded",
    "VersionDifference",
    "VersionEnum",
    "compare_versions",
    "dumps",
    "import_schema",
    "inspect",
    "inspect_file",
    "latest_version",
    "load",
    "load_file",
    "plan_upgrade",
    "remove_upgrade_leftovers",
    "save",
    "save_file",
    "upgrade_file",
    "upgrade_patch",
]
