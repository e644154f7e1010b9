"""The engine a game project uses, found the way Unreal finds it from the ``.uproject``'s ``EngineAssociation``.

Unreal's DesktopPlatform (``FDesktopPlatformBase::GetEngineIdentifierForProject`` and
``GetEngineRootDirFromIdentifier``, the same in 4.22 and 5.8; ``docs/game-projects.md`` cites each rule):

- an empty association (or none, or not a string): the nearest folder *above* the project's folder that holds both
  ``Engine/Binaries`` and ``Engine/Build`` (``IsValidRootDirectory``); the project's own folder is never tried;
- an association holding ``/`` or ``\\``: a path to the engine's folder, relative to the project's folder;
- anything else is an identifier looked up among the engines installed on this machine, without regard to case:
  the launcher's (``LauncherInstalled.dat``, ``AppName`` ``UE_5.3`` is ``5.3``), then the source builds registered
  by Unreal (``Install.ini`` ``[Installations]`` on Linux and Mac, ``HKCU\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds``
  on Windows), a registered build replacing a launcher one of the same name.

Nothing here writes: where Unreal would register an engine it finds above a project, buildver only reports it.
"""

from __future__ import annotations

import enum
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

from buildver.errors import DescriptorError, EngineLookupError
from buildver.projects.descriptor_json import read_object
from buildver.projects.lenient_version import parse_stock_engine_version
from buildver.reading import read_regular_file

__all__ = [
    "REGISTRY_BUILDS_KEY",
    "AssociationKind",
    "EngineInstallation",
    "IdentifierLookup",
    "ProjectEngine",
    "association_kind",
    "association_of",
    "installed_engines",
    "is_engine_root",
    "look_up_identifier",
    "normalized_folder",
    "project_engine",
    "read_association",
    "read_install_ini",
    "read_launcher_installed",
    "same_folder",
    "settings_folder",
]

REGISTRY_BUILDS_KEY = r"SOFTWARE\Epic Games\Unreal Engine\Builds"
"""Under HKEY_CURRENT_USER: one value per source build, its name the identifier and its data the engine's folder."""

_MAX_LIST_SIZE = 16 * 1024 * 1024
"""A launcher list or Install.ini larger than this is not one (real ones are a few KiB)."""

_GUID_DIGITS = re.compile(r"[0-9A-Fa-f]{32}")


class AssociationKind(enum.StrEnum):
    """What a project's EngineAssociation names."""

    EMPTY = "empty"
    """No association: the engine in a folder above the project."""
    PATH = "path"
    """A path to the engine's folder, relative to the project's."""
    LAUNCHER = "launcher"
    """``MAJOR.MINOR``: an engine installed by the Epic Games launcher (or registered under that name)."""
    GUID = "guid"
    """A source build registered on one machine."""
    IDENTIFIER = "identifier"
    """Any other name registered on one machine (Windows registry values can be renamed)."""


@dataclass(frozen=True, slots=True)
class EngineInstallation:
    """One engine this machine knows: its identifier, its folder and where that was read."""

    identifier: str
    root: Path
    source: str
    """The file or registry key that lists it."""
    spellings: tuple[tuple[str, str], ...] = ()
    """For an Install.ini key, which Unreal re-spells through ``FGuid::Parse``: each identifier Unreal gives it and
    the releases and platform that give it. Empty: the identifier is compared as written."""


@dataclass(frozen=True, slots=True)
class IdentifierLookup:
    """What this machine's lists say about one engine identifier (a GUID, ``5.3``, any registered name)."""

    identifier: str
    installation: EngineInstallation | None
    """The engine registered under it (the last entry of that name, as in Unreal's map), or None."""
    looked: tuple[str, ...]
    """The files and registry keys that were read, in order."""
    problem: str = ""
    """Why the lists could not be read (an EngineLookupError's message), or empty."""
    note: str = ""
    """Where the answer is not every release's or platform's (an Install.ini key matched in one spelling only, or a
    key Unreal would not match), which; else empty."""

    @property
    def root(self) -> Path | None:
        """The registered engine's folder, or None when nothing here is registered under the identifier."""
        return None if self.installation is None else self.installation.root


@dataclass(frozen=True, slots=True)
class ProjectEngine:
    """The engine of one project: what the project asks for, and how and where it was found."""

    project: Path
    association: str
    kind: AssociationKind
    root: Path
    how: str
    """One line: the rule or the list entry that decided."""

    @property
    def version_file(self) -> Path:
        """The engine's ``Engine/Build/Build.version``."""
        return self.root / "Engine" / "Build" / "Build.version"

    def to_json(self) -> dict[str, object]:
        """The result as a JSON object."""
        return {
            "project": str(self.project),
            "association": self.association,
            "kind": str(self.kind),
            "resolved_by": self.how,
            "engine_root": str(self.root),
            "version_file": str(self.version_file),
        }


def is_engine_root(folder: Path) -> bool:
    """FDesktopPlatformBase::IsValidRootDirectory: ``Engine/Binaries`` and ``Engine/Build`` are folders there."""
    return (folder / "Engine" / "Binaries").is_dir() and (folder / "Engine" / "Build").is_dir()


def settings_folder(platform: str, environ: Mapping[str, str], home: Path) -> Path:
    """FPlatformProcess::ApplicationSettingsDir: where Unreal keeps its lists of installed engines.

    Windows: ``%ProgramData%\\Epic``; Linux: ``$HOME/.config/Epic`` (XDG_CONFIG_HOME is not read);
    macOS: ``~/Library/Application Support/Epic``.
    """
    if platform == "win32":
        return Path(environ.get("PROGRAMDATA") or environ.get("ALLUSERSPROFILE") or r"C:\ProgramData") / "Epic"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Epic"
    return home / ".config" / "Epic"


def _read_list(path: Path) -> str | None:
    try:
        size = path.stat().st_size if path.is_file() else 0
        if size > _MAX_LIST_SIZE:
            raise EngineLookupError(f"{path}: {size} bytes, larger than any list of engines ({_MAX_LIST_SIZE})")
        data = read_regular_file(path)
    except OSError as exc:
        raise EngineLookupError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        return None
    try:
        return data.decode("utf-16") if data.startswith((b"\xff\xfe", b"\xfe\xff")) else data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EngineLookupError(f"{path}: byte {exc.start}: the file is not UTF-8 ({exc.reason})") from None


def read_launcher_installed(path: Path) -> list[EngineInstallation]:
    """The engines in the launcher's ``LauncherInstalled.dat`` (FDesktopPlatformBase::ReadLauncherInstallationList).

    Each ``InstallationList`` entry whose ``AppName`` starts with ``UE_`` (the case matters) is an engine named by
    the rest of it, installed in ``InstallLocation``; entries missing either are skipped, the others (samples,
    games) are not engines. ``AppVersion`` is never read. A missing file is an empty list.
    """
    text = _read_list(path)
    if text is None:
        return []
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineLookupError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise EngineLookupError(f"{path}: not a list of installations ({exc})") from None
    entries = document.get("InstallationList") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise EngineLookupError(f"{path}: no InstallationList array: not the launcher's list of installations")
    found = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name, location = entry.get("AppName"), entry.get("InstallLocation")
        if isinstance(name, str) and isinstance(location, str) and name.startswith("UE_") and location:
            found.append(EngineInstallation(name.removeprefix("UE_"), normalized_folder(location), f"{path} ({name})"))
    return found


def read_install_ini(path: Path, *, platform: str = sys.platform) -> list[EngineInstallation]:
    """The source builds in Unreal's ``Install.ini`` (Linux and macOS): ``[Installations]``, ``IDENTIFIER=FOLDER``.

    A missing file is an empty list. Each key is re-spelt as Unreal's ``EnumerateEngineInstallations`` re-spells it
    (:func:`install_ini_spellings`). Unreal on Linux (read in 5.3.1, 5.4.3 and 5.8) also lists launcher-style builds
    there as ``UE_5.8=...``; such a key is the engine ``5.8``.
    """
    text = _read_list(path)
    if text is None:
        return []
    found = []
    section = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise EngineLookupError(f"{path}: line {number}: a section header without its closing ']'")
            section = line[1:-1].strip()
            continue
        if section != "Installations":
            continue
        key, equals, value = line.partition("=")
        if not equals:
            raise EngineLookupError(f"{path}: line {number}: expected IDENTIFIER=FOLDER, not {line!r}")
        key, value = key.strip(), value.strip().strip('"')
        if key and value:
            found.append(
                EngineInstallation(
                    key, normalized_folder(value), f"{path} ({key})", install_ini_spellings(key, platform)
                )
            )
    return found


_ZERO_GUID = "00000000-0000-0000-0000-000000000000"


def install_ini_spellings(key: str, platform: str) -> tuple[tuple[str, str], ...]:
    """The identifiers Unreal gives an Install.ini key, each with the releases and platform that give it.

    ``FDesktopPlatform{Linux,Mac}::EnumerateEngineInstallations`` parses the key with ``FGuid::Parse`` and prints it
    again; a key that is not a GUID leaves the GUID zero. Linux prints it with braces in 4.22 and 5.0 and without
    from 5.1 (``DigitsWithHyphensInBraces`` / ``DigitsWithHyphens``); macOS with braces (read in 5.0 and 5.1). Read in
    folgerwang/UnrealEngine@4b06f0b5 (4.22) and elmachotroso/unreal_devtoolbox@1c24a3df (5.0.3) and @9d0f90ca
    (5.1.1) ``Developer/DesktopPlatform/Private/Linux/DesktopPlatformLinux.cpp`` (5.0.3 lines 207-209, 5.1.1 lines
    206-208), ``Mac/DesktopPlatformMac.cpp`` (5.0.3 lines 561-563, 5.1.1 lines 560-562), unicorn2022/UE5.8.0@5d9a05c1
    (5.8, Linux: ``UE_`` keys are launcher-style builds named by the rest). 5.3.1 and 5.4.3 on Linux already read
    ``UE_`` keys so (``EnumerateLauncherEngineInstallations``) and print keys without braces; 5.4.3 on macOS with
    braces (realAYAYA/UnrealEngine-ToonLit@0b4f286d and @40029702, the same files); 5.0.3 and 5.1.1 have no ``UE_``
    rule (a ``UE_`` key is the zero GUID there).
    """
    digits = _guid_digits(key)
    launcher = key.startswith("UE_")
    guid = (
        _ZERO_GUID
        if digits is None
        else "-".join((digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:]))
    )
    zero = " (not a GUID: the zero GUID)" if digits is None else ""
    if platform == "darwin":
        found = [("{" + guid + "}", f"Unreal on macOS (read in 5.0, 5.1 and 5.4){zero}")]
    else:
        found = [
            ("{" + guid + "}", f"Unreal 4.22 to 5.0 on Linux{zero}"),
            (guid, f"Unreal 5.1 and later on Linux{zero}"),
        ]
    if launcher and platform != "darwin":
        found.insert(0, (key.removeprefix("UE_"), "Unreal 5.3 and later on Linux (a launcher-style build)"))
    return tuple(found)


def read_registry_builds() -> list[tuple[str, str]]:
    """The values under ``HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds``: (name, data) pairs.

    The one function that reads the registry; elsewhere (and in the tests on Linux) a fake stands in for it.
    """
    values: list[tuple[str, str]] = []
    if sys.platform != "win32":
        return values
    import winreg

    try:
        key = winreg.OpenKey(winreg.HKEY_CURRENT_USER, REGISTRY_BUILDS_KEY)
    except OSError:
        return values
    with key:
        index = 0
        while True:
            try:
                name, data, _ = winreg.EnumValue(key, index)
            except OSError:
                return values
            if isinstance(data, str):
                values.append((name, data))
            index += 1


def installed_engines(
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> tuple[list[EngineInstallation], list[str]]:
    """Every engine this machine lists, in Unreal's order (a later entry with the same name replaces an earlier
    one), and the places that were looked in.

    FDesktopPlatform{Windows,Linux,Mac}::EnumerateEngineInstallations: the launcher's list first, then the
    registered source builds; on Windows a registry value is kept only for a folder that is an engine's and not
    listed already.
    """
    folder = settings_folder(platform, environ, home if home is not None else Path.home())
    launcher = folder / "UnrealEngineLauncher" / "LauncherInstalled.dat"
    engines = read_launcher_installed(launcher)
    looked = [str(launcher)]
    if platform == "win32":
        looked.append(f"HKEY_CURRENT_USER\\{REGISTRY_BUILDS_KEY}")
        source = looked[-1]
        for name, data in registry():
            root = normalized_folder(data)
            if is_engine_root(root) and all(not same_folder(root, known.root) for known in engines):
                engines.append(EngineInstallation(name, root, f"{source} ({name})"))
    else:
        install_ini = folder / "UnrealEngine" / "Install.ini"
        looked.append(str(install_ini))
        engines += read_install_ini(install_ini, platform=platform)
    return engines, looked


def project_engine(
    project: Path,
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
    association: str | None = None,
) -> ProjectEngine:
    """The engine of the ``.uproject`` at ``project``, found as Unreal finds it; EngineLookupError when it is not
    installed here (the message says what was looked for where, and how to name the engine instead).

    ``association``: the project's EngineAssociation when it is already known (the guard reads the staged
    ``.uproject``); by default it is read from the file.
    """
    shown = str(project)
    if association is None:
        association = read_association(project)
    project_dir = Path(os.path.abspath(project)).parent
    kind = association_kind(association)
    release = association if kind is AssociationKind.LAUNCHER else "MAJOR.MINOR"
    hint = (
        "install it, or give its Engine/Build/Build.version to project check or assets scan with --file, or name "
        f"its release with --against {release}"
    )
    if not association:
        for folder in project_dir.parents:
            if is_engine_root(folder):
                how = "no EngineAssociation: the nearest folder above the project with Engine/Binaries and Engine/Build"
                return ProjectEngine(project, association, AssociationKind.EMPTY, folder, how)
        raise EngineLookupError(
            f"{shown}: no EngineAssociation, and no folder above the project holds Engine/Binaries and Engine/Build "
            f"(an engine's folder); {hint}"
        )
    if "/" in association or "\\" in association:
        root = normalized_folder(str(project_dir / association.replace("\\", "/")))
        if is_engine_root(root):
            return ProjectEngine(project, association, AssociationKind.PATH, root, "a path, relative to the project")
        raise EngineLookupError(
            f"{shown}: EngineAssociation {association!r} is a path to {root}, which holds no Engine/Binaries and "
            f"Engine/Build; {hint}"
        )
    lookup = look_up_identifier(association, platform=platform, environ=environ, home=home, registry=registry)
    chosen, looked = lookup.installation, lookup.looked
    if chosen is None:
        what = {
            AssociationKind.LAUNCHER: f"a launcher build of Unreal {association}",
            AssociationKind.GUID: "a source build registered on a machine",
        }.get(kind, "an engine registered under that name")
        why = f"; {lookup.note}" if lookup.note else ""
        raise EngineLookupError(
            f"{shown}: EngineAssociation {association!r} ({what}) is not installed here (looked in "
            f"{', '.join(looked)}{why}); {hint}"
        )
    how = chosen.source if not lookup.note else f"{chosen.source}; {lookup.note}"
    return ProjectEngine(project, association, kind, chosen.root, how)


def read_association(project: Path) -> str:
    """The ``.uproject``'s EngineAssociation as Unreal 5 reads it ("" when it names none or is not a string);
    EngineLookupError when the file cannot be read or is not a project descriptor."""
    shown = str(project)
    try:
        data = read_regular_file(project)
    except OSError as exc:
        raise EngineLookupError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        raise EngineLookupError(f"{shown}: no such file")
    return association_of(data, shown)


def association_of(data: bytes, shown: str) -> str:
    """The EngineAssociation of a ``.uproject``'s bytes ("" when it names none); EngineLookupError when they are
    not a descriptor."""
    try:
        document = read_object(data, shown)
    except DescriptorError as exc:
        raise EngineLookupError(str(exc)) from None
    value = document.get("engineassociation")
    return value if isinstance(value, str) else ""


def look_up_identifier(
    identifier: str,
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> IdentifierLookup:
    """FDesktopPlatformBase::GetEngineRootDirFromIdentifier (4.22 to 5.x): the engine this machine registers under
    ``identifier``, compared as :func:`project_engine` compares it; EngineLookupError when a list cannot be read."""
    engines, looked = installed_engines(platform=platform, environ=environ, home=home, registry=registry)
    chosen = None
    note = ""
    missed = []
    for engine in engines:  # a later entry of the same name replaces an earlier one, as in Unreal's map
        matched, why = _matches(engine, identifier)
        if matched:
            chosen, note = engine, why
        elif why:
            missed.append(why)
    if chosen is None and missed:
        note = "; ".join(missed)
    return IdentifierLookup(identifier, chosen, tuple(looked), note=note)


def association_kind(association: str) -> AssociationKind:
    """What an EngineAssociation names, by FDesktopPlatformBase's tests: empty, a path, ``MAJOR.MINOR``, a GUID or
    another identifier."""
    if not association:
        return AssociationKind.EMPTY
    if "/" in association or "\\" in association:
        return AssociationKind.PATH
    if parse_stock_engine_version(association) is not None:  # FDesktopPlatformBase::TryParseStockEngineVersion
        return AssociationKind.LAUNCHER
    return AssociationKind.GUID if _guid_digits(association) is not None else AssociationKind.IDENTIFIER


def _guid_digits(text: str) -> str | None:
    """The 32 hex digits of a GUID written as FGuid::Parse reads it (plain, hyphenated, in braces or parentheses)."""
    inner = text[1:-1] if text[:1] + text[-1:] in ("{}", "()") else text
    if len(inner) == 36 and [len(part) for part in inner.split("-")] == [8, 4, 4, 4, 12]:
        inner = inner.replace("-", "")
    return inner.upper() if _GUID_DIGITS.fullmatch(inner) else None


_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _same_identifier(identifier: str, association: str) -> bool:
    """FString ``==`` (``GetEngineRootDirFromIdentifier``, 4.22 to 5.x): ASCII letters without regard to case,
    every other character as it is (``\u212a``, the Kelvin sign, is not ``k``)."""
    return identifier.translate(_ASCII_FOLD) == association.translate(_ASCII_FOLD)


def _matches(engine: EngineInstallation, association: str) -> tuple[bool, str]:
    """Whether Unreal finds ``engine`` under ``association``, and, where releases or platforms differ (an
    Install.ini key), which of them would; a launcher entry or a Windows registry name is compared as written."""
    if not engine.spellings:
        return _same_identifier(engine.identifier, association), ""
    matching = [who for spelling, who in engine.spellings if _same_identifier(spelling, association)]
    others = [
        f"{who} reads it as {spelling!r}"
        for spelling, who in engine.spellings
        if not _same_identifier(spelling, association)
    ]
    key = f"Install.ini key {engine.identifier!r}"
    if not matching:
        digits = _guid_digits(engine.identifier)
        near = _same_identifier(engine.identifier, association) or (
            digits is not None and digits == _guid_digits(association)
        )
        return False, (f"{key} is not {association!r} to Unreal: " + ", ".join(others)) if near else ""
    if not others:
        return True, ""
    return True, f"{key} matches {association!r} in {' and '.join(matching)} only; " + ", ".join(others)


def normalized_folder(text: str) -> Path:
    """FPaths::NormalizeDirectoryName and CollapseRelativeDirectories: forward slashes, no trailing one, no ``..``."""
    return Path(os.path.normpath(text.replace("\\", "/"))) if text else Path(text)


def same_folder(first: PurePath, second: PurePath) -> bool:
    """Whether two normalized folders are one, as this platform compares paths."""
    return os.path.normcase(str(first)) == os.path.normcase(str(second))
