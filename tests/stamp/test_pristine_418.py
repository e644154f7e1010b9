"""A 4.18 engine as Epic ships it (Build.version with Changelist 0 and BranchName "", Version.h with
BRANCH_NAME "++UE4+Release-4.18"): it passes every check as it is, buildver never writes a Version.h that does not
compile, and a hotfix build whose compatible changelist is its own is warned about before anything is written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import git, run_cli

DATA = Path(__file__).parents[1] / "data"
VERSION_H = Path("Engine/Source/Runtime/Launch/Resources/Version.h")


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An untouched 4.18.3 engine tree in a git repository."""
    root = tmp_path / "UE4"
    (root / "Engine" / "Build").mkdir(parents=True)
    (root / "Engine" / "Binaries").mkdir()
    (root / VERSION_H).parent.mkdir(parents=True)
    shutil.copy(DATA / "build_version" / "ue4.18.3.version", root / "Engine" / "Build" / "Build.version")
    epic = (DATA / "header" / "Version-4.18-epic.h").read_text()
    (root / VERSION_H).write_text(epic.replace("BUILT_FROM_CHANGELIST 3711111", "BUILT_FROM_CHANGELIST 0"))
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "--no-verify", "-m", "4.18.3 as Epic ships it")
    monkeypatch.chdir(root)
    for name in ("uebp_CL", "uebp_BuildRoot_P4", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    return root


def compiles(root: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler 'cc' on PATH")
    source = root / "probe.c"
    source.write_text(
        f'#include <stdio.h>\n#include "{root / VERSION_H}"\n'
        'int main(void) { printf("%d\\n", ENGINE_CURRENT_CL_VERSION); return 0; }\n'
    )
    return subprocess.run(
        ["cc", "-std=c99", "-Wall", "-o", str(root / "probe"), str(source)], capture_output=True, text=True, check=False
    )


def test_an_untouched_tree_passes_header_check_and_header_writes_nothing(
    engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (engine / VERSION_H).read_bytes()
    assert run_cli(capsys, "header", "--check") == (0, f"{engine / VERSION_H}: up to date\n", "")
    assert run_cli(capsys, "header")[0] == 0
    assert (engine / VERSION_H).read_bytes() == before


def test_the_guard_lets_an_untouched_tree_s_version_h_through(engine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (engine / VERSION_H).write_text((engine / VERSION_H).read_text() + "// a comment\n")
    git(engine, "add", str(VERSION_H))
    code, out, _ = run_cli(capsys, "guard")
    assert (code, out) == (0, "buildver guard: 1 file checked, no problems\n")


def test_changelist_0_is_written_as_0_and_the_header_compiles(engine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "update-local", "--cl", "0", "--branch", "++UE4+Main")[0] == 0
    assert "\n#define BUILT_FROM_CHANGELIST 0\n" in (engine / VERSION_H).read_text()
    result = compiles(engine)
    assert result.returncode == 0, result.stderr


def test_a_hotfix_whose_compatible_changelist_is_its_own_is_warned_about_before_writing(
    engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "update-local", "--cl", "123", "--branch", "++UE4+Release-4.18")
    assert code == 0
    assert err == (
        f"buildver: warning: {engine / VERSION_H}: a 4.18.3 hotfix whose compatible changelist is its own (123), as "
        "UAT writes it: Version.h's \"#error ENGINE_COMPATIBLE_CL_VERSION must be manually defined for hotfix "
        "builds\" will stop the compile; give the release's changelist with --compatible-cl (UAT's -CompatibleCL=)\n"
    )
    assert "CompatibleChangelist 3709383 -> 123 (4.18: the changelist, as -CompatibleCL is not given)" in out
    result = compiles(engine)
    assert result.returncode != 0
    assert "must be manually defined for hotfix builds" in result.stderr


def test_the_flag_the_warning_names_avoids_it(engine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        capsys, "update-local", "--cl", "123", "--compatible-cl", "3709383", "--branch", "++UE4+Release-4.18"
    )
    assert (code, err) == (0, "")
    result = compiles(engine)
    assert result.returncode == 0, result.stderr


def test_a_dry_run_warns_too_and_writes_nothing(engine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (engine / VERSION_H).read_bytes()
    code, _, err = run_cli(capsys, "update-local", "--cl", "123", "--branch", "++UE4+Release-4.18", "--dry-run")
    assert code == 0
    assert err.startswith(f"buildver: warning: {engine / VERSION_H}: a 4.18.3 hotfix")
    assert (engine / VERSION_H).read_bytes() == before
