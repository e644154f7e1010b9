"""Kill update-local at every write in a game with templates, in every layout of its files (issue 30, items 1 and 9).

Usage: ``python tools/attack_game_stamp.py [--work DIR] [--layout NAME ...]`` with the buildver to attack
installed. For each layout (the Build.version in ``Build/``, ``Versioning/Build/``, ``Config/``; the game's
``Config/`` or ``Build/`` a symbolic link to a shared folder) and each project name (``TankFire``, ``Engine``,
``Built From``), update-local stamps Build.version, a generated header in ``Source/Game/`` and, from templates,
DefaultGame.ini and DefaultEngine.ini. Each run is killed with SIGKILL at each of its file-system steps (Python's
audit hooks, ``tests/crash_harness.py``) and, with strace, at each rename. After every kill:

- recovery alone (what the next writing run does first) leaves the four files all old or all new;
- the same update-local then exits 0 with every file new and no journal, temporary or backup file left;
- the header compiles with ``cc -std=c99 -Wall -Werror`` after a Version.h of 5.3's shape with UBT's definitions,
  and after 4.18's Version.h.

Prints one line per layout and name, and a summary; exits 1 when any trial broke a promise. Linux (strace
optional: without it only the audit-hook kills run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import string
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
HARNESS = ROOT / "tests" / "crash_harness.py"
GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
TEMPLATES = 'project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\nandroid-store-version = "{Changelist}"\n'
UPDATE = ["update-local", "--cl", "1234", "--branch", "++Game+Main"]
LAYOUTS = {
    "build": "Build/Build.version",
    "versioning": "Versioning/Build/Build.version",
    "config-version": "Config/Build.version",
    "config-link": "Build/Build.version",
    "build-link": "Build/Build.version",
    "config-link-config-version": "Config/Build.version",
}
NAMES = ["TankFire", "Engine", "Built From"]
HEADER = "Source/Game/BuildVersion.h"
THROUGH_A_LINK = {"build-link", "config-link-config-version"}
"""Layouts whose Build.version lies through a link out of the repository: the settings may not name it (paths from
settings stay inside the repository), so the command line does (``-f``), as buildver's message says."""
UBT_DEFINITIONS = [
    "-DBUILT_FROM_CHANGELIST=27405482",
    '-DBRANCH_NAME="++UE5+Release-5.3"',
    "-DENGINE_IS_LICENSEE_VERSION=0",
    "-DENGINE_IS_PROMOTED_BUILD=1",
    "-DCURRENT_CHANGELIST=27405482",
    "-DCOMPATIBLE_CHANGELIST=27405482",
    '-DBUILD_VERSION="++UE5+Release-5.3-CL-27405482"',
    "-DENGINE_VERSION_MAJOR=5",
    "-DENGINE_VERSION_MINOR=3",
    "-DENGINE_VERSION_HOTFIX=2",
]


def make_game(folder: Path, layout: str, name: str) -> Path:
    """A game in its own git repository at ``folder``; returns the game's folder."""
    game = folder / "Game"
    game.mkdir(parents=True)
    shared = folder / "Shared"
    if "config-link" in layout:
        shutil.copytree(DATA / "ini" / "tankfire" / "Config", shared / "Config")
        (game / "Config").symlink_to(shared / "Config", target_is_directory=True)
    else:
        shutil.copytree(DATA / "ini" / "tankfire" / "Config", game / "Config")
    if layout == "build-link":
        (shared / "Build").mkdir(parents=True)
        (game / "Build").symlink_to(shared / "Build", target_is_directory=True)
    (game / f"{name}.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    version = game / LAYOUTS[layout]
    version.parent.mkdir(parents=True, exist_ok=True)
    version.write_text(GAME_VERSION)
    (game / "Source" / "Game").mkdir(parents=True)
    named = "" if layout in THROUGH_A_LINK else f'version-file = "{LAYOUTS[layout]}"\n'
    settings = f'{named}header = "{HEADER}"\n{TEMPLATES}'
    (game / "buildver.toml").write_text(settings)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return game


def files(game: Path, layout: str) -> dict[str, bytes | None]:
    names = [LAYOUTS[layout], HEADER, "Config/DefaultGame.ini", "Config/DefaultEngine.ini"]
    return {name: (game / name).read_bytes() if (game / name).exists() else None for name in names}


def leftovers(folder: Path) -> list[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.name.endswith(".buildver-tmp") or path.name == ".buildver-journal"
    )


def environment() -> dict[str, str]:
    drop = ("COVERAGE_PROCESS_", "uebp_", "GITHUB_", "CI")
    return {name: value for name, value in os.environ.items() if not name.startswith(drop)}


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, check=False, env=environment())


def buildver(game: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "buildver", *arguments], game)


def recover_only(game: Path, layout: str) -> subprocess.CompletedProcess[str]:
    script = (
        "import sys; from pathlib import Path; from buildver.stamp.update import journal_project, version_file_lock\n"
        "path = Path(sys.argv[1])\n"
        "with version_file_lock(path, write=True, project=journal_project(path)): pass\n"
    )
    return run([sys.executable, "-c", script, LAYOUTS[layout]], game)


def compiles(game: Path, name: str, work: Path) -> str | None:
    """None when the header compiles after both Version.h shapes and gives the game's values, else why not."""
    compiler = shutil.which("cc")
    if compiler is None:
        return None
    sys.path.insert(0, str(ROOT))
    from buildver.stamp.header import project_prefix

    prefix = project_prefix(name)
    version_53 = work / "Version-5.3.h"
    template = string.Template((DATA / "engine" / "Version-5.3.h.template").read_text())
    version_53.write_text(template.substitute(major=5, minor=3, patch=2))
    for version_h, defines in ((version_53, UBT_DEFINITIONS), (DATA / "header" / "Version-4.18.h", [])):
        source = work / "game.c"
        source.write_text(
            f'#include "{version_h}"\n#include "{game / HEADER}"\n#include <stdio.h>\n'
            f'int main(void) {{ printf("%d.%d.%d %d", {prefix}MAJOR_VERSION, {prefix}MINOR_VERSION,'
            f" {prefix}PATCH_VERSION, {prefix}CHANGELIST); return 0; }}\n"
        )
        program = work / "game-program"
        built = run([compiler, "-std=c99", "-Wall", "-Werror", *defines, "-o", str(program), str(source)], work)
        if built.returncode != 0:
            return built.stderr.strip().splitlines()[0] if built.stderr.strip() else "cc failed"
        shown = run([str(program)], work).stdout
        if shown != "1.4.2 1234":
            return f"the header gives {shown!r}"
    return None


def strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    return run(["strace", "-f", "-o", os.devnull, "true"], Path.cwd()).returncode == 0


def attack(work: Path, layout: str, name: str, use_strace: bool) -> tuple[int, int, list[str]]:
    """Trials run, kills that landed between two renames, and the broken promises."""
    update = [*UPDATE, "-f", LAYOUTS[layout]] if layout in THROUGH_A_LINK else UPDATE
    problems: list[str] = []
    reference = make_game(work / "reference", layout, name)
    old = files(reference, layout)
    counted = run([sys.executable, str(HARNESS), "0", *update], reference)
    if counted.returncode != 0:
        return 0, 0, [f"the reference run failed: {counted.stderr.strip()}"]
    steps = int(counted.stderr.rsplit("steps=", 1)[1].split()[0])
    new = files(reference, layout)
    why = compiles(reference, name, work)
    if why is not None:
        problems.append(f"header: {why}")
    kills = [("step", step) for step in range(1, steps + 1)]
    if use_strace:
        kills += [("rename", rename) for rename in range(1, 7)]
    between = 0
    for kind, at in kills:
        trial = work / f"{kind}-{at}"
        game = make_game(trial, layout, name)
        if kind == "step":
            killed = run([sys.executable, str(HARNESS), str(at), *update], game)
        else:
            renames = "rename,renameat,renameat2"
            strace = ["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={renames}"]
            strace += ["-e", f"inject={renames}:signal=KILL:when={at}"]
            killed = run([*strace, sys.executable, "-m", "buildver", *update], game)
        after_kill = files(game, layout)
        if after_kill not in (old, new):
            between += 1
        recovered = recover_only(game, layout)
        state = files(game, layout)
        label = f"{kind} {at} (exit {killed.returncode})"
        if recovered.returncode != 0:
            problems.append(f"{label}: recovery failed: {recovered.stderr.strip().splitlines()[-1]}")
        elif state not in (old, new):
            mixed = sorted(file for file in state if state[file] == new[file] and new[file] != old[file])
            problems.append(f"{label}: recovery left old and new files mixed (new: {', '.join(mixed)})")
        again = buildver(game, *update)
        if again.returncode != 0:
            problems.append(f"{label}: the next update-local exits {again.returncode}: {again.stderr.strip()}")
        elif files(game, layout) != new:
            problems.append(f"{label}: the next update-local did not write every file as one run does")
        left = leftovers(trial)
        if left:
            problems.append(f"{label}: left {', '.join(left)}")
        shutil.rmtree(trial)
    return len(kills), between, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="where the games are made (default: a temporary folder)")
    parser.add_argument("--layout", action="append", choices=sorted(LAYOUTS), help="only these layouts")
    parser.add_argument("--name", action="append", help="only these project names")
    arguments = parser.parse_args()
    use_strace = strace_works()
    if not use_strace:
        print("strace cannot trace here: only the audit-hook kills run")
    work = arguments.work or Path(tempfile.mkdtemp(prefix="buildver-attack-"))
    trials = broken = 0
    for layout in arguments.layout or list(LAYOUTS):
        for name in arguments.name or NAMES:
            folder = work / f"{layout}-{name.replace(' ', '_')}"
            count, between, problems = attack(folder, layout, name, use_strace)
            trials += count
            broken += len(problems)
            print(f"{layout:27} {name:11} {count:3} kills, {between:2} between renames, {len(problems)} broken")
            for problem in problems:
                print(f"    {problem}")
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{trials} kills, {broken} broken promises")
    if arguments.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
