"""``buildver guard``: the checks over bytes, and the command on real git repositories with real Unreal packages."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import helpers
import pytest
import typer
from helpers import GitRepository, git
from package_builder import ERAS, FILTER_EDITOR_ONLY, CustomVersionEntry
from typer.testing import CliRunner

from buildver.cli.guard import guard
from buildver.errors import ConfigError, ModulesManifestError, UsageError
from buildver.guard.checks import (
    backwards_problem,
    check_header,
    check_manifests,
    check_package,
    check_version,
)
from buildver.guard.run import run_guard
from buildver.guard.settings import CHECKS, Finding, GuardSettings, Severity
from buildver.projects.modules_manifest import parse_modules_manifest
from buildver.stamp.header import MacroNames, render_header
from buildver.versions.build_version import BuildVersion, render_new_file

FIXTURES = helpers.FIXTURES  # the shared real packages (skipped where absent)
UE55_PACKAGE = "uasset-rs/UE55/SimpleRefs/SimpleRefsRoot.uasset"
UE52_PACKAGE = "uasset-rs/UE52/SimpleRefs/SimpleRefsRoot.uasset"

UE52 = BuildVersion(5, 2, 1, 26001984, 25360045, branch_name="++UE5+Release-5.2")
UE52_SOURCE = BuildVersion(5, 2, 1, branch_name="++UE5+Release-5.2")
UE55 = BuildVersion(5, 5, 4, 40574608, 37670630, branch_name="++UE5+Release-5.5")


def fixture(relative: str) -> bytes:
    path = FIXTURES / relative
    if not path.is_file():
        pytest.skip(f"the real Unreal packages are not here: {FIXTURES}")
    return path.read_bytes()


def version_bytes(record: BuildVersion) -> bytes:
    return render_new_file(record).encode("utf-8")


def keys(findings: list[Finding]) -> list[tuple[str, Severity]]:
    return [(finding.check, finding.severity) for finding in findings]


# -- Build.version rules ------------------------------------------------------------------------------------------

BASE = BuildVersion(5, 3, 2, 1000, branch_name="++Game+Main")

BACKWARDS_CASES = [
    (BASE, BASE, None),
    (BASE, BASE.replace(changelist=1001), None),
    (BASE, BASE.replace(patch_version=3, changelist=5), None),
    (BASE, BuildVersion(6, 0, 0), None),
    (BuildVersion(4, 27, 2), BuildVersion(5, 0, 0), None),
    (BASE, BASE.replace(changelist=999), "Changelist goes backwards: 1000 in HEAD, 999 staged"),
    # Changelist 0 is "no changelist": GetNewest never orders it, so resetting a stamped file is not backwards.
    (BASE, BASE.replace(changelist=0), None),
    (BASE.replace(changelist=0), BASE.replace(changelist=5), None),
    (BASE, BASE.replace(patch_version=1, changelist=2000), "5.3.2 in HEAD, 5.3.1 staged (PatchVersion decreases)"),
    (BASE, BASE.replace(minor_version=2, patch_version=9), "5.3.2 in HEAD, 5.2.9 staged (MinorVersion decreases)"),
    (BASE, BuildVersion(4, 27, 2), "5.3.2 in HEAD, 4.27.2 staged (MajorVersion decreases)"),
    # A licensee's changelists come from another server: they are not compared with Epic's.
    (BASE, BASE.replace(changelist=5, is_licensee_version=True), None),
]


@pytest.mark.parametrize(("old", "new", "expected"), BACKWARDS_CASES)
def test_backwards_compares_the_release_and_the_changelist_of_the_same_release_and_vendor(
    old: BuildVersion, new: BuildVersion, expected: str | None
) -> None:
    problem = backwards_problem(old, new)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None
        assert expected in problem


VERSION_CASES: list[tuple[bytes, bytes | None, list[tuple[str, Severity]]]] = [
    (version_bytes(BASE), version_bytes(BASE), []),
    (version_bytes(BASE), None, []),
    (version_bytes(BASE.replace(changelist=999)), version_bytes(BASE), [("version-backwards", Severity.ERROR)]),
    (version_bytes(BASE), b"{ not json", []),
    (b'{"MajorVersion": 5}', None, [("version-invalid", Severity.ERROR)]),
    (
        version_bytes(BASE.replace(compatible_changelist=1001)),
        None,
        [("compatible-above-changelist", Severity.ERROR)],
    ),
    (version_bytes(BASE.replace(compatible_changelist=1000)), None, []),
    (version_bytes(BuildVersion(5, 3, 2, 0, 1001)), None, []),
    (
        version_bytes(BASE.replace(changelist=0, is_promoted_build=True)),
        None,
        [("promoted-without-changelist", Severity.WARNING)],
    ),
    (version_bytes(BASE.replace(is_promoted_build=True)), None, []),
    (version_bytes(BASE.replace(build_id="MyBuild")), None, [("forced-build-id", Severity.WARNING)]),
]


@pytest.mark.parametrize(("staged", "head", "expected"), VERSION_CASES)
def test_check_version_reports_each_rule_with_its_default_severity(
    staged: bytes, head: bytes | None, expected: list[tuple[str, Severity]]
) -> None:
    _, findings = check_version("Build/Build.version", staged, head, GuardSettings.from_table({}))
    assert keys(findings) == expected


def test_check_version_names_the_place_of_a_parse_error_once() -> None:
    version_file, findings = check_version("Build/Build.version", b'{\n\t"MajorVersion": 5,\n}', None)
    assert version_file is None
    assert len(findings) == 1
    assert str(findings[0]).startswith("Build/Build.version: error[version-invalid]: line 3, column 1: ")


# -- settings -----------------------------------------------------------------------------------------------------


def test_settings_turn_a_check_off_and_a_warning_into_an_error() -> None:
    settings = GuardSettings.from_table({"version-backwards": "off", "forced-build-id": "error"})
    staged = version_bytes(BASE.replace(changelist=1, build_id="Forced"))
    _, findings = check_version("Build.version", staged, version_bytes(BASE), settings)
    assert keys(findings) == [("forced-build-id", Severity.ERROR)]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"version-backward": "off"},
            "pyproject.toml: [tool.buildver.guard] unknown check 'version-backward' (known: ",
        ),
        (
            {"header": "fatal"},
            """pyproject.toml: [tool.buildver.guard] header must be "error", "warning" or "off", not 'fatal'""",
        ),
        ({"header": True}, 'header must be "error", "warning" or "off", not True'),
    ],
)
def test_settings_refuse_unknown_checks_and_severities_naming_them(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GuardSettings.from_table(table, Path("pyproject.toml"))
    assert message in str(caught.value)


def test_every_check_has_a_unique_key_and_a_default_that_is_not_off() -> None:
    assert len({check.key for check in CHECKS}) == len(CHECKS)
    assert all(check.default is not Severity.OFF for check in CHECKS)


# -- header, packages, manifests ----------------------------------------------------------------------------------

SOURCE = "../Build/Build.version"
"""Build/Build.version as the first line of Source/Version.h names it."""


def test_check_header_accepts_the_generated_header_and_gives_the_fix_for_a_stale_one() -> None:
    version_file, _ = check_version("Build/Build.version", version_bytes(BASE), None)
    assert version_file is not None
    current = render_header(BASE, source="Build.version").encode()
    stale = render_header(BASE.replace(changelist=1), source="Build.version").encode()
    assert check_header("Build/BuildVersion.h", current, version_file, configured=False) == []
    assert [str(f) for f in check_header("Build/BuildVersion.h", stale, version_file, configured=False)] == [
        "Build/BuildVersion.h: error[header]: out of step with Build/Build.version; "
        "run: buildver header, then: git add Build/BuildVersion.h "
        "(to leave the header alone, set skip-header = true in [tool.buildver])"
    ]
    assert check_header("Build/BuildVersion.h", None, version_file, configured=False) == []
    missing = check_header("Build/BuildVersion.h", None, version_file, configured=True)
    assert "not in the index; run: buildver header" in missing[0].message


PACKAGE_CASES = [
    # The 5.5 package cannot be loaded by a 5.2 engine: by CompatibleWithEngineVersion when 5.2 has a changelist,
    # by its file versions when it is a source build (changelist 0, which the compatibility rule lets through).
    (UE55_PACKAGE, UE52, "package-newer", "5.5.0-37670630+++UE5+Release-5.5"),
    (UE55_PACKAGE, UE52_SOURCE, "package-newer", "FileVersionUE5 1013 is newer than 5.2 writes (1009)"),
    (UE55_PACKAGE, UE55, None, ""),
    (UE52_PACKAGE, UE55, None, ""),
    (UE52_PACKAGE, UE52_SOURCE, None, ""),
]


@pytest.mark.parametrize(("package", "engine", "check", "text"), PACKAGE_CASES)
def test_check_package_refuses_real_packages_that_the_staged_engine_cannot_load(
    package: str, engine: BuildVersion, check: str | None, text: str
) -> None:
    findings = check_package("Content/A.uasset", fixture(package), engine.engine_version)
    assert [finding.check for finding in findings] == ([] if check is None else [check])
    assert text in "".join(finding.message for finding in findings)


EMPTY_ENGINE = ERAS["-8"].with_(saved_by=(0, 0, 0, 0, ""), compatible_with=(0, 0, 0, 0, ""))
COOKED = ERAS["-8"].with_(
    file_version_ue4=0, file_version_ue5=0, custom_versions=(), package_flags=FILTER_EDITOR_ONLY, end_tag=False
)
SYNTHETIC_CASES = [
    (EMPTY_ENGINE.build(), True, [("package-empty-engine-version", Severity.WARNING)]),
    (EMPTY_ENGINE.build(), False, []),
    (COOKED.build(), True, [("package-cooked", Severity.ERROR)]),
    (ERAS["-8"].build()[:300], True, [("package-unreadable", Severity.ERROR)]),
    (b"just some notes\n", True, [("package-unreadable", Severity.ERROR)]),
    (ERAS["-9"].with_(legacy_file_version=-10).build(), True, [("package-newer", Severity.ERROR)]),
]


@pytest.mark.parametrize(("data", "warn_empty", "expected"), SYNTHETIC_CASES)
def test_check_package_finds_cooked_empty_engine_and_unreadable_packages(
    data: bytes, warn_empty: bool, expected: list[tuple[str, Severity]]
) -> None:
    findings = check_package("Content/A.uasset", data, UE55.engine_version, warn_empty=warn_empty)
    assert keys(findings) == expected


def manifest(build_id: str) -> bytes:
    return f'{{\n\t"BuildId": "{build_id}",\n\t"Modules": \n\t{{\n\t\t"Game": "Game.dll"\n\t}}\n}}'.encode()


MANIFEST_CASES: list[tuple[dict[str, bytes], str, list[str]]] = [
    ({"Bin/A.modules": manifest("1"), "Bin/B.modules": manifest("1"), "Other/C.modules": manifest("2")}, "", []),
    ({"Bin/A.modules": manifest("1"), "Bin/B.modules": manifest("2")}, "", ["Bin/A.modules"]),
    ({"Bin/A.modules": manifest("1")}, "1", []),
    ({"Bin/A.modules": manifest("1")}, "forced", ["Bin/A.modules"]),
    ({"Bin/A.modules": b"{}"}, "", ["Bin/A.modules"]),
]


@pytest.mark.parametrize(("manifests", "forced", "flagged"), MANIFEST_CASES)
def test_check_manifests_wants_one_build_id_per_folder_and_the_forced_one(
    manifests: dict[str, bytes], forced: str, flagged: list[str]
) -> None:
    findings = check_manifests(manifests, ["Bin/A.modules"], forced)
    assert [finding.path for finding in findings] == flagged


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[]", "UnrealEditor.modules: expected a JSON object, not list"),
        (b'{"BuildId": 5}', "UnrealEditor.modules: BuildId must be a string, not 5"),
        (b'{"Modules": {}}', "UnrealEditor.modules: BuildId missing"),
        (b'{"BuildId": "1", "Extra": 1}', "UnrealEditor.modules: unknown field 'Extra'"),
        (b'{"BuildId": "1",', "UnrealEditor.modules: line 1, column 17:"),
        (b"\xff", "UnrealEditor.modules: byte 0: the file is not UTF-8"),
    ],
)
def test_parse_modules_manifest_errors_name_the_file_and_why(data: bytes, message: str) -> None:
    with pytest.raises(ModulesManifestError) as caught:
        parse_modules_manifest(data, "UnrealEditor.modules")
    assert str(caught.value).startswith(message)


def test_parse_modules_manifest_reads_keys_case_insensitively() -> None:
    parsed = parse_modules_manifest(b'\xef\xbb\xbf{"buildid": "7", "MODULES": {"A": "A.dll"}}', "A.modules")
    assert (parsed.build_id, dict(parsed.modules)) == ("7", {"A": "A.dll"})


# -- the command on real repositories -----------------------------------------------------------------------------

app = typer.Typer()
app.command("guard")(guard)


def write(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def commit(root: Path, files: dict[str, bytes], message: str = "change") -> None:
    write(root, files)
    git(root, "add", "--", *files)
    git(root, "commit", "--quiet", "--no-verify", "-m", message)


def stage(root: Path, files: dict[str, bytes]) -> None:
    write(root, files)
    git(root, "add", "--", *files)


def run_command(root: Path, monkeypatch: pytest.MonkeyPatch, *files: str) -> tuple[int, list[str]]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(app, list(files), catch_exceptions=False)
    return result.exit_code, result.stdout.splitlines()


@pytest.fixture
def repo(git_repository: GitRepository) -> Path:
    root = git_repository(commits=0)
    commit(root, {"Build/Build.version": version_bytes(BASE)}, "first")
    return root


def test_guard_refuses_a_staged_version_that_goes_backwards(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stage(repo, {"Build/Build.version": version_bytes(BASE.replace(changelist=999))})
    code, lines = run_command(repo, monkeypatch)
    assert code == 1
    assert lines == [
        "Build/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD, 999 staged "
        "(the same 5.3.2 release and vendor)",
        "buildver guard: 1 file checked: 1 error, 0 warnings",
    ]


def test_guard_judges_the_staged_content_not_the_working_tree(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stage(repo, {"Build/Build.version": version_bytes(BASE.replace(changelist=1001))})
    write(repo, {"Build/Build.version": b"{ unstaged and broken"})
    assert run_command(repo, monkeypatch, "Build/Build.version") == (
        0,
        ["buildver guard: 1 file checked, no problems"],
    )
    stage(repo, {"Build/Build.version": version_bytes(BASE.replace(changelist=5))})
    write(repo, {"Build/Build.version": version_bytes(BASE.replace(changelist=2000))})
    code, _ = run_command(repo, monkeypatch, "Build/Build.version")
    assert code == 1


def test_guard_accepts_the_first_commit(git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_repository(commits=0)
    stage(root, {"Engine/Build/Build.version": version_bytes(BASE)})
    assert run_command(root, monkeypatch) == (0, ["buildver guard: 1 file checked, no problems"])


def test_guard_says_so_outside_git_and_with_nothing_to_check(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    assert run_command(outside, monkeypatch) == (0, ["buildver guard: not in a git repository; nothing to check"])
    stage(repo, {"README.md": b"hello\n"})
    code, lines = run_command(repo, monkeypatch)
    assert (code, lines[-1]) == (
        0,
        "buildver guard: nothing to check (no staged Build.version, version header, package, .modules, .uplugin, "
        ".uproject, DefaultGame.ini or DefaultEngine.ini)",
    )


def test_guard_checks_the_configured_header_and_gives_the_command_that_fixes_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = (
        b'[tool.buildver]\nversion-file = "Build/Build.version"\nheader = "Source/Version.h"\nheader-prefix = "GAME_"\n'
    )
    game = MacroNames.prefixed("GAME_")
    commit(
        repo, {"pyproject.toml": config, "Source/Version.h": render_header(BASE, macros=game, source=SOURCE).encode()}
    )
    stage(repo, {"Build/Build.version": version_bytes(BASE.replace(changelist=1001))})
    code, lines = run_command(repo, monkeypatch)
    assert code == 1
    assert lines[0] == (
        "Source/Version.h: error[header]: out of step with Build/Build.version; run: buildver header, then: git add "
        "Source/Version.h (to leave the header alone, set skip-header = true in [tool.buildver])"
    )
    # Version.h's names are out of step too: outside an engine the header's names are the project's own.
    stage(repo, {"Source/Version.h": render_header(BASE.replace(changelist=1001), source=SOURCE).encode()})
    assert run_command(repo, monkeypatch)[0] == 1
    stage(repo, {"Source/Version.h": render_header(BASE.replace(changelist=1001), macros=game, source=SOURCE).encode()})
    assert run_command(repo, monkeypatch) == (0, ["buildver guard: 2 files checked, no problems"])


def test_guard_refuses_a_real_package_saved_by_a_newer_engine(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit(repo, {"Build/Build.version": version_bytes(UE52_SOURCE)})
    stage(repo, {"Content/New.uasset": fixture(UE55_PACKAGE), "Content/Old.uasset": fixture(UE52_PACKAGE)})
    code, lines = run_command(repo, monkeypatch, "Content/New.uasset", "Content/Old.uasset")
    assert code == 1
    assert lines == [
        "Content/New.uasset: error[package-newer]: saved by a newer engine than 5.2.1-0+++UE5+Release-5.2: "
        "FileVersionUE5 1013 is newer than 5.2 writes (1009)",
        "buildver guard: 2 files checked: 1 error, 0 warnings",
    ]


@pytest.mark.parametrize(("ini", "warned"), [(None, True), (b"[Core.System]\nZeroEngineVersionWarning=False\n", False)])
def test_guard_warns_about_empty_engine_versions_unless_the_staged_ini_turns_it_off(
    repo: Path, monkeypatch: pytest.MonkeyPatch, ini: bytes | None, warned: bool
) -> None:
    # A native game in its engine's depot: no EngineAssociation, the engine in the folder above.
    files = {"Game/Game.uproject": b'{"FileVersion": 3}', "Game/Content/Map.umap": EMPTY_ENGINE.build()}
    if ini is not None:
        files["Game/Config/DefaultEngine.ini"] = ini
    (repo / "Engine" / "Binaries").mkdir(parents=True)
    commit(repo, {"Engine/Build/Build.version": version_bytes(UE55), "Engine/Source/Runtime/Core.Build.cs": b""})
    stage(repo, files)
    code, lines = run_command(repo, monkeypatch)
    assert code == 0
    # A staged Config/DefaultEngine.ini is checked too (Android's version codes).
    checked = "3 files" if ini is not None else "2 files"  # the .uproject too
    assert lines[-1] == (
        f"buildver guard: {checked} checked: 0 errors, 1 warning"
        if warned
        else f"buildver guard: {checked} checked, no problems"
    )


def test_guard_without_a_build_version_warns_that_packages_are_not_checked(
    git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository(commits=0)
    stage(root, {"Content/A.uasset": ERAS["-8"].build()})
    code, lines = run_command(root, monkeypatch)
    assert code == 0
    assert lines[0] == (
        "Content/A.uasset: warning[no-engine-version]: 1 staged packages not checked against an engine (no .uproject "
        "at or above it names an engine, and the repository's Build/Build.version is not in the index; set engine = "
        '"MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver])'
    )


def test_guard_compares_a_staged_manifest_with_the_committed_ones_beside_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit(
        repo,
        {"Binaries/Win64/UnrealEditor.modules": manifest("a"), "Binaries/Linux/UnrealEditor.modules": manifest("b")},
    )
    stage(repo, {"Binaries/Win64/UnrealEditor-Game.modules": manifest("c")})
    code, lines = run_command(repo, monkeypatch)
    assert code == 1
    assert lines[0].startswith(
        "Binaries/Win64/UnrealEditor-Game.modules: error[modules-build-id]: "
        "BuildId 'c' differs from the folder's other manifests "
        "(UnrealEditor.modules has 'a')"
    )


STUDIO_PLUGIN = "0B5E5A1D-5C0F-4D6E-9A31-7E2D1C4B8F60"
"""A studio plugin's custom version, which no engine release registers."""
WITH_A_PLUGINS_CUSTOM_VERSION = ERAS["-8"].with_(
    saved_by=(5, 3, 2, 900, "++Game+Main"),
    compatible_with=(5, 3, 0, 900, "++Game+Main"),
    file_version_ue5=1009,
    custom_versions=(CustomVersionEntry(STUDIO_PLUGIN, 7),),
)


@pytest.mark.parametrize("severity", ["warning", "off"])
def test_guard_warns_of_a_package_whose_custom_version_the_engine_does_not_register(
    repo: Path, monkeypatch: pytest.MonkeyPatch, severity: str
) -> None:
    """Issue 31 item 3: the verdict is classify's (undecidable), the finding package-undecidable, a warning."""
    if severity == "off":
        commit(
            repo,
            {
                "pyproject.toml": b"[tool.buildver]\nskip-header = true\n"
                b'[tool.buildver.guard]\npackage-undecidable = "off"\n'
            },
        )
    else:
        commit(repo, {"pyproject.toml": b"[tool.buildver]\nskip-header = true\n"})
    stage(repo, {"Content/A.uasset": WITH_A_PLUGINS_CUSTOM_VERSION.build()})
    code, lines = run_command(repo, monkeypatch)
    assert code == 0
    if severity == "off":
        assert not any("package-undecidable" in line for line in lines)
        return
    assert lines[0] == (
        "Content/A.uasset: warning[package-undecidable]: not decidable for 5.3.2-1000+++Game+Main: 1 custom version "
        "that 5.3 does not register itself (a plugin's?): Unreal warns if nothing registers them, and refuses the "
        f"package if a plugin registers an older version: {STUDIO_PLUGIN} 7"
    )


def test_guard_reads_a_git_lfs_package_from_the_local_lfs_store(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit(repo, {"Build/Build.version": version_bytes(UE52_SOURCE)})
    content = fixture(UE55_PACKAGE)
    oid = hashlib.sha256(content).hexdigest()
    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(content)}\n".encode()
    # Without git-lfs installed, stage the pointer as its clean filter would, the package staying in the work tree.
    write(repo, {"Content/Lfs.uasset": pointer})
    blob = git(repo, "hash-object", "-w", "Content/Lfs.uasset")
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},Content/Lfs.uasset")
    write(repo, {"Content/Lfs.uasset": content})
    code, lines = run_command(repo, monkeypatch)
    assert (code, lines[0]) == (
        0,
        "Content/Lfs.uasset: warning[package-unreadable]: "
        "not checked: a Git LFS pointer whose object is not in the local LFS store",
    )
    store = repo / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4]
    store.mkdir(parents=True)
    shutil.copyfile(FIXTURES / UE55_PACKAGE, store / oid)
    code, lines = run_command(repo, monkeypatch)
    assert code == 1
    assert "FileVersionUE5 1013 is newer than 5.2 writes" in lines[0]


def test_guard_refuses_a_file_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is not a file in the repository"):
        run_guard(repo, [tmp_path / "elsewhere.uasset"])


def test_guard_refuses_an_unknown_setting_naming_it(repo: Path) -> None:
    write(repo, {"buildver.toml": b'[guard]\n"version-backwards" = "loud"\n'})
    with pytest.raises(ConfigError, match="version-backwards must be"):
        run_guard(repo)


@pytest.mark.parametrize(
    ("staged", "working", "code"),
    [(UE55_PACKAGE, UE52_PACKAGE, 1), (UE52_PACKAGE, UE55_PACKAGE, 0)],
)
def test_guard_reads_a_package_changed_after_staging_from_its_staged_blob(
    repo: Path, monkeypatch: pytest.MonkeyPatch, staged: str, working: str, code: int
) -> None:
    commit(repo, {"Build/Build.version": version_bytes(UE52)})
    stage(repo, {"Content/A.uasset": fixture(staged)})
    write(repo, {"Content/A.uasset": fixture(working)})
    assert run_command(repo, monkeypatch, "Content/A.uasset")[0] == code


def test_guard_reads_a_git_lfs_pointer_left_in_the_work_tree_from_the_lfs_store(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit(repo, {"Build/Build.version": version_bytes(UE52_SOURCE)})
    content = fixture(UE55_PACKAGE)
    oid = hashlib.sha256(content).hexdigest()
    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(content)}\n".encode()
    stage(repo, {"Content/Lfs.uasset": pointer})  # as a checkout with GIT_LFS_SKIP_SMUDGE leaves it
    store = repo / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4]
    store.mkdir(parents=True)
    (store / oid).write_bytes(content)
    code, lines = run_command(repo, monkeypatch)
    assert code == 1
    assert "FileVersionUE5 1013 is newer than 5.2 writes" in lines[0]
