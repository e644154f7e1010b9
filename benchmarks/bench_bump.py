"""Issue 33: what ``buildver bump`` costs, and what it added to the guard and ``show``.

``bump`` plans a game's release (Build.version, the header, ProjectVersion) with ``--dry-run``, beside
``update-local --dry-run`` in the same game. With ``--baseline REF`` (a git revision, e.g. ``main``), that revision is
installed in a second environment and the guard (an engine tree staging its Build.version: the new ``engine-numbers``
check reads Version.h; a plugin's repository staging its ``.uplugin``: the new check reads HEAD's) and ``show`` in a
plugin's repository with a Build.version are timed with both in the same run, interleaved.

Run from the repository root: ``python benchmarks/bench_bump.py [--baseline main] [--runs 21]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _timing import GIT_IDENTITY, ROOT, installed, wall_times
from bench_cli import install_baseline

DATA = ROOT / "tests" / "data"
GAME_VERSION = (
    (DATA / "build_version" / "ue5.0.3.version").read_text().replace('"MajorVersion": 5', '"MajorVersion": 1')
)


def git(root: Path, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True, env={**os.environ, **GIT_IDENTITY})


def game(root: Path, buildver: str) -> None:
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", root / "Config")
    shutil.copyfile(DATA / "plugins" / "uxtools" / "UXToolsGame.uproject", root / "TankFire.uproject")
    (root / "Build").mkdir()
    (root / "Build" / "Build.version").write_text(GAME_VERSION)
    (root / "buildver.toml").write_text('project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n')
    subprocess.run([buildver, "header"], cwd=root, check=True, capture_output=True)
    git(root, "init", "--quiet")


def engine(root: Path) -> None:
    """A 5.0.3 engine tree whose Build.version is staged with a new changelist."""
    (root / "Engine" / "Build").mkdir(parents=True)
    version = root / "Engine" / "Build" / "Build.version"
    shutil.copyfile(DATA / "build_version" / "ue5.0.3.version", version)
    header = root / "Engine" / "Source" / "Runtime" / "Launch" / "Resources" / "Version.h"
    header.parent.mkdir(parents=True)
    template = (DATA / "engine" / "Version-5.3.h.template").read_text()
    header.write_text(template.replace("$major", "5").replace("$minor", "0").replace("$patch", "3"))
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "engine")
    version.write_text(version.read_text().replace('"Changelist": 0', '"Changelist": 20979098'))
    git(root, "add", "-A")


def plugin(root: Path) -> None:
    """UXTools' repository at 0.11.0, with 0.12.0 staged, and the engine's Build.version it keeps."""
    root.mkdir()
    release = DATA / "plugins" / "uxtools" / "release-0.12.0"
    shutil.copyfile(release / "before.uplugin", root / "UXTools.uplugin")
    (root / "Build").mkdir()
    shutil.copyfile(DATA / "build_version" / "ue4.27.2.version", root / "Build" / "Build.version")
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "0.11.0")
    shutil.copyfile(release / "after.uplugin", root / "UXTools.uplugin")
    git(root, "add", "-A")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", help="a git revision whose guard and show are timed beside this checkout's")
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    python, buildver = installed()
    baseline = install_baseline(options.baseline) if options.baseline else None
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        game(work / "Game", buildver)
        engine(work / "Engine")
        plugin(work / "Plugin")
        groups: dict[str, tuple[Path, dict[str, tuple[str, ...]]]] = {
            "a game": (
                work / "Game",
                {
                    "bump patch --dry-run": ("bump", "patch", "--dry-run"),
                    "update-local --dry-run": ("update-local", "--cl", "5", "--dry-run"),
                },
            ),
            "an engine tree, Build.version staged": (work / "Engine", {"guard": ("guard",)}),
            "a plugin's repository, .uplugin staged": (work / "Plugin", {"guard": ("guard",), "show": ("show",)}),
        }
        for title, (cwd, commands) in groups.items():
            timed: dict[str, Sequence[str]] = {"python -c pass": (python, "-c", "pass")}
            for name, arguments in commands.items():
                timed[f"buildver {name}"] = (buildver, *arguments)
                if baseline is not None and name in ("guard", "show"):
                    timed[f"{options.baseline}: buildver {name}"] = (baseline, *arguments)
            medians = wall_times(timed, runs=options.runs, cwd=cwd)
            base = medians["python -c pass"]
            print(title)
            for name, median in medians.items():
                print(f"  {name:<44} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")


if __name__ == "__main__":
    main()
