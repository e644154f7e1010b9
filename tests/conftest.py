"""Shared fixtures: a clean environment (no CI or Unreal variables leak in) and real git repositories."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

# The suite tests buildver as installed (the README's `pip install ".[test]"`, or an editable install), not the
# checkout's source folder that `python -m pytest` puts first on sys.path: only an install has the compiled scan
# core, and it is what users run. This runs before anything imports buildver.
_CHECKOUT = os.path.normcase(str(Path(__file__).resolve().parents[1]))
sys.path[:] = [entry for entry in sys.path if os.path.normcase(os.path.abspath(entry or os.curdir)) != _CHECKOUT]

import pytest  # noqa: E402 (after the path fix, like every import below)
from helpers import GIT_IDENTITY, git  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from buildver.projects import unreal_ini  # noqa: E402
from buildver.stamp.depot import SOURCE_VARIABLES  # noqa: E402

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
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # the version tables read from engine trees
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
    # Child processes (`python -m buildver`) run the installed buildver too, never the source folder of the current
    # folder (Python 3.11's safe-path mode: the current folder is not put first on sys.path).
    monkeypatch.setenv("PYTHONSAFEPATH", "1")


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


@pytest.fixture(scope="module", params=["compiled core", "pure Python"])
def ini_readers(request: pytest.FixtureRequest) -> Iterator[str]:
    """The config-file readers, once with their compiled core (``buildver/projects/_ini_native.c``) where this install
    has it, once in pure Python (an install without a compiler, or ``BUILDVER_PURE_PYTHON=1``): each test of a
    module that uses this runs both ways."""
    unreal_ini.ini_core()  # loaded (or found absent) once, so that what is put back is what the process uses
    saved = unreal_ini._CORE[:]
    if request.param == "pure Python":
        unreal_ini._CORE[:] = [None]
    elif saved[0] is None:
        pytest.skip("this install has no compiled core of the config-file readers")
    try:
        yield request.param
    finally:
        unreal_ini._CORE[:] = saved
