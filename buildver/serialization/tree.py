"""The mutable tree a converter edits: O3DE's DataElementNode over a private copy of the JSON data.

A node is a place in the tree (a member of an object or an item of a list), so converters can read and replace
the value there, and, when the value is an object, find, add, rename and remove its members.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from buildver.serialization.archive import Archive

__all__ = ["ELEMENT", "TYPE_KEY", "VERSION_KEY", "DataNode", "json_copy"]

TYPE_KEY = "$type"
VERSION_KEY = "$version"
ELEMENT = "element"  # O3DE's name for the items of a container, used by find_descendants


def json_copy(value: Any, where: str = "value") -> Any:
    """A deep copy of JSON data (tuples become lists); ValueError names the place of anything that is not JSON."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not a JSON number")
        return value
    if isinstance(value, dict):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ValueError(f"{where}: member name {key!r} is not a string")
            copied[key] = json_copy(item, f"{where}.{key}")
        return copied
    if isinstance(value, list | tuple):
        return [json_copy(item, f"{where}[{index}]") for index, item in enumerate(value)]
    # Subclasses (IntEnum members, str enums) are stored as their plain JSON value.
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        return json_copy(float(value), where)
    raise ValueError(f"{where}: {value!r} is not JSON data")


class DataNode:
    """One element of the data tree being converted: its name, value, and for objects its type, version and members."""

    __slots__ = ("_archive", "_can_convert", "_container", "_key", "_path")

    def __init__(
        self,
        container: dict[str, Any] | list[Any],
        key: str | int,
        path: str,
        archive: Archive,
        *,
        can_convert: bool = False,
    ) -> None:
        self._container = container
        self._key = key
        self._path = path
        self._archive = archive
        self._can_convert = can_convert

    def __repr__(self) -> str:
        return f"DataNode({self._path!r})"

    @property
    def name(self) -> str | int:
        """The member name in the parent object, or the index in the parent list."""
        return self._key

    @property
    def path(self) -> str:
        """Where the element is in the document, e.g. ``root.components[2].color``."""
        return self._path

    @property
    def archive(self) -> Archive:
        """The loading archive: the document's engine, licensee and custom versions."""
        return self._archive

    @property
    def value(self) -> Any:
        """The element's data (live: objects and lists are the tree's own)."""
        return self._container[self._key]  # type: ignore[index]

    @value.setter
    def value(self, new: Any) -> None:
        self._container[self._key] = json_copy(new, self._path)  # type: ignore[index]

    @property
    def is_object(self) -> bool:
        """True when the value is a JSON object."""
        return isinstance(self.value, dict)

    @property
    def type_id(self) -> str | None:
        """The object's ``$type``, or None for untyped values."""
        value = self.value
        return value.get(TYPE_KEY) if isinstance(value, dict) else None

    @property
    def version(self) -> int:
        """The object's stored ``$version`` (0 when absent); converters branch on it."""
        value = self.value
        stored = value.get(VERSION_KEY, 0) if isinstance(value, dict) else 0
        return stored if type(stored) is int else 0

    def _members(self) -> dict[str, Any]:
        value = self.value
        if not isinstance(value, dict):
            raise TypeError(f"{self._path}: not an object but {type(value).__name__}")
        return value

    @staticmethod
    def _check_name(name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"member name {name!r} is not a non-empty string")
        if name.startswith("$"):
            raise ValueError(f"member name {name!r} is reserved; use convert() to change the type")

    def __contains__(self, name: object) -> bool:
        value = self.value
        return isinstance(value, dict) and name in value

    def keys(self) -> list[str]:
        """The object's member names, without ``$type`` and ``$version``."""
        return [key for key in self._members() if not key.startswith("$")]

    def children(self) -> list[DataNode]:
        """The members of an object (without ``$`` keys) or the items of a list; nothing for other values."""
        value = self.value
        if isinstance(value, dict):
            return [self._child(value, key) for key in value if not key.startswith("$")]
        if isinstance(value, list):
            return [self._child(value, index) for index in range(len(value))]
        return []

    def _child(self, container: dict[str, Any] | list[Any], key: str | int) -> DataNode:
        path = f"{self._path}[{key}]" if isinstance(key, int) else f"{self._path}.{key}"
        return DataNode(container, key, path, self._archive)

    def find(self, name: str) -> DataNode | None:
        """The member called ``name``, or None (O3DE FindSubElement)."""
        members = self._members()
        return self._child(members, name) if name in members else None

    def get(self, name: str, default: Any = None) -> Any:
        """The value of member ``name``, or ``default``."""
        return self._members().get(name, default)

    def set(self, name: str, value: Any) -> DataNode:
        """Set member ``name`` (added at the end when new) and return its node."""
        self._check_name(name)
        members = self._members()
        members[name] = json_copy(value, f"{self._path}.{name}")
        return self._child(members, name)

    def add_element(self, name: str, value: Any) -> DataNode:
        """Add member ``name``; ValueError when it exists already (O3DE would add a second one)."""
        if name in self._members():
            raise ValueError(f"{self._path}: member {name!r} exists already")
        return self.set(name, value)

    def remove(self, name: str) -> bool:
        """Remove member ``name``; False when there was none."""
        self._check_name(name)
        return self._members().pop(name, _MISSING) is not _MISSING

    def rename(self, old: str, new: str) -> bool:
        """Rename member ``old`` to ``new`` in place (order kept); False when there is no ``old``."""
        self._check_name(old)
        self._check_name(new)
        members = self._members()
        if old not in members:
            return False
        if new in members and new != old:
            raise ValueError(f"{self._path}: cannot rename {old!r} to {new!r}: {new!r} exists already")
        rename_member(members, old, new)
        return True

    def find_descendants(self, *names: str | int) -> list[DataNode]:
        """Every element at the end of a path of member names; ``"element"`` or ``"*"`` match all items of a list."""
        current = [self]
        for name in names:
            found: list[DataNode] = []
            for node in current:
                value = node.value
                if isinstance(value, dict):
                    if name == "*":
                        found.extend(node._child(value, key) for key in value if not key.startswith("$"))
                    elif isinstance(name, str) and name in value:
                        found.append(node._child(value, name))
                elif isinstance(value, list):
                    if name in (ELEMENT, "*"):
                        found.extend(node._child(value, index) for index in range(len(value)))
                    elif type(name) is int and -len(value) <= name < len(value):
                        found.append(node._child(value, name % len(value)))
            current = found
        return current

    def convert(self, type_id: str, version: int | None = None) -> None:
        """Replace this object by an empty one of another type; only deprecation converters may do this."""
        if not self._can_convert:
            raise ValueError(
                "version converters cannot change the type; deprecate the old type with a converter instead"
            )
        if not isinstance(type_id, str) or not type_id:
            raise ValueError(f"type {type_id!r} is not a non-empty string")
        replacement: dict[str, Any] = {TYPE_KEY: type_id}
        if version is not None:
            replacement[VERSION_KEY] = version
        self._container[self._key] = replacement  # type: ignore[index]


_MISSING = object()


def rename_member(members: dict[str, Any], old: str, new: str) -> None:
    """Rename a key of ``members`` in place, keeping the order of the members."""
    items = [(new if key == old else key, value) for key, value in members.items()]
    members.clear()
    members.update(items)
