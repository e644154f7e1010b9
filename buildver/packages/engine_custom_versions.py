"""The custom versions an engine release registers, and the linker's rule on a package's newer ones.

When it loads a package, Unreal's linker compares each custom version the package stores with the one the running
engine registers (``FCurrentCustomVersions::Compare`` in ``LinkerLoad.cpp``, 4.x and 5.x): a newer one fails the load
("Package was saved with a newer custom version than the current. Tag %s Name '%s' PackageVersion %d MaxExpected
%d"); one the engine does not register only warns ("saved with a custom integration that is not present", 5.x
"custom version"). buildver knows what the engine's own modules register in each release
(:mod:`buildver.packages.custom_version_tables`, generated from the engine's sources by
``tools/generate_custom_versions.py``). A plugin registers its own, which that table does not hold: such a custom
version stays undecided. A release missing from the table, and a licensee build (whose modules may register other
versions than Epic's, as the licensee version of §7 rule 1 is theirs), get no custom-version check at all. The rules
and their sources: ``docs/package-rules.md`` §4 and §7.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from buildver.packages.tree_tables import VersionTables
    from buildver.versions.custom_versions import StoredCustomVersion
    from buildver.versions.engine_version import EngineVersion

__all__ = [
    "check_against_tables",
    "custom_version_names",
    "newer_custom_version",
    "registered_custom_versions",
    "unregistered_custom_versions",
]


def registered_custom_versions(engine: EngineVersion) -> Mapping[str, tuple[str, int]] | None:
    """GUID -> (friendly name, latest version) for every custom version ``engine``'s release registers.

    None for a release whose table could not be confirmed (``custom_version_tables.CONFIRMED_RELEASES``), and for a
    licensee build: Epic's release says nothing of what a licensee's engine registers.

    >>> from buildver.versions.engine_version import EngineVersion
    >>> registered_custom_versions(EngineVersion(4, 27, 2))["CFFC743F-43B0-4480-9391-14DF171D2073"]
    ('Dev-Framework', 37)
    >>> registered_custom_versions(EngineVersion(6, 0, 0)) is None
    True
    """
    if engine.licensee:
        return None
    return _registered(engine.major, engine.minor)


@functools.cache
def _registered(major: int, minor: int) -> Mapping[str, tuple[str, int]] | None:
    # Imported on first use: the table is a thousand lines that only a package check needs.
    from buildver.packages.custom_version_tables import CUSTOM_VERSION_TABLES

    return CUSTOM_VERSION_TABLES.get((major, minor))


@functools.cache
def custom_version_names() -> Mapping[str, str]:
    """GUID -> friendly name for every custom version some release in the table registers (the newest release's
    name where two differ): the name of a custom version that the engine checked against does not register.

    >>> custom_version_names()["CFFC743F-43B0-4480-9391-14DF171D2073"]
    'Dev-Framework'
    """
    from buildver.packages.custom_version_tables import CUSTOM_VERSION_TABLES

    names: dict[str, str] = {}
    for release in sorted(CUSTOM_VERSION_TABLES):
        for guid, (name, _) in CUSTOM_VERSION_TABLES[release].items():
            names[guid] = name
    return names


def newer_custom_version(custom_versions: Sequence[StoredCustomVersion], engine: EngineVersion) -> str | None:
    """Why a package with these custom versions is refused by ``engine``'s release, or None.

    The first custom version (in the package's order, as the linker reports it) newer than the release registers,
    with its friendly name and both numbers.
    """
    if not custom_versions:
        return None
    # The packages of a project share a few containers (the reader hands out one tuple per distinct container),
    # so the answer is remembered by identity: one dictionary look-up per package.
    answers = _ANSWERS.get(id(engine))
    if answers is not None and answers[0] is engine:
        known = answers[1].get(id(custom_versions))
        if known is not None and known[0] is custom_versions:
            return known[1]
    return _answer(custom_versions, engine)[0]


def unregistered_custom_versions(
    custom_versions: Sequence[StoredCustomVersion], engine: EngineVersion
) -> tuple[StoredCustomVersion, ...]:
    """The custom versions ``engine``'s release does not register itself (a plugin's): undecidable here.

    Empty when the release is not in the table (nothing is checked then, so nothing is singled out).
    """
    if not custom_versions:
        return ()
    return _answer(custom_versions, engine)[1]


_Answer = tuple["str | None", tuple["StoredCustomVersion", ...]]
"""The reason to refuse (or None), and the custom versions left undecided."""
_ANSWERS: dict[int, tuple[EngineVersion, dict[int, tuple[Sequence[StoredCustomVersion], str | None, _Answer]]]] = {}
"""Answers by engine, then container, identity; each entry holds its object, so that no id is reused meanwhile."""
_CACHE_LIMIT = 4096
"""Answers kept per engine, and engines: bounded, so that memory stays flat over any number of packages."""


def _answer(custom_versions: Sequence[StoredCustomVersion], engine: EngineVersion) -> _Answer:
    answers = _ANSWERS.get(id(engine))
    if answers is None or answers[0] is not engine:
        answers = (engine, {})
        if len(_ANSWERS) < _CACHE_LIMIT:
            _ANSWERS[id(engine)] = answers
    known = answers[1].get(id(custom_versions))
    if known is not None and known[0] is custom_versions:
        return known[2]
    answer = _check(custom_versions, engine)
    if len(answers[1]) < _CACHE_LIMIT:
        answers[1][id(custom_versions)] = (custom_versions, answer[0], answer)
    return answer


def _check(custom_versions: Sequence[StoredCustomVersion], engine: EngineVersion) -> _Answer:
    registered = registered_custom_versions(engine)
    if registered is None:
        return None, ()
    newer = []
    unregistered = []
    for stored in custom_versions:
        entry = registered.get(stored.guid)
        if entry is None:
            unregistered.append(stored)
        elif stored.version > entry[1]:
            newer.append((stored, entry))
    if not newer:
        return None, tuple(unregistered)
    (stored, (name, latest)), *others = newer
    more = f" (and {len(others)} more)" if others else ""
    reason = (
        f"custom version {name!r} ({stored.guid}) {stored.version} is newer than "
        f"{engine.major}.{engine.minor} registers ({latest}){more}"
    )
    return reason, tuple(unregistered)


def check_against_tables(
    custom_versions: Sequence[StoredCustomVersion], tables: VersionTables
) -> tuple[str | None, str | None]:
    """The linker's rule against tables read from an engine, its plugins and a game: why the package is refused
    (a custom version newer than its registration, named with the module that registers it and where), else why it
    is undecided (a GUID nothing registers, which Unreal only warns about; a GUID whose registration could not be
    decided); each reason names the tables. ``(None, None)`` when every custom version is registered and not newer.
    """
    registered = tables.custom_versions
    newer = []
    unregistered: list[StoredCustomVersion] = []
    undecided: list[StoredCustomVersion] = []
    for stored in custom_versions:
        entry = registered.get(stored.guid)
        if entry is None:
            (undecided if stored.guid in tables.undecided else unregistered).append(stored)
        elif stored.version > entry.version:
            newer.append((stored, entry))
    if newer:
        (stored, entry), *others = newer
        more = f" (and {len(others)} more)" if others else ""
        by = f"{entry.module} at {entry.where}" if entry.module else entry.where
        return (
            f"custom version {entry.name!r} ({stored.guid}) {stored.version} is newer than {by} registers "
            f"({entry.version}){more}; {tables.source}"
        ), None
    reasons = []
    if undecided:
        reasons.append(
            "; ".join(f"{stored.guid} {stored.version}: {tables.undecided[stored.guid]}" for stored in undecided)
        )
    if unregistered:
        names = custom_version_names()
        listed = ", ".join(
            f"{names[stored.guid]!r} ({stored.guid}) {stored.version}"
            if stored.guid in names
            else f"{stored.guid} {stored.version}"
            for stored in unregistered
        )
        count = len(unregistered)
        reasons.append(
            f"{count} custom version{'s' if count != 1 else ''} that nothing here registers: Unreal warns "
            f'("custom version not present") and loads the package without it: {listed}'
        )
    if not reasons:
        return None, None
    return None, "; ".join(reasons) + f"; {tables.source}"
