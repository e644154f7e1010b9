"""``update-local --dry-run`` labels its diff the same way from any folder of the repository, as git does:
``a/Engine/Build/Build.version`` from the root and from a subfolder alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import GitRepository, run_cli

DATA = Path(__file__).parents[1] / "data" / "build_version"

# (the folder the command runs in, relative to the repository's root; --file, if given)
FOLDERS = [
    (".", None),
    (".", "Engine/Build/Build.version"),
    ("Engine", None),
    ("Engine/Source/Runtime", None),
    ("Engine/Source", "../Build/Build.version"),
]


@pytest.mark.parametrize(("folder", "file"), FOLDERS)
def test_dry_run_labels_paths_from_the_repository_root_wherever_it_runs(
    git_repository: GitRepository,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
    file: str | None,
) -> None:
    root = git_repository()
    (root / "Engine" / "Build").mkdir(parents=True)
    (root / "Engine" / "Source" / "Runtime").mkdir(parents=True)
    shutil.copyfile(DATA / "ue5.0.3.version", root / "Engine" / "Build" / "Build.version")
    monkeypatch.chdir(root / folder)
    options = [] if file is None else ["--file", file]
    code, out, err = run_cli(capsys, "update-local", "--cl", "5", "--branch", "++Game+Main", "--dry-run", *options)
    assert (code, err) == (0, "")
    labels = [line for line in out.splitlines() if line.startswith(("--- ", "+++ "))]
    assert labels[:2] == ["--- a/Engine/Build/Build.version", "+++ b/Engine/Build/Build.version"]
