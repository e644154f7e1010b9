"""Shared fixtures: a clean environment (no CI or Unreal variables leak in) and real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import GIT_IDENTITY, git
from hypothesis import HealthCheck, settings

from buildver.stamp.depot import SOURCE_VARIABLES

# One fixed hypothesis budget for every run (CI included): no per-example deadline, which a busy machine would
# turn into random failures, and derandomized examples, so that a failure reproduces on the next run.
settings.register_profile(
    "buildver", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("buildver")

# Variables that change where update-local takes its changelist and branch from, as the library lists them; CI
# systems set some (GitHub Actions sets GITHUB_ACTIONS and GITHUB_REF_NAME, and GITHUB_OUTPUT for the outputs),
# so every test starts without any of them.
_SOURCE_VARIABLES = (*SOURCE_VARIABLES, "GITHUB_OUTPUT")


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


@pytest.fixture
def git_repository(tmp_path: Path) -> Callable[..., Path]:
    """Make a real git repository in ``tmp_path`` with ``commits`` commits on ``branch``."""

    def make(name: str = "Game", commits: int = 3, branch: str = "main") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "--quiet", f"--initial-branch={branch}")
        for number in range(commits):
            git(root, "commit", "--quiet", "--allow-empty", "-m", f"change {number + 1}")
        return root

    return make
