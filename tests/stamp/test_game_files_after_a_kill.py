"""A stamp killed between its renames is finished or undone by the next run, wherever the game's Config/ lies
(issue 30, item 1).

The ini files are found from the ``.uproject``, the journal beside the Build.version: with the Build.version in
``Versioning/Build/``, the game's ``Config/`` a symbolic link to a shared folder, or the Build.version in
``Config/`` itself, the journal's project must still cover both ini files. Each run is killed with a real SIGKILL
(strace's ``inject=...:signal=KILL``) at each of its renames; the next ``update-local`` must exit 0 with every file
new, and recovery alone must leave every file entirely old or entirely new.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_buildver

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX

DATA = Path(__file__).parents[1] / "data"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
TEMPLATES = 'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'
UPDATE = ["update-local", "--cl", "1234", "--branch", "++Tank+Main"]
LAYOUTS = {
    "versioning": "Versioning/Build/Build.version",
    "config-link": "Build/Build.version",
    "config-version": "Config/Build.version",
}
RENAMES = "rename,renameat,renameat2"


def strace_works() -> bool:
    if shutil.which("strace") is None or sys.platform != "linux":
        return False
    probe = subprocess.run(["strace", "-f", "-o", os.devnull, "true"], capture_output=True, check=False)
    return probe.returncode == 0


NEEDS_STRACE = pytest.mark.skipif(not strace_works(), reason="needs strace that can trace here (Linux, ptrace allowed)")


def make_game(folder: Path, layout: str) -> Path:
    """A game in a git repository at ``folder``, laid out as ``layout`` says; returns the game's folder."""
    game = folder / "TankFire"
    config = game / "Config"
    if layout == "config-link":
        shared = folder / "Shared" / "Config"
        shutil.copytree(DATA / "ini" / "tankfire" / "Config", shared)
        game.mkdir(parents=True)
        config.symlink_to(shared, target_is_directory=True)
    else:
        shutil.copytree(DATA / "ini" / "tankfire" / "Config", config)
    (game / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    version = game / LAYOUTS[layout]
    version.parent.mkdir(parents=True, exist_ok=True)
    version.write_text(GAME_VERSION)
    (game / "buildver.toml").write_text(f'version-file = "{LAYOUTS[layout]}"\nskip-header = true\n{TEMPLATES}')
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return game


def written(game: Path, layout: str) -> dict[str, bytes]:
    names = [LAYOUTS[layout], "Config/DefaultGame.ini", "Config/DefaultEngine.ini"]
    return {name: (game / name).read_bytes() for name in names}


def leftovers(folder: Path) -> list[str]:
    return sorted(
        str(path) for path in folder.rglob("*") if path.name.endswith(TEMP_SUFFIX) or path.name == JOURNAL_NAME
    )


def killed_at_rename(game: Path, rename: int) -> subprocess.CompletedProcess[str]:
    command = ["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={RENAMES}"]
    command += ["-e", f"inject={RENAMES}:signal=KILL:when={rename}"]
    environment = {name: value for name, value in os.environ.items() if not name.startswith("COVERAGE_PROCESS_")}
    return subprocess.run(
        [*command, sys.executable, "-m", "buildver", *UPDATE],
        cwd=game,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=environment,
    )


def recover_only(game: Path, version: str) -> None:
    """What the next writing run does first, and nothing else: recovery, under the lock, as update-local does it."""
    script = (
        "import sys; from pathlib import Path; from buildver.stamp.update import journal_project, version_file_lock\n"
        "path = Path(sys.argv[1])\n"
        "with version_file_lock(path, write=True, project=journal_project(path)): pass\n"
    )
    result = subprocess.run([sys.executable, "-c", script, version], cwd=game, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


@NEEDS_STRACE
@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_stamp_killed_at_each_rename_is_finished_or_undone_wherever_config_lies(tmp_path: Path, layout: str) -> None:
    reference = make_game(tmp_path / "reference", layout)
    old = written(reference, layout)
    done = run_buildver(reference, *UPDATE)
    assert done.returncode == 0, done.stderr
    new = written(reference, layout)
    assert all(new[name] != old[name] for name in old)
    killed_between = 0
    for rename in range(1, 5):  # the journal's rename, then Build.version's and the two ini files'
        game = make_game(tmp_path / f"rename-{rename}", layout)
        killed = killed_at_rename(game, rename)
        assert killed.returncode != 0, (rename, killed.stderr)
        files = written(game, layout)
        if files != old and files != new:
            killed_between += 1
        recover_only(game, LAYOUTS[layout])
        files = written(game, layout)
        assert files in (old, new), (layout, rename, {name: files[name] == new[name] for name in files})
        again = run_buildver(game, *UPDATE)
        assert again.returncode == 0, (layout, rename, again.stderr)
        assert written(game, layout) == new
        assert leftovers(tmp_path / f"rename-{rename}") == []
    assert killed_between >= 2, "no kill landed between two renames"
