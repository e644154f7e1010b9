"""Guard findings name their check's ``[tool.buildver.guard]`` key, as linters show rule codes; the guide lists
every check with its key and default."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GitRepository, git, on_terminal

from buildver.guard.settings import CHECKS
from buildver.versions.build_version import BuildVersion, render_new_file

ROOT = Path(__file__).resolve().parents[2]
BUILDVER = str(Path(sys.executable).parent / "buildver")
VERSION = BuildVersion(5, 3, 2, 1000, branch_name="++Game+Main")
FINDING = re.compile(r"^(?P<path>[^:]+): (?P<severity>error|warning)\[(?P<check>[a-z-]+)\]: (?P<message>.+)$")


def guard(root: Path) -> tuple[int, list[str]]:
    result = subprocess.run([BUILDVER, "guard"], cwd=root, capture_output=True, text=True, check=False)
    assert result.stderr == ""
    return result.returncode, result.stdout.splitlines()


@pytest.fixture
def backwards(git_repository: GitRepository) -> Path:
    """A repository whose staged Build.version moves the changelist back and forces a BuildId."""
    root = git_repository(commits=0)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION))
    (root / "pyproject.toml").write_text("[tool.buildver]\nskip-header = true\n\n[tool.buildver.guard]\n")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "first")
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=999, build_id="forced")))
    git(root, "add", "Build/Build.version")
    return root


def test_each_finding_shows_its_severity_and_check_key(backwards: Path) -> None:
    code, lines = guard(backwards)
    assert code == 1
    parsed = [FINDING.match(line) for line in lines[:-1]]
    assert [(m["path"], m["severity"], m["check"]) for m in parsed if m] == [
        ("Build/Build.version", "error", "version-backwards"),
        ("Build/Build.version", "warning", "forced-build-id"),
    ]
    assert lines[0] == (
        "Build/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD, 999 staged "
        "(the same 5.3.2 release and vendor)"
    )
    assert lines[-1] == "buildver guard: 1 file checked: 1 error, 1 warning"


def test_the_key_shown_is_the_one_to_configure(backwards: Path) -> None:
    _, lines = guard(backwards)
    shown = [m["check"] for line in lines if (m := FINDING.match(line))]
    with (backwards / "pyproject.toml").open("a") as config:
        config.write(f'{shown[0]} = "warning"\n{shown[1]} = "off"\n')
    code, lines = guard(backwards)
    assert code == 0
    codes = [f"{m['severity']}[{m['check']}]" for line in lines if (m := FINDING.match(line))]
    assert codes == ["warning[version-backwards]"]


def test_the_code_is_coloured_on_a_terminal(backwards: Path) -> None:
    code, shown = on_terminal(["guard"], {}, backwards)
    assert code == 1
    assert "Build/Build.version: \x1b[1;31merror[version-backwards]\x1b[0m: Changelist goes backwards" in shown
    assert "Build/Build.version: \x1b[1;33mwarning[forced-build-id]\x1b[0m: BuildId 'forced'" in shown


def test_the_guide_lists_every_check_with_its_key_and_default() -> None:
    page = (ROOT / "docs" / "guard.md").read_text()
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (error|warning) \|", page, re.MULTILINE))
    assert rows == {check.key: str(check.default) for check in CHECKS}


def test_control_characters_in_a_file_name_are_shown_escaped(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from buildver.cli.app import main

    root = git_repository("Game", commits=1)
    name = "a\x1b[31mR.uasset"
    (root / name).write_bytes(b"not a package")
    git(root, "add", "-A")
    monkeypatch.chdir(root)
    assert main(["guard"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "a\\x1b[31mR.uasset: error[package-unreadable]" in out
    assert main(["assets", "scan", ".", "--against", "5.3.0"]) == 0  # not-a-package is reported, not a failure
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "a\\x1b[31mR.uasset" in out
