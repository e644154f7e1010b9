"""A plugin's own version, in its ``.uplugin``: ``Version``, a whole number that must grow with every release, and
``VersionName``, the text people see; read as Unreal reads them, and set in place (``bump`` in a plugin's own
repository).

``FPluginDescriptor`` (``Engine/Source/Runtime/Projects/Private/PluginDescriptor.cpp``, 4.18 to 5.8) starts with
``Version(0)`` and reads ``TryGetNumberField("Version")`` into an ``int32`` and ``TryGetStringField("VersionName")``;
its writer (``UpdateJson``) sets both, after FileVersion. Epic's API reference for ``FPluginDescriptor::Version``: it
"must increase with every version of the plugin, so that the system can determine whether one version of a plugin is
newer than another"; ``VersionName`` "doesn't need to match the version number numerically, but should be updated
when the version number is increased" (``docs/project-rules.md`` §9).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from buildver.errors import DescriptorError
from buildver.projects.descriptor_json import file_version, json_type, read_object, string_field

__all__ = [
    "MAX_PLUGIN_VERSION",
    "PLUGIN_FIELD_NAMES",
    "PluginVersion",
    "parse_plugin_version",
    "read_plugin_version",
    "with_plugin_version",
]

PLUGIN_FIELD_NAMES = ("Version", "VersionName")
"""The names ``show`` gives a plugin's own version: its ``.uplugin`` keys."""

MAX_PLUGIN_VERSION = 2**31 - 1
"""``FPluginDescriptor::Version`` is an ``int32``."""
_MIN_PLUGIN_VERSION = -(2**31)


class PluginVersion(NamedTuple):
    """A ``.uplugin``'s Version and VersionName, as Unreal 5 reads them (of repeated keys, the first)."""

    path: Path
    version: int
    """0 when the file has none: FPluginDescriptor's default."""
    version_name: str
    """Empty when the file has none."""

    def to_json(self) -> dict[str, object]:
        """The fields under their ``.uplugin`` names, as ``show --json`` prints them."""
        return {"Version": self.version, "VersionName": self.version_name}

    def lines(self) -> list[str]:
        """``show``'s text: the heading, then each field."""
        return [
            f"{self.path.name}: the plugin's own version",
            f"  {'Version':<25}{self.version}",
            f"  {'VersionName':<25}{self.version_name}",
        ]


def parse_plugin_version(data: bytes, path: Path) -> PluginVersion:
    """The Version and VersionName of the ``.uplugin`` whose bytes are ``data``; DescriptorError naming ``path``
    when Unreal could not read the file (not JSON, no FileVersion Unreal reads), or when Version is not a whole
    number in ``int32``'s range (Unreal would round or drop such a value: buildver does not guess which)."""
    shown = str(path)
    document = read_object(data, shown)
    file_version(document, shown, "PluginFileVersion")  # Unreal reads nothing else of a file it refuses
    value = document.get("version")
    if value is None:
        version = 0
    elif isinstance(value, bool) or not isinstance(value, int):
        raise DescriptorError(f"{shown}: Version must be a whole number, not {json_type(value)}")
    elif not _MIN_PLUGIN_VERSION <= value <= MAX_PLUGIN_VERSION:
        raise DescriptorError(
            f"{shown}: Version {value} does not fit Unreal's int32 ({_MIN_PLUGIN_VERSION} to {MAX_PLUGIN_VERSION})"
        )
    else:
        version = value
    return PluginVersion(path, version, string_field(document, "VersionName", shown))


def read_plugin_version(path: Path) -> PluginVersion:
    """:func:`parse_plugin_version` of the file at ``path``; DescriptorError when it cannot be read."""
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(path)
    except OSError as exc:
        raise DescriptorError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        raise DescriptorError(f"{path}: no such file")
    return parse_plugin_version(data, path)


def with_plugin_version(data: bytes, version: int, version_name: str, path: Path) -> bytes:
    """The ``.uplugin``'s bytes with Version and VersionName set, every other byte kept
    (``descriptor_edit.with_members``)."""
    from buildver.projects.descriptor_edit import with_members
    from buildver.versions.json_layout import encode_string

    values = {"Version": str(version), "VersionName": encode_string(version_name)}
    new = with_members(data, values, str(path), "Version and VersionName")
    written = parse_plugin_version(new, path)
    if (written.version, written.version_name) != (version, version_name):  # pragma: no cover - a wrong edit
        raise DescriptorError(f"{path}: the edited file does not read back as Version {version}, {version_name!r}")
    return new
