"""The version tables of an engine as its own sources define them: object versions and every custom version.

A studio's engine is rarely Epic's release: a licensee build counts its own ``EUnrealEngineObjectLicensee*Version``
entries, a fork adds custom versions to its modules, and plugins and game modules register their own. Unreal's
linker checks a package against what the running engine's code registers (``LinkerLoad.cpp``: the object and
licensee versions against ``GPackageFileUEVersion`` and ``GPackageFileLicenseeUEVersion``, each custom version
against ``FCurrentCustomVersions``), so these tables are read from the code:

- the object versions from ``Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h`` (the UE4, UE5 and licensee
  enums' ``AUTOMATIC_VERSION``, counted as the compiler counts them), and the LegacyFileVersion this engine writes
  from ``PackageFileSummary.cpp``;
- every ``FCustomVersionRegistration`` and ``FDevVersionRegistration`` of the engine's modules (``Engine/Source``
  without ``ThirdParty`` and ``Programs``), of its plugins (each plugin's ``Source/``) and of the game's modules and
  plugins (:class:`SourceRoot`).

Only the files that can hold a registration are parsed (a byte search for ``VersionRegistration``); the names a
registration uses are looked up in the headers it includes first, then in every file that mentions them. A
registration that cannot be resolved is named in :attr:`VersionTables.problems`; a GUID registered twice with
different versions is named in :attr:`VersionTables.undecided` and decides nothing. ``docs/package-rules.md`` §4.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Imported where the files are parsed: the C++ reader's patterns cost milliseconds to compile, which a command
    # that finds no tree to read (most runs of assets scan and the guard) does not pay.
    from buildver.packages.cpp_source import FileSymbols, RawRegistration, Registration, Symbols

__all__ = [
    "OBJECT_VERSION_HEADER",
    "ObjectVersionLimits",
    "RegisteredCustomVersion",
    "SourceRoot",
    "TreeListing",
    "VersionTables",
    "list_tree",
    "read_tables",
    "shipped_tables",
    "with_registrations",
]

SOURCE_EXTENSIONS = (".h", ".cpp", ".inl")
OBJECT_VERSION_HEADER = "Engine/Source/Runtime/Core/Public/UObject/ObjectVersion.h"
"""Where every release from 4.0 to 5.7 defines the UE4, UE5 and licensee object-version enums."""
PACKAGE_SUMMARY_SOURCE = "Engine/Source/Runtime/CoreUObject/Private/UObject/PackageFileSummary.cpp"
"""Where ``CurrentLegacyFileVersion``, the LegacyFileVersion the engine writes, is defined."""
_SKIPPED_SOURCE_FOLDERS = frozenset({"thirdparty", "programs"})
"""Folders directly under a ``Source/`` whose code never runs in the editor that loads packages (lower case)."""
_REGISTRATION_BYTES = b"VersionRegistration"
_INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)
_LEGACY = re.compile(rb"CurrentLegacyFileVersion\s*=\s*(-\d+)\s*;")
_ENGINE_CATEGORIES = frozenset({"runtime", "editor", "developer", "programs"})


@dataclass(frozen=True, slots=True)
class SourceRoot:
    """A folder whose code registers custom versions: an engine tree's root, or a game's or a plugin folder.

    ``kind`` is ``"engine"`` (``Engine/Source`` and the plugins under ``Engine/Plugins``), ``"game"`` (``Source``
    and the plugins under ``Plugins``) or ``"plugins"`` (a folder of plugins: an ``AdditionalPluginDirectories``
    entry).
    """

    path: Path
    kind: str


@dataclass(frozen=True, slots=True)
class RegisteredCustomVersion:
    """One custom version a module registers: what Unreal's ``FCurrentCustomVersions`` holds for its GUID."""

    guid: str
    name: str
    version: int
    where: str
    """``file:line`` of the registration."""
    module: str
    """The module that registers it (``Core``; ``ControlRig (plugin ControlRig)``)."""


@dataclass(frozen=True, slots=True)
class ObjectVersionLimits:
    """The newest object versions an engine writes and loads (``GPackageFileUEVersion`` and its kin)."""

    file_version_ue4: int
    file_version_ue5: int
    file_version_licensee: int
    legacy_file_version: int | None
    """None when ``PackageFileSummary.cpp`` is not in the tree: the release's own value then applies."""
    where: str


@dataclass(frozen=True, slots=True)
class VersionTables:
    """What one engine, with its plugins and a game, registers: the tables a package is checked against."""

    source: str
    """Which tables these are, for a verdict to name: ``read from /engine`` or ``release 5.3's shipped tables``."""
    object_versions: ObjectVersionLimits | None
    custom_versions: Mapping[str, RegisteredCustomVersion]
    undecided: Mapping[str, str] = field(default_factory=dict)
    """GUID -> why it decides nothing (registered twice with different versions, or its version unresolved)."""
    problems: tuple[str, ...] = ()
    """Registrations whose GUID could not be resolved."""
    notes: tuple[str, ...] = ()
    """Registrations left out on purpose (a version only known when the engine runs)."""
    read_files: tuple[str, ...] = ()
    """The files the tables were read from (what a cache of them checks for change)."""

    def __hash__(self) -> int:
        return hash((self.source, self.object_versions, tuple(self.custom_versions), tuple(self.undecided)))

    def to_json(self) -> dict[str, object]:
        """The tables as ``buildver engine --versions --json`` prints them."""
        limits = self.object_versions
        return {
            "source": self.source,
            "object_versions": None
            if limits is None
            else {
                "file_version_ue4": limits.file_version_ue4,
                "file_version_ue5": limits.file_version_ue5,
                "file_version_licensee": limits.file_version_licensee,
                "legacy_file_version": limits.legacy_file_version,
                "where": limits.where,
            },
            "custom_versions": [
                {"guid": e.guid, "name": e.name, "version": e.version, "module": e.module, "where": e.where}
                for e in self.custom_versions.values()
            ],
            "undecided": dict(self.undecided),
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class TreeListing:
    """The source files of some roots, and their folders (what a cache of the tables checks for change)."""

    files: tuple[str, ...]
    folders: tuple[str, ...]
    plugins: tuple[str, ...] = ()
    """The plugins' folders (those holding a ``.uplugin``)."""


def list_tree(roots: Sequence[SourceRoot], *, plugins: bool = True) -> TreeListing:
    """Every C++ source file the roots' modules compile, in a stable order, and every folder that holds them
    (``plugins=False``: an engine's own modules only, as buildver's shipped tables hold)."""
    files: list[str] = []
    folders: list[str] = []
    plugin_folders: list[str] = []
    for root in roots:
        base = os.fspath(root.path)
        # The root's own folder too: a ``Source`` or ``Plugins`` folder made later changes it.
        folders.append(base)
        if root.kind == "engine":
            folders.append(os.path.join(base, "Engine"))
            _walk_source(os.path.join(base, "Engine", "Source"), files, folders)
            if plugins:
                _walk_plugins(os.path.join(base, "Engine", "Plugins"), files, folders, plugin_folders)
        elif root.kind == "game":
            _walk_source(os.path.join(base, "Source"), files, folders)
            _walk_plugins(os.path.join(base, "Plugins"), files, folders, plugin_folders)
        else:
            _walk_plugins(base, files, folders, plugin_folders)
    return TreeListing(tuple(files), tuple(folders), tuple(plugin_folders))


def _walk_source(source: str, files: list[str], folders: list[str]) -> None:
    """A ``Source/`` folder's C++ files, without ``ThirdParty`` and ``Programs``."""
    for folder, subfolders, names in os.walk(source):
        if folder == source:
            subfolders[:] = [name for name in subfolders if name.lower() not in _SKIPPED_SOURCE_FOLDERS]
        subfolders.sort()
        folders.append(folder)
        files.extend(os.path.join(folder, name) for name in sorted(names) if name.endswith(SOURCE_EXTENSIONS))


def _walk_plugins(plugins: str, files: list[str], folders: list[str], plugin_folders: list[str]) -> None:
    """Each plugin below ``plugins`` (a folder with a ``.uplugin``; no plugin inside another, as Unreal finds them):
    its ``Source/``."""
    for folder, subfolders, names in os.walk(plugins):
        subfolders.sort()
        folders.append(folder)
        if any(name.lower().endswith(".uplugin") for name in names):
            subfolders.clear()
            plugin_folders.append(folder)
            _walk_source(os.path.join(folder, "Source"), files, folders)
        else:
            subfolders[:] = [name for name in subfolders if not name.startswith(".")]


def module_of(path: str, plugins: frozenset[str] | None = None) -> str:
    """The module a source file belongs to: the folder under ``Source/`` (under its category in the engine's
    ``Engine/Source``), with the plugin named when it is a plugin's (the folder holding ``Source/`` is one of
    ``plugins``; without them, when a folder above is called ``Plugins``)."""
    parts = path.replace("\\", "/").split("/")
    lowered = [part.lower() for part in parts]
    if "source" not in lowered:
        return ""
    at = len(lowered) - 1 - lowered[::-1].index("source")
    module = parts[at + 1 : at + 2]
    if at >= 1 and lowered[at - 1] == "engine" and module and module[0].lower() in _ENGINE_CATEGORIES:
        module = parts[at + 2 : at + 3]
    name = module[0] if module and module[0] != parts[-1] else ""
    if plugins is not None:
        in_plugin = "/".join(parts[:at]) in plugins
    else:
        in_plugin = at >= 2 and lowered[at - 1] != "engine" and "plugins" in lowered[:at]
    return f"{name} (plugin {parts[at - 1]})" if in_plugin and at >= 1 else name


def read_tables(roots: Sequence[SourceRoot], *, listing: TreeListing | None = None, label: str = "") -> VersionTables:
    """The tables the roots' sources define (the object versions from the first engine root that has them)."""
    listing = listing if listing is not None else list_tree(roots)
    reader = _TreeReader(listing.files, _display_base(roots))
    registrations, undecided, problems, notes = reader.custom_versions(
        frozenset(reader.shown(folder) for folder in listing.plugins)
    )
    object_versions = None
    for root in roots:
        if root.kind == "engine":
            object_versions = _object_versions(root.path, reader)
            if object_versions is not None:
                break
    source = label or "read from " + ", ".join(os.fspath(root.path) for root in roots)
    read = tuple(sorted(reader.parsed | reader.read_for_object_versions | reader.included))
    return VersionTables(source, object_versions, registrations, undecided, tuple(problems), tuple(notes), read)


def shipped_tables(major: int, minor: int) -> VersionTables | None:
    """Release ``major.minor``'s tables as buildver ships them (None for a release it has neither table of)."""
    from buildver.packages.custom_version_tables import CUSTOM_VERSION_TABLES
    from buildver.packages.object_versions import RELEASE_OBJECT_VERSIONS

    release = f"{major}.{minor}"
    where = f"release {release}'s shipped table"
    objects = next((entry for entry in RELEASE_OBJECT_VERSIONS if (entry.major, entry.minor) == (major, minor)), None)
    customs = CUSTOM_VERSION_TABLES.get((major, minor))
    if objects is None and customs is None:
        return None
    limits = (
        None
        if objects is None
        else ObjectVersionLimits(
            objects.file_version_ue4, objects.file_version_ue5, 0, objects.legacy_file_version, where
        )
    )
    registered = {
        guid: RegisteredCustomVersion(guid, name, version, where, "")
        for guid, (name, version) in sorted((customs or {}).items())
    }
    return VersionTables(f"release {release}'s shipped tables", limits, registered)


def with_registrations(base: VersionTables, read: VersionTables) -> VersionTables:
    """``base`` (a release's shipped tables) with what plugins' and a game's sources register over it."""
    customs = dict(base.custom_versions)
    undecided = dict(read.undecided)
    for guid, entry in read.custom_versions.items():
        shipped = customs.get(guid)
        if shipped is not None and (shipped.name, shipped.version) != (entry.name, entry.version):
            undecided[guid] = (
                f"{guid} is registered differently: {shipped.name} {shipped.version} by the engine "
                f"({shipped.where}), {entry.name} {entry.version} at {entry.where}"
            )
        customs[guid] = entry
    for guid in undecided:
        customs.pop(guid, None)
    return VersionTables(
        f"{base.source}, with what {read.source.removeprefix('read from ')} registers",
        base.object_versions,
        dict(sorted(customs.items())),
        undecided,
        read.problems,
        read.notes,
        read.read_files,
    )


def _display_base(roots: Sequence[SourceRoot]) -> str:
    """The folder the ``file:line`` of each registration is relative to: the roots' common folder."""
    paths = [os.path.abspath(root.path) for root in roots]
    if not paths:
        return ""
    try:
        common = os.path.commonpath(paths)
    except ValueError:  # different drives
        return ""
    if os.path.dirname(common) == common:  # nothing in common but the file system's root: whole paths say more
        return ""
    return common if len(paths) > 1 or roots[0].kind != "plugins" else os.path.dirname(common)


class _TreeReader:
    """Reads the files of a listing on demand, parsing only those that can register or define a needed name."""

    def __init__(self, files: Sequence[str], base: str) -> None:
        self.files = files
        self.base = base
        self.by_name: dict[str, list[str]] = {}
        for path in files:
            self.by_name.setdefault(os.path.basename(path).lower(), []).append(path)
        from buildver.packages.cpp_source import Symbols

        self.texts: dict[str, bytes] = {}
        self.symbols: Symbols = Symbols()
        self.parsed: set[str] = set()
        self.includes: dict[str, list[str]] = {}
        self.paths_shown: dict[str, str] = {}
        """A shown path (``where``) -> the file's path: for the ``.inl`` files a parsed file includes."""
        self.read_for_object_versions: set[str] = set()
        self.included: set[str] = set()
        """The ``.inl`` files read into a parsed file's enums (5.6+ list UE5-Main's entries in one)."""

    def shown(self, path: str) -> str:
        if not self.base:
            return path.replace("\\", "/")
        return os.path.relpath(path, self.base).replace("\\", "/")

    def data(self, path: str) -> bytes:
        known = self.texts.get(path)
        if known is not None:
            return known
        try:
            with open(path, "rb") as stream:
                return stream.read()
        except OSError:
            return b""

    def find_include(self, including: str, include: str) -> str | None:
        """The text of an ``#include "x.inl"``: the file beside the including one, else the only one of that name."""
        path = self.include_path(including, include)
        if path is None:
            return None
        self.included.add(path)
        return self.data(path).decode("utf-8", "replace")

    def include_path(self, including: str, include: str) -> str | None:
        beside = os.path.normpath(os.path.join(os.path.dirname(including), include))
        named = self.by_name.get(os.path.basename(include).lower(), [])
        if beside in named:
            return beside
        suffix = "/" + include.replace("\\", "/").lower()
        found = [path for path in named if path.replace("\\", "/").lower().endswith(suffix)]
        return found[0] if len(found) == 1 else None

    def parse(self, path: str, data: bytes) -> list[RawRegistration]:
        self.parsed.add(path)
        self.texts[path] = data
        found = self.scan(path, data)
        self.symbols.add(found)
        self.includes[path] = [item.decode("utf-8", "replace") for item in _INCLUDE_LINE.findall(data)]
        return found.registrations

    def scan(self, path: str, data: bytes) -> FileSymbols:
        """What one file defines and registers, its ``where`` relative to the roots' common folder."""
        from buildver.packages.cpp_source import FileScanner

        shown = self.shown(path)
        self.paths_shown[shown] = path
        return FileScanner(shown, data.decode("utf-8", "replace"), self._find_shown_include).scan()

    def _find_shown_include(self, including: str, include: str) -> str | None:
        return self.find_include(self.paths_shown.get(including, including), include)

    def custom_versions(
        self, plugins: frozenset[str]
    ) -> tuple[dict[str, RegisteredCustomVersion], dict[str, str], list[str], list[str]]:
        from buildver.packages.cpp_source import is_the_registration_class

        raw: list[RawRegistration] = []
        for path in self.files:
            data = self.data(path)
            if _REGISTRATION_BYTES in data:
                raw += self.parse(path, data)
        raw = [item for item in raw if not is_the_registration_class(item)]
        searched: set[str] = set()
        everywhere = False
        while True:
            resolved, undecided, problems, notes, missing = self._resolve(raw)
            missing -= searched
            if not missing:
                break
            fresh = self._files_naming(missing, everywhere)
            if not fresh:
                if everywhere:
                    break
                everywhere = True  # the included headers did not help: every file that mentions the names
                continue
            searched |= missing if everywhere else set()
            for path, data in fresh:
                self.parse(path, data)
            self.symbols.forget_values()
        return _unique(resolved, undecided, plugins), undecided, problems, notes

    def _files_naming(self, names: set[str], everywhere: bool) -> list[tuple[str, bytes]]:
        """The files not parsed yet that mention one of ``names``: the headers the parsed files include, or all."""
        encoded = sorted(name.encode() for name in names)
        if everywhere:
            candidates: Iterator[str] = iter(self.files)
        else:
            candidates = (
                found
                for path in sorted(self.parsed)
                for include in self.includes.get(path, [])
                if (found := self.include_path(path, include)) is not None
            )
        fresh: dict[str, bytes] = {}
        for path in candidates:
            if path in self.parsed or path in fresh:
                continue
            data = self.data(path)
            if any(_mentions(data, name) for name in encoded):
                fresh[path] = data
        return list(fresh.items())

    def _resolve(
        self, raw: Sequence[RawRegistration]
    ) -> tuple[list[Registration], dict[str, str], list[str], list[str], set[str]]:
        from buildver.packages.cpp_source import Registration, RunTimeValue, Unresolved, friendly_name

        registrations: list[Registration] = []
        undecided: dict[str, str] = {}
        problems: list[str] = []
        notes: list[str] = []
        missing: set[str] = set()
        for item in raw:
            path = item.where.rsplit(":", 1)[0]
            try:
                guid = self.symbols.guid(item.guid, item.scope, path)
            except Unresolved as exc:
                problems.append(f"{item.where}: cannot resolve the registration's GUID ({exc})")
                if exc.missing is not None:
                    missing.add(exc.missing)
                continue
            try:
                name = friendly_name(item.name)
                version = self.symbols.value(item.version, item.scope, path)
            except RunTimeValue as exc:
                notes.append(f"{item.where}: left out, its version is computed at run time ({exc})")
                continue
            except Unresolved as exc:
                undecided[guid] = f"{item.where}: cannot resolve the registration ({exc})"
                if exc.missing is not None:
                    missing.add(exc.missing)
                continue
            registrations.append(Registration(guid, name, version, item.where))
        return registrations, undecided, problems, notes, missing


def _mentions(data: bytes, name: bytes) -> bool:
    """Whether ``name`` occurs in ``data`` as a whole word (``bytes.find`` first: a regular expression over every
    file of an engine costs seconds)."""
    start = data.find(name)
    while start >= 0:
        end = start + len(name)
        before = data[start - 1 : start]
        after = data[end : end + 1]
        if not (before.isalnum() or before == b"_") and not (after.isalnum() or after == b"_"):
            return True
        start = data.find(name, end)
    return False


def _unique(
    registrations: Sequence[Registration], undecided: dict[str, str], plugins: frozenset[str]
) -> dict[str, RegisteredCustomVersion]:
    """One entry per GUID; a GUID registered twice differently goes to ``undecided``."""
    by_guid: dict[str, list[Registration]] = {}
    for registration in registrations:
        by_guid.setdefault(registration.guid, []).append(registration)
    unique: dict[str, RegisteredCustomVersion] = {}
    for guid, same in sorted(by_guid.items()):
        if guid in undecided:
            continue
        if len({(r.friendly_name, r.version) for r in same}) > 1:
            listed = ", ".join(f"{r.friendly_name} {r.version} at {r.where}" for r in same)
            undecided[guid] = f"{guid} is registered differently: {listed}"
            continue
        first = same[0]
        unique[guid] = RegisteredCustomVersion(
            guid, first.friendly_name, first.version, first.where, module_of(first.where.rsplit(":", 1)[0], plugins)
        )
    return unique


def _object_versions(root: Path, reader: _TreeReader) -> ObjectVersionLimits | None:
    """The newest UE4, UE5 and licensee object versions ``ObjectVersion.h`` defines, or None without it."""
    header = os.path.join(os.fspath(root), *OBJECT_VERSION_HEADER.split("/"))
    summary = os.path.join(os.fspath(root), *PACKAGE_SUMMARY_SOURCE.split("/"))
    reader.read_for_object_versions |= {header, summary}
    data = reader.data(header)
    if not data:
        return None
    from buildver.packages.cpp_source import RunTimeValue, Symbols, Unresolved

    symbols = Symbols()
    scanned = reader.scan(header, data)
    shown = scanned.path
    symbols.add(scanned)
    licensee_enums = {
        entry.enum_name for entry in scanned.enums if entry.enum_name[-1].startswith("EUnrealEngineObjectLicensee")
    }

    def latest(name: tuple[str, ...]) -> int | None:
        try:
            return symbols.named_value(name, (), shown)
        except (Unresolved, RunTimeValue):
            return None

    ue4 = latest(("EUnrealEngineObjectUE4Version", "VER_UE4_AUTOMATIC_VERSION"))
    ue5 = latest(("EUnrealEngineObjectUE5Version", "AUTOMATIC_VERSION"))
    licensee = next(
        (
            value
            for enum in sorted(licensee_enums)
            if (value := latest((*enum, "VER_LIC_AUTOMATIC_VERSION"))) is not None
        ),
        None,
    )
    if ue4 is None or licensee is None:
        return None
    legacy_match = _LEGACY.search(reader.data(summary))
    legacy = int(legacy_match.group(1)) if legacy_match else None
    return ObjectVersionLimits(ue4, ue5 or 0, licensee, legacy, shown)
