"""The guard's warnings on a commit that passes: pre-commit hides a passing hook's output unless the hook is
``verbose``. The README's and the guide's configurations, and the published hook, say so."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GIT_IDENTITY, ROOT, GitRepository, git

from buildver.versions.build_version import BuildVersion, render_new_file

VERSION = BuildVersion(5, 2, 1, 1000, branch_name="++Game+Main")
WARNING = "Build/Build.version: warning[forced-build-id]: BuildId 'forced' is forced"
PAGES = [ROOT / "README.md", ROOT / "docs" / "guard.md"]


def configurations(page: Path) -> list[str]:
    """Every ``.pre-commit-config.yaml`` a page shows."""
    return re.findall(r"```yaml\n(repos:\n.*?)```", page.read_text(), re.DOTALL)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_configuration_shown_makes_the_hook_verbose(page: Path) -> None:
    shown = configurations(page)
    assert len(shown) == 2  # from buildver's repository, and local
    for configuration in shown:
        assert re.search(r"^      - id: buildver-guard\n(        .*\n)*        verbose: true\b", configuration, re.M)


def test_the_published_hook_is_verbose() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert re.search(r"^  verbose: true$", hooks, re.MULTILINE)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_a_passing_commit_shows_the_guards_warnings(git_repository: GitRepository, tmp_path: Path, page: Path) -> None:
    """The page's local hook, run by the real pre-commit on a commit that passes with a warning."""
    config = next(block for block in configurations(page) if block.startswith("repos:\n  - repo: local"))
    root = git_repository(commits=0)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION))
    git(root, "add", "Build/Build.version")
    git(root, "commit", "--quiet", "-m", "first")
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=1001, build_id="forced")))
    (root / ".pre-commit-config.yaml").write_text(config)
    git(root, "add", "Build/Build.version", ".pre-commit-config.yaml")
    # The console script of this test environment is the buildver "installed beside the project".
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **GIT_IDENTITY, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "cache")},
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^buildver guard\.+Passed$", result.stdout, re.MULTILINE), result.stdout
    assert WARNING in result.stdout
