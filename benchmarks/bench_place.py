"""Issue 29: what deciding where a command stands costs, and the guard on 10,000 packages staged in a game.

1. ``find_place`` + ``place_engine`` in process, in each layout (a game with its launcher engine installed, one whose
   engine is not installed, a native game in its engine's depot, a project two folders below the root, an engine
   tree), medians of 201 calls: the target is at most 5 ms in a game.
2. ``buildver show --json`` in a game and ``buildver guard`` on a game's commit of 10,000 real packages (the
   packages' engine found from the staged ``.uproject``), each side by side with a baseline revision
   (``--baseline REV``, installed as ``bench_cli.py`` installs it) in the same interleaved runs: the target is under
   1 s for the guard.

Run from the repository root after ``pip install -e ".[test]"``: ``python benchmarks/bench_place.py --baseline
ac1d423``. The packages are copies of the real Unreal packages in ``../shared/fixtures/uasset/`` (the guard's case is
skipped without them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import GIT_IDENTITY, installed, wall_times
from bench_cli import install_baseline

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "uasset"
PACKAGES = 10_000
ENGINE_VERSION = (ROOT / "tests" / "data" / "build_version" / "ue5.0.3.version").read_bytes()


def git(root: Path, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=root, check=True, env={**os.environ, **GIT_IDENTITY}, capture_output=True)


def write(root: Path, files: dict[str, bytes | None]) -> None:
    for relative, data in files.items():
        path = root / relative
        if data is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def uproject(association: str) -> bytes:
    return json.dumps({"FileVersion": 3, "EngineAssociation": association, "Modules": [{"Name": "Game"}]}).encode()


def machine(folder: Path) -> Path:
    """A HOME whose launcher list has 5.0 installed under ``folder``."""
    engine = folder / "Epic" / "UE_5.0"
    write(engine, {"Engine/Binaries": None, "Engine/Build/Build.version": ENGINE_VERSION})
    listing = {"InstallationList": [{"InstallLocation": str(engine), "AppName": "UE_5.0"}]}
    home = folder / "home"
    write(home, {".config/Epic/UnrealEngineLauncher/LauncherInstalled.dat": json.dumps(listing).encode()})
    return home


def layouts(folder: Path) -> dict[str, Path]:
    """The places measured, each a git repository; the folder a command runs in."""
    engine_tree = {"Engine/Build/Build.version": ENGINE_VERSION, "Engine/Source": None, "Engine/Binaries": None}
    trees = {
        "game, engine installed": ({"Game.uproject": uproject("5.0"), "Content/Maps": None}, "Content/Maps"),
        "game, engine not installed": ({"Game.uproject": uproject("5.4"), "Content/Maps": None}, "Content/Maps"),
        "native game in its engine's depot": (
            {**engine_tree, "MyGame/MyGame.uproject": uproject(""), "MyGame/Content": None},
            "MyGame/Content",
        ),
        "project two folders below": ({"Unreal/Game/Game.uproject": uproject("5.0"), "Docs": None}, "."),
        "engine tree": (engine_tree, "Engine/Source"),
    }
    places = {}
    for name, (files, start) in trees.items():
        root = folder / name.replace(" ", "-").replace(",", "").replace("'", "")
        write(root, files)
        git(root, "init", "--quiet")
        places[name] = root / start
    return places


def place_costs(places: dict[str, Path], calls: int = 201) -> dict[str, float]:
    """Median seconds of ``find_place`` + ``place_engine`` in each place, the places taken in turn."""
    from buildver.projects.place import find_place, place_engine

    samples: dict[str, list[float]] = {name: [] for name in places}
    for _ in range(calls):
        for name, start in places.items():
            began = time.perf_counter()
            place_engine(find_place(start))
            samples[name].append(time.perf_counter() - began)
    return {name: statistics.median(values) for name, values in samples.items()}


def report(title: str, medians: dict[str, float]) -> None:
    base = medians["python -c pass"]
    print(title)
    for name, median in medians.items():
        print(f"  {name:<52} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", help="a git revision timed beside this checkout")
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    python, executable = installed()
    baseline = install_baseline(options.baseline) if options.baseline else None
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        home = machine(folder)
        os.environ["HOME"] = str(home)
        print("deciding where a command stands (find_place + place_engine, in process, medians of 201):")
        for place, median in place_costs(layouts(folder)).items():
            print(f"  {place:<40} {median * 1000:6.2f} ms")

        game = folder / "Game"
        write(game, {"Game.uproject": uproject("5.0"), "Config": None})
        git(game, "init", "--quiet", "--initial-branch=main")
        git(game, "add", "--all")
        git(game, "commit", "--quiet", "-m", "first", "--allow-empty")
        env = {**os.environ, **GIT_IDENTITY}
        commands: dict[str, Sequence[str]] = {
            "python -c pass": (python, "-c", "pass"),
            "python -c 'import typer'": (python, "-c", "import typer"),
            "buildver show --json (a game)": (executable, "show", "--json"),
        }
        if baseline is not None:
            # The baseline needs a Build.version of the game's own to show anything: give both the same folder.
            commands[f"{options.baseline}: buildver show --json (a game)"] = (baseline, "show", "--json")
            write(game, {"Build/Build.version": ENGINE_VERSION})
        report(
            f"show --json in a game, medians of {options.runs * 2} interleaved runs:",
            wall_times(commands, runs=options.runs * 2, cwd=game, env=env),
        )

        sources = sorted(FIXTURES.glob("uasset-rs/UE50/**/*.uasset"))
        if not sources:
            print(f"no packages in {FIXTURES}: the {PACKAGES:,}-package case is skipped")
            return
        for number in range(PACKAGES):
            source = sources[number % len(sources)]
            target = game / "Content" / f"Folder{number // 100}" / f"{source.stem}{number}.uasset"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        git(game, "add", "Content")
        said = subprocess.run([executable, "guard"], cwd=game, env=env, capture_output=True, text=True, check=False)
        print(f"  (the guard says: {said.stdout.splitlines()[-1]})")
        guard_commands: dict[str, Sequence[str]] = {
            "python -c pass": (python, "-c", "pass"),
            "buildver guard (a game, 10,000 packages)": (executable, "guard"),
        }
        if baseline is not None:
            guard_commands[f"{options.baseline}: buildver guard"] = (baseline, "guard")
        report(
            f"guard on a game's commit of {PACKAGES:,} packages (target: under 1 s), medians of {options.runs}:",
            wall_times(guard_commands, runs=options.runs, cwd=game, env=env),
        )


if __name__ == "__main__":
    main()
