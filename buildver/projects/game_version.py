"""A game's own versions, as Unreal's packaging computes them from the project's config files.

- ``ProjectVersion``, ``[/Script/EngineSettings.GeneralProjectSettings]`` in ``Config/DefaultGame.ini``, read by the
  engine's reader (``UGeneralProjectSettings`` is ``config=Game, defaultconfig``; its constructor leaves the string
  empty and ``BaseGame.ini`` sets ``ProjectVersion=1.0.0.0``: elmachotroso/unreal_devtoolbox@9d0f90ca (5.1.1),
  ``Runtime/EngineSettings/Classes/GeneralProjectSettings.h``, ``Private/EngineSettingsModule.cpp``,
  ``Engine/Config/BaseGame.ini``). Unreal does not check its form; :func:`project_version_numbers` does.
- Android's version code per architecture and its version name: UnrealBuildTool's ``UEDeployAndroid.cs``,
  ``GetStoreVersion`` and ``GetVersionDisplayName``, over ``[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]``
  read by UnrealBuildTool's reader. The rules changed between releases (:data:`ANDROID_RULES`):

  ========  ===================================================  ==========================================
  releases  rule                                                 read in
  ========  ===================================================  ==========================================
  4.22      ``GetStoreVersion()`` has no architecture: every     Luke0915/Unreal422@a3da0833
            APK gets ``StoreVersion`` (or the changelist)
  4.25-5.0  ``+ StoreVersionOffsetArmV7`` / ``Arm64`` /         Mu-L/TracerInteractiveUE4Plugins@57055dbd
            ``X8664`` for ``-armv7`` / ``-arm64`` / ``-x64``;    (4.25.1), truefranco/UE4.27.2-Oculus-Nvidia-
            ``-x86`` gets none (``StoreVersionOffsetX86`` in      AMD@3100b2c3 (4.27.2), elmachotroso/
            BaseEngine.ini is never read)                        unreal_devtoolbox@1c24a3df (5.0.3)
  5.1-5.3   arm64 and x64 only; ArmV7 offset gone; the build     elmachotroso/unreal_devtoolbox@9d0f90ca
            machine test is ``IsBuildMachine == "1"`` exactly     (5.1.1), realAYAYA/UnrealEngine-ToonLit
                                                                 @0b4f286d (5.3.1)
  5.4-5.6   the build machine test trims the variable            realAYAYA/UnrealEngine-ToonLit@5d55e270
            (``Unreal.IsBuildMachine()``)                        (5.4.4) and @40029702 (5.4.3 ``Unreal.cs``),
                                                                 lakeone/UE5.51MagicM@262077e8 (5.5.1)
  5.7-      ``bUseChangeListAsStoreVersion`` applies on every    xiaoyanxiansheng/UnrealEngine57@01a957e1
            machine, and a changelist of 0 stops the build       (ue5-main at 5.7.0), unicorn2022/UE5.8.0
                                                                 @5d9a05c1 (ue5-main at 5.8.0)
  ========  ===================================================  ==========================================

  In every release: ``StoreVersion`` (``Int32.TryParse``; BaseEngine.ini's ``StoreVersion=1`` when the project sets
  none), replaced by the engine's ``Build.version`` Changelist when ``bUseChangeListAsStoreVersion`` is true and
  (before 5.7) ``IsBuildMachine`` is ``1``, and when that changelist is not 0; then the architecture's offset.
  ``VersionDisplayName`` (BaseEngine.ini's ``1.0``), and on a build machine ``-<changelist>`` appended when
  ``bAppendChangeListToVersionDisplayName`` is true, then ``-Android`` when ``bAppendPlatformToVersionDisplayName``
  is (``EmbeddedAppendDisplayName`` of embedded builds is not modelled). Booleans as ``ConfigHierarchy.TryParse``:
  ``1`` or ``true`` in any case, anything else false.
- iOS: ``VersionInfo`` in ``[/Script/IOSRuntimeSettings.IOSRuntimeSettings]`` (BaseEngine.ini's ``1.0``) is
  ``CFBundleShortVersionString``; ``CFBundleVersion`` is the engine's changelist on a build machine and otherwise a
  number bumped from the previous Info.plist (``UEDeployIOS.cs`` ``UpdateBundleVersion``, elmachotroso@9d0f90ca).

Files read (UnrealBuildTool's ``ConfigHierarchy.ConfigLayers``, elmachotroso@9d0f90ca): ``Config/DefaultEngine.ini``
then ``Config/<Platform>/<Platform>Engine.ini`` (``Android``, ``IOS``), and ``Config/DefaultGame.ini``. Not read: the
engine's ``Base*.ini`` (their defaults are the constants below), ``Generated*.ini``, ``Custom/<CustomConfig>/``,
``Restricted/`` and ``Platforms/<Platform>/Config/`` layers, and the user's ``User*.ini``. BaseEngine.ini's defaults
were read in 5.0.3 and 5.1.1 (elmachotroso@1c24a3df, @9d0f90ca).
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Generic, TypeVar

from buildver.errors import BuildverError
from buildver.projects.ini_edit import with_value, write_line
from buildver.projects.unreal_ini import IniDocument, IniError, IniReader, IniValue, effective_value, parse_ini
from buildver.reading import read_regular_file

__all__ = [
    "ANDROID_ENGINE_INI",
    "ANDROID_RULES",
    "ANDROID_SETTINGS",
    "DEFAULT_ENGINE_INI",
    "DEFAULT_GAME_INI",
    "DEFAULT_PROJECT_VERSION",
    "DEFAULT_STORE_VERSION",
    "DEFAULT_VERSION_DISPLAY_NAME",
    "DEFAULT_VERSION_INFO",
    "GOOGLE_PLAY_MAX_VERSION_CODE",
    "IOS_ENGINE_INI",
    "IOS_SETTINGS",
    "PROJECT_SETTINGS",
    "AndroidArch",
    "AndroidRules",
    "GameVersionError",
    "GameVersions",
    "IosVersions",
    "Sourced",
    "android_bundle_version_code",
    "android_rules",
    "android_store_version",
    "android_version_code",
    "android_version_codes",
    "android_version_name",
    "ios_versions",
    "is_build_machine",
    "load_game_versions",
    "platform_game_inis",
    "platform_project_versions",
    "project_version",
    "project_version_key",
    "project_version_numbers",
    "project_version_order",
    "read_config_file",
    "set_project_version",
    "set_store_version",
    "store_version",
    "store_version_number",
]

GOOGLE_PLAY_MAX_VERSION_CODE = 2_100_000_000
"""The largest version code Google Play accepts."""

DEFAULT_GAME_INI = "Config/DefaultGame.ini"
DEFAULT_ENGINE_INI = "Config/DefaultEngine.ini"
ANDROID_ENGINE_INI = "Config/Android/AndroidEngine.ini"
IOS_ENGINE_INI = "Config/IOS/IOSEngine.ini"

PROJECT_SETTINGS = "/Script/EngineSettings.GeneralProjectSettings"
ANDROID_SETTINGS = "/Script/AndroidRuntimeSettings.AndroidRuntimeSettings"
IOS_SETTINGS = "/Script/IOSRuntimeSettings.IOSRuntimeSettings"

DEFAULT_PROJECT_VERSION = "1.0.0.0"
"""BaseGame.ini's ProjectVersion."""
DEFAULT_STORE_VERSION = 1
"""BaseEngine.ini's StoreVersion."""
DEFAULT_VERSION_DISPLAY_NAME = "1.0"
"""BaseEngine.ini's VersionDisplayName."""
DEFAULT_VERSION_INFO = "1.0"
"""BaseEngine.ini's VersionInfo (the C++ default, "1.0.0", is never what packaging reads)."""

_MAX_INI_SIZE = 16 * 1024 * 1024
"""A config file larger than this is not one buildver reads."""

_PROJECT_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+){0,3}")
_VERSION_FORM = "1 to 4 whole numbers separated by dots"
_CSHARP_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)[ \t\n\v\f\r]*")
_INT32 = 2**31

T = TypeVar("T")


class GameVersionError(BuildverError):
    """A game version that cannot be computed from what was given (the engine's changelist, for one)."""


class AndroidArch(enum.StrEnum):
    """An Android architecture, by UnrealBuildTool's name without its dash."""

    ARMV7 = "armv7"
    ARM64 = "arm64"
    X86 = "x86"
    X64 = "x64"


@dataclass(frozen=True, slots=True)
class Sourced(Generic[T]):
    """A value, the one-line rule that decided it, and the file and line it came from (None: an engine default)."""

    value: T
    rule: str
    path: str | None = None
    line: int | None = None

    @property
    def source(self) -> str:
        """``Config/DefaultGame.ini:12``, or ``engine default`` when no project file set it."""
        if self.path is None:
            return "engine default"
        return self.path if self.line is None else f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class AndroidRules:
    """How one range of UnrealBuildTool releases computes Android's versions."""

    name: str
    first: tuple[int, int]
    """The first release (major, minor) these rules were read in or assumed for."""
    archs: tuple[AndroidArch, ...]
    offsets: Mapping[AndroidArch, str] = field(hash=False)
    """The offset key added per architecture."""
    changelist_needs_build_machine: bool
    zero_changelist_fails: bool
    build_machine_trimmed: bool
    source: str


def _rules(
    name: str,
    first: tuple[int, int],
    archs: tuple[AndroidArch, ...],
    offsets: dict[AndroidArch, str],
    source: str,
    *,
    needs_build_machine: bool = True,
    zero_fails: bool = False,
    trimmed: bool = False,
) -> AndroidRules:
    return AndroidRules(name, first, archs, MappingProxyType(offsets), needs_build_machine, zero_fails, trimmed, source)


_UE4_ARCHS = (AndroidArch.ARMV7, AndroidArch.ARM64, AndroidArch.X86, AndroidArch.X64)
_UE5_ARCHS = (AndroidArch.ARM64, AndroidArch.X64)
_ARM64_X64 = {AndroidArch.ARM64: "StoreVersionOffsetArm64", AndroidArch.X64: "StoreVersionOffsetX8664"}

ANDROID_RULES: tuple[AndroidRules, ...] = (
    _rules("UnrealBuildTool 4.22", (4, 0), _UE4_ARCHS, {}, "Luke0915/Unreal422@a3da0833"),
    _rules(
        "UnrealBuildTool 4.25 to 5.0",
        (4, 25),
        _UE4_ARCHS,
        {AndroidArch.ARMV7: "StoreVersionOffsetArmV7", **_ARM64_X64},
        "Mu-L/TracerInteractiveUE4Plugins@57055dbd, elmachotroso/unreal_devtoolbox@1c24a3df",
    ),
    _rules(
        "UnrealBuildTool 5.1 to 5.3",
        (5, 1),
        _UE5_ARCHS,
        _ARM64_X64,
        "elmachotroso/unreal_devtoolbox@9d0f90ca, realAYAYA/UnrealEngine-ToonLit@0b4f286d",
    ),
    _rules(
        "UnrealBuildTool 5.4 to 5.6",
        (5, 4),
        _UE5_ARCHS,
        _ARM64_X64,
        "realAYAYA/UnrealEngine-ToonLit@5d55e270, lakeone/UE5.51MagicM@262077e8",
        trimmed=True,
    ),
    _rules(
        "UnrealBuildTool 5.7 and later",
        (5, 7),
        _UE5_ARCHS,
        _ARM64_X64,
        "xiaoyanxiansheng/UnrealEngine57@01a957e1, unicorn2022/UE5.8.0@5d9a05c1",
        needs_build_machine=False,
        zero_fails=True,
        trimmed=True,
    ),
)
"""Oldest first. Each range starts at the oldest release it was read in; releases that were not read (4.23, 4.24,
4.26, 5.2, 5.6: no public mirror found) take the rules of the nearest older release read (docs/game-rules.md)."""


def android_rules(engine: tuple[int, int]) -> AndroidRules:
    """The rules of the UnrealBuildTool release ``engine`` (major, minor)."""
    chosen = ANDROID_RULES[0]
    for rules in ANDROID_RULES:
        if rules.first <= engine:
            chosen = rules
    return chosen


def is_build_machine(environ: Mapping[str, str], engine: tuple[int, int]) -> bool:
    """UnrealBuildTool's build-machine test: the ``IsBuildMachine`` variable is ``1`` (trimmed from 5.4)."""
    value = environ.get("IsBuildMachine")
    if value is None:
        return False
    return (value.strip() if android_rules(engine).build_machine_trimmed else value) == "1"


# ProjectVersion -----------------------------------------------------------------------------------------------------


def project_version(game: Sequence[IniDocument]) -> Sourced[str]:
    """``ProjectVersion`` as the engine reads it from DefaultGame.ini; BaseGame.ini's when the project sets none."""
    found = effective_value(game, PROJECT_SETTINGS, "ProjectVersion", reader=IniReader.ENGINE)
    if found is None:
        return Sourced(DEFAULT_PROJECT_VERSION, f"ProjectVersion not set: BaseGame.ini's {DEFAULT_PROJECT_VERSION}")
    return Sourced(found.value, "ProjectVersion", found.path, found.line)


def platform_game_inis(project_dir: Path) -> list[str]:
    """Every ``Config/<Platform>/<Platform>Game.ini`` of the project, by platform name: the ``ProjectPlatform``
    layer of the Game hierarchy, which the packaged game of that platform reads after DefaultGame.ini
    (elmachotroso/unreal_devtoolbox@9d0f90ca (5.1.1) ``Runtime/Core/Public/Misc/ConfigHierarchy.h`` line 33,
    ``{PROJECT}/Config/{PLATFORM}/{PLATFORM}{TYPE}.ini``; UnrealBuildTool's ``ConfigHierarchy.cs`` line 936)."""
    config = project_dir / "Config"
    try:
        entries = sorted(os.scandir(config), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:  # never "no layers": a layer passed over would keep its older value deciding, silently
        raise IniError(f"{config}: cannot list the folder for its platform layers ({exc.strerror or exc})") from None
    found = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and (config / entry.name / f"{entry.name}Game.ini").is_file():
            found.append(f"Config/{entry.name}/{entry.name}Game.ini")
    return found


def platform_project_versions(project_dir: Path, game: Sequence[IniDocument]) -> Mapping[str, Sourced[str]]:
    """ProjectVersion as each platform's packaged game reads it, for the platforms whose
    ``Config/<Platform>/<Platform>Game.ini`` sets it (``game`` is DefaultGame.ini, already read)."""
    found: dict[str, Sourced[str]] = {}
    for relative in platform_game_inis(project_dir):
        layer = read_config_file(project_dir, relative)
        version = project_version((*game, *layer))
        if version.path == relative:
            found[relative.split("/")[1]] = version
    return MappingProxyType(found)


def project_version_key(numbers: tuple[int, ...]) -> tuple[int, ...]:
    """How two ProjectVersions are ordered: number by number, a missing number as 0 (``1.1`` = ``1.1.0.0``)."""
    return numbers + (0,) * (4 - len(numbers))


def project_version_numbers(version: Sourced[str]) -> tuple[int, ...]:
    """The numbers of a ProjectVersion such as ``1.0.3.0``: 1 to 4 whole numbers with dots; IniError otherwise."""
    if not _PROJECT_VERSION.fullmatch(version.value):
        raise IniError(f"{_place(version)}: ProjectVersion {version.value!r} is not a version: {_VERSION_FORM}")
    return tuple(int(part) for part in version.value.split("."))


def project_version_order(version: Sourced[str]) -> tuple[int, ...]:
    """The key two ProjectVersions are compared by (``show``, ``update-local`` and the guard): its numbers as
    :func:`project_version_numbers` reads them, padded by :func:`project_version_key`; IniError naming the line."""
    return project_version_key(project_version_numbers(version))


def _place(value: Sourced[str]) -> str:
    return f"{value.path}: line {value.line}" if value.path is not None else "engine default"


# Android ------------------------------------------------------------------------------------------------------------


def _android(engine_files: Sequence[IniDocument], key: str) -> IniValue | None:
    return effective_value(engine_files, ANDROID_SETTINGS, key, reader=IniReader.UBT)


def store_version_number(found: IniValue) -> int:
    """A StoreVersion line's number as UnrealBuildTool reads it (``Int32.TryParse``: ``+100`` and `` 100 `` are 100);
    IniError naming the file and line for a value UnrealBuildTool would silently read as 0."""
    return _csharp_int(found, "StoreVersion")


def store_version(engine_files: Sequence[IniDocument]) -> Sourced[int]:
    """``StoreVersion`` as UnrealBuildTool reads it from the files, BaseEngine.ini's 1 when they set none (before
    ``bUseChangeListAsStoreVersion`` or any architecture's offset)."""
    found = _android(engine_files, "StoreVersion")
    if found is None:
        return Sourced(DEFAULT_STORE_VERSION, f"StoreVersion not set: BaseEngine.ini's {DEFAULT_STORE_VERSION}")
    return Sourced(store_version_number(found), "StoreVersion", found.path, found.line)


def _csharp_int(found: IniValue, key: str) -> int:
    """``Int32.TryParse`` (NumberStyles.Integer); UnrealBuildTool would read 0 where this raises."""
    match = _CSHARP_INT.fullmatch(found.value)
    number = int(match.group(1)) if match else None
    if number is None or not -_INT32 <= number < _INT32:
        raise IniError(
            f"{found.path}: line {found.line}: {key} {found.value!r} is not a 32-bit whole number "
            "(UnrealBuildTool would read 0)"
        )
    return number


def _csharp_bool(found: IniValue | None) -> bool:
    """``ConfigHierarchy.TryParse(string, out bool)``: ``1`` or ``true`` in any case; anything else is false."""
    return found is not None and (found.value == "1" or found.value.lower() == "true")


def _wrap32(number: int) -> int:
    """C#'s unchecked 32-bit addition."""
    return (number + _INT32) % (2 * _INT32) - _INT32


def android_version_code(
    engine_files: Sequence[IniDocument],
    arch: AndroidArch,
    *,
    engine: tuple[int, int],
    engine_changelist: int | None,
    build_machine: bool,
) -> Sourced[int]:
    """The version code UnrealBuildTool ``engine`` gives the APK of ``arch`` (``GetStoreVersion``)."""
    rules = android_rules(engine)
    base = _store_version(engine_files, rules, engine_changelist, build_machine)
    offset_key = rules.offsets.get(arch)
    offset_value = None if offset_key is None else _android(engine_files, offset_key)
    if offset_key is None or offset_value is None:
        return base
    offset = _csharp_int(offset_value, offset_key)
    code = _wrap32(base.value + offset)
    rule = f"{base.rule} + {offset_key} {offset} ({offset_value.path}:{offset_value.line})"
    return Sourced(code, rule, base.path, base.line)


def android_store_version(
    engine_files: Sequence[IniDocument],
    *,
    engine: tuple[int, int],
    engine_changelist: int | None,
    build_machine: bool,
) -> Sourced[int]:
    """The version code before any architecture's offset: StoreVersion, or the engine's changelist where the
    release and the machine let ``bUseChangeListAsStoreVersion`` replace it."""
    return _store_version(engine_files, android_rules(engine), engine_changelist, build_machine)


def _store_version(
    engine_files: Sequence[IniDocument], rules: AndroidRules, changelist: int | None, build_machine: bool
) -> Sourced[int]:
    version = store_version(engine_files)
    flag = _android(engine_files, "bUseChangeListAsStoreVersion")
    if flag is None or not _csharp_bool(flag):
        return version
    where = f"{flag.path}: line {flag.line}"
    if rules.changelist_needs_build_machine and not build_machine:
        rule = f"{version.rule} (bUseChangeListAsStoreVersion: not a build machine)"
        return Sourced(version.value, rule, version.path, version.line)
    if changelist is None:
        raise GameVersionError(f"{where}: bUseChangeListAsStoreVersion needs the engine's changelist, not given")
    if changelist == 0:
        if rules.zero_changelist_fails:
            raise IniError(
                f"{where}: bUseChangeListAsStoreVersion is set but the engine's changelist is 0: {rules.name} "
                "stops the build"
            )
        rule = f"{version.rule} (bUseChangeListAsStoreVersion: the engine's changelist is 0)"
        return Sourced(version.value, rule, version.path, version.line)
    return Sourced(changelist, "the engine's changelist (bUseChangeListAsStoreVersion)", flag.path, flag.line)


def android_bundle_version_code(
    engine_files: Sequence[IniDocument],
    *,
    engine: tuple[int, int],
    engine_changelist: int | None,
    build_machine: bool,
) -> Sourced[int] | None:
    """The version code of the app bundle, or None when ``bEnableBundle`` is not true.

    With ``bEnableBundle`` UnrealBuildTool builds one bundle for every architecture and rewrites its manifest's
    ``android:versionCode`` (and gradle.properties' ``STORE_VERSION``) with ``GetStoreVersion("default")``: the
    StoreVersion (or the changelist) with no architecture's offset (``UEDeployAndroid.cs``, the combined-bundle path
    after ``bCombinedBundleOK``: Mu-L/TracerInteractiveUE4Plugins@57055dbd (4.25.1), elmachotroso/unreal_devtoolbox
    @1c24a3df (5.0.3) line 4656 and @9d0f90ca (5.1.1) line 5204, ``GetStoreVersion(null)`` in realAYAYA/UnrealEngine-
    ToonLit@5d55e270 (5.4.4) and xiaoyanxiansheng/UnrealEngine57@01a957e1 (5.7.0)). Only when the per-architecture
    projects cannot be merged does UnrealBuildTool fall back to one bundle per architecture, each with its own code.
    """
    flag = _android(engine_files, "bEnableBundle")
    if not _csharp_bool(flag):
        return None
    assert flag is not None
    base = _store_version(engine_files, android_rules(engine), engine_changelist, build_machine)
    rule = f"{base.rule}, no architecture's offset (bEnableBundle, {flag.path}:{flag.line})"
    return Sourced(base.value, rule, base.path, base.line)


def android_version_codes(
    engine_files: Sequence[IniDocument],
    *,
    engine: tuple[int, int],
    engine_changelist: int | None,
    build_machine: bool,
) -> Mapping[AndroidArch, Sourced[int]]:
    """The version code of every architecture the release builds."""
    return MappingProxyType(
        {
            arch: android_version_code(
                engine_files,
                arch,
                engine=engine,
                engine_changelist=engine_changelist,
                build_machine=build_machine,
            )
            for arch in android_rules(engine).archs
        }
    )


def android_version_name(
    engine_files: Sequence[IniDocument], *, engine_changelist: int | None, build_machine: bool
) -> Sourced[str]:
    """The version name UnrealBuildTool writes to the manifest (``GetVersionDisplayName``)."""
    found = _android(engine_files, "VersionDisplayName")
    if found is None:
        name, rule, path, line = (
            DEFAULT_VERSION_DISPLAY_NAME,
            f"VersionDisplayName not set: BaseEngine.ini's {DEFAULT_VERSION_DISPLAY_NAME}",
            None,
            None,
        )
    else:
        name, rule, path, line = found.value, "VersionDisplayName", found.path, found.line
    if not build_machine:
        return Sourced(name, rule, path, line)
    append_changelist = _android(engine_files, "bAppendChangeListToVersionDisplayName")
    if append_changelist is not None and _csharp_bool(append_changelist):
        if engine_changelist is None:
            raise GameVersionError(
                f"{append_changelist.path}: line {append_changelist.line}: bAppendChangeListToVersionDisplayName "
                "needs the engine's changelist, not given"
            )
        name += f"-{engine_changelist}"
        rule += " + -<changelist> (bAppendChangeListToVersionDisplayName, build machine)"
    if _csharp_bool(_android(engine_files, "bAppendPlatformToVersionDisplayName")):
        name += "-Android"
        rule += " + -Android (bAppendPlatformToVersionDisplayName, build machine)"
    return Sourced(name, rule, path, line)


# iOS ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IosVersions:
    """What UnrealBuildTool writes to the app's Info.plist."""

    short_version: Sourced[str]
    """``CFBundleShortVersionString``: VersionInfo."""
    bundle_version: Sourced[str | None]
    """``CFBundleVersion``: the engine's changelist on a build machine; None elsewhere (bumped from the last plist)."""


def ios_versions(
    engine_files: Sequence[IniDocument], *, engine_changelist: int | None, build_machine: bool
) -> IosVersions:
    """VersionInfo, and CFBundleVersion where the config and the machine decide it."""
    found = effective_value(engine_files, IOS_SETTINGS, "VersionInfo", reader=IniReader.UBT)
    if found is None:
        short = Sourced(DEFAULT_VERSION_INFO, f"VersionInfo not set: BaseEngine.ini's {DEFAULT_VERSION_INFO}")
    else:
        short = Sourced(found.value, "VersionInfo", found.path, found.line)
    if not build_machine:
        bundle: Sourced[str | None] = Sourced(
            None,
            "CFBundleVersion: off a build machine UnrealBuildTool bumps the previous Info.plist's number "
            "(UEDeployIOS.cs UpdateBundleVersion); the config does not give it",
        )
    elif engine_changelist is None:
        bundle = Sourced(None, "CFBundleVersion: the engine's changelist, not given")
    else:
        bundle = Sourced(str(engine_changelist), "CFBundleVersion: the engine's changelist (build machine)")
    return IosVersions(short, bundle)


# The project --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameVersions:
    """A project's own versions, each with its rule and source."""

    project_version: Sourced[str]
    android_version_codes: Mapping[AndroidArch, Sourced[int]] = field(hash=False)
    android_version_name: Sourced[str]
    android_bundle_version_code: Sourced[int] | None
    """The app bundle's version code when ``bEnableBundle`` is true (:func:`android_bundle_version_code`)."""
    ios: IosVersions
    android_rules: AndroidRules
    build_machine: bool


def load_game_versions(
    project_dir: Path,
    *,
    engine: tuple[int, int],
    engine_changelist: int | None,
    environ: Mapping[str, str],
) -> GameVersions:
    """Read the project's config files (regular files only) and compute its versions for UnrealBuildTool ``engine``.

    ``engine_changelist`` is the engine's Build.version Changelist; ``environ`` decides ``IsBuildMachine``.
    """
    game = read_config_file(project_dir, DEFAULT_GAME_INI)
    engine_ini = read_config_file(project_dir, DEFAULT_ENGINE_INI)
    android = engine_ini + read_config_file(project_dir, ANDROID_ENGINE_INI)
    ios = engine_ini + read_config_file(project_dir, IOS_ENGINE_INI)
    build_machine = is_build_machine(environ, engine)
    return GameVersions(
        project_version(game),
        android_version_codes(android, engine=engine, engine_changelist=engine_changelist, build_machine=build_machine),
        android_version_name(android, engine_changelist=engine_changelist, build_machine=build_machine),
        android_bundle_version_code(
            android, engine=engine, engine_changelist=engine_changelist, build_machine=build_machine
        ),
        ios_versions(ios, engine_changelist=engine_changelist, build_machine=build_machine),
        android_rules(engine),
        build_machine,
    )


def read_config_file(project_dir: Path, relative: str) -> tuple[IniDocument, ...]:
    """The project's config file ``relative`` (``Config/DefaultGame.ini``), parsed; none when it does not exist."""
    try:
        data = read_regular_file(project_dir / relative)
    except OSError as exc:
        raise IniError(f"{relative}: line 1: cannot be read: {exc.strerror or exc}") from exc
    if data is None:
        return ()
    if len(data) > _MAX_INI_SIZE:
        raise IniError(f"{relative}: line 1: {len(data)} bytes is too large for a config file")
    return (parse_ini(data, relative),)


# Stamping -----------------------------------------------------------------------------------------------------------


def set_project_version(data: bytes, version: str, path: str) -> bytes:
    """DefaultGame.ini's bytes with ProjectVersion set to ``version`` (checked as :func:`project_version_numbers`)."""
    document = parse_ini(data, path)
    if not _PROJECT_VERSION.fullmatch(version):
        line = write_line(document, PROJECT_SETTINGS, "ProjectVersion")
        raise IniError(f"{path}: line {line}: ProjectVersion {version!r} is not a version: {_VERSION_FORM}")
    return with_value(document, PROJECT_SETTINGS, "ProjectVersion", version)


def set_store_version(data: bytes, version_code: int, path: str) -> bytes:
    """DefaultEngine.ini's bytes with Android's StoreVersion set; 1 to :data:`GOOGLE_PLAY_MAX_VERSION_CODE` only."""
    document = parse_ini(data, path)
    if not 1 <= version_code <= GOOGLE_PLAY_MAX_VERSION_CODE:
        line = write_line(document, ANDROID_SETTINGS, "StoreVersion")
        raise IniError(
            f"{path}: line {line}: StoreVersion {version_code} is outside 1 to {GOOGLE_PLAY_MAX_VERSION_CODE} "
            "(Google Play's limit)"
        )
    return with_value(document, ANDROID_SETTINGS, "StoreVersion", str(version_code))
