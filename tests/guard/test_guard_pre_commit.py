"""``buildver guard`` as other projects run it: the real pre-commit framework, ``pre-commit try-repo`` on buildver,
and ``pre-commit run`` with the configurations the README shows, copied from it.

The published hook is this checkout committed into a repository of its own and named by its commit, as the README's
published form names buildver's; every test of it shares one pre-commit cache (``PRE_COMMIT_HOME``), so the hook's
virtual environment is built once per test session, as on a developer's machine, not once per test (``pre-commit
try-repo`` would build it in a throwaway cache on every run: about 15 s each).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import helpers
import pytest
from helpers import GIT_IDENTITY, ROOT, GitRepository, copy_checkout, git

from buildver.versions.build_version import BuildVersion, render_new_file

FIXTURES = helpers.FIXTURES  # the shared real packages (skipped where absent)
UE55_PACKAGE = FIXTURES / "uasset-rs" / "UE55" / "SimpleRefs" / "SimpleRefsRoot.uasset"
VERSION = BuildVersion(5, 2, 1, 1000, branch_name="++Game+Main")

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


class PublishedHook(NamedTuple):
    """buildver's hook as a project's configuration names it: a repository, a commit, and pre-commit's cache."""

    repository: Path
    ref: str
    pre_commit_home: Path

    def config(self) -> str:
        return f"repos:\n  - repo: {self.repository}\n    rev: {self.ref}\n    hooks:\n      - id: buildver-guard\n"


@pytest.fixture(scope="session")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> PublishedHook:
    """This checkout as it is now (committed or not, untracked files too), committed into a repository of its own.

    The checkout itself would leave out untracked files, and would need a new commit, so a new environment, on every
    run.
    """
    snapshot = tmp_path_factory.mktemp("buildver-snapshot")
    copy_checkout(snapshot)
    environment = {**os.environ, **GIT_IDENTITY}
    subprocess.run(["git", "init", "--quiet"], cwd=snapshot, check=True, env=environment)
    subprocess.run(["git", "add", "--all"], cwd=snapshot, check=True, env=environment)
    subprocess.run(
        ["git", "commit", "--quiet", "--no-verify", "-m", "snapshot"], cwd=snapshot, check=True, env=environment
    )
    return PublishedHook(snapshot, git(snapshot, "rev-parse", "HEAD"), tmp_path_factory.mktemp("pre-commit-home"))


def run_published_hook(project: Path, hook: PublishedHook) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` of the published hook on what ``project`` stages."""
    return pre_commit_run(project, hook.config(), hook.pre_commit_home)


def project(git_repository: GitRepository) -> Path:
    root = git_repository(commits=0)
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION))
    git(root, "add", "Build/Build.version")
    git(root, "commit", "--quiet", "-m", "first")
    return root


@pytest.mark.slow
@pytest.mark.parametrize(
    ("changelist", "verdict", "message"),
    [
        (
            999,
            "Failed",
            "Build/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD, 999 staged",
        ),
        (1001, "Passed", ""),
    ],
)
def test_pre_commit_refuses_a_version_moving_backwards_and_passes_a_good_one(
    git_repository: GitRepository,
    hook_repository: PublishedHook,
    changelist: int,
    verdict: str,
    message: str,
) -> None:
    root = project(git_repository)
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=changelist)))
    git(root, "add", "Build/Build.version")
    result = run_published_hook(root, hook_repository)
    assert result.returncode == (1 if verdict == "Failed" else 0), result.stdout + result.stderr
    assert re.search(rf"^buildver guard\.+{verdict}$", result.stdout, re.MULTILINE), result.stdout
    assert message in result.stdout


@pytest.mark.slow
def test_pre_commit_refuses_a_real_package_saved_by_a_newer_engine(
    git_repository: GitRepository, hook_repository: PublishedHook
) -> None:
    if not UE55_PACKAGE.is_file():
        pytest.skip(f"the real Unreal packages are not here: {FIXTURES}")
    root = project(git_repository)
    (root / "Content").mkdir()
    shutil.copyfile(UE55_PACKAGE, root / "Content" / "FromUE55.uasset")
    git(root, "add", "Content/FromUE55.uasset")
    result = run_published_hook(root, hook_repository)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "Content/FromUE55.uasset: error[package-newer]: "
        "saved by a newer engine than 5.2.1-1000+++Game+Main: saved as compatible "
        "with 5.5.0-37670630+++UE5+Release-5.5" in result.stdout
    )


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="':' and newlines are not allowed in Windows file names")
def test_pre_commit_refuses_files_at_paths_git_would_parse_and_a_huge_one_without_reading_it(
    git_repository: GitRepository, hook_repository: PublishedHook
) -> None:
    """Issue 23, items 14 and 5: ``1:/Build.version`` (git's ``:1:path`` is index stage 1) and ``a\\nb/Build.version``
    with Changelist -5 were "checked" and passed; a staged Build.version of 48 MiB was read whole."""
    from buildver.guard.run import STAGED_SIZE_LIMITS

    root = project(git_repository)
    negative = render_new_file(VERSION).replace('"Changelist": 1000', '"Changelist": -5')
    huge = STAGED_SIZE_LIMITS["version"] * 3
    for folder, text in (("1:", negative), ("a\nb", negative), ("Huge", " " * huge)):
        (root / folder).mkdir()
        (root / folder / "Build.version").write_text(text)
        git(root, "add", f"{folder}/Build.version")
    result = run_published_hook(root, hook_repository)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1:/Build.version: error[version-invalid]: " in result.stdout
    assert "a\\nb/Build.version: error[version-invalid]: " in result.stdout
    assert (
        f"Huge/Build.version: error[version-invalid]: {huge:,} bytes staged, more than the "
        f"{STAGED_SIZE_LIMITS['version']:,} that any such file needs: not read"
    ) in result.stdout
    assert "buildver guard: 3 files checked: 3 errors, 0 warnings" in result.stdout


README = (ROOT / "README.md").read_text()


def readme_config(repo: str) -> str:
    """The README's ``.pre-commit-config.yaml`` snippet whose first repository is ``repo``, as written there."""
    blocks: list[str] = re.findall(r"```yaml\n(repos:\n.*?)```", README, re.DOTALL)
    return next(block for block in blocks if block.startswith(f"repos:\n  - repo: {repo}"))


def pre_commit_run(root: Path, config: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` on what ``root`` stages, with ``config`` as its (staged) configuration."""
    (root / ".pre-commit-config.yaml").write_text(config)
    git(root, "add", ".pre-commit-config.yaml")
    # The console script of this test environment is the buildver "installed beside the project".
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **GIT_IDENTITY, "PATH": path, "PRE_COMMIT_HOME": str(cache)},
        timeout=600,
    )


def test_the_readmes_local_hook_works_as_written(git_repository: GitRepository, tmp_path: Path) -> None:
    config = readme_config("local")
    root = project(git_repository)
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=999)))
    git(root, "add", "Build/Build.version")
    refused = pre_commit_run(root, config, tmp_path / "cache")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert re.search(r"^buildver guard\.+Failed$", refused.stdout, re.MULTILINE), refused.stdout
    assert "Build/Build.version: error[version-backwards]: Changelist goes backwards: 1000 in HEAD" in refused.stdout
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=1001)))
    git(root, "add", "Build/Build.version")
    passed = pre_commit_run(root, config, tmp_path / "cache")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"^buildver guard\.+Passed$", passed.stdout, re.MULTILINE), passed.stdout


def test_the_readmes_local_hook_matches_the_files_of_the_published_one() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    published = re.search(r"^  files: (.*)$", hooks, re.MULTILINE)
    local = re.search(r"^        files: (.*)$", readme_config("local"), re.MULTILINE)
    assert published is not None
    assert local is not None
    assert local[1] == published[1]


@pytest.mark.slow
def test_the_readmes_published_form_works_with_a_commit_sha(
    git_repository: GitRepository, hook_repository: PublishedHook
) -> None:
    config = readme_config("https://")
    url, sha = re.search(r"repo: (\S+)\n    rev: (\S+)", config).groups()  # type: ignore[union-attr]
    assert re.fullmatch("[0-9a-f]{40}", sha)  # a full commit SHA, as the README tells
    repository, commit, pre_commit_home = hook_repository
    root = project(git_repository)
    (root / "Build" / "Build.version").write_text(render_new_file(VERSION.replace(changelist=999)))
    git(root, "add", "Build/Build.version")
    # The same text with this checkout (committed in a repository of its own) standing in for the hosted one.
    result = pre_commit_run(root, config.replace(url, str(repository)).replace(sha, commit), pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Build/Build.version: error[version-backwards]: Changelist goes backwards" in result.stdout
