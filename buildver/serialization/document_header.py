"""The version header of a document: its formats, reading it strictly or for reports, comparing it with a schema.

A document is ``{"$buildver": HEADER, "root": DATA}``. The header format is the version of the header itself
(Unreal's LegacyFileVersion): format 1 stored custom versions as a list with friendly names (Unreal's "Guids"
layout), format 2 as ``{guid: version}`` with names looked up in the registry ("Optimized"). Only the latest
format is written; a newer format is refused before anything else in the header is read, since its layout
cannot be predicted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from buildver.errors import DataVersionError, DocumentError, NewerDataError, SchemaError
from buildver.serialization.schema import Schema
from buildver.serialization.versions import CustomVersionKey, _key, normalize_guid
from buildver.versions.custom_versions import StoredCustomVersion

__all__ = [
    "HEADER_FORMAT",
    "HEADER_KEY",
    "ROOT_KEY",
    "DocumentVersions",
    "StoredCustomVersion",
    "VersionDifference",
    "compare_versions",
    "inspect",
    "latest_header",
    "read_header",
]

HEADER_KEY = "$buildver"
ROOT_KEY = "root"
HEADER_FORMAT = 2
_HEADER_MEMBERS = frozenset({"format", "engine", "licensee", "custom"})


@dataclass(frozen=True, slots=True)
class DocumentVersions:
    """The versions a document was saved with; ``problem`` says why some could not be read (``inspect`` only)."""

    format: int | None
    engine: int | None
    licensee: int | None
    custom: tuple[StoredCustomVersion, ...] = ()
    unversioned: bool = False
    problem: str | None = None

    def custom_version(self, key: CustomVersionKey) -> int:
        """The stored version of a custom version, or -1 when the document never used it."""
        guid = _key(key)
        return next((entry.version for entry in self.custom if entry.guid == guid), -1)

    def custom_name(self, entry: StoredCustomVersion, schema: Schema | None = None) -> str | None:
        """A custom version's name: the one the document stores, else the one ``schema`` registers for its GUID."""
        if entry.friendly_name is not None or schema is None:
            return entry.friendly_name
        known = schema.custom_versions.get(entry.guid)
        return None if known is None else known.friendly_name

    def as_dict(self, schema: Schema | None = None) -> dict[str, Any]:
        """A JSON-ready description; a custom version's name comes from ``schema`` when the document stores none
        (header format 2 stores none)."""
        return {
            "format": self.format,
            "engine": self.engine,
            "licensee": self.licensee,
            "custom": [
                {"guid": entry.guid, "version": entry.version, "name": self.custom_name(entry, schema)}
                for entry in self.custom
            ],
            "unversioned": self.unversioned,
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class VersionDifference:
    """How one stored version differs from a schema's (Unreal's FCurrentCustomVersions::Compare, plus engine)."""

    kind: Literal["newer", "older", "too old", "missing", "invalid"]
    what: Literal["engine", "licensee", "custom"]
    stored: int
    supported: int  # the newest supported version; the oldest loadable one for "too old"; -1 when missing
    guid: str | None = None
    friendly_name: str | None = None

    def __str__(self) -> str:
        subject = self.what if self.guid is None else f"custom version {self.friendly_name or '?'!r} ({self.guid})"
        if self.kind == "missing":
            return f"{subject} {self.stored} is not registered in this code"
        if self.kind == "invalid":
            return f"{subject} {self.stored} is rejected by its validator"
        if self.kind == "too old":
            return f"{subject} {self.stored} is older than the oldest loadable {self.supported}"
        return f"{subject} {self.stored} is {self.kind} than {self.supported}"


def _int(value: object, where: str, source: str) -> int:
    if type(value) is not int or value < 0:
        raise DocumentError(f"{source}: {where}: expected an integer >= 0, got {value!r}")
    return value


def _format(header: Mapping[str, Any], source: str) -> int:
    fmt = _int(header.get("format"), f"{HEADER_KEY}.format", source)
    if fmt > HEADER_FORMAT:
        raise NewerDataError(
            f"{source}: header format {fmt} is newer than this code supports (newest supported {HEADER_FORMAT})"
        )
    if fmt < 1:
        raise DocumentError(f"{source}: {HEADER_KEY}.format: expected 1 to {HEADER_FORMAT}, got {fmt!r}")
    return fmt


def _guid(value: object, where: str, source: str) -> str:
    try:
        return normalize_guid(value)
    except SchemaError:
        raise DocumentError(f"{source}: {where}: {value!r} is not a GUID") from None


def _custom(raw: object, fmt: int, source: str) -> tuple[StoredCustomVersion, ...]:
    where = f"{HEADER_KEY}.custom"
    entries: list[StoredCustomVersion] = []
    if fmt == 1:
        if not isinstance(raw, list):
            raise DocumentError(f"{source}: {where}: expected a list, got {raw!r}")
        for index, item in enumerate(raw):
            here = f"{where}[{index}]"
            if not isinstance(item, dict) or set(item) - {"key", "version", "name"}:
                raise DocumentError(f"{source}: {here}: expected {{'key', 'version', 'name'}}, got {item!r}")
            name = item.get("name")
            if name is not None and not isinstance(name, str):
                raise DocumentError(f"{source}: {here}.name: expected a string, got {name!r}")
            entries.append(
                StoredCustomVersion(
                    _guid(item.get("key"), f"{here}.key", source),
                    _int(item.get("version"), f"{here}.version", source),
                    name or None,
                )
            )
    else:
        if not isinstance(raw, dict):
            raise DocumentError(f"{source}: {where}: expected an object, got {raw!r}")
        for guid, version in raw.items():
            entries.append(
                StoredCustomVersion(_guid(guid, f"{where}.{guid}", source), _int(version, f"{where}.{guid}", source))
            )
    seen: set[str] = set()
    for entry in entries:
        if entry.guid in seen:
            raise DocumentError(f"{source}: {where}: custom version {entry.guid} is listed twice")
        seen.add(entry.guid)
    return tuple(entries)


def read_header(document: object, source: str) -> tuple[DocumentVersions, Any]:
    """The versions and the root data of a document; raises on a malformed or newer header."""
    if not isinstance(document, dict) or HEADER_KEY not in document:
        return DocumentVersions(None, None, None, unversioned=True), document
    header = document[HEADER_KEY]
    if not isinstance(header, dict):
        raise DocumentError(f"{source}: {HEADER_KEY}: expected an object, got {header!r}")
    fmt = _format(header, source)  # first, so that a newer layout never produces another error
    unknown = sorted(set(header) - _HEADER_MEMBERS)
    if unknown:
        raise DocumentError(f"{source}: {HEADER_KEY}: unexpected member {unknown[0]!r}")
    extra = sorted(set(document) - {HEADER_KEY, ROOT_KEY})
    if extra:
        raise DocumentError(f"{source}: unexpected member {extra[0]!r} beside {HEADER_KEY!r} and {ROOT_KEY!r}")
    if ROOT_KEY not in document:
        raise DocumentError(f"{source}: no {ROOT_KEY!r} member beside the {HEADER_KEY!r} header")
    versions = DocumentVersions(
        fmt,
        _int(header.get("engine"), f"{HEADER_KEY}.engine", source),
        _int(header.get("licensee"), f"{HEADER_KEY}.licensee", source),
        _custom(header.get("custom", [] if fmt == 1 else {}), fmt, source),
    )
    return versions, document[ROOT_KEY]


def inspect(document: object, *, source: str = "<document>") -> DocumentVersions:
    """The versions of a document, without raising: newer or malformed headers are described in ``problem``."""
    try:
        return read_header(document, source)[0]
    except DataVersionError as exc:
        header = document.get(HEADER_KEY) if isinstance(document, dict) else None
        fmt = header.get("format") if isinstance(header, dict) else None
        return DocumentVersions(fmt if type(fmt) is int else None, None, None, problem=str(exc))


def compare_versions(schema: Schema, versions: DocumentVersions) -> tuple[VersionDifference, ...]:
    """Every stored version that differs from the schema's, engine first, then custom versions in stored order."""
    if versions.unversioned or versions.engine is None or versions.licensee is None:
        return ()
    differences: list[VersionDifference] = []
    if versions.engine < schema.oldest_loadable_engine:
        differences.append(VersionDifference("too old", "engine", versions.engine, schema.oldest_loadable_engine))
    elif versions.engine != schema.engine_version:
        kind: Literal["newer", "older"] = "newer" if versions.engine > schema.engine_version else "older"
        differences.append(VersionDifference(kind, "engine", versions.engine, schema.engine_version))
    if versions.licensee != schema.licensee_version:
        kind = "newer" if versions.licensee > schema.licensee_version else "older"
        differences.append(VersionDifference(kind, "licensee", versions.licensee, schema.licensee_version))
    for entry in versions.custom:
        known = schema.custom_versions.get(entry.guid)
        if known is None:
            differences.append(
                VersionDifference("missing", "custom", entry.version, -1, entry.guid, entry.friendly_name)
            )
            continue
        name = known.friendly_name
        if known.validator is not None and not _valid(known.validator, entry.version):
            differences.append(VersionDifference("invalid", "custom", entry.version, known.latest, entry.guid, name))
        elif entry.version != known.latest:
            kind = "newer" if entry.version > known.latest else "older"
            differences.append(VersionDifference(kind, "custom", entry.version, known.latest, entry.guid, name))
    return tuple(differences)


def _valid(validator: Any, version: int) -> bool:
    try:
        return bool(validator(version))
    except Exception:  # a validator that raises rejects the version, like one that returns False
        return False


def latest_header(schema: Schema, custom: Mapping[str, int]) -> dict[str, Any]:
    """The header saving writes: the latest format, engine and licensee versions and the declared custom versions."""
    return {
        "format": HEADER_FORMAT,
        "engine": schema.engine_version,
        "licensee": schema.licensee_version,
        "custom": dict(sorted(custom.items())),
    }
