"""Object-version enums and the registry of GUID-keyed custom versions (Unreal's ObjectVersion.h, CustomVersion.h).

Unreal ends every version enum with ``AUTOMATIC_VERSION_PLUS_ONE, AUTOMATIC_VERSION = ... - 1`` so that the latest
value is never written by hand; here the latest value is the last member, checked to be the largest.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum

from buildver.errors import SchemaError

__all__ = [
    "CustomVersion",
    "CustomVersionKey",
    "CustomVersionRegistry",
    "VersionEnum",
    "latest_version",
    "normalize_guid",
]


class VersionEnum(IntEnum):
    """Base for version enums: add members at the end only; ``latest()`` is the last one."""

    @classmethod
    def latest(cls) -> int:
        """The newest version: the value of the last member."""
        return latest_version(cls)


def latest_version(versions: type[IntEnum]) -> int:
    """The last member's value of a version enum, after checking that values only ever increase."""
    members = list(versions.__members__.items())
    if not members:
        raise SchemaError(f"version enum {versions.__name__}: has no members")
    previous: tuple[str, int] | None = None
    for name, member in members:
        value = int(member)
        if value < 0:
            raise SchemaError(f"version enum {versions.__name__}: {name} is {value!r}, versions are never negative")
        # An alias or a smaller value means someone inserted or reordered members, which renumbers saved data.
        if previous is not None and value <= previous[1]:
            raise SchemaError(
                f"version enum {versions.__name__}: {name} = {value!r} does not increase on "
                f"{previous[0]} = {previous[1]!r}; add new versions at the end"
            )
        previous = (name, value)
    assert previous is not None
    return previous[1]


def normalize_guid(guid: object) -> str:
    """A GUID in canonical form (lowercase, hyphenated); braces, upper case and plain hex are accepted."""
    if isinstance(guid, uuid.UUID):
        return str(guid)
    if isinstance(guid, str):
        try:
            return str(uuid.UUID(guid.strip()))
        except ValueError:
            pass
    raise SchemaError(f"custom version key {guid!r}: not a GUID")


@dataclass(frozen=True, slots=True)
class CustomVersion:
    """One registered custom version (FCustomVersionRegistration): a GUID, the latest version and a friendly name."""

    guid: str
    latest: int
    friendly_name: str
    # Unreal's validator: called with the stored version; False means the data is "Invalid" for this build.
    validator: Callable[[int], bool] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "guid", normalize_guid(self.guid))
        if type(self.latest) is not int or self.latest < 0:
            raise SchemaError(f"custom version {self.guid}: latest version {self.latest!r} is not an integer >= 0")
        if not isinstance(self.friendly_name, str) or not self.friendly_name.strip():
            raise SchemaError(f"custom version {self.guid}: friendly name {self.friendly_name!r} is empty")

    @classmethod
    def from_enum(
        cls,
        guid: str | uuid.UUID,
        versions: type[IntEnum],
        friendly_name: str,
        validator: Callable[[int], bool] | None = None,
    ) -> CustomVersion:
        """A custom version whose latest value is the last member of ``versions``."""
        return cls(normalize_guid(guid), latest_version(versions), friendly_name, validator)


CustomVersionKey = CustomVersion | str | uuid.UUID


def _key(key: CustomVersionKey) -> str:
    return key.guid if isinstance(key, CustomVersion) else normalize_guid(key)


class CustomVersionRegistry:
    """The custom versions this code knows (FCurrentCustomVersions); registering is reference-counted like Unreal's."""

    __slots__ = ("_counts", "_versions")

    def __init__(self, versions: tuple[CustomVersion, ...] | list[CustomVersion] = ()) -> None:
        self._versions: dict[str, CustomVersion] = {}
        self._counts: dict[str, int] = {}
        for version in versions:
            self.register(version)

    def register(self, version: CustomVersion) -> CustomVersion:
        """Register ``version``; the same GUID again must carry the same latest version and name."""
        known = self._versions.get(version.guid)
        if known is None:
            self._versions[version.guid] = version
            self._counts[version.guid] = 1
            return version
        if (known.latest, known.friendly_name) != (version.latest, version.friendly_name):
            raise SchemaError(
                f"custom version {version.guid}: registered again as {version.friendly_name!r} "
                f"latest {version.latest!r}, already registered as {known.friendly_name!r} latest {known.latest!r}"
            )
        self._counts[version.guid] += 1
        return known

    def unregister(self, key: CustomVersionKey) -> None:
        """Drop one registration; the version is forgotten when the last one is dropped."""
        guid = _key(key)
        if guid not in self._versions:
            raise SchemaError(f"custom version {guid}: not registered")
        self._counts[guid] -= 1
        if self._counts[guid] == 0:
            del self._counts[guid]
            del self._versions[guid]

    def get(self, key: CustomVersionKey) -> CustomVersion | None:
        """The registered custom version for a GUID, or None."""
        return self._versions.get(_key(key))

    def require(self, key: CustomVersionKey) -> CustomVersion:
        """The registered custom version for a GUID; SchemaError when it was never registered."""
        guid = _key(key)
        version = self._versions.get(guid)
        if version is None:
            raise SchemaError(f"custom version {guid}: not registered")
        return version

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, CustomVersion | str | uuid.UUID):
            return False
        try:
            return _key(key) in self._versions
        except SchemaError:
            return False

    def __iter__(self) -> Iterator[CustomVersion]:
        return iter(list(self._versions.values()))

    def __len__(self) -> int:
        return len(self._versions)
