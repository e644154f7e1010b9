"""update-local: Unreal's UpdateLocalVersion on real git repositories, with the header compiled by ``cc``."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GitRepository, git, read_github_output

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX
from buildver.cli.app import main
from buildver.stamp.depot import ci_branch, escape_path
from buildver.stamp.header import MacroNames
from buildver.stamp.uat_arguments import translate_unreal_arguments
from buildver.stamp.update import github_output
from buildver.versions.build_version import BuildVersion

DATA = Path(__file__).parents[1] / "data"
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
VERSION_H = (DATA / "header" / "Version-4.18.h").read_bytes()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def engine_tree(root: Path, version: bytes = UE503) -> Path:
    """A Build/Build.version in ``root``; returns its path."""
    (root / "Build").mkdir(parents=True, exist_ok=True)
    target = root / "Build" / "Build.version"
    target.write_bytes(version)
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


ESCAPE_CASES = [
    ("//UE4/Release-4.19", "++UE4+Release-4.19"),
    ("//UE4/Release-4.19/", "++UE4+Release-4.19"),
    ("//depot/Main Line/Game", "++depot+Main+Line+Game"),
    ("C:\\Builds\\Main", "C+Builds+Main"),
    ("//UE5/Main", "++UE5+Main"),
    # P4Environment trims every trailing "/" before EscapePath.
    ("//UE4/Main//", "++UE4+Main"),
    ("//", ""),
    # Every space becomes "+", wherever it is; only trailing "/" are trimmed, so a trailing space stays.
    ("//depot/Main  Line", "++depot+Main++Line"),
    (" //UE5/Main", "+++UE5+Main"),
    ("//depot/Main Line/ ", "++depot+Main+Line++"),
    ("//depot/Release 5.3: Hotfix", "++depot+Release+5.3+Hotfix"),
    ("D:\\Perforce Work\\Main", "D+Perforce+Work+Main"),
]


@pytest.mark.parametrize(("depot_path", "escaped"), ESCAPE_CASES)
def test_escape_path_is_unreal_escape_path(depot_path: str, escaped: str) -> None:
    assert escape_path(depot_path) == escaped


TRANSLATION_CASES = [
    (["update-local", "-CL=123"], ["update-local", "--cl", "123"]),
    (["update-local", "-cl=123", "-COMPATIBLECL=100"], ["update-local", "--cl", "123", "--compatible-cl", "100"]),
    (["update-local", "-Build=Nightly 1"], ["update-local", "--build", "Nightly 1"]),
    (["update-local", "-SkipHeader", "-Licensee"], ["update-local", "--skip-header", "--licensee"]),
    (["update-local", "-Licensee=0"], ["update-local", "--licensee"]),
    (["update-local", "-Promoted"], ["update-local"]),
    (
        ["update-local", "-Promoted=0", "-Branch=++UE5+Main"],
        ["update-local", "--promoted", "0", "--branch", "++UE5+Main"],
    ),
    (["update-local", "-f", "x", "--cl", "5"], ["update-local", "-f", "x", "--cl", "5"]),
    (["update-local", "-CL=1", "-cl=2"], ["update-local", "--cl", "1"]),
    (["update-local", "-CL", "-Branch", "-Build"], ["update-local"]),
    (["update-local", "-Promoted=0", "-Promoted=1"], ["update-local", "--promoted", "0"]),
    # ParseParamValue finds the first "Name=" even after a bare "-Name".
    (["update-local", "-CL", "-CL=5"], ["update-local", "--cl", "5"]),
    (["update-local", "-Promoted", "-Promoted=0"], ["update-local", "--promoted", "0"]),
    # A value that starts with "-" belongs to the option before it.
    (["update-local", "--branch", "-Main", "--cl", "5"], ["update-local", "--branch", "-Main", "--cl", "5"]),
    # NAME=VALUE without a dash: an environment variable for the run, as UAT sets it.
    (["update-local", "uebp_CL=77", "--branch", "a=b"], ["update-local", "--env", "uebp_CL=77", "--branch", "a=b"]),
    (["show", "-CL=5"], ["show", "-CL=5"]),
]


@pytest.mark.parametrize(("argv", "expected"), TRANSLATION_CASES)
def test_unreal_spelling_is_translated_case_insensitively(argv: list[str], expected: list[str]) -> None:
    assert translate_unreal_arguments(argv) == (expected, [])


def test_uat_global_switches_are_dropped_and_named_for_a_note() -> None:
    argv = ["update-local", "-NoP4", "-CL=5", "-utf8output", "-Verbose", "-Submit", "-noSUBMIT", "-ScriptDir=X"]
    assert translate_unreal_arguments(argv) == (
        ["update-local", "--cl", "5"],
        ["-NoP4", "-utf8output", "-Verbose", "-Submit", "-noSUBMIT", "-ScriptDir=X"],
    )


def test_uat_global_switches_are_accepted_with_one_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = engine_tree(tmp_path)
    code, _, err = run(capsys, "update-local", "-f", str(version), "-NoP4", "-CL=5", "-Branch=B", "-utf8output")
    assert (code, err) == (0, "buildver: note: UAT's -NoP4 -utf8output has no effect here\n")
    assert json.loads(version.read_bytes())["Changelist"] == 5


def test_name_value_arguments_set_variables_for_the_run_as_uat_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    monkeypatch.setenv("uebp_CL", "1")
    code, _, err = run(capsys, "update-local", "-f", str(version), "uebp_CL=77", "uebp_BuildRoot_P4=//UE5/Main/")
    assert (code, err) == (0, "")
    document = json.loads(version.read_bytes())
    assert (document["Changelist"], document["BranchName"]) == (77, "++UE5+Main")
    code, _, err = run(capsys, "update-local", "-f", str(version), "--env", "no equals sign")
    assert code == 2
    assert "'no equals sign' is not NAME=VALUE" in err


def test_an_unknown_single_dash_parameter_is_an_error_that_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "-f", str(version), "-CL=5", "-Nonsense=1")
    assert (code, out) == (2, "")
    assert err.startswith("buildver: error: update-local: unknown parameter '-Nonsense=1'")
    assert snapshot(tmp_path) == before


def test_update_local_stamps_version_and_generates_a_header_that_compiles(
    capsys: pytest.CaptureFixture[str], git_repository: GitRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("Game", commits=4)
    version = engine_tree(root)
    monkeypatch.chdir(root)
    code, out, err = run(capsys, "update-local", "--cl", "123", "--promoted", "1", "--branch", "++Game+Main")
    assert (code, err) == (0, "")
    assert "Changelist 0 -> 123 (--cl)" in out
    assert json.loads(version.read_bytes()) | {} == {
        "MajorVersion": 5,
        "MinorVersion": 0,
        "PatchVersion": 3,
        "Changelist": 123,
        "CompatibleChangelist": 19505902,
        "IsLicenseeVersion": 0,
        "IsPromotedBuild": 1,
        "BranchName": "++Game+Main",
    }
    assert not version.read_bytes().endswith(b"\n")  # the file's own layout is kept
    values = compile_and_print(root / "Build" / "BuildVersion.h", tmp_path)
    # Outside an engine the header's names are the project's own (no .uproject here: PROJECT_).
    assert values == {
        "PROJECT_MAJOR_VERSION": "5",
        "PROJECT_MINOR_VERSION": "0",
        "PROJECT_PATCH_VERSION": "3",
        "PROJECT_CHANGELIST": "123",
        "PROJECT_COMPATIBLE_CHANGELIST": "19505902",
        "PROJECT_IS_LICENSEE_VERSION": "0",
        "PROJECT_IS_PROMOTED_BUILD": "1",
        "PROJECT_BRANCH_NAME": "++Game+Main",
        "PROJECT_BUILD_VERSION": "++Game+Main-CL-123",
        "PROJECT_VERSION_STRING": "5.0.3-++Game+Main-CL-123",
    }


PROJECT_MACROS = MacroNames.prefixed("PROJECT_")


def compile_and_print(header: Path, work: Path, macros: MacroNames = PROJECT_MACROS) -> dict[str, str]:
    """Compile a program that includes ``header`` with the machine's C compiler and print every macro, by name."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) on this machine")
    numbers = macros[:7]
    branch, build, version_string = macros[7:]
    source = work / "print_version.c"
    lines = ["#include <stdio.h>", "#include <wchar.h>", f'#include "{header}"', "int main(void) {"]
    lines += [f'  printf("{name}=%lld\\n", (long long)({name}));' for name in numbers]
    lines += [
        # Strings are printed as hex so that any byte, a newline included, comes back exactly.
        f'  printf("{branch}=");',
        f'  for (const char *c = {branch}; *c; ++c) printf("%02x", (unsigned char)*c);',
        f'  printf("\\n{build}=");',
        f'  for (const wchar_t *c = {build}; *c; ++c) printf("%08lx", (unsigned long)*c);',
        f'  printf("\\n{version_string}=");',
        f'  for (const char *c = {version_string}; *c; ++c) printf("%02x", (unsigned char)*c);',
        '  printf("\\n");',
        "  return 0;",
        "}",
    ]
    source.write_text("\n".join(lines) + "\n")
    program = work / "print_version"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-o", str(program), str(source)], check=True)
    output = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    values = dict(line.split("=", 1) for line in output.stdout.splitlines())
    for name in (branch, version_string):
        values[name] = bytes.fromhex(values[name]).decode("utf-8")
    wide = values[build]
    values[build] = "".join(chr(int(wide[i : i + 8], 16)) for i in range(0, len(wide), 8))
    return values


def test_changelist_comes_from_the_flag_then_uebp_cl_then_git_commit_count(
    capsys: pytest.CaptureFixture[str], git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("Game", commits=7)
    version = engine_tree(root)
    monkeypatch.chdir(root)
    cases = [((), {}, 7), ((), {"uebp_CL": "4242"}, 4242), (("--cl", "99"), {"uebp_CL": "4242"}, 99)]
    for flags, environment, expected in cases:
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        code, _, err = run(capsys, "update-local", "--skip-header", *flags)
        assert (code, err) == (0, "")
        assert json.loads(version.read_bytes())["Changelist"] == expected


CI_CHANGELIST_CASES = [
    # (environment, changelist): uebp_CL, then the CI's Perforce variable, then git (7 commits)
    ({"JENKINS_URL": "http://ci", "P4_CHANGELIST": "4242"}, 4242),
    ({"JENKINS_URL": "http://ci", "P4_CHANGELIST": "4242", "uebp_CL": "11"}, 11),
    ({"TEAMCITY_VERSION": "2025.11", "BUILD_VCS_NUMBER": "31337", "uebp_CL": "11"}, 11),
    (
        {
            "JENKINS_URL": "http://ci",
            "P4_CHANGELIST": "4242",
            "TEAMCITY_VERSION": "2025.11",
            "BUILD_VCS_NUMBER": "31337",
            "uebp_CL": "12",
        },
        12,
    ),
    (
        {
            "TEAMCITY_VERSION": "2025.11",
            "BUILD_VCS_NUMBER": "3f2a9c0d1e5b7a8c9d0e1f2a3b4c5d6e7f8a9b0c",
            "uebp_CL": "13",
        },
        13,
    ),
    ({"P4_CHANGELIST": "4242"}, 7),  # not Jenkins: the variable is not the CI's
    ({"TEAMCITY_VERSION": "2025.11", "BUILD_VCS_NUMBER": "31337"}, 31337),
    # A git root's revision is a hash, not a changelist: git decides.
    ({"TEAMCITY_VERSION": "2025.11", "BUILD_VCS_NUMBER": "3f2a9c0d1e5b7a8c9d0e1f2a3b4c5d6e7f8a9b0c"}, 7),
]


@pytest.mark.parametrize(("environment", "expected"), CI_CHANGELIST_CASES)
def test_perforce_ci_changelists_come_after_uebp_cl_and_before_git(
    capsys: pytest.CaptureFixture[str],
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    environment: dict[str, str],
    expected: int,
) -> None:
    root = git_repository("Game", commits=7)
    version = engine_tree(root)
    monkeypatch.chdir(root)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    code, _, err = run(capsys, "update-local", "--skip-header", "--branch", "B")
    assert (code, err) == (0, "")
    assert json.loads(version.read_bytes())["Changelist"] == expected


def test_a_jenkins_changelist_that_is_not_digits_is_an_error_naming_the_variable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    before = snapshot(tmp_path)
    monkeypatch.setenv("JENKINS_URL", "http://ci")
    monkeypatch.setenv("P4_CHANGELIST", "12a")
    code, _, err = run(capsys, "update-local", "-f", str(version), "--branch", "B")
    assert code == 1
    assert err == (
        "buildver: error: environment variable P4_CHANGELIST: '12a' is not a whole number from 0 to 2147483647 "
        "(ASCII decimal digits only)\n"
    )
    assert snapshot(tmp_path) == before


def test_without_any_changelist_source_the_error_says_how_to_give_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()  # a repository root for the search, but not a git repository git can read
    engine_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").rmdir()
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "--branch", "X", "--skip-header")
    assert (code, out) == (1, "")
    assert err.startswith(
        "buildver: error: no changelist: pass --cl N (or -CL=N), set the environment variable uebp_CL"
    )
    assert snapshot(tmp_path) == before


BRANCH_CASES = [
    # (flags, environment, expected branch)
    (("--branch", "++UE5+Main"), {"uebp_BuildRoot_P4": "//Other/Branch"}, "++UE5+Main"),
    (("--depot-path", "//UE4/Release-4.19"), {}, "++UE4+Release-4.19"),
    ((), {"uebp_BuildRoot_P4": "//UE4/Release-4.19/"}, "++UE4+Release-4.19"),
    ((), {"uebp_BuildRoot_Escaped": "++UE4+Dev-Main"}, "++UE4+Dev-Main"),
    ((), {}, "++Game+feature+new-lighting"),
]


@pytest.mark.parametrize(("flags", "environment", "expected"), BRANCH_CASES)
def test_branch_sources_in_order(
    capsys: pytest.CaptureFixture[str],
    git_repository: GitRepository,
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    environment: dict[str, str],
    expected: str,
) -> None:
    root = git_repository("Game", branch="feature/new-lighting")
    version = engine_tree(root)
    monkeypatch.chdir(root)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    code, _, err = run(capsys, "update-local", "--cl", "1", "--skip-header", *flags)
    assert (code, err) == (0, "")
    assert json.loads(version.read_bytes())["BranchName"] == expected


def test_git_branch_uses_the_origin_remote_name_then_the_configured_name(
    capsys: pytest.CaptureFixture[str], git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("checkout-17", branch="main")
    git(root, "remote", "add", "origin", "git@git.example.com:studio/ShooterGame.git")
    version = engine_tree(root)
    monkeypatch.chdir(root)
    assert run(capsys, "update-local", "--cl", "1", "--skip-header")[0] == 0
    assert json.loads(version.read_bytes())["BranchName"] == "++ShooterGame+main"
    (root / "buildver.toml").write_text('[tool.buildver]\nrepository-name = "Shooter"\n')
    assert run(capsys, "update-local", "--cl", "1", "--skip-header")[0] == 0
    assert json.loads(version.read_bytes())["BranchName"] == "++Shooter+main"


CI_CASES = [
    ({"GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "release/1.2"}, "release/1.2"),
    ({"GITHUB_ACTIONS": "true", "GITHUB_HEAD_REF": "feature/x", "GITHUB_REF_NAME": "17/merge"}, "feature/x"),
    ({"GITLAB_CI": "true", "CI_COMMIT_REF_NAME": "main"}, "main"),
    ({"JENKINS_URL": "http://ci", "GIT_BRANCH": "origin/develop"}, "develop"),
    ({"JENKINS_URL": "http://ci", "BRANCH_NAME": "PR-5", "CHANGE_BRANCH": "feature/y"}, "feature/y"),
    ({"TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/heads/main"}, "main"),
    ({"GITHUB_REF_NAME": "not-on-github-actions"}, None),
    ({}, None),
]


@pytest.mark.parametrize(("environment", "expected"), CI_CASES)
def test_ci_branch_variables(environment: dict[str, str], expected: str | None) -> None:
    found = ci_branch(environment)
    assert (found[0] if found else None) == expected


def test_teamcity_branch_is_read_from_its_configuration_properties_file(tmp_path: Path) -> None:
    configuration = tmp_path / "config.properties"
    configuration.write_text("teamcity.build.branch=refs/heads/release\\:2026\n")
    build = tmp_path / "build.properties"
    build.write_text(f"teamcity.configuration.properties.file={configuration}\n")
    found = ci_branch({"TEAMCITY_VERSION": "2025.11", "TEAMCITY_BUILD_PROPERTIES_FILE": str(build)})
    assert found == ("release:2026", "TeamCity: teamcity.build.branch")


def test_detached_head_takes_the_branch_from_ci_or_refuses(
    capsys: pytest.CaptureFixture[str], git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("Game", commits=2)
    git(root, "checkout", "--quiet", "--detach")
    version = engine_tree(root)
    monkeypatch.chdir(root)
    before = version.read_bytes()
    code, _, err = run(capsys, "update-local", "--skip-header")
    assert code == 1
    assert "HEAD is detached and no CI branch variable is set" in err
    assert version.read_bytes() == before
    monkeypatch.setenv("GITLAB_CI", "true")
    monkeypatch.setenv("CI_COMMIT_REF_NAME", "release-2")
    assert run(capsys, "update-local", "--skip-header")[0] == 0
    assert json.loads(version.read_bytes())["BranchName"] == "++Game+release-2"
    assert json.loads(version.read_bytes())["Changelist"] == 2


COMPATIBLE_CASES = [
    # (file's licensee, flags, environment, expected CompatibleChangelist)
    (0, (), {}, 19505902),
    (0, ("--compatible-cl", "100"), {"uebp_CodeCL": "200"}, 100),
    (0, (), {"uebp_CodeCL": "200"}, 200),
    (0, ("--licensee",), {}, 0),
    (0, ("--no-licensee",), {}, 19505902),
    (0, ("--licensee", "--compatible-cl", "55"), {}, 55),
    (0, ("-CompatibleCL=0",), {}, 19505902),  # Unreal: 0 means "not given"
    (0, (), {"uebp_CodeCL": "0"}, 19505902),
    (0, ("--licensee", "--compatible-cl", "0"), {}, 0),  # not given, and the licensee flag changed
]


@pytest.mark.parametrize(("flags", "environment", "expected"), [c[1:] for c in COMPATIBLE_CASES])
def test_compatible_changelist_is_flag_then_code_cl_then_kept_but_reset_when_licensee_changes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
    environment: dict[str, str],
    expected: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = engine_tree(tmp_path)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    code, _, err = run(
        capsys, "update-local", "-f", str(version), "--cl", "5", "--branch", "B", "--skip-header", *flags
    )
    assert (code, err) == (0, "")
    assert json.loads(version.read_bytes())["CompatibleChangelist"] == expected


@pytest.mark.parametrize(("promoted", "written"), [("1", 1), ("0", 0), ("7", 1), ("007", 1)])
def test_promoted_writes_one_for_any_non_zero_integer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], promoted: str, written: int
) -> None:
    version = engine_tree(tmp_path)
    code, _, _ = run(
        capsys,
        "update-local",
        "-f",
        str(version),
        "--cl",
        "5",
        "--branch",
        "B",
        "--skip-header",
        f"-Promoted={promoted}",
    )
    assert code == 0
    assert json.loads(version.read_bytes())["IsPromotedBuild"] == written


def test_build_string_is_set_then_cleared_and_build_id_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = engine_tree(tmp_path, (DATA / "build_version" / "ue5.3.2-forced-buildid.version").read_bytes())
    common = ("update-local", "-f", str(version), "--cl", "5", "--branch", "B", "--skip-header")
    assert run(capsys, *common, "-Build=Nightly-42")[0] == 0
    assert json.loads(version.read_bytes())["BuildVersion"] == "Nightly-42"
    assert json.loads(version.read_bytes())["BuildId"] == "CarbonBID"
    assert run(capsys, *common)[0] == 0
    assert json.loads(version.read_bytes())["BuildVersion"] == ""
    assert run(capsys, *common, "--new-build-id")[0] == 0
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        json.loads(version.read_bytes())["BuildId"],
    )
    assert run(capsys, *common, "--build-id", "Forced")[0] == 0
    assert json.loads(version.read_bytes())["BuildId"] == "Forced"
    code, _, err = run(capsys, *common, "--build-id", "X", "--new-build-id")
    assert (code, err) == (2, "buildver: error: --new-build-id and --build-id cannot be used together\n")


def test_dry_run_prints_a_diff_of_both_files_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "--cl", "123", "--branch", "++UE5+Main", "--dry-run")
    assert (code, err) == (0, "")
    assert '-\t"Changelist": 0,\n+\t"Changelist": 123,' in out
    assert "+++ b/Build/BuildVersion.h" in out
    assert "+#define PROJECT_CHANGELIST 123" in out
    assert snapshot(tmp_path) == before
    assert version.exists()


def test_json_prints_the_resulting_fields_and_the_files_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    code, out, _ = run(capsys, "update-local", "-f", str(version), "--cl", "9", "--branch", "B", "--json")
    assert code == 0
    document = json.loads(out)
    assert document["Changelist"] == 9
    assert document["EngineVersion"] == "5.0.3-9+B"
    assert document["FilesChanged"] == [str(version), str(version.parent / "BuildVersion.h")]
    code, out, _ = run(capsys, "update-local", "-f", str(version), "--cl", "9", "--branch", "B", "--json")
    assert json.loads(out)["FilesChanged"] == []


def test_a_second_identical_run_rewrites_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = engine_tree(tmp_path)
    arguments = ("update-local", "-f", str(version), "--cl", "9", "--branch", "B")
    assert run(capsys, *arguments)[0] == 0
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    code, out, _ = run(capsys, *arguments)
    assert (code, out) == (0, "up to date: nothing written\n")
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()} == stamps


def test_github_output_gets_version_changelist_and_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    output = tmp_path / "github_output"
    output.write_text("earlier=1\n")
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    assert (
        run(capsys, "update-local", "-f", str(version), "--cl", "77", "--branch", "++UE5+Main", "--skip-header")[0] == 0
    )
    assert output.read_text() == (
        "earlier=1\nversion=5.0.3-77+++UE5+Main\nchangelist=77\ncompatible_changelist=19505902\nbranch=++UE5+Main\n"
    )


def test_github_output_cannot_be_injected_through_a_branch_name() -> None:
    branch = "x\nversion=9.9.9\nchangelist=666"
    outputs = read_github_output(github_output(BuildVersion(5, 0, 0, 1, branch_name=branch)))
    assert outputs == {
        "version": f"5.0.0-1+{branch}",
        "changelist": "1",
        "compatible_changelist": "1",
        "branch": branch,
    }


BAD_INPUT_CASES = [
    # Bytes that are not UTF-8 in an argument or variable reach Python as lone surrogates.
    (("--branch", "bad\udcffname"), {}, 1, "BranchName must be text UTF-8 can encode, not 'bad\\udcffname'"),
    (("--build", "\udcfe"), {}, 1, "cannot store the new values: BuildVersion must be text UTF-8 can encode"),
    (("--cl", "-5"), {}, 2, "Invalid value for '--cl': '-5' is not a whole number from 0 to 2147483647"),
    (("--cl", "abc"), {}, 2, "Invalid value for '--cl': 'abc'"),
    (("--cl", "2147483648"), {}, 2, "Invalid value for '--cl': 2147483648 is above 2147483647"),
    # Python's int() takes all of these; Unreal's changelists are ASCII digits.
    (("--cl", "\u0663"), {}, 2, "Invalid value for '--cl': '\u0663' is not a whole number"),
    (("--cl", "1_000"), {}, 2, "Invalid value for '--cl': '1_000' is not a whole number"),
    (("--cl", " 12 "), {}, 2, "Invalid value for '--cl': ' 12 ' is not a whole number"),
    (("--cl", "+5"), {}, 2, "Invalid value for '--cl': '+5' is not a whole number"),
    (("-CL=+5",), {}, 2, "Invalid value for '--cl': '+5' is not a whole number"),
    (("--compatible-cl", "1_0"), {}, 2, "Invalid value for '--compatible-cl': '1_0' is not a whole number"),
    (("--promoted", "true"), {}, 2, "Invalid value for '--promoted': 'true' is not a whole number"),
    (("-Promoted=true",), {}, 2, "Invalid value for '--promoted': 'true' is not a whole number"),
    (("--promoted", "+1"), {}, 2, "Invalid value for '--promoted': '+1' is not a whole number"),
    ((), {"uebp_CL": "12x"}, 1, "environment variable uebp_CL: '12x' is not a whole number from 0 to 2147483647"),
    ((), {"uebp_CL": "4294967295"}, 1, "environment variable uebp_CL: 4294967295 is above 2147483647"),
    ((), {"uebp_CodeCL": "-1"}, 1, "environment variable uebp_CodeCL: '-1' is not a whole number"),
]


@pytest.mark.parametrize(("flags", "environment", "code", "message"), BAD_INPUT_CASES)
def test_bad_input_gives_one_line_the_documented_exit_code_and_changes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    environment: dict[str, str],
    code: int,
    message: str,
) -> None:
    version = engine_tree(tmp_path)
    (tmp_path / "Build" / "BuildVersion.h").write_text("// Generated by buildver from Build/Build.version.\n")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    before = snapshot(tmp_path)
    arguments: tuple[str, ...] = ("update-local", "-f", str(version), "--branch", "B")
    if not any(flag.lower().startswith(("--cl", "-cl")) for flag in flags) and "uebp_CL" not in environment:
        arguments += ("--cl", "1")
    result, out, err = run(capsys, *arguments, *flags)
    assert (result, out) == (code, "")
    assert err.startswith("buildver: error: ")
    assert message in err
    assert err.count("\n") == 1
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"MajorVersion": 5, "MinorVersion": 0}', "missing required key PatchVersion"),
        (
            b'{"MajorVersion": 5, "MinorVersion": 0, "PatchVersion": 0, "Changelist": true}',
            "Changelist must be an integer",
        ),
        (b"\x00\x01", "line 1, column 1: expected '{'"),
    ],
)
def test_malformed_build_version_changes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    version = engine_tree(tmp_path, content)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "-f", str(version), "--cl", "1", "--branch", "B")
    assert (code, out) == (1, "")
    assert err.startswith(f"buildver: error: {version}: ")
    assert message in err
    assert snapshot(tmp_path) == before


def test_read_only_version_file_is_an_error_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = engine_tree(tmp_path)
    version.chmod(0o444)
    before = snapshot(tmp_path)
    arguments = ("update-local", "-f", str(version), "--cl", "1", "--branch", "B")
    code, _, err = run(capsys, *arguments)
    assert code == 3
    assert err == f"buildver: error: {version}: the file is read-only; pass --force to make it writable\n"
    assert snapshot(tmp_path) == before
    assert run(capsys, *arguments, "--force")[0] == 0
    assert json.loads(version.read_bytes())["Changelist"] == 1
    assert stat.S_IMODE(version.stat().st_mode) & stat.S_IWUSR


def test_when_the_header_cannot_be_written_build_version_is_unchanged_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    before = snapshot(tmp_path)
    missing = tmp_path / "no-such-folder" / "Version.h"
    code, _, err = run(
        capsys, "update-local", "-f", str(version), "--cl", "1", "--branch", "B", "--header", str(missing)
    )
    assert code == 3
    assert "no file was changed" in err
    assert snapshot(tmp_path) == before
    assert not list(tmp_path.rglob(f"*{TEMP_SUFFIX}"))


def test_an_unreal_version_h_is_patched_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = tmp_path / "Engine"
    version = engine_tree(engine, (DATA / "build_version" / "ue4.18.3.version").read_bytes())
    header = engine / "Source" / "Runtime" / "Launch" / "Resources" / "Version.h"
    header.parent.mkdir(parents=True)
    header.write_bytes(VERSION_H)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "update-local", "-CL=4242", "-Branch=++UE4+Release-4.18", "-Build=Hotfix 2")
    assert code == 0
    assert err.startswith("buildver: warning: ")  # a 4.18.3 hotfix whose compatible changelist is its own
    assert err.count("\n") == 1
    text = header.read_text()
    assert '#define BRANCH_NAME "++UE4+Release-4.18"' in text
    assert "#define BUILT_FROM_CHANGELIST 4242" in text
    assert '#define BUILD_VERSION L"Hotfix 2"' in text
    old_lines = VERSION_H.decode().splitlines()
    changed = [line for line in text.splitlines() if line not in old_lines]
    assert all(line.lstrip().startswith("#define") for line in changed)
    # BRANCH_NAME already had this value; the Epic compatible changelist becomes the changelist (4.18's default).
    assert len(changed) == 4
    assert "\t\t#define ENGINE_COMPATIBLE_CL_VERSION 4242" in changed
    assert json.loads(version.read_bytes())["Changelist"] == 4242


def test_header_check_reports_an_out_of_date_header_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    assert run(capsys, "update-local", "-f", str(version), "--cl", "1", "--branch", "B")[0] == 0
    assert run(capsys, "header", "-f", str(version), "--check")[0] == 0
    version.write_bytes(version.read_bytes().replace(b'"Changelist": 1', b'"Changelist": 2'))
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "header", "-f", str(version), "--check")
    assert code == 1
    assert "-#define PROJECT_CHANGELIST 1\n+#define PROJECT_CHANGELIST 2" in out
    assert "out of date; run: buildver header" in err
    assert snapshot(tmp_path) == before
    assert run(capsys, "header", "-f", str(version))[0] == 0
    assert run(capsys, "header", "-f", str(version), "--check")[0] == 0


HOSTILE_BRANCHES = ['a"b', "back\\slash", 'x" #define BUILT_FROM_CHANGELIST 666 "', "??/", "*/ /*"]


@pytest.mark.parametrize("branch", HOSTILE_BRANCHES)
def test_hostile_branch_names_compile_to_exactly_that_string(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], branch: str
) -> None:
    version = engine_tree(tmp_path)
    code, _, err = run(capsys, "update-local", "-f", str(version), "--cl", "5", "--branch", branch)
    assert (code, err) == (0, "")
    assert json.loads(version.read_bytes())["BranchName"] == branch
    values = compile_and_print(tmp_path / "Build" / "BuildVersion.h", tmp_path)
    assert values["PROJECT_BRANCH_NAME"] == branch
    assert values["PROJECT_BUILD_VERSION"] == f"{branch}-CL-5"
    assert values["PROJECT_CHANGELIST"] == "5"


@pytest.mark.parametrize("branch", ["new\nline", 'x" \n#define BUILT_FROM_CHANGELIST 666\n"', "bell\a", "del\x7f"])
def test_a_branch_holding_a_control_character_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], branch: str
) -> None:
    """Build.version could hold it (JSON escapes it), but no line that shows it could: show's --field and env
    lines, CI outputs and logs. buildver never writes a value it could not show."""
    version = engine_tree(tmp_path)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "-f", str(version), "--cl", "5", "--branch", branch)
    assert (code, out) == (1, "")
    assert err.startswith("buildver: error: the branch ")
    assert "(--branch) holds the control character" in err
    assert err.count("\n") == 1
    assert snapshot(tmp_path) == before


def test_configured_header_path_is_used_and_paths_outside_the_repository_refused(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("Game")
    engine_tree(root)
    monkeypatch.chdir(root)
    (root / "Source").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "game"\n\n[tool.buildver]\nheader = "Source/GameVersion.h"\n'
    )
    assert run(capsys, "update-local", "--cl", "3")[0] == 0
    assert "#define PROJECT_CHANGELIST 3" in (root / "Source" / "GameVersion.h").read_text()
    (root / "pyproject.toml").write_text('[tool.buildver]\nheader = "../outside.h"\n')
    code, _, err = run(capsys, "update-local", "--cl", "4")
    assert code == 1
    assert "header '../outside.h' points outside the repository" in err
    assert not (root.parent / "outside.h").exists()


def test_init_appends_a_commented_section_and_keeps_the_rest_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_tree(tmp_path)
    original = '[project]\nname = "game"   # keep this comment\n\n[tool.ruff]\nline-length = 100\n'
    (tmp_path / "pyproject.toml").write_text(original)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "init")
    assert code == 0
    assert "pyproject.toml" in out
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(original)
    assert "[tool.buildver]\n# buildver settings" in text
    assert 'version-file = "Build/Build.version"' in text
    code, _, err = run(capsys, "init")
    assert code == 1
    assert "[tool.buildver] is already there" in err


def test_unknown_setting_is_an_error_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_tree(tmp_path)
    (tmp_path / "buildver.toml").write_text('[tool.buildver]\nheadr = "x.h"\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "update-local", "--cl", "1", "--branch", "B")
    assert code == 1
    assert "unknown setting 'headr'" in err


def test_a_shallow_clone_is_refused_as_a_changelist_source(
    git_repository: GitRepository, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = git_repository("Origin", commits=5)
    clone = tmp_path / "Clone"
    git(tmp_path, "clone", "--quiet", "--depth", "1", f"file://{origin}", str(clone))
    version = engine_tree(clone)
    monkeypatch.chdir(clone)
    before = version.read_bytes()
    code, _, err = run(capsys, "update-local", "--skip-header")
    assert code == 1
    assert "the clone is shallow, so its commit count is not a changelist" in err
    assert version.read_bytes() == before
    assert run(capsys, "update-local", "--skip-header", "--cl", "5")[0] == 0


def test_counting_commits_writes_nothing_into_git_and_a_graph_made_by_git_never_hides_new_commits(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """buildver never writes git's commit-graph (issue 23, item 8: a kill during that write left git's lock)."""
    root = git_repository("Game", commits=6)
    version = engine_tree(root)
    monkeypatch.chdir(root)
    graphs = root / ".git" / "objects" / "info"
    assert run(capsys, "update-local", "--skip-header", "--branch", "B")[0] == 0
    assert not list(graphs.glob("commit-graph*"))
    assert json.loads(version.read_bytes())["Changelist"] == 6
    git(root, "commit-graph", "write", "--reachable", "--split")  # as git gc or git maintenance makes it
    git(root, "commit", "--quiet", "--allow-empty", "-m", "seventh")
    assert run(capsys, "update-local", "--skip-header", "--branch", "B")[0] == 0
    assert json.loads(version.read_bytes())["Changelist"] == 7  # a stale graph never hides new commits


def test_a_github_output_that_cannot_be_written_fails_before_any_file_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    (tmp_path / "outputs").mkdir()
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "outputs"))
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "update-local", "-f", str(version), "--cl", "77", "--branch", "B")
    assert (code, out) == (3, "")
    outputs = tmp_path / "outputs"
    assert err == f"buildver: error: {outputs}: cannot append to GITHUB_OUTPUT (Is a directory); nothing was written\n"
    assert snapshot(tmp_path) == before


def test_a_worktree_of_a_shallow_clone_is_refused_too(
    git_repository: GitRepository, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = git_repository("Origin", commits=5)
    clone = tmp_path / "Clone"
    git(tmp_path, "clone", "--quiet", "--depth", "1", f"file://{origin}", str(clone))
    git(clone, "worktree", "add", "--quiet", str(tmp_path / "Tree"), "-b", "feature")
    version = engine_tree(tmp_path / "Tree")
    monkeypatch.chdir(tmp_path / "Tree")
    code, _, err = run(capsys, "update-local", "--skip-header")
    assert code == 1
    assert "the clone is shallow" in err
    assert version.read_bytes() == UE503


def test_dry_run_finishes_no_killed_run_and_removes_no_leftover(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    temp = tmp_path / "Build" / f".Build.version.0123456789ab{TEMP_SUFFIX}"
    temp.write_bytes(b'{"MajorVersion": 9, "MinorVersion": 9, "PatchVersion": 9}')
    entry = {
        "target": "Build/Build.version",
        "temp": temp.name,
        "inode": temp.stat().st_ino,
        "old": hashlib.sha256(UE503).hexdigest(),
        "new": hashlib.sha256(temp.read_bytes()).hexdigest(),
    }
    (tmp_path / "Build" / JOURNAL_NAME).write_text(json.dumps({"buildver-journal": 3, "entries": [entry]}))
    before = snapshot(tmp_path)
    assert run(capsys, "update-local", "--dry-run", "-f", str(version), "--cl", "7", "--branch", "B")[0] == 0
    assert snapshot(tmp_path) == before
    run(capsys, "header", "--check", "-f", str(version))
    assert snapshot(tmp_path) == before
    assert run(capsys, "update-local", "-f", str(version), "--cl", "7", "--branch", "B")[0] == 0
    assert json.loads(version.read_bytes())["MajorVersion"] == 9  # the killed run was finished first
    assert json.loads(version.read_bytes())["Changelist"] == 7


@pytest.mark.parametrize(
    "command",
    [
        ["update-local", "--cl", "1", "--branch", "B", "--dry-run"],
        ["update-local", "--cl", "1", "--branch", "B"],
        ["header", "--check"],
        ["header"],
    ],
)
def test_a_version_file_in_a_missing_folder_is_reported_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    missing = tmp_path / "nowhere" / "Build.version"
    code, out, err = run(capsys, command[0], "-f", str(missing), *command[1:])
    assert (code, out) == (1, "")
    assert err == f"buildver: error: {missing}: the version file is missing\n"
    assert not (tmp_path / "nowhere").exists()


def test_leftovers_beside_a_header_in_another_folder_are_removed_by_the_next_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    (tmp_path / "Include").mkdir()
    header = tmp_path / "Include" / "Version.h"
    common = ("update-local", "-f", str(version), "--branch", "B", "--header", str(header))
    assert run(capsys, *common, "--cl", "5")[0] == 0
    stray = tmp_path / "Include" / f".Version.h.0123456789ab{TEMP_SUFFIX}"
    other = tmp_path / "Include" / f".Other.h.0123456789ab{TEMP_SUFFIX}"
    stray.write_bytes(b"half")
    other.write_bytes(b"not ours")
    assert run(capsys, *common, "--cl", "6")[0] == 0
    assert not stray.exists()
    assert other.exists()  # only the temporary files of the files this run writes


def test_github_output_without_a_final_newline_gets_one_before_the_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    output = tmp_path / "github_output"
    output.write_text("previous=1")
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    branch = "x branch=evil"
    assert run(capsys, "update-local", "-f", str(version), "--cl", "6", "--branch", branch, "--skip-header")[0] == 0
    outputs = read_github_output(output.read_text())
    assert outputs["previous"] == "1"
    assert outputs["branch"] == branch
    assert outputs["version"] == f"5.0.3-6+{branch}"


def test_init_refuses_a_pyproject_whose_tool_table_is_inline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine_tree(tmp_path)
    original = "tool = {black = {line-length = 100}}\n"
    (tmp_path / "pyproject.toml").write_text(original)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "init")
    assert code == 1
    assert "a [tool.buildver] section cannot be added" in err
    assert (tmp_path / "pyproject.toml").read_text() == original


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a device that is always full (Linux)")
def test_an_output_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    version = engine_tree(tmp_path)
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "buildver", "show", "-f", str(version)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert result.returncode == 1
    assert result.stderr == "buildver: error: cannot write the output (No space left on device)\n"


def test_update_local_clears_build_url_as_unreal_5_8_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    version = engine_tree(tmp_path, UE503.replace(b'"BranchName"', b'"BuildURL": "https://ci/1",\n\t"BranchName"'))
    assert run(capsys, "update-local", "-f", str(version), "--cl", "5", "--branch", "B", "--skip-header")[0] == 0
    assert json.loads(version.read_bytes())["BuildURL"] == ""


def test_a_run_that_fails_to_plan_creates_no_github_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    version = engine_tree(tmp_path)
    output = tmp_path / "outputs" / "github_output"
    output.parent.mkdir()
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    code, _, err = run(capsys, "update-local", "-f", str(version), "--cl", "1", "--build-id", "x", "--new-build-id")
    assert code == 2
    assert "--new-build-id and --build-id cannot be used together" in err
    assert not output.exists()


def test_a_header_in_a_missing_folder_is_named_in_the_error_not_its_temporary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version = engine_tree(tmp_path)
    code, _, err = run(capsys, "update-local", "-f", str(version), "--cl", "1", "--branch", "B", "--header", "Nope/V.h")
    assert code == 3
    assert err == "buildver: error: Nope/V.h: cannot write (No such file or directory); no file was changed\n"


def test_a_branch_made_from_a_folder_name_with_a_line_break_is_refused(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("hostile\n::warning::pwn")
    engine_tree(root)
    monkeypatch.chdir(root)
    before = snapshot(root)
    code, out, err = run(capsys, "update-local", "--cl", "5")
    assert (code, out) == (1, "")
    assert err.startswith("buildver: error: the branch '++hostile\\nwarningpwn+main' (git: checked-out branch in ")
    assert "holds the control character '\\n'" in err
    assert err.count("\n") == 1
    assert snapshot(root) == before
