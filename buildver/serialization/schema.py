"""A schema: everything one program declares about its data (engine, licensee, custom and class versions)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Collection, Iterable, Mapping
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType

from buildver.errors import SchemaError, UsageError
from buildver.serialization.classes import ClassDecl, Converter, Deprecation, Serializer, class_version
from buildver.serialization.versions import CustomVersion, CustomVersionRegistry

__all__ = ["Schema", "import_schema"]


class Schema:
    """The declarations a program loads and saves its documents with (one per data family)."""

    __slots__ = (
        "_classes",
        "_deprecations",
        "custom_versions",
        "engine_version",
        "licensee_version",
        "oldest_loadable_engine",
    )

    def __init__(
        self,
        *,
        engine: int | type[IntEnum] = 0,
        licensee: int | type[IntEnum] = 0,
        oldest_loadable_engine: int = 0,
        custom_versions: Iterable[CustomVersion] = (),
    ) -> None:
        self.engine_version = class_version(engine)
        self.licensee_version = class_version(licensee)
        if type(oldest_loadable_engine) is not int or not 0 <= oldest_loadable_engine <= self.engine_version:
            raise SchemaError(
                f"oldest loadable engine version {oldest_loadable_engine!r}: not between 0 and {self.engine_version}"
            )
        self.oldest_loadable_engine = oldest_loadable_engine
        self.custom_versions = CustomVersionRegistry(list(custom_versions))
        self._classes: dict[str, ClassDecl] = {}
        self._deprecations: dict[str, Deprecation] = {}

    def __repr__(self) -> str:
        return (
            f"Schema(engine={self.engine_version}, licensee={self.licensee_version}, "
            f"custom={len(self.custom_versions)}, classes={len(self._classes)})"
        )

    def register_custom_version(self, version: CustomVersion) -> CustomVersion:
        """Register a custom version (FCustomVersionRegistration); the same GUID again must not change."""
        return self.custom_versions.register(version)

    def class_(
        self,
        type_id: str,
        version: int | type[IntEnum] = 0,
        converter: Converter | None = None,
        *,
        fields: Collection[str] | None = None,
        serializer: Serializer | None = None,
    ) -> ClassDecl:
        """Declare a class by its ``$type``; chain ``.name_change(...)`` and ``.type_change(...)`` on the result."""
        decl = ClassDecl(type_id, version, converter, fields=fields, serializer=serializer)
        if type_id in self._classes:
            raise SchemaError(f"class {type_id!r}: declared twice")
        if type_id in self._deprecations:
            raise SchemaError(f"class {type_id!r}: declared and deprecated")
        self._classes[type_id] = decl
        return decl

    def deprecate(self, type_id: str, converter: Converter | None = None) -> Deprecation:
        """Deprecate a removed class: drop its instances on load, or replace them via ``node.convert()``."""
        if not isinstance(type_id, str) or not type_id:
            raise SchemaError(f"class type {type_id!r}: not a non-empty string")
        if type_id in self._classes:
            raise SchemaError(f"class {type_id!r}: declared and deprecated")
        if type_id in self._deprecations:
            raise SchemaError(f"class {type_id!r}: deprecated twice")
        deprecation = Deprecation(type_id, converter)
        self._deprecations[type_id] = deprecation
        return deprecation

    @property
    def classes(self) -> Mapping[str, ClassDecl]:
        """The declared classes by ``$type``."""
        return MappingProxyType(self._classes)

    @property
    def deprecations(self) -> Mapping[str, Deprecation]:
        """The deprecated classes by ``$type``."""
        return MappingProxyType(self._deprecations)


def import_schema(spec: str) -> Schema:
    """The Schema named by ``module:attribute`` or ``path/to/file.py:attribute`` (for ``--schema``)."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise UsageError(f"--schema {spec!r}: expected MODULE:OBJECT or FILE.py:OBJECT")
    try:
        if module_name.endswith(".py") or "/" in module_name or "\\" in module_name:
            path = Path(module_name)
            if not path.is_file():
                raise UsageError(f"--schema {spec!r}: no file {module_name!r}")
            module_spec = importlib.util.spec_from_file_location(f"_buildver_schema_{path.stem}", path)
            assert module_spec is not None
            assert module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            # Like ``python -m``: modules in the current folder can be named.
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except Exception as exc:  # the user's module may raise anything while it is imported
        raise UsageError(f"--schema {spec!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc
    value: object = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise UsageError(f"--schema {spec!r}: {module_name!r} has no {attribute!r}")
        value = getattr(value, part)
    if callable(value) and not isinstance(value, Schema):
        try:
            value = value()
        except Exception as exc:  # a schema factory is user code too
            raise UsageError(f"--schema {spec!r}: {attribute}() failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(value, Schema):
        raise UsageError(f"--schema {spec!r}: {attribute!r} is {type(value).__name__}, not a buildver Schema")
    return value
