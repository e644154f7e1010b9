"""Every generation's UBT writer writes the same eight keys whatever the file held (``BuildVersion.Write``,
``WriteProperties``; docs/unreal-rules.md §2.2): a file that lacks one gets it from update-local, in UBT's order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

CORE = [
    "MajorVersion",
    "MinorVersion",
    "PatchVersion",
    "Changelist",
    "CompatibleChangelist",
    "IsLicenseeVersion",
    "IsPromotedBuild",
    "BranchName",
]


@pytest.mark.parametrize(
    ("release", "keys"),
    [
        ((4, 18, 3), [*CORE, "BuildId"]),
        ((4, 21, 2), [*CORE, "BuildId", "BuildVersion"]),
        ((4, 26, 2), CORE),
        ((5, 3, 2), CORE),
        ((5, 8, 0), CORE),
    ],
)
def test_a_file_that_lacks_a_key_the_writer_always_writes_gets_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    release: tuple[int, int, int],
    keys: list[str],
) -> None:
    major, minor, patch = release
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Source").mkdir()
    version = tmp_path / "Engine" / "Build" / "Build.version"
    version.write_text(f'{{\n\t"MajorVersion": {major},\n\t"MinorVersion": {minor},\n\t"PatchVersion": {patch}\n}}')
    monkeypatch.chdir(tmp_path)
    for name in ("uebp_CL", "uebp_CodeCL", "GITHUB_ACTIONS", "CI", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run_cli(capsys, "update-local", "--cl", "7", "--branch", "++UE+Main", "--skip-header")
    assert (code, err) == (0, "")
    document = json.loads(version.read_text())
    assert list(document) == keys
    assert (document["Changelist"], document["BranchName"]) == (7, "++UE+Main")
