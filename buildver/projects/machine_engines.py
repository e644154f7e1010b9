"""This machine's engines listed as UnrealVersionSelector lists them, and a source build registered as Unreal registers
one (``UnrealVersionSelector -register``).

Which engines a machine has is :func:`buildver.projects.engine.installed_engines`'s answer; this module only adds
each engine's Build.version and plans the one write that registers a new folder. ``docs/project-rules.md`` §7 cites
the rules:

- Windows (``FDesktopPlatformWindows::RegisterEngineInstallation``, 4.22 to 5.8): a new value under
  ``HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds``, named by a new GUID in braces
  (``DigitsWithHyphensInBraces``), its data the engine's folder with forward slashes;
- Linux and macOS (``FDesktopPlatform{Linux,Mac}::RegisterEngineInstallation``): ``KEY=FOLDER`` in ``Install.ini``'s
  ``[Installations]``, the key a new GUID: in braces on macOS and on Linux up to 5.0, without them on Linux from 5.1.
  buildver spells it as the release of the engine being registered does (its Build.version), 5.1's way when that
  cannot be read. On Linux from 5.2 an installed build's ``Engine/Build/InstalledBuild.txt`` names the key instead:
  a GUID (5.2: the file's text as it is; from 5.3 without trailing blanks) or, from 5.3, a ``UE_`` name, which
  registers the engine as that release (the key without ``UE_`` is its identifier).

A folder this machine lists already keeps its identifier (``FDesktopPlatformBase::GetEngineIdentifierFromRootDir``
looks for the folder among the installed engines before it registers anything).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from buildver.changes import FileChange, apply_changes, locked, read_existing, remove_leftovers
from buildver.errors import BuildverError, EngineLookupError, WriteError
from buildver.projects.engine import (
    REGISTRY_BUILDS_KEY,
    EngineInstallation,
    association_kind,
    guid_digits,
    installed_engines,
    is_engine_root,
    normalized_folder,
    read_registry_builds,
    same_folder,
    settings_folder,
)
from buildver.text import unencodable

__all__ = [
    "ListedEngine",
    "Registration",
    "apply_registration",
    "machine_engines",
    "plan_registration",
    "register_engine",
    "write_registry_build",
]

RegistryReader = Callable[[], list[tuple[str, str]]]
RegistryWriter = Callable[[str, str], None]


@dataclass(frozen=True, slots=True)
class ListedEngine:
    """One engine this machine lists, with its Build.version's version or why there is none."""

    installation: EngineInstallation
    version: str | None
    problem: str
    """Why there is no version (no folder, no Build.version, an invalid one), or empty."""

    @property
    def kind(self) -> str:
        """What the identifier is, by the tests an EngineAssociation is put to (launcher, guid, identifier)."""
        return str(association_kind(self.installation.identifier))

    def to_json(self) -> dict[str, object]:
        """The engine as a JSON object."""
        engine = self.installation
        return {
            "identifier": engine.identifier,
            "kind": self.kind,
            "engine_root": str(engine.root),
            "listed_in": engine.source,
            "spellings": [{"identifier": spelling, "read_by": who} for spelling, who in engine.spellings],
            "engine_version": self.version,
            "problem": self.problem or None,
        }


def machine_engines(
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: RegistryReader = read_registry_builds,
) -> tuple[list[ListedEngine], list[str]]:
    """Every engine :func:`installed_engines` finds, in Unreal's order, each with its version; and where it looked."""
    from buildver.versions.build_version import load_build_version

    engines, looked = installed_engines(platform=platform, environ=environ, home=home, registry=registry)
    listed = []
    for engine in engines:
        version_file = engine.root / "Engine" / "Build" / "Build.version"
        version, problem = None, ""
        if not engine.root.is_dir():
            problem = "the folder does not exist"
        elif not version_file.is_file():
            problem = "no Engine/Build/Build.version there"
        else:
            try:
                version = str(load_build_version(version_file).record.engine_version)
            except BuildverError as exc:
                problem = str(exc)
        listed.append(ListedEngine(engine, version, problem))
    return listed, looked


@dataclass(frozen=True, slots=True)
class Registration:
    """What registering one engine folder does: the identifier, and the write (none when it is listed already)."""

    root: Path
    identifier: str
    where: str
    """The Install.ini file or the registry key that lists (or will list) the engine."""
    existing: bool
    """The folder was listed already: nothing is written, and its identifier is the one it has."""
    change: FileChange | None = None
    """Install.ini's new content (Linux, macOS), or None."""
    registry_value: tuple[str, str] | None = None
    """The registry value to add (Windows): its name and data; or None."""
    list_file: Path | None = None
    """Install.ini (Linux, macOS), written or not: killed runs' leftovers beside it are removed by the next one."""
    note: str = ""
    """Which releases spell the identifier this way, when they differ."""
    key: str = ""
    """The Install.ini key written, when it is not the identifier (an installed build's ``UE_`` name), or empty."""

    def to_json(self) -> dict[str, object]:
        """The registration as a JSON object."""
        return {
            "engine_root": str(self.root),
            "identifier": self.identifier,
            "registered_in": self.where,
            "already_registered": self.existing,
            "note": self.note or None,
        }


def plan_registration(
    folder: Path,
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: RegistryReader = read_registry_builds,
    new_guid: Callable[[], uuid.UUID] = uuid.uuid4,
) -> Registration:
    """What ``UnrealVersionSelector -register`` would do for ``folder``; EngineLookupError when it is no engine's
    folder or the lists cannot be read. Nothing is written."""
    root = normalized_folder(os.path.abspath(folder))
    if not is_engine_root(root):
        raise EngineLookupError(f"{folder}: not an engine's folder (it holds no Engine/Binaries and Engine/Build)")
    engines, _ = installed_engines(platform=platform, environ=environ, home=home, registry=registry)
    list_file = None
    if platform != "win32":
        list_file = settings_folder(platform, environ, home if home is not None else Path.home())
        list_file = list_file / "UnrealEngine" / "Install.ini"
    for engine in engines:  # GetEngineIdentifierFromRootDir: the first entry of the map with that folder
        if same_folder(engine.root, root):
            identifier = engine.identifier
            if identifier.startswith("UE_") and engine.spellings:  # Linux 5.3+: listed first as the release
                identifier = engine.spellings[0][0]
            return Registration(root, identifier, engine.source, existing=True, list_file=list_file)
    digits = str(new_guid()).upper()
    if platform == "win32":
        name = "{" + digits + "}"
        data = str(root).replace("\\", "/")  # FPaths::NormalizeDirectoryName
        where = f"HKEY_CURRENT_USER\\{REGISTRY_BUILDS_KEY}"
        return Registration(root, name, where, existing=False, registry_value=(name, data))
    assert list_file is not None
    install_ini = list_file
    release = _release_of(root)
    braces, note = _install_ini_braces(release, platform)
    key = "{" + digits + "}" if braces else digits
    identifier = key
    installed = _installed_build_key(root, release) if platform != "darwin" else None
    if installed is not None:
        key, note = installed
        identifier = key[3:] if key[:3].upper() == "UE_" else key  # OutIdentifier.RemoveFromStart("UE_")
    try:
        old = read_existing(install_ini)
    except OSError as exc:
        raise EngineLookupError(f"{install_ini}: cannot read the file ({exc.strerror or exc})") from None
    new = _with_installation(old or b"", key, str(root), install_ini)
    change = FileChange(install_ini, old, new)
    return Registration(
        root,
        identifier,
        str(install_ini),
        False,
        change,
        list_file=install_ini,
        note=note,
        key=key if key != identifier else "",
    )


def apply_registration(registration: Registration, *, registry_writer: RegistryWriter | None = None) -> None:
    """Write what :func:`plan_registration` planned: Install.ini all or nothing under its folder's lock, after what
    killed runs left beside it is removed (also when nothing is to be written), or the registry value through
    ``registry_writer`` (by default :func:`write_registry_build`). WriteError on failure."""
    if registration.registry_value is not None:
        name, data = registration.registry_value
        try:
            (registry_writer or write_registry_build)(name, data)
        except OSError as exc:
            raise WriteError(f"{registration.where}: cannot add {name!r} ({exc.strerror or exc})") from None
    list_file = registration.list_file
    if list_file is None or (registration.change is None and not list_file.parent.is_dir()):
        return
    folder = list_file.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{folder}: cannot create the folder ({exc.strerror or exc})") from None
    with locked(folder):
        remove_leftovers(folder, list_file.name)  # also when the engine is listed already: a killed run's
        if registration.change is not None:
            apply_changes([registration.change])


def register_engine(
    folder: Path,
    *,
    dry_run: bool = False,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: RegistryReader = read_registry_builds,
    registry_writer: RegistryWriter | None = None,
    new_guid: Callable[[], uuid.UUID] = uuid.uuid4,
) -> Registration:
    """:func:`plan_registration`, then (unless ``dry_run``) :func:`apply_registration`."""
    registration = plan_registration(
        folder, platform=platform, environ=environ, home=home, registry=registry, new_guid=new_guid
    )
    if not dry_run:
        apply_registration(registration, registry_writer=registry_writer)
    return registration


def write_registry_build(name: str, data: str) -> None:
    """Add ``name`` = ``data`` (REG_SZ) under ``HKEY_CURRENT_USER\\SOFTWARE\\Epic Games\\Unreal Engine\\Builds``.

    The one function that writes the registry; elsewhere (and in the tests on Linux) a stand-in takes its place.
    """
    if sys.platform != "win32":
        raise OSError(f"there is no Windows registry on {sys.platform}")
    import winreg

    with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, REGISTRY_BUILDS_KEY, 0, winreg.KEY_SET_VALUE) as key:
        winreg.SetValueEx(key, name, 0, winreg.REG_SZ, data)


def _release_of(root: Path) -> tuple[int, int] | None:
    """The release of the engine at ``root`` (its Build.version's major and minor), or None when it cannot be read."""
    from buildver.versions.build_version import load_build_version

    try:
        version = load_build_version(root / "Engine" / "Build" / "Build.version").record.engine_version
    except (BuildverError, OSError):
        return None
    return version.major, version.minor


def _install_ini_braces(release: tuple[int, int] | None, platform: str) -> tuple[bool, str]:
    """Whether ``release`` (the engine being registered; None when unknown) writes its Install.ini key in braces on
    ``platform``, and a note saying why."""
    if platform == "darwin":
        return True, ""
    if release is None:
        return False, "the engine's Build.version cannot be read: spelt as Unreal 5.1 and later on Linux write it"
    if release <= (5, 0):
        return True, f"spelt as Unreal {release[0]}.{release[1]} on Linux writes it (4.22 to 5.0: in braces)"
    return False, ""


INSTALLED_BUILD_FILE = "Engine/Build/InstalledBuild.txt"
"""An installed build's marker; on Linux from 5.2 its text, a GUID or a ``UE_`` name, is the Install.ini key."""


def _installed_build_key(root: Path, release: tuple[int, int] | None) -> tuple[str, str] | None:
    """The Install.ini key Linux's ``RegisterEngineInstallation`` takes from the engine's InstalledBuild.txt, and a
    note; None where it makes a new GUID (no such file, a release before 5.2, a text that is neither).

    Read in a ue5-main snapshot at 5.2.0 (chenyong2github/UnrealEngine@4b4c06dd: a valid GUID, the text as loaded),
    5.3.1 (realAYAYA/UnrealEngine-ToonLit@0b4f286d) and 5.8.0 (unicorn2022/UE5.8.0@5d9a05c): ``TrimEndInline``, then a
    valid GUID or a text starting with ``UE_`` (``StartsWith``, letters in any case). A release that cannot be read
    is taken as the newest."""
    if release is not None and release < (5, 2):
        return None
    path = root / INSTALLED_BUILD_FILE
    from buildver.reading import read_regular_file

    try:
        data = read_regular_file(path, limit=64 * 1024)
    except OSError as exc:
        raise EngineLookupError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        return None
    text = _loaded_text(data, path)
    newest = release is None or release >= (5, 3)
    if newest:
        text = text.rstrip()  # FString::TrimEndInline
    digits = guid_digits(text)
    valid_guid = digits is not None and digits.strip("0") != ""  # FGuid(Text).IsValid(): parsed, not all zeros
    if not (valid_guid or (newest and text[:3].upper() == "UE_")):
        return None
    key = text
    if any(char in key for char in "\r\n\0=[]") or unencodable(key) is not None or not key.strip():
        raise EngineLookupError(f"{path}: {key!r} cannot be written as an Install.ini key")
    return key, f"the key is {INSTALLED_BUILD_FILE}'s text, as Unreal 5.2 and later on Linux take it"


def _loaded_text(data: bytes, path: Path) -> str:
    """``FFileHelper::LoadFileToString``: UTF-16 by its byte-order mark, else UTF-8 (its mark dropped)."""
    try:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EngineLookupError(f"{path}: byte {exc.start}: the file is not UTF-8 or UTF-16 ({exc.reason})") from None


def _with_installation(data: bytes, key: str, folder: str, path: Path) -> bytes:
    """Install.ini with ``KEY=FOLDER`` after the last line of its ``[Installations]`` section (added at the end of
    the file when there is none), as FConfigFile writes a key it adds; every other byte kept."""
    if any(char in folder for char in "\r\n\0"):
        raise EngineLookupError(f"{folder!r}: a folder with a line break cannot be written to {path}")
    if unencodable(folder) is not None:
        raise EngineLookupError(f"{folder!r}: a folder whose name is not UTF-8 cannot be written to {path}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EngineLookupError(f"{path}: byte {exc.start}: the file is not UTF-8 ({exc.reason})") from None
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    entry = f"{key}={folder}{newline}"
    section = None
    insert_at = None
    for index, line in enumerate(lines):
        stripped = line.strip().lstrip("\ufeff")
        header = stripped.startswith("[") and stripped.endswith("]")
        if header:
            section = stripped[1:-1].strip()
        if section == "Installations" and (header or (stripped and not stripped.startswith((";", "#")))):
            insert_at = index + 1
    if insert_at is None:
        blank = newline if lines and lines[-1].strip() else ""
        lines.append(f"{blank}[Installations]{newline}{entry}")
    else:
        lines.insert(insert_at, entry)
    return "".join(lines).encode("utf-8")
