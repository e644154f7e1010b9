"""The archive a serializer hook sees: which versions the data has (loading) or declares (saving), like FArchive."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from buildver.errors import SchemaError
from buildver.serialization.versions import CustomVersionKey, CustomVersionRegistry, _key

__all__ = ["Archive"]


class Archive:
    """Unreal's FArchive version state: engine_ver, licensee_ver, custom_ver and using_custom_version."""

    __slots__ = ("_custom", "_registry", "engine_ver", "is_loading", "licensee_ver")

    def __init__(
        self,
        *,
        loading: bool,
        engine_ver: int,
        licensee_ver: int,
        custom: Mapping[str, int],
        registry: CustomVersionRegistry,
    ) -> None:
        self.is_loading = loading
        self.engine_ver = engine_ver
        self.licensee_ver = licensee_ver
        self._custom = dict(custom)
        self._registry = registry

    @property
    def is_saving(self) -> bool:
        """True while saving."""
        return not self.is_loading

    def using_custom_version(self, key: CustomVersionKey) -> None:
        """Declare that the data being saved depends on a custom version; no effect while loading."""
        if self.is_loading:
            # As in Unreal: a loading archive keeps the versions the data was saved with.
            return
        version = self._registry.require(key)
        self._custom[version.guid] = version.latest

    def custom_ver(self, key: CustomVersionKey) -> int:
        """The data's version of a custom version: the stored one when loading (-1 if never used), else the latest."""
        guid = _key(key)
        if self.is_loading:
            return self._custom.get(guid, -1)
        if guid not in self._custom:
            raise SchemaError(f"custom version {guid}: custom_ver() while saving without using_custom_version() first")
        return self._custom[guid]

    @property
    def custom_versions(self) -> Mapping[str, int]:
        """GUID to version: those stored in the document (loading) or declared so far (saving)."""
        return MappingProxyType(self._custom)
