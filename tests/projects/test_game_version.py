"""A game's versions as Unreal's packaging computes them: ProjectVersion, Android's version codes and name per
UnrealBuildTool release, iOS's VersionInfo; each with its rule and source, and bad input refused in one line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from buildver.errors import BuildverError
from buildver.projects.game_version import (
    ANDROID_RULES,
    GOOGLE_PLAY_MAX_VERSION_CODE,
    AndroidArch,
    GameVersionError,
    Sourced,
    android_rules,
    android_version_code,
    android_version_name,
    ios_versions,
    is_build_machine,
    load_game_versions,
    project_version,
    project_version_numbers,
    set_project_version,
    set_store_version,
)
from buildver.projects.unreal_ini import IniDocument, IniError, parse_ini

DATA = Path(__file__).resolve().parents[1] / "data" / "ini"
ENGINE_INI = "Config/DefaultEngine.ini"
ARM64, X64, ARMV7, X86 = AndroidArch.ARM64, AndroidArch.X64, AndroidArch.ARMV7, AndroidArch.X86


def android(text: str, platform: str | None = None) -> tuple[IniDocument, ...]:
    """DefaultEngine.ini with an Android section holding ``text`` (and Android/AndroidEngine.ini's)."""
    files = [parse_ini(f"[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\n{text}".encode(), ENGINE_INI)]
    if platform is not None:
        body = f"[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\n{platform}".encode()
        files.append(parse_ini(body, "Config/Android/AndroidEngine.ini"))
    return tuple(files)


OFFSETS = "StoreVersion=10\nStoreVersionOffsetArmV7=1\nStoreVersionOffsetArm64=2\nStoreVersionOffsetX8664=3\n"
CHANGELIST = "StoreVersion=10\nbUseChangeListAsStoreVersion=True\n"

# (engine release, Android section, changelist, build machine, {arch: expected code})
CODE_CASES: list[tuple[tuple[int, int], str, int | None, bool, dict[AndroidArch, int]]] = [
    ((4, 22), OFFSETS, None, False, {ARMV7: 10, ARM64: 10, X86: 10, X64: 10}),
    ((4, 27), OFFSETS, None, False, {ARMV7: 11, ARM64: 12, X86: 10, X64: 13}),
    ((5, 0), OFFSETS, None, False, {ARMV7: 11, ARM64: 12, X64: 13}),
    ((5, 1), OFFSETS, None, False, {ARM64: 12, X64: 13}),
    ((5, 8), OFFSETS, None, False, {ARM64: 12, X64: 13}),
    ((5, 1), "", None, False, {ARM64: 1, X64: 1}),
    ((5, 1), "StoreVersion= +7 ", None, False, {ARM64: 7}),
    ((5, 1), CHANGELIST, 12345, True, {ARM64: 12345}),
    ((5, 1), CHANGELIST, 12345, False, {ARM64: 10}),
    ((5, 1), CHANGELIST, 0, True, {ARM64: 10}),
    ((5, 1), CHANGELIST.replace("True", "1"), 12345, True, {ARM64: 12345}),
    ((5, 1), CHANGELIST.replace("True", "yes"), 12345, True, {ARM64: 10}),
    ((5, 8), CHANGELIST, 12345, False, {ARM64: 12345}),
    ((5, 6), CHANGELIST, 12345, False, {ARM64: 10}),  # 5.5.1 read: the changelist only on a build machine
    ((5, 7), CHANGELIST, 12345, False, {ARM64: 12345}),  # ue5-main at 5.7.0 read: on every machine
    ((5, 1), CHANGELIST + "StoreVersionOffsetArm64=5\n", 12345, True, {ARM64: 12350, X64: 12345}),
    ((5, 1), "StoreVersion=2147483647\nStoreVersionOffsetArm64=1\n", None, False, {ARM64: -2147483648}),
]


@pytest.mark.parametrize(("engine", "section", "changelist", "build_machine", "codes"), CODE_CASES)
def test_android_version_code_follows_the_release_s_get_store_version(
    engine: tuple[int, int], section: str, changelist: int | None, build_machine: bool, codes: dict[AndroidArch, int]
) -> None:
    files = android(section)
    for arch, code in codes.items():
        found = android_version_code(
            files, arch, engine=engine, engine_changelist=changelist, build_machine=build_machine
        )
        assert found.value == code, arch
        assert "\n" not in found.rule


def test_the_platform_file_overrides_default_engine_ini_as_ubt_layers_them() -> None:
    files = android("StoreVersion=4\nStoreVersionOffsetArm64=1\n", platform="StoreVersion=9\n")
    found = android_version_code(files, ARM64, engine=(5, 3), engine_changelist=None, build_machine=False)
    assert (found.value, found.source) == (10, "Config/Android/AndroidEngine.ini:2")
    assert found.rule == "StoreVersion + StoreVersionOffsetArm64 1 (Config/DefaultEngine.ini:3)"


@pytest.mark.parametrize(
    ("engine", "section", "changelist", "build_machine", "rule", "source"),
    [
        ((5, 1), "", None, False, "StoreVersion not set: BaseEngine.ini's 1", "engine default"),
        ((5, 1), CHANGELIST, 7, True, "the engine's changelist (bUseChangeListAsStoreVersion)", f"{ENGINE_INI}:3"),
        (
            (5, 1),
            CHANGELIST,
            7,
            False,
            "StoreVersion (bUseChangeListAsStoreVersion: not a build machine)",
            f"{ENGINE_INI}:2",
        ),
        (
            (5, 1),
            CHANGELIST,
            0,
            True,
            "StoreVersion (bUseChangeListAsStoreVersion: the engine's changelist is 0)",
            f"{ENGINE_INI}:2",
        ),
    ],
)
def test_each_version_code_names_its_rule_and_source(
    engine: tuple[int, int], section: str, changelist: int | None, build_machine: bool, rule: str, source: str
) -> None:
    found = android_version_code(
        android(section), ARM64, engine=engine, engine_changelist=changelist, build_machine=build_machine
    )
    assert (found.rule, found.source) == (rule, source)


@pytest.mark.parametrize(
    ("engine", "section", "changelist", "build_machine", "error", "message"),
    [
        (
            (5, 1),
            "StoreVersion=abc\n",
            1,
            False,
            IniError,
            f"{ENGINE_INI}: line 2: StoreVersion 'abc' is not a 32-bit whole number \\(UnrealBuildTool would read 0\\)",
        ),
        (
            (5, 1),
            "StoreVersion=2147483648\n",
            1,
            False,
            IniError,
            f"{ENGINE_INI}: line 2: StoreVersion '2147483648' is not a 32-bit whole number .+",
        ),
        ((5, 1), "StoreVersion=\uff11\n", 1, False, IniError, f"{ENGINE_INI}: line 2: StoreVersion '\uff11' is not .+"),
        (
            (5, 1),
            "StoreVersionOffsetArm64=1.5\n",
            1,
            False,
            IniError,
            f"{ENGINE_INI}: line 2: StoreVersionOffsetArm64 '1.5' is not a 32-bit whole number .+",
        ),
        (
            (5, 1),
            CHANGELIST,
            None,
            True,
            GameVersionError,
            f"{ENGINE_INI}: line 3: bUseChangeListAsStoreVersion needs the engine's changelist, not given",
        ),
        (
            (5, 8),
            CHANGELIST,
            0,
            False,
            IniError,
            f"{ENGINE_INI}: line 3: bUseChangeListAsStoreVersion is set but the engine's changelist is 0: "
            "UnrealBuildTool 5.7 and later stops the build",
        ),
        (
            (5, 7),
            CHANGELIST,
            0,
            True,
            IniError,
            f"{ENGINE_INI}: line 3: bUseChangeListAsStoreVersion is set but the engine's changelist is 0: "
            "UnrealBuildTool 5.7 and later stops the build",
        ),
    ],
)
def test_a_version_code_ubt_would_misread_is_one_clear_error(
    engine: tuple[int, int],
    section: str,
    changelist: int | None,
    build_machine: bool,
    error: type[BuildverError],
    message: str,
) -> None:
    with pytest.raises(error, match=rf"^{message}$"):
        android_version_code(
            android(section), ARM64, engine=engine, engine_changelist=changelist, build_machine=build_machine
        )


@pytest.mark.parametrize(
    ("section", "changelist", "build_machine", "name"),
    [
        ("", 5, True, "1.0"),
        ("VersionDisplayName=2.3\n", 5, False, "2.3"),
        ("VersionDisplayName=2.3\nbAppendChangeListToVersionDisplayName=True\n", 5, False, "2.3"),
        ("VersionDisplayName=2.3\nbAppendChangeListToVersionDisplayName=True\n", 5, True, "2.3-5"),
        ("VersionDisplayName=2.3\nbAppendChangeListToVersionDisplayName=true\n", 0, True, "2.3-0"),
        ("VersionDisplayName=2.3\nbAppendPlatformToVersionDisplayName=1\n", 5, True, "2.3-Android"),
        (
            "VersionDisplayName=2.3\nbAppendPlatformToVersionDisplayName=True\nbAppendChangeListToVersionDisplayName=True",
            5,
            True,
            "2.3-5-Android",
        ),
        ("VersionDisplayName=\nbAppendPlatformToVersionDisplayName=True\n", 5, True, "-Android"),
    ],
)
def test_android_version_name_appends_changelist_then_platform_on_a_build_machine(
    section: str, changelist: int, build_machine: bool, name: str
) -> None:
    found = android_version_name(android(section), engine_changelist=changelist, build_machine=build_machine)
    assert found.value == name


def test_a_version_name_needing_an_unknown_changelist_is_refused() -> None:
    files = android("bAppendChangeListToVersionDisplayName=True\n")
    with pytest.raises(GameVersionError, match=rf"^{ENGINE_INI}: line 2: bAppendChange.+, not given$"):
        android_version_name(files, engine_changelist=None, build_machine=True)


@pytest.mark.parametrize(
    ("environ", "engine", "expected"),
    [
        ({}, (5, 1), False),
        ({"IsBuildMachine": "1"}, (4, 22), True),
        ({"IsBuildMachine": "1 "}, (5, 1), False),
        ({"IsBuildMachine": "1 "}, (5, 3), False),  # 5.3.1: == "1"
        ({"IsBuildMachine": " 1\t"}, (5, 4), True),  # 5.4.3/5.4.4: Unreal.IsBuildMachine() trims
        ({"IsBuildMachine": "1 "}, (5, 5), True),
        ({"IsBuildMachine": "true"}, (5, 8), False),
        ({"isbuildmachine": "1"}, (5, 8), False),
    ],
)
def test_build_machine_is_the_variable_equal_to_one_trimmed_from_5_4(
    environ: Mapping[str, str], engine: tuple[int, int], expected: bool
) -> None:
    assert is_build_machine(environ, engine) is expected


@pytest.mark.parametrize(
    ("engine", "name"),
    [
        ((4, 22), "UnrealBuildTool 4.22"),
        ((4, 24), "UnrealBuildTool 4.22"),
        ((4, 25), "UnrealBuildTool 4.25 to 5.0"),
        ((5, 0), "UnrealBuildTool 4.25 to 5.0"),
        ((5, 3), "UnrealBuildTool 5.1 to 5.3"),
        ((5, 4), "UnrealBuildTool 5.4 to 5.6"),
        ((5, 6), "UnrealBuildTool 5.4 to 5.6"),
        ((5, 7), "UnrealBuildTool 5.7 and later"),
        ((6, 0), "UnrealBuildTool 5.7 and later"),
        ((3, 0), "UnrealBuildTool 4.22"),
    ],
)
def test_each_release_takes_the_rules_read_in_it_or_the_nearest_older_release(
    engine: tuple[int, int], name: str
) -> None:
    assert android_rules(engine).name == name
    assert android_rules(engine) in ANDROID_RULES


@pytest.mark.parametrize(
    ("engine_text", "platform_text", "changelist", "build_machine", "short", "bundle"),
    [
        ("", None, 1, False, "1.0", None),
        ("VersionInfo=3.1\n", None, 77, True, "3.1", "77"),
        ("VersionInfo=3.1\n", "VersionInfo=3.2\n", 77, False, "3.2", None),
        ("VersionInfo=3.1\n", None, None, True, "3.1", None),
    ],
)
def test_ios_short_version_is_version_info_and_bundle_version_the_changelist_on_a_build_machine(
    engine_text: str,
    platform_text: str | None,
    changelist: int | None,
    build_machine: bool,
    short: str,
    bundle: str | None,
) -> None:
    section = "[/Script/IOSRuntimeSettings.IOSRuntimeSettings]\n"
    files = [parse_ini((section + engine_text).encode(), ENGINE_INI)]
    if platform_text is not None:
        files.append(parse_ini((section + platform_text).encode(), "Config/IOS/IOSEngine.ini"))
    found = ios_versions(files, engine_changelist=changelist, build_machine=build_machine)
    assert (found.short_version.value, found.bundle_version.value) == (short, bundle)


@pytest.mark.parametrize(
    ("text", "version", "numbers"),
    [
        ("", "1.0.0.0", (1, 0, 0, 0)),
        ("ProjectVersion=2\n", "2", (2,)),
        ("ProjectVersion=1.2.3.4\n", "1.2.3.4", (1, 2, 3, 4)),
        ("ProjectVersion=1.0\nProjectVersion=1.1\n", "1.1", (1, 1)),
        ('ProjectVersion="0.9.1"\n', "0.9.1", (0, 9, 1)),
    ],
)
def test_project_version_is_what_the_engine_reads_or_base_game_ini_s(
    text: str, version: str, numbers: tuple[int, ...]
) -> None:
    game = parse_ini(f"[/Script/EngineSettings.GeneralProjectSettings]\n{text}".encode(), "Config/DefaultGame.ini")
    found = project_version((game,))
    assert found.value == version
    assert project_version_numbers(found) == numbers


@pytest.mark.parametrize("value", ["1.0-beta", "", "1.2.3.4.5", "\uff11.0", "v1", "1..2", " 1"])
def test_a_project_version_that_is_not_a_version_is_one_clear_error(value: str) -> None:
    version = Sourced(value, "ProjectVersion", "Config/DefaultGame.ini", 4)
    with pytest.raises(IniError, match=r"^Config/DefaultGame\.ini: line 4: ProjectVersion .+ is not a version: .+$"):
        project_version_numbers(version)


# (sample, engine, changelist, environ, ProjectVersion, {arch: code}, version name, iOS VersionInfo)
SAMPLE_CASES = [
    ("tankfire", (4, 19), 0, {}, "1.0.3.0", {ARMV7: 3, ARM64: 3, X86: 3, X64: 3}, "1.0", "2.0"),
    ("pioza", (5, 5), 40000000, {"IsBuildMachine": "1"}, "0.8.3", {ARM64: 1, X64: 1}, "0.8.0", "1.0"),
    ("sentry", (4, 27), 0, {}, "1.0.0.0", {ARMV7: 1, ARM64: 1, X86: 1, X64: 1}, "1.0", "1.0"),
]


@pytest.mark.parametrize(
    ("name", "engine", "changelist", "environ", "project", "codes", "version_name", "ios"), SAMPLE_CASES
)
def test_real_projects_give_the_versions_their_packaging_would(
    name: str,
    engine: tuple[int, int],
    changelist: int,
    environ: dict[str, str],
    project: str,
    codes: dict[AndroidArch, int],
    version_name: str,
    ios: str,
) -> None:
    versions = load_game_versions(DATA / name, engine=engine, engine_changelist=changelist, environ=environ)
    assert versions.project_version.value == project
    assert {arch: found.value for arch, found in versions.android_version_codes.items()} == codes
    assert versions.android_version_name.value == version_name
    assert versions.ios.short_version.value == ios
    assert versions.build_machine is bool(environ)


def test_real_project_values_name_the_file_and_line_they_came_from() -> None:
    versions = load_game_versions(DATA / "tankfire", engine=(4, 19), engine_changelist=0, environ={})
    assert versions.project_version.source == "Config/DefaultGame.ini:9"
    assert versions.android_version_codes[ARM64].source == "Config/DefaultEngine.ini:106"
    assert versions.ios.short_version.source == "Config/DefaultEngine.ini:90"
    sentry = load_game_versions(DATA / "sentry", engine=(4, 27), engine_changelist=0, environ={})
    assert (sentry.project_version.source, sentry.project_version.rule) == (
        "engine default",
        "ProjectVersion not set: BaseGame.ini's 1.0.0.0",
    )


def test_a_project_without_config_files_gets_the_engine_defaults(tmp_path: Path) -> None:
    versions = load_game_versions(tmp_path, engine=(5, 3), engine_changelist=1, environ={})
    assert versions.project_version.value == "1.0.0.0"
    assert {found.value for found in versions.android_version_codes.values()} == {1}
    assert (versions.android_version_name.value, versions.ios.short_version.value) == ("1.0", "1.0")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda config: (config / "DefaultGame.ini").write_bytes(b"[S]\nA=\x00\n"),
            r"Config/DefaultGame\.ini: line 2: a NUL character: Unreal stops reading the file there",
        ),
        (
            lambda config: (config / "DefaultEngine.ini").write_bytes(b"\xff\xfe[\x00S"),
            r"Config/DefaultEngine\.ini: line 1: a UTF-16 byte-order mark but an odd number of bytes \(5\): .+",
        ),
        (
            lambda config: (config / "DefaultGame.ini").mkdir(),
            r"Config/DefaultGame\.ini: line 1: cannot be read: is a folder",
        ),
        (
            lambda config: os.mkfifo(config / "DefaultEngine.ini"),
            r"Config/DefaultEngine\.ini: line 1: cannot be read: not a regular file but a FIFO \(named pipe\)",
        ),
        (
            lambda config: (config / "DefaultEngine.ini").write_bytes(
                b"[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\nStoreVersion=1.5\n"
            ),
            r"Config/DefaultEngine\.ini: line 2: StoreVersion '1\.5' is not a 32-bit whole number .+",
        ),
    ],
)
def test_a_corrupt_or_special_config_file_is_one_clear_error_and_nothing_changes(
    tmp_path: Path, make: object, message: str
) -> None:
    if "FIFO" in message and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    config = tmp_path / "Config"
    config.mkdir()
    assert callable(make)
    make(config)
    before = _snapshot(tmp_path)
    with pytest.raises(IniError, match=rf"^{message}$"):
        load_game_versions(tmp_path, engine=(5, 3), engine_changelist=1, environ={})
    assert _snapshot(tmp_path) == before


class TestStamping:
    """ProjectVersion and StoreVersion written in place, checked first: a bad value changes nothing."""

    def test_project_version_is_stamped_in_place_in_a_real_file(self) -> None:
        data = (DATA / "tankfire/Config/DefaultGame.ini").read_bytes()
        result = set_project_version(data, "1.0.4.7", "Config/DefaultGame.ini")
        assert result == data.replace(b"ProjectVersion=1.0.3.0", b"ProjectVersion=1.0.4.7")

    def test_project_version_is_added_to_the_settings_section_when_absent(self) -> None:
        data = (DATA / "sentry/Config/DefaultGame.ini").read_bytes()
        result = set_project_version(data, "2.0", "Config/DefaultGame.ini")
        assert project_version((parse_ini(result, "Config/DefaultGame.ini"),)).value == "2.0"
        assert result.startswith(data.split(b"\n\n")[0] + b"\nProjectVersion=2.0\n")

    @pytest.mark.parametrize("code", [1, 3, GOOGLE_PLAY_MAX_VERSION_CODE])
    def test_store_version_is_stamped_in_place(self, code: int) -> None:
        data = (DATA / "pioza/Config/DefaultEngine.ini").read_bytes()
        result = set_store_version(data, code, ENGINE_INI)
        assert result == data.replace(b"\nStoreVersion=1\n", f"\nStoreVersion={code}\n".encode())

    @pytest.mark.parametrize(
        ("call", "message"),
        [
            (
                lambda data: set_project_version(data, "1.0-beta", "Config/DefaultGame.ini"),
                r"Config/DefaultGame\.ini: line 9: ProjectVersion '1\.0-beta' is not a version: .+",
            ),
            (
                lambda data: set_store_version(data, 0, "Config/DefaultGame.ini"),
                r"Config/DefaultGame\.ini: line \d+: StoreVersion 0 is outside 1 to 2100000000 \(Google Play's limit\)",
            ),
            (
                lambda data: set_store_version(data, GOOGLE_PLAY_MAX_VERSION_CODE + 1, "Config/DefaultGame.ini"),
                r"Config/DefaultGame\.ini: line \d+: StoreVersion 2100000001 is outside .+",
            ),
        ],
    )
    def test_a_value_that_is_not_a_version_is_refused_before_anything_is_written(
        self, call: object, message: str
    ) -> None:
        data = (DATA / "tankfire/Config/DefaultGame.ini").read_bytes()
        assert callable(call)
        with pytest.raises(IniError, match=rf"^{message}$"):
            call(data)
