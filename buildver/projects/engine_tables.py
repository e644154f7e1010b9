"""The version tables a place's packages are judged by: read from its engine's sources, its plugins and its game.

:func:`place_tables` decides, once for every command, which tables apply (``docs/studio-engines.md``):

- ``--against`` (the command line judges it with no place, so no tree and no game is read): the release's shipped
  tables, as before (None);
- an engine whose tree holds ``ObjectVersion.h`` (a source build, the engine in the game's depot, an engine tree):
  the tables read from that tree (``Engine/Source``, ``Engine/Plugins``) and, in a game, from the game's
  ``Source/``, ``Plugins/`` and ``AdditionalPluginDirectories``;
- an installed engine without sources: its release's shipped tables, with what its plugins' and the game's sources
  register where they are present.

Reading a whole engine tree takes seconds, so the tables are kept in the user's cache folder
(:mod:`buildver.user_cache`, never inside a repository), keyed on the roots read, and checked before each use: every
folder of the listing (a file added, removed or renamed changes its folder) and every file the tables were read from
(size and modification time) must be as they were. A cache that is unreadable, malformed, of another format or
stale is read again from the sources and rewritten atomically; a cache that cannot be written costs only time.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from buildver.errors import BuildverError
from buildver.packages.tree_tables import (
    OBJECT_VERSION_HEADER,
    ObjectVersionLimits,
    RegisteredCustomVersion,
    SourceRoot,
    TreeListing,
    VersionTables,
    list_tree,
    read_tables,
    shipped_tables,
    with_registrations,
)

if TYPE_CHECKING:
    from buildver.projects.place import Place, PlaceEngine

__all__ = ["CACHE_FORMAT", "cached_tables", "place_tables", "source_roots", "tables_here"]

CACHE_FORMAT = 1
"""The layout of a cache file; a file of another layout is read again from the sources."""


def place_tables(
    place: Place, engine: PlaceEngine, *, cache_folder: Path | None = None, base: Path | None = None
) -> VersionTables | None:
    """The tables ``engine`` judges ``place``'s packages by; None where the release's shipped tables decide alone
    (``--against``, an engine known by its release, nothing registered beside the release), as they always did.
    ``base``: the folder a relative Build.version path of ``engine`` is in (the guard's repository root)."""
    if engine.version is None:
        return None
    engine_root = _engine_root(engine, base)
    roots = source_roots(place, engine_root)
    if engine_root is not None and (engine_root / OBJECT_VERSION_HEADER).is_file():
        return cached_tables(roots, cache_folder=cache_folder)
    # An installed engine without sources: what its release registers, with its plugins' and the game's sources.
    plugin_roots = [root for root in roots if root.kind != "engine"]
    if engine_root is not None and (engine_root / "Engine" / "Plugins").is_dir():
        plugin_roots.insert(0, SourceRoot(engine_root / "Engine" / "Plugins", "plugins"))
    from buildver.packages.custom_version_tables import CUSTOM_VERSION_TABLES

    major, minor = engine.version.major, engine.version.minor
    if not plugin_roots or engine.version.licensee or (major, minor) not in CUSTOM_VERSION_TABLES:
        # Nothing to add to the release's tables; or nothing to add it to: Epic's release says nothing of a
        # licensee's engine, and a release without a confirmed table gets no custom-version check.
        return None
    release = shipped_tables(major, minor)
    read = cached_tables(plugin_roots, cache_folder=cache_folder)
    if release is None or not (read.custom_versions or read.undecided):
        return None
    return with_registrations(release, read)


def tables_here(start: Path) -> tuple[PlaceEngine, VersionTables | None]:
    """The engine of the place ``start`` is in, and the tables its packages are judged by: :func:`place_tables`'s,
    else its release's shipped tables (None when buildver has none of that release, or no engine is known)."""
    from buildver.projects.place import find_place, place_engine

    place = find_place(start)
    engine = place_engine(place)
    tables = place_tables(place, engine)
    if tables is None and engine.version is not None and not engine.version.licensee:
        tables = shipped_tables(engine.version.major, engine.version.minor)
    return engine, tables


def _engine_root(engine: PlaceEngine, base: Path | None = None) -> Path | None:
    if engine.version_file is not None:
        path = Path(os.path.abspath(engine.version_file.path if base is None else base / engine.version_file.path))
        if path.parent.name.lower() == "build" and path.parent.parent.name.lower() == "engine":
            return path.parent.parent.parent
    if engine.association is not None:
        return engine.association.root
    return None


def source_roots(place: Place, engine_root: Path | None) -> list[SourceRoot]:
    """The folders whose sources register the custom versions the place's packages are checked against."""
    roots = [] if engine_root is None else [SourceRoot(engine_root, "engine")]
    from buildver.projects.place import PlaceKind

    if place.kind is PlaceKind.GAME and place.project is not None and place.root != engine_root:
        roots.append(SourceRoot(place.root, "game"))
        roots += [SourceRoot(folder, "plugins") for folder in _additional_plugin_folders(place.project)]
    return roots


def _additional_plugin_folders(project: Path) -> list[Path]:
    """The ``.uproject``'s AdditionalPluginDirectories, relative to the project's folder as Unreal reads them."""
    from buildver.projects.descriptors import parse_project_descriptor
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(project)
        descriptor = None if data is None else parse_project_descriptor(data, str(project))
    except (OSError, BuildverError):
        return []  # the project's own check reports a descriptor it cannot read
    if descriptor is None:
        return []
    folders = [Path(os.path.abspath(project.parent / folder)) for folder in descriptor.additional_plugin_directories]
    return [folder for folder in dict.fromkeys(folders) if folder.is_dir()]


# -- the cache -----------------------------------------------------------------------------------------------------


def cached_tables(roots: Sequence[SourceRoot], *, cache_folder: Path | None = None) -> VersionTables:
    """The tables of ``roots``: from the cache when nothing they were read from changed, else read and cached."""
    from buildver.user_cache import user_cache_folder

    folder = (cache_folder if cache_folder is not None else user_cache_folder()) / "tables"
    key = json.dumps([[os.path.abspath(root.path), root.kind] for root in roots])
    cache = folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")
    found = _load(cache, key)
    if found is not None:
        return found
    listing = list_tree(roots)
    tables = read_tables(roots, listing=listing)
    _store(cache, key, listing, tables)
    return tables


def _stamp(path: str) -> list[int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns]


def _load(cache: Path, key: str) -> VersionTables | None:
    """The cached tables, or None when the cache is absent, unreadable, malformed or stale (never trusted)."""
    try:
        with open(cache, "rb") as stream:
            document = json.loads(stream.read())
        if not isinstance(document, dict) or document.get("format") != CACHE_FORMAT or document.get("key") != key:
            return None
        base, folders, times, files = document["base"], document["folders"], document["times"], document["files"]
        if not isinstance(folders, list) or not isinstance(times, list) or len(folders) != len(times):
            return None
        # Every folder as it was (a file added, removed or renamed there changes its time); every file read as it was.
        # A value of another type fails in os.stat or the comparison: TypeError, caught below.
        if not _folders_unchanged(_text(base), cast("list[str]", folders), cast("list[int]", times)):
            return None
        for path, size, mtime in files:
            if _stamp(path) != [size, mtime]:
                return None
        return _tables_from(document["tables"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _folders_unchanged(base: str, folders: Sequence[str], times: Sequence[int]) -> bool:
    """Whether every folder (relative to ``base``) has its recorded time. Relative to an open ``base`` where the
    platform allows it (half the time of joining and resolving 10,000 whole paths); else joined by hand."""
    stat = os.stat
    if os.stat in os.supports_dir_fd:
        descriptor = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            for relative, mtime in zip(folders, times, strict=True):
                if stat(relative, dir_fd=descriptor).st_mtime_ns != mtime:
                    return False
        finally:
            os.close(descriptor)
        return True
    prefix = base.rstrip("\\/") + os.sep
    return all(stat(prefix + relative).st_mtime_ns == mtime for relative, mtime in zip(folders, times, strict=True))


def _store(cache: Path, key: str, listing: TreeListing, tables: VersionTables) -> None:
    """Write the cache atomically; a cache that cannot be written costs the next run the reading, nothing else."""
    from buildver.changes import write_atomic

    base = os.path.commonpath(listing.folders) if listing.folders else ""
    times = []
    try:
        times = [os.stat(path).st_mtime_ns for path in listing.folders]
    except (OSError, ValueError):
        return
    folders = [os.path.relpath(path, base) for path in listing.folders]
    files = []
    for path in tables.read_files:
        stamp = _stamp(path)
        if stamp is not None:
            files.append([path, *stamp])
    document = {
        "format": CACHE_FORMAT,
        "key": key,
        "base": base,
        "folders": folders,
        "times": times,
        "files": files,
        "tables": _tables_to(tables),
    }
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cache, json.dumps(document, separators=(",", ":")).encode())
    except (OSError, BuildverError):
        return


def _tables_to(tables: VersionTables) -> dict[str, object]:
    limits = tables.object_versions
    return {
        "source": tables.source,
        "object_versions": None
        if limits is None
        else [
            limits.file_version_ue4,
            limits.file_version_ue5,
            limits.file_version_licensee,
            limits.legacy_file_version,
            limits.where,
        ],
        "custom_versions": [
            [entry.guid, entry.name, entry.version, entry.where, entry.module]
            for entry in tables.custom_versions.values()
        ],
        "undecided": dict(tables.undecided),
        "problems": list(tables.problems),
        "notes": list(tables.notes),
        "read_files": list(tables.read_files),
    }


def _tables_from(document: Mapping[str, object]) -> VersionTables:
    """The tables of a cache document; TypeError or ValueError for anything not as :func:`_tables_to` writes it."""
    limits = document["object_versions"]
    object_versions = None
    if limits is not None:
        if not isinstance(limits, list) or len(limits) != 5:
            raise ValueError("object_versions")
        ue4, ue5, licensee, legacy, where = limits
        object_versions = ObjectVersionLimits(
            _integer(ue4), _integer(ue5), _integer(licensee), None if legacy is None else _integer(legacy), _text(where)
        )
    customs = {}
    for entry in _list(document["custom_versions"]):
        guid, name, version, where, module = _list(entry)
        customs[_text(guid)] = RegisteredCustomVersion(
            _text(guid), _text(name), _integer(version), _text(where), _text(module)
        )
    undecided = document["undecided"]
    if not isinstance(undecided, dict):
        raise ValueError("undecided")
    return VersionTables(
        _text(document["source"]),
        object_versions,
        customs,
        {_text(guid): _text(why) for guid, why in undecided.items()},
        tuple(_text(item) for item in _list(document["problems"])),
        tuple(_text(item) for item in _list(document["notes"])),
        tuple(_text(item) for item in _list(document["read_files"])),
    )


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _integer(value: object) -> int:
    if type(value) is not int:
        raise TypeError("expected an integer")
    return value
