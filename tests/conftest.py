"""Shared fixtures: a clean environment (no CI or Unreal variables leak in) and real git repositories."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# One fixed hypothesis budget for every run (CI included): no per-example deadline, which a busy machine would
# turn into random failures, and derandomized examples, so that a failure reproduces on the next run.
settings.register_profile(
    "buildver", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("buildver")

# Variables that change where update-local takes its changelist and branch from. CI systems set some of them
# (GitHub Actions sets GITHUB_ACTIONS and GITHUB_REF_NAME), so every test starts without any of them.
_SOURCE_VARIABLES = (
    "uebp_CL",
    "uebp_CodeCL",
    "uebp_BuildRoot_P4",
    "uebp_BuildRoot_Escaped",
    "GITHUB_ACTIONS",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "GITHUB_OUTPUT",
    "GITLAB_CI",
    "CI_COMMIT_REF_NAME",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
    "TF_BUILD",
    "BUILD_SOURCEBRANCH",
    "SYSTEM_PULLREQUEST_SOURCEBRANCH",
    "JENKINS_URL",
    "BRANCH_NAME",
    "CHANGE_BRANCH",
    "GIT_BRANCH",
    "TEAMCITY_VERSION",
    "TEAMCITY_BUILD_PROPERTIES_FILE",
    "P4_CHANGELIST",
    "BUILD_VCS_NUMBER",
)

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Build Machine",
    "GIT_AUTHOR_EMAIL": "build@example.com",
    "GIT_COMMITTER_NAME": "Build Machine",
    "GIT_COMMITTER_EMAIL": "build@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test starts without CI or Unreal variables and with a throwaway git identity and config."""
    for name in _SOURCE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)


def git(cwd: Path, *arguments: str) -> str:
    """Run git in ``cwd`` and return its output (the test fails when git does)."""
    result = subprocess.run(
        ["git", *arguments], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_IDENTITY}
    )
    return result.stdout.strip()


GitRepository = Callable[..., Path]


@pytest.fixture
def git_repository(tmp_path: Path) -> GitRepository:
    """Make a real git repository in ``tmp_path`` with ``commits`` commits on ``branch``."""

    def make(name: str = "Game", commits: int = 3, branch: str = "main") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "--quiet", f"--initial-branch={branch}")
        for number in range(commits):
            git(root, "commit", "--quiet", "--allow-empty", "-m", f"change {number + 1}")
        return root

    return make
