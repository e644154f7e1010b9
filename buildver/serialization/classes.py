"""Class versions, converters, NameChange/TypeChange field upgrades and class deprecation (O3DE SerializeContext).

Field upgrades are chosen as O3DE's DataPatchUpgradeManager chooses them, with one deliberate difference: a lone
NameChange is applied (O3DE's GetNextNameUpgrade skips the last upgrade of a bucket, which is only harmless when a
TypeChange sits beside every NameChange).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Literal

from buildver.errors import SchemaError
from buildver.serialization.tree import DataNode, json_copy, rename_member
from buildver.serialization.versions import latest_version

if TYPE_CHECKING:
    from buildver.serialization.archive import Archive

__all__ = [
    "ClassDecl",
    "Converter",
    "Deprecation",
    "FieldUpgrade",
    "FieldUpgradeFailure",
    "Serializer",
    "TypeSpec",
    "class_version",
]

Converter = Callable[[DataNode], object]
"""Edits the node of an old object in place; returning False (or raising) means the conversion failed."""
Serializer = Callable[["Archive", DataNode], None]
"""Unreal-style hook run on every object of the class, loading (after upgrades) and saving."""
TypeSpec = type | tuple[type, ...]


def class_version(version: int | type[IntEnum]) -> int:
    """A class version given as a number or as a version enum (its last member)."""
    if isinstance(version, type) and issubclass(version, IntEnum):
        return latest_version(version)
    if type(version) is not int or version < 0:
        raise SchemaError(f"class version {version!r}: not an integer >= 0 or a version enum")
    return version


def _types(spec: TypeSpec | None) -> tuple[type, ...] | None:
    if spec is None:
        return None
    types = spec if isinstance(spec, tuple) else (spec,)
    # JSON does not tell 1 from 1.0, so a float field accepts integers.
    return (*types, int) if float in types and int not in types else types


def _matches(value: object, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


def _type_names(types: tuple[type, ...]) -> str:
    return " or ".join(kind.__name__ for kind in types)


def _number(version: object) -> Any:
    # Version enum members are ints; keep them as plain numbers so messages read "0->1".
    return int(version) if isinstance(version, int) and not isinstance(version, bool) else version


class FieldUpgradeFailure(Exception):
    """A field upgrade that could not be applied to a value; the loader adds the element's path."""


@dataclass(frozen=True, slots=True)
class FieldUpgrade:
    """One NameChange (``kind="name"``) or TypeChange (``kind="type"``) of a field, keyed by its old name."""

    kind: Literal["name", "type"]
    field: str
    from_version: int
    to_version: int
    new_name: str = ""
    function: Callable[[Any], Any] | None = dataclasses.field(default=None, compare=False, repr=False)
    from_type: tuple[type, ...] | None = dataclasses.field(default=None, compare=False, repr=False)
    to_type: tuple[type, ...] | None = dataclasses.field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        if self.kind == "name":
            return f"NameChange {self.from_version}->{self.to_version} {self.field!r}->{self.new_name!r}"
        return f"TypeChange {self.from_version}->{self.to_version} {self.field!r}"

    def convert(self, value: Any) -> Any:
        """The value pushed through a TypeChange, with its input and output types checked."""
        assert self.function is not None
        if self.from_type is not None and not _matches(value, self.from_type):
            raise FieldUpgradeFailure(f"{self}: expects {_type_names(self.from_type)}, got {value!r}")
        try:
            result = self.function(value)
        except Exception as exc:
            raise FieldUpgradeFailure(f"{self}: {type(exc).__name__}: {exc}") from exc
        if self.to_type is not None and not _matches(result, self.to_type):
            raise FieldUpgradeFailure(f"{self}: returned {result!r}, not {_type_names(self.to_type)}")
        try:
            return json_copy(result, "result")
        except ValueError as exc:
            raise FieldUpgradeFailure(f"{self}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Deprecation:
    """A removed class (ClassDeprecate): instances are dropped on load, or replaced through the converter."""

    type_id: str
    converter: Converter | None = None


class ClassDecl:
    """A declared class: its ``$type``, current version, converter and field upgrades; the methods chain."""

    __slots__ = ("_by_field", "converter", "fields", "serializer", "type_id", "version")

    def __init__(
        self,
        type_id: str,
        version: int | type[IntEnum] = 0,
        converter: Converter | None = None,
        *,
        fields: Collection[str] | None = None,
        serializer: Serializer | None = None,
    ) -> None:
        if not isinstance(type_id, str) or not type_id:
            raise SchemaError(f"class type {type_id!r}: not a non-empty string")
        self.type_id = type_id
        self.version = class_version(version)
        self.converter = converter
        # With no converter, members of old data that are not among these fields are dropped (O3DE's rule).
        self.fields = frozenset(fields) if fields is not None else None
        self.serializer = serializer
        self._by_field: dict[str, list[FieldUpgrade]] = {}

    def __repr__(self) -> str:
        return f"ClassDecl({self.type_id!r}, version={self.version})"

    @property
    def field_upgrades(self) -> tuple[FieldUpgrade, ...]:
        """Every NameChange and TypeChange, in the order they were declared per field."""
        return tuple(upgrade for upgrades in self._by_field.values() for upgrade in upgrades)

    def name_change(self, from_version: int, to_version: int, old_name: str, new_name: str) -> ClassDecl:
        """Rename a field between two versions (O3DE NameChange)."""
        if not isinstance(new_name, str) or not new_name or new_name.startswith("$") or new_name == old_name:
            raise SchemaError(f"{self.type_id}: NameChange {old_name!r}->{new_name!r}: not a new field name")
        return self._add(FieldUpgrade("name", old_name, _number(from_version), _number(to_version), new_name=new_name))

    def type_change(
        self,
        field_name: str,
        from_version: int,
        to_version: int,
        function: Callable[[Any], Any],
        *,
        from_type: TypeSpec | None = None,
        to_type: TypeSpec | None = None,
    ) -> ClassDecl:
        """Convert a field's value between two versions (O3DE TypeChange); name the field as stored at ``from``."""
        if not callable(function):
            raise SchemaError(f"{self.type_id}: TypeChange of {field_name!r}: {function!r} is not callable")
        upgrade = FieldUpgrade(
            "type", field_name, _number(from_version), _number(to_version),
            function=function, from_type=_types(from_type), to_type=_types(to_type),
        )  # fmt: skip
        return self._add(upgrade)

    def _add(self, upgrade: FieldUpgrade) -> ClassDecl:
        where = f"{self.type_id}: {upgrade}"
        if not isinstance(upgrade.field, str) or not upgrade.field or upgrade.field.startswith("$"):
            raise SchemaError(f"{where}: field name {upgrade.field!r} is not a member name")
        for number in (upgrade.from_version, upgrade.to_version):
            if type(number) is not int or number < 0:
                raise SchemaError(f"{where}: version {number!r} is not an integer >= 0")
        if upgrade.from_version >= upgrade.to_version:
            raise SchemaError(f"{where}: goes from version {upgrade.from_version} to {upgrade.to_version}")
        if upgrade.to_version > self.version:
            raise SchemaError(f"{where}: goes beyond the class version {self.version}")
        upgrades = self._by_field.setdefault(upgrade.field, [])
        # O3DE asserts on a second upgrade of the same kind, field and versions, whatever its target name.
        key = (upgrade.kind, upgrade.from_version, upgrade.to_version)
        if any((other.kind, other.from_version, other.to_version) == key for other in upgrades):
            raise SchemaError(f"{where}: declared twice")
        upgrades.append(upgrade)
        return self

    def _next(self, kind: str, name: str, cursor: int) -> FieldUpgrade | None:
        # O3DE: the first "from" bucket at or above the cursor (so a later "from" still applies to older data),
        # and in it the upgrade that reaches highest (version skipping).
        best: FieldUpgrade | None = None
        for upgrade in self._by_field.get(name, ()):
            if upgrade.kind != kind or upgrade.from_version < cursor:
                continue
            if (
                best is None
                or upgrade.from_version < best.from_version
                or (upgrade.from_version == best.from_version and upgrade.to_version > best.to_version)
            ):
                best = upgrade
        return best

    def plan_field(self, field_name: str, stored_version: int, *, types: bool = True) -> list[FieldUpgrade]:
        """The field upgrades for a field stored at ``stored_version``, in the order they apply."""
        type_cursor = name_cursor = stored_version
        name = field_name
        plan: list[FieldUpgrade] = []
        while True:
            type_upgrade = self._next("type", name, type_cursor) if types else None
            name_upgrade = self._next("name", name, name_cursor)
            if type_upgrade is None and name_upgrade is None:
                return plan
            # A TypeChange goes before a NameChange from the same version, so it is keyed by the old name.
            if type_upgrade is not None and (
                name_upgrade is None or type_upgrade.from_version <= name_upgrade.from_version
            ):
                plan.append(type_upgrade)
                type_cursor = type_upgrade.to_version
            else:
                assert name_upgrade is not None
                plan.append(name_upgrade)
                name_cursor = name_upgrade.to_version
                name = name_upgrade.new_name

    def upgrade_fields(self, members: dict[str, Any], stored_version: int, *, partial: bool = False) -> int:
        """Apply the field upgrades to an object's members in place; returns how many were applied.

        In a partial document (a patch) an object value is a path into a nested object, so it is only renamed.
        """
        if not self._by_field:
            return 0
        applied = 0
        for field_name in [key for key in members if key in self._by_field]:
            value = members[field_name]
            plan = self.plan_field(field_name, stored_version, types=not (partial and isinstance(value, dict)))
            name = field_name
            for upgrade in plan:
                if upgrade.kind == "type":
                    value = upgrade.convert(value)
                else:
                    name = upgrade.new_name
            if name != field_name:
                if name in members:
                    raise FieldUpgradeFailure(
                        f"cannot rename field {field_name!r} to {name!r}: {name!r} exists already"
                    )
                rename_member(members, field_name, name)
            members[name] = value
            applied += len(plan)
        return applied
