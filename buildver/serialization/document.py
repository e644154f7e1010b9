"""Loading and saving documents: header checks first, then every typed object upgraded, children before parents.

Order for one object on load (O3DE's ObjectStream, with Unreal's strictness by default):
members first (so a parent's converter sees its children at their current versions), then, when the stored
``$version`` is older than the class, its TypeChange/NameChange field upgrades and then its converter (or, with no
converter, the drop of members that are not declared fields), then its serializer hook with the loading archive.
A deprecated object is dropped, or replaced by what its converter ``convert()``s it to. Loading works on a copy,
so the caller's data is never changed, and it returns nothing but an exception when anything is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from buildver.errors import (
    ConverterError,
    DocumentError,
    NewerDataError,
    OlderDataError,
    UnknownCustomVersionError,
    UnknownTypeError,
)
from buildver.serialization.archive import Archive
from buildver.serialization.classes import ClassDecl, Deprecation, FieldUpgradeFailure
from buildver.serialization.document_header import (
    HEADER_KEY,
    ROOT_KEY,
    DocumentVersions,
    StoredCustomVersion,
    compare_versions,
    latest_header,
    read_header,
)
from buildver.serialization.schema import Schema
from buildver.serialization.tree import TYPE_KEY, VERSION_KEY, DataNode, json_copy

__all__ = [
    "Dropped",
    "LoadOptions",
    "LoadResult",
    "Replaced",
    "Upgraded",
    "load",
    "save",
    "upgrade_patch",
]


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """What loading does with data it cannot take as is; the defaults refuse (Unreal), the others tolerate (O3DE)."""

    unversioned: Literal["error", "oldest", "latest"] = "error"
    """A document without header: refuse it, or read it as saved at version 0 / at the latest versions."""
    on_missing_custom: Literal["error", "warn"] = "error"
    """A custom version this code never registered."""
    on_newer_class: Literal["error", "warn"] = "error"
    """An object whose ``$version`` is newer than its class (O3DE only warns)."""
    on_unknown_type: Literal["error", "drop"] = "error"
    """A ``$type`` neither declared nor deprecated."""
    on_converter_failure: Literal["error", "drop"] = "error"
    """A converter, field upgrade or hook that fails: raise, or drop the element (O3DE)."""


@dataclass(frozen=True, slots=True)
class Upgraded:
    """An object brought from its stored class version to the current one."""

    path: str
    type_id: str
    from_version: int
    to_version: int


@dataclass(frozen=True, slots=True)
class Replaced:
    """An object of a deprecated class replaced by its converter."""

    path: str
    type_id: str
    replaced_by: str


@dataclass(frozen=True, slots=True)
class Dropped:
    """An element left out of the loaded data, and why."""

    path: str
    type_id: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class LoadResult:
    """The loaded data at the latest versions (None when the root was dropped) and what loading changed."""

    data: Any
    versions: DocumentVersions
    upgraded: tuple[Upgraded, ...] = ()
    replaced: tuple[Replaced, ...] = ()
    dropped: tuple[Dropped, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def changed_objects(self) -> bool:
        """True when any object was upgraded, replaced or dropped."""
        return bool(self.upgraded or self.replaced or self.dropped)


class _Drop:
    """Marks an element to leave out of its parent."""


_DROP = _Drop()
_PLAIN = frozenset({str, int, bool, type(None)})  # JSON values that need no check and no copy
_MAX_REPLACEMENTS = 16


class _Loader:
    __slots__ = (
        "archive",
        "classes",
        "deprecations",
        "dropped",
        "options",
        "partial",
        "replaced",
        "source",
        "upgraded",
        "warnings",
    )

    def __init__(self, schema: Schema, archive: Archive, options: LoadOptions, source: str, partial: bool) -> None:
        self.classes = schema.classes
        self.deprecations = schema.deprecations
        self.archive = archive
        self.options = options
        self.source = source
        self.partial = partial
        self.upgraded: list[Upgraded] = []
        self.replaced: list[Replaced] = []
        self.dropped: list[Dropped] = []
        self.warnings: list[str] = []

    def value(self, value: Any, path: str) -> Any:
        kind = type(value)
        if kind is dict:
            return self.object(value, path)
        if kind is str or kind is int or kind is bool or value is None:
            return value
        if kind is list or kind is tuple:
            items = []
            for index, item in enumerate(value):
                if type(item) in _PLAIN:
                    items.append(item)  # the common case, without building a path
                    continue
                loaded = self.value(item, f"{path}[{index}]")
                if loaded is not _DROP:
                    items.append(loaded)  # dropped items leave no hole
            return items
        if kind is float and math.isfinite(value):
            return value
        if isinstance(value, dict):
            return self.object(dict(value), path)
        raise DocumentError(f"{self.source}: {path}: {value!r} is not JSON data")

    def object(self, value: dict[Any, Any], path: str) -> Any:
        members: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise DocumentError(f"{self.source}: {path}: member name {key!r} is not a string")
            if type(item) in _PLAIN:
                members[key] = item
                continue
            loaded = self.value(item, f"{path}.{key}")
            if loaded is not _DROP:
                members[key] = loaded
        if TYPE_KEY not in members:
            return members
        return self.typed(members, path, 0)

    def _header(self, members: dict[str, Any], path: str) -> tuple[str, int | None]:
        type_id = members[TYPE_KEY]
        if not isinstance(type_id, str) or not type_id:
            raise DocumentError(f"{self.source}: {path}.{TYPE_KEY}: expected a type name, got {type_id!r}")
        stored = members.get(VERSION_KEY)
        if stored is not None and (type(stored) is not int or stored < 0):
            raise DocumentError(f"{self.source}: {path}.{VERSION_KEY}: expected an integer >= 0, got {stored!r}")
        return type_id, stored

    def typed(self, members: dict[str, Any], path: str, replacements: int) -> Any:
        type_id, stored = self._header(members, path)
        decl = self.classes.get(type_id)
        if decl is None:
            deprecation = self.deprecations.get(type_id)
            if deprecation is not None:
                return self.deprecated(members, path, deprecation, stored or 0, replacements)
            if self.options.on_unknown_type == "drop":
                self.dropped.append(Dropped(path, type_id, "unknown type"))
                return _DROP
            raise UnknownTypeError(
                f"{self.source}: {path}: unknown type {type_id!r}; declare it, or deprecate it "
                f"with schema.deprecate({type_id!r}) if it was removed"
            )
        if stored is None:
            if self.partial:
                return members  # a patch address without version information is left alone (O3DE)
            stored = 0
        if stored > decl.version:
            message = (
                f"{self.source}: {path}: {type_id!r} version {stored} is newer than this code supports "
                f"(newest supported {decl.version})"
            )
            if self.options.on_newer_class == "error":
                raise NewerDataError(message)
            self.warnings.append(message)
            return members
        holder = [members]
        if stored < decl.version:
            failure = self.upgrade(holder, path, decl, stored)
            if failure is not None:
                return self.fail(path, type_id, failure[0], failure[1])
            holder[0][VERSION_KEY] = decl.version
            self.upgraded.append(Upgraded(path, type_id, stored, decl.version))
        if decl.serializer is not None and not self.partial:
            try:
                decl.serializer(self.archive, DataNode(holder, 0, path, self.archive))
            except Exception as exc:
                return self.fail(path, type_id, f"serializer failed: {type(exc).__name__}: {exc}", exc)
            if not isinstance(holder[0], dict) or holder[0].get(TYPE_KEY) != type_id:
                return self.fail(path, type_id, "serializer hooks cannot change the type", None)
        return holder[0]

    def upgrade(
        self, holder: list[Any], path: str, decl: ClassDecl, stored: int
    ) -> tuple[str, BaseException | None] | None:
        node = DataNode(holder, 0, path, self.archive)
        try:
            decl.upgrade_fields(holder[0], stored, partial=self.partial)
            if self.partial:
                return None  # a patch holds a few fields: converters need the whole object
            if decl.converter is not None:
                if decl.converter(node) is False:
                    return f"converter for version {stored} returned False", None
            elif decl.fields is not None:
                for name in [key for key in holder[0] if not key.startswith("$") and key not in decl.fields]:
                    del holder[0][name]
                    self.dropped.append(Dropped(f"{path}.{name}", None, f"not a field of {decl.type_id!r}"))
        except FieldUpgradeFailure as exc:
            return str(exc), exc
        except Exception as exc:  # converters are user code: any failure is reported with the element's path
            return f"converter for version {stored} failed: {type(exc).__name__}: {exc}", exc
        result = holder[0]
        if not isinstance(result, dict) or result.get(TYPE_KEY) != decl.type_id:
            return "converters cannot change the type; deprecate the old type with a converter instead", None
        return None

    def deprecated(
        self, members: dict[str, Any], path: str, deprecation: Deprecation, stored: int, replacements: int
    ) -> Any:
        type_id = deprecation.type_id
        if deprecation.converter is None:
            self.dropped.append(Dropped(path, type_id, "deprecated"))
            return _DROP
        holder = [members]
        try:
            outcome = deprecation.converter(DataNode(holder, 0, path, self.archive, can_convert=True))
        except Exception as exc:
            message = f"deprecation converter for version {stored} failed: {type(exc).__name__}: {exc}"
            return self.fail(path, type_id, message, exc)
        if outcome is False:
            return self.fail(path, type_id, f"deprecation converter for version {stored} returned False", None)
        result = holder[0]
        if not isinstance(result, dict) or result.get(TYPE_KEY) in (None, type_id):
            # O3DE: a converter that did not designate a new type drops the element like no converter.
            self.dropped.append(Dropped(path, type_id, "deprecated"))
            return _DROP
        if replacements >= _MAX_REPLACEMENTS:
            return self.fail(path, type_id, "deprecation converters replace each other in a loop", None)
        new_type = result[TYPE_KEY]
        self.replaced.append(Replaced(path, type_id, new_type))
        decl = self.classes.get(new_type) if isinstance(new_type, str) else None
        if decl is not None and VERSION_KEY not in result:
            result[VERSION_KEY] = decl.version  # convert() without a version builds the current layout
        return self.typed(result, path, replacements + 1)

    def fail(self, path: str, type_id: str, message: str, cause: BaseException | None) -> _Drop:
        if self.options.on_converter_failure == "error":
            raise ConverterError(f"{self.source}: {path} ({type_id!r}): {message}") from cause
        self.dropped.append(Dropped(path, type_id, message))
        return _DROP


def _check_versions(schema: Schema, versions: DocumentVersions, options: LoadOptions, source: str) -> list[str]:
    """Refuse data the code cannot load safely (Unreal's linker checks); returns the warnings."""
    differences = compare_versions(schema, versions)
    by_what = {difference.what: difference for difference in differences if difference.what != "custom"}
    engine = by_what.get("engine")
    if engine is not None and engine.kind == "too old":
        raise OlderDataError(
            f"{source}: saved with engine version {engine.stored}, older than the oldest loadable "
            f"version {engine.supported}"
        )
    if any(difference.kind == "newer" for difference in by_what.values()):
        raise NewerDataError(
            f"{source}: contains a newer version than this code supports: engine version {versions.engine}, "
            f"newest supported {schema.engine_version}; licensee version {versions.licensee}, "
            f"newest supported {schema.licensee_version}"
        )
    warnings: list[str] = []
    for difference in differences:
        if difference.what != "custom":
            continue
        name = difference.friendly_name
        described = f"key {difference.guid}" + (f", name {name!r}" if name else "")
        if difference.kind == "missing":
            message = (
                f"{source}: saved with a custom version this code does not register: "
                f"{described}, stored version {difference.stored}"
            )
            if options.on_missing_custom == "error":
                raise UnknownCustomVersionError(message)
            warnings.append(message)
        elif difference.kind == "invalid":
            raise UnknownCustomVersionError(
                f"{source}: custom version {described}: stored version {difference.stored} is rejected by its validator"
            )
        elif difference.kind == "newer":
            raise NewerDataError(
                f"{source}: saved with a newer custom version than this code supports: {described}, "
                f"stored version {difference.stored}, newest supported {difference.supported}"
            )
    return warnings


def _assumed_versions(schema: Schema, options: LoadOptions, source: str) -> DocumentVersions:
    if options.unversioned == "error":
        raise DocumentError(
            f"{source}: no {HEADER_KEY!r} version header; load it with unversioned='oldest' to adopt old data"
        )
    if options.unversioned == "latest":
        # Unreal's unversioned (cooked) packages: every version is taken as the current one.
        custom = tuple(StoredCustomVersion(known.guid, known.latest) for known in schema.custom_versions)
        return DocumentVersions(None, schema.engine_version, schema.licensee_version, custom, unversioned=True)
    return DocumentVersions(None, 0, 0, (), unversioned=True)


def load(
    schema: Schema, document: Any, *, source: str = "<document>", options: LoadOptions | None = None
) -> LoadResult:
    """Load a document with a schema: check its header, upgrade every object, report what changed."""
    options = options or LoadOptions()
    versions, root = read_header(document, source)
    warnings: list[str] = []
    if versions.unversioned:
        versions = _assumed_versions(schema, options, source)
    else:
        warnings = _check_versions(schema, versions, options, source)
    assert versions.engine is not None
    assert versions.licensee is not None
    archive = Archive(
        loading=True,
        engine_ver=versions.engine,
        licensee_ver=versions.licensee,
        custom={entry.guid: entry.version for entry in versions.custom},
        registry=schema.custom_versions,
    )
    loader = _Loader(schema, archive, options, source, partial=False)
    data = loader.value(root, ROOT_KEY)
    return LoadResult(
        None if data is _DROP else data,
        versions,
        tuple(loader.upgraded),
        tuple(loader.replaced),
        tuple(loader.dropped),
        tuple(warnings + loader.warnings),
    )


def upgrade_patch(
    schema: Schema, patch: Any, *, source: str = "<patch>", options: LoadOptions | None = None
) -> LoadResult:
    """Upgrade a partial document (a patch): field upgrades only, on objects whose ``$version`` is given."""
    options = options or LoadOptions()
    archive = Archive(
        loading=True, engine_ver=schema.engine_version, licensee_ver=schema.licensee_version,
        custom={}, registry=schema.custom_versions,
    )  # fmt: skip
    loader = _Loader(schema, archive, options, source, partial=True)
    data = loader.value(patch, ROOT_KEY)
    versions = DocumentVersions(None, None, None, unversioned=True)
    return LoadResult(
        None if data is _DROP else data,
        versions,
        tuple(loader.upgraded),
        tuple(loader.replaced),
        tuple(loader.dropped),
        tuple(loader.warnings),
    )


class _Saver:
    __slots__ = ("archive", "classes", "deprecations", "source")

    def __init__(self, schema: Schema, archive: Archive, source: str) -> None:
        self.classes = schema.classes
        self.deprecations = schema.deprecations
        self.archive = archive
        self.source = source

    def value(self, value: Any, path: str) -> Any:
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            return value
        if kind is float and math.isfinite(value):
            return value
        if isinstance(value, dict):
            return self.object(value, path)
        if isinstance(value, list | tuple):
            return [self.value(item, f"{path}[{index}]") for index, item in enumerate(value)]
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return int(value)  # IntEnum members are saved as numbers
        if isinstance(value, str):
            return str(value)
        raise DocumentError(f"{self.source}: {path}: {value!r} is not JSON data")

    def object(self, value: dict[Any, Any], path: str) -> Any:
        members: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise DocumentError(f"{self.source}: {path}: member name {key!r} is not a string")
            members[key] = self.value(item, f"{path}.{key}")
        if TYPE_KEY not in members:
            return members
        type_id = members[TYPE_KEY]
        decl = self.classes.get(type_id) if isinstance(type_id, str) else None
        if decl is None:
            if isinstance(type_id, str) and type_id in self.deprecations:
                raise DocumentError(f"{self.source}: {path}: cannot save an object of deprecated type {type_id!r}")
            raise UnknownTypeError(f"{self.source}: {path}: cannot save unknown type {type_id!r}")
        stored = members.get(VERSION_KEY, decl.version)
        if stored != decl.version:
            raise DocumentError(
                f"{self.source}: {path}: {type_id!r} is marked version {stored!r} but the class is version "
                f"{decl.version}; save only data loaded with this schema"
            )
        # $type and $version first, so that documents read well.
        members = {TYPE_KEY: type_id, VERSION_KEY: decl.version} | members
        if decl.serializer is not None:
            holder = [members]
            try:
                decl.serializer(self.archive, DataNode(holder, 0, path, self.archive))
            except Exception as exc:
                raise ConverterError(
                    f"{self.source}: {path} ({type_id!r}): serializer failed: {type(exc).__name__}: {exc}"
                ) from exc
            members = holder[0]
            if not isinstance(members, dict) or members.get(TYPE_KEY) != type_id:
                raise ConverterError(f"{self.source}: {path} ({type_id!r}): serializer hooks cannot change the type")
            members = self.object_members(members, path)
        return members

    def object_members(self, members: dict[str, Any], path: str) -> dict[str, Any]:
        # A serializer hook may have put new values in; check them without running the children's hooks again.
        try:
            copied: dict[str, Any] = json_copy(members, path)
        except ValueError as exc:
            raise DocumentError(f"{self.source}: {exc}") from exc
        return copied


def save(schema: Schema, data: Any, *, source: str = "<document>") -> dict[str, Any]:
    """A new document of ``data`` at the latest versions, with the custom versions its objects declared."""
    archive = Archive(
        loading=False, engine_ver=schema.engine_version, licensee_ver=schema.licensee_version,
        custom={}, registry=schema.custom_versions,
    )  # fmt: skip
    root = _Saver(schema, archive, source).value(data, ROOT_KEY)
    return {HEADER_KEY: latest_header(schema, archive.custom_versions), ROOT_KEY: root}
