"""A bump killed between its renames leaves every file entirely old or entirely new once the next run has recovered.

A game's bump writes three files (Build.version, the header, Config/DefaultGame.ini) and its journal; an engine's
two (Build.version and Version.h); a plugin's one (its ``.uplugin``). Each run is killed with a real SIGKILL
(strace's ``inject=...:signal=KILL``) at each of its renames; recovery alone (what the next writing run does first)
must leave the files as they were or as the bump makes them, and ``bump --set`` to the new version (which changes
nothing where the bump was finished) must then leave every file new and nothing of buildver's beside them. The trees
are the public TankFire game's config files and UXTools' descriptors (tests/data, MIT).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import git, run_buildver

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX

DATA = Path(__file__).parents[1] / "data"
UXTOOLS = DATA / "plugins" / "uxtools"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
VERSION_H = "Engine/Source/Runtime/Launch/Resources/Version.h"
RENAMES = "rename,renameat,renameat2"


def strace_works() -> bool:
    if shutil.which("strace") is None or sys.platform != "linux":
        return False
    probe = subprocess.run(["strace", "-f", "-o", os.devnull, "true"], capture_output=True, check=False)
    return probe.returncode == 0


NEEDS_STRACE = pytest.mark.skipif(not strace_works(), reason="needs strace that can trace here (Linux, ptrace allowed)")


def make_game(root: Path) -> tuple[list[str], str]:
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", root / "Config")
    shutil.copyfile(UXTOOLS / "UXToolsGame.uproject", root / "TankFire.uproject")
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(GAME_VERSION)
    (root / "buildver.toml").write_text('project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n')
    assert run_buildver(root, "header").returncode == 0
    return ["Build/Build.version", "Build/BuildVersion.h", "Config/DefaultGame.ini"], "1.5.0"


def make_engine(root: Path) -> tuple[list[str], str]:
    (root / "Engine" / "Build").mkdir(parents=True)
    shutil.copyfile(DATA / "build_version" / "ue5.0.3.version", root / "Engine" / "Build" / "Build.version")
    (root / VERSION_H).parent.mkdir(parents=True)
    text = (DATA / "engine" / "Version-5.3.h.template").read_text()
    (root / VERSION_H).write_text(text.replace("$major", "5").replace("$minor", "0").replace("$patch", "3"))
    return ["Engine/Build/Build.version", VERSION_H], "5.1.0"


def make_plugin(root: Path) -> tuple[list[str], str]:
    shutil.copyfile(UXTOOLS / "release-0.12.0" / "before.uplugin", root / "UXTools.uplugin")
    return ["UXTools.uplugin"], "0.12.0"


LAYOUTS = {"game": make_game, "engine": make_engine, "plugin": make_plugin}


def build(root: Path, layout: str) -> tuple[list[str], str]:
    root.mkdir(parents=True)
    names, target = LAYOUTS[layout](root)
    git(root, "init", "--quiet")
    return names, target


def written(root: Path, names: list[str]) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in names}


def leftovers(folder: Path) -> list[str]:
    return sorted(
        str(path) for path in folder.rglob("*") if path.name.endswith(TEMP_SUFFIX) or path.name == JOURNAL_NAME
    )


def killed_at_rename(root: Path, rename: int) -> subprocess.CompletedProcess[str]:
    command = ["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={RENAMES}"]
    command += ["-e", f"inject={RENAMES}:signal=KILL:when={rename}"]
    environment = {name: value for name, value in os.environ.items() if not name.startswith("COVERAGE_PROCESS_")}
    return subprocess.run(
        [*command, sys.executable, "-m", "buildver", "bump", "minor"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=environment,
    )


def recover_only(root: Path, layout: str, names: list[str]) -> None:
    """What the next writing run does first, and nothing else: recovery under the lock (a plugin's write has no
    journal: its next run only removes the temporary file a kill left)."""
    if layout == "plugin":
        return
    script = (
        "import sys; from pathlib import Path; from buildver.stamp.update import journal_project, version_file_lock\n"
        "path = Path(sys.argv[1]).resolve()\n"
        "with version_file_lock(path, write=True, project=journal_project(path)): pass\n"
    )
    result = subprocess.run([sys.executable, "-c", script, names[0]], cwd=root, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


@NEEDS_STRACE
@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_bump_killed_at_each_rename_leaves_every_file_old_or_new(tmp_path: Path, layout: str) -> None:
    reference = tmp_path / "reference"
    names, target = build(reference, layout)
    old = written(reference, names)
    done = run_buildver(reference, "bump", "minor")
    assert done.returncode == 0, done.stderr
    new = written(reference, names)
    assert all(new[name] != old[name] for name in names)
    renames = len(names) + (len(names) > 1)  # the journal's own rename comes first when there are several files
    killed_between = 0
    for rename in range(1, renames + 1):
        root = tmp_path / f"rename-{rename}"
        build(root, layout)
        killed = killed_at_rename(root, rename)
        assert killed.returncode != 0, (rename, killed.stderr)
        files = written(root, names)
        if files not in (old, new):
            killed_between += 1
        recover_only(root, layout, names)
        files = written(root, names)
        assert files in (old, new), (layout, rename, {name: files[name] == new[name] for name in files})
        again = run_buildver(root, "bump", "--set", target)
        assert again.returncode == 0, (layout, rename, again.stderr)
        assert written(root, names) == new
        assert leftovers(root) == []
    assert killed_between >= (len(names) - 1), "no kill landed between two renames"
