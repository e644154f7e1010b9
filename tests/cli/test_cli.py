"""The CLI: show, compare, compatible; exit codes, stdout and stderr asserted separately."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buildver.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
UE425 = Path(__file__).parents[1] / "data" / "build_version" / "ue4.25.4.version"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_show_json_holds_every_present_field_and_the_derived_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "--json", "--file", str(UE425))
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "schema_version": 1,
        "MajorVersion": 4,
        "MinorVersion": 25,
        "PatchVersion": 4,
        "Changelist": 0,
        "CompatibleChangelist": 13144385,
        "IsLicenseeVersion": 0,
        "IsPromotedBuild": 0,
        "BranchName": "++UE4+Release-4.25",
        "EngineVersion": "4.25.4-0+++UE4+Release-4.25",
        "CompatibleEngineVersion": "4.25.0-0+++UE4+Release-4.25",
        "EffectiveBuildVersion": "++UE4+Release-4.25-CL-0",
        "IsFormalBuild": 0,
    }


def test_show_prints_a_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "-f", str(UE425))
    assert (code, err) == (0, "")
    assert "  CompatibleChangelist     13144385\n" in out
    assert "  EngineVersion            4.25.4-0+++UE4+Release-4.25\n" in out
    assert "  EffectiveBuildVersion    ++UE4+Release-4.25-CL-0\n" in out


def test_show_finds_the_file_from_the_current_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Build" / "Build.version").write_bytes(UE425.read_bytes())
    monkeypatch.chdir(tmp_path / "Engine")
    code, out, _ = run(capsys, "show", "--json")
    assert code == 0
    assert json.loads(out)["EngineVersion"] == "4.25.4-0+++UE4+Release-4.25"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"MajorVersion": 5}', "missing required keys MinorVersion, PatchVersion"),
        (b'{"MajorVersion": 5,', "line 1, column 20: unexpected end of file"),
        (b"", "the file is empty"),
    ],
)
def test_show_reports_an_invalid_file_in_one_line_with_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, message: str
) -> None:
    target = tmp_path / "Build.version"
    target.write_bytes(content)
    code, out, err = run(capsys, "show", "-f", str(target))
    assert (code, out) == (1, "")
    assert err == f"buildver: error: {target}: {message}" + err.split(message, 1)[1]
    assert err.count("\n") == 1


def test_show_without_a_version_file_says_how_to_give_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "show")
    assert code == 1
    assert err == (
        f"buildver: error: {tmp_path}: no Build/Build.version or Engine/Build/Build.version here or in a parent "
        "folder (up to the repository root); pass --file PATH, or create one with: buildver init --version "
        "MAJOR.MINOR.PATCH\n"
    )


COMPARE_CASES = [
    ("4.19.0-5", "4.19.0-7", 12, "second: 4.19.0-7 is newer than 4.19.0-5 by changelist (newer-changelist)\n"),
    ("5.0.0", "4.27.2", 11, "first: 5.0.0-0 is newer than 4.27.2-0 by major (newer-release)\n"),
    (
        "4.19.0-0",
        "4.19.0-7",
        0,
        "neither: 4.19.0-0 and 4.19.0-7 are not ordered by Unreal's rules (changelist-0: 4.19.0-0 has no "
        "changelist, and a changelist of 0 is never compared)\n",
    ),
]


@pytest.mark.parametrize(("first", "second", "code", "expected"), COMPARE_CASES)
def test_compare_names_the_newest_and_the_deciding_component(
    capsys: pytest.CaptureFixture[str], first: str, second: str, code: int, expected: str
) -> None:
    assert run(capsys, "compare", first, second) == (code, expected, "")


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [("4.19.0-7", "4.19.0-5", 0), ("4.19.0-5", "4.19.0-7", 1), ("4.19.0-0", "5.3.0-7", 0)],
)
def test_compatible_exit_code_says_whether_first_loads_data_of_second(
    capsys: pytest.CaptureFixture[str], first: str, second: str, code: int
) -> None:
    result, out, err = run(capsys, "compatible", first, second)
    # Either answer is a result: on stdout, with nothing on stderr; the exit code tells them apart.
    assert (result, err) == (code, "")
    assert out.startswith("compatible" if code == 0 else "not compatible")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "4.19", "4.19.0"], "invalid engine version '4.19'"),
        (["compatible", "4.19.0abc", "4.19.0"], "invalid engine version '4.19.0abc'"),
        (["show", "--bogus"], "No such option: --bogus"),
        (["nope"], "No such command 'nope'"),
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("buildver: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_console_script_and_module_run_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "Build.version"
    bad.write_text("{")
    for command in ([sys.executable, "-m", "buildver"], [str(Path(sys.executable).parent / "buildver")]):
        if not Path(command[-1]).exists() and command[0] != sys.executable:
            continue
        result = subprocess.run([*command, "show", "-f", str(bad)], capture_output=True, text=True, check=False)
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr.startswith(f"buildver: error: {bad}: line 1, column 2")
        assert "Traceback" not in result.stderr


def test_bundled_build_version_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "--json", "-f", str(ROOT / "Build" / "Build.version"))
    assert code == 0
    assert json.loads(out)["MajorVersion"] == 0


@pytest.mark.parametrize("argv", [[], ["data"], ["assets"]])
def test_a_bare_group_shows_its_help_and_exits_0(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out.startswith("Usage: buildver")


def test_only_the_command_asked_for_is_built_but_help_lists_them_all(capsys: pytest.CaptureFixture[str]) -> None:
    from buildver.cli.app import build_app

    assert [command.name for command in build_app(["show", "--json"]).registered_commands] == ["show"]
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name in ("show", "compare", "compatible", "update-local", "header", "init", "guard", "assets", "data"):
        assert f"  {name} " in out


def test_a_current_folder_that_was_removed_is_one_error_line(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
        "from buildver.cli.app import main; sys.exit(main(['show']))"
    )
    result = subprocess.run([sys.executable, "-c", script, str(gone)], capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "buildver: error: the current folder no longer exists; change to a folder that does\n"
