"""Issue 3 benchmarks: ``buildver update-local`` start-to-finish, and deriving CL and branch from big git history.

Run from the repository root after ``pip install -e ".[test]"``: ``python benchmarks/bench_update_local.py``.
``--baseline DIR``: a second environment (``DIR/bin/buildver``, a regular install of the revision to compare with)
whose ``update-local --dry-run`` and ``show --json`` are timed in the same interleaved runs; ``--start-only`` runs
that comparison alone (not the 200,000-commit repository).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import GIT_IDENTITY, installed, wall_times

ROOT = Path(__file__).resolve().parents[1]
VERSION = (ROOT / "tests" / "data" / "build_version" / "ue5.0.3.version").read_bytes()


def make_history(root: Path, commits: int) -> None:
    """A repository with ``commits`` commits on main, written in one go with git fast-import."""
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main", str(root)], check=True)
    stream = []
    for number in range(1, commits + 1):
        message = f"change {number}"
        stream.append(
            f"commit refs/heads/main\nmark :{number}\ncommitter b <b@example.com> {1_700_000_000 + number} +0000\n"
            f"data {len(message)}\n{message}\n"
        )
        if number > 1:
            stream.append(f"from :{number - 1}\n")
        stream.append("\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="".join(stream).encode(), check=True)
    subprocess.run(["git", "checkout", "--quiet", "main"], cwd=root, check=True)


def start_up(python: str, executable: str, baseline: str | None, runs: int) -> None:
    """update-local --dry-run against show --json, on a tree without a game and on an engine tree, side by side with
    ``import typer`` (their floor) and, with a baseline environment, the baseline's two commands in the same runs."""
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "plain"
        (plain / "Build").mkdir(parents=True)
        (plain / "Build" / "Build.version").write_bytes(VERSION)
        engine = Path(folder) / "engine"
        (engine / "Engine" / "Build").mkdir(parents=True)
        (engine / "Engine" / "Build" / "Build.version").write_bytes(VERSION)
        resources = engine / "Engine" / "Source" / "Runtime" / "Launch" / "Resources"
        resources.mkdir(parents=True)
        (resources / "Version.h").write_bytes(
            (ROOT / "tests" / "data" / "engine" / "Version-5.3.h.template").read_bytes()
        )
        env = {**os.environ, "uebp_BuildRoot_P4": "//Game/Main"}
        sides = {"this checkout": executable}
        if baseline:
            sides["baseline"] = str(Path(baseline) / "bin" / "buildver")
        for name, tree in (("a tree without a game (Build/Build.version)", plain), ("an engine tree (5.0.3)", engine)):
            commands: dict[str, Sequence[str]] = {
                "python -c pass": (python, "-c", "pass"),
                "python -c 'import typer'": (python, "-c", "import typer"),
            }
            for side, buildver in sides.items():
                commands[f"{side}: show --json"] = (buildver, "show", "--json")
                commands[f"{side}: update-local --dry-run --cl 1"] = (
                    buildver,
                    "update-local",
                    "--dry-run",
                    "--cl",
                    "1",
                )
            medians = wall_times(commands, runs=runs, cwd=tree, env=env)
            typer = medians["python -c 'import typer'"]
            print(f"{name}, medians of {runs} interleaved runs:")
            for command, median in medians.items():
                print(f"  {command:<48} {median * 1000:7.1f} ms   {median / typer:5.2f}x import typer")
            for side in sides:
                above = medians[f"{side}: update-local --dry-run --cl 1"] - medians[f"{side}: show --json"]
                print(f"  {side}: update-local above show --json: {above * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", help="a virtual environment holding the revision to compare with")
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--start-only", action="store_true", help="only update-local's start against show --json")
    options = parser.parse_args()
    python, executable = installed()
    start_up(python, executable, options.baseline, options.runs)
    if options.start_only:
        return
    python_pass = (python, "-c", "pass")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "Build").mkdir()
        version = work / "Build" / "Build.version"
        version.write_bytes(VERSION)
        env = {**os.environ, **GIT_IDENTITY, "uebp_BuildRoot_P4": "//Game/Main"}
        medians = wall_times(
            {
                "python -c pass": python_pass,
                "python -c 'import typer'": (python, "-c", "import typer"),
                "update-local --cl 123 --promoted 1": (
                    executable,
                    "update-local",
                    "-f",
                    str(version),
                    "--cl",
                    "123",
                    "--promoted",
                    "1",
                ),
            },
            cwd=work,
            env=env,
        )
        base = medians["python -c pass"]
        print("update-local, branch from uebp_BuildRoot_P4 (Build.version and the generated header):")
        for name, median in medians.items():
            print(f"  {name:<40} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")

        history = work / "history"
        commits = int(os.environ.get("BENCH_COMMITS", "200000"))
        start = time.perf_counter()
        make_history(history, commits)
        print(f"made a repository with {commits:,} commits in {time.perf_counter() - start:.1f} s")
        (history / "Build").mkdir()
        (history / "Build" / "Build.version").write_bytes(VERSION)
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("uebp_", "GITHUB_"))}
        info = history / ".git" / "objects" / "info"
        shutil.rmtree(info / "commit-graphs", ignore_errors=True)
        (info / "commit-graph").unlink(missing_ok=True)
        commands: dict[str, Sequence[str]] = {
            "python -c pass": python_pass,
            "update-local --skip-header (CL and branch from git)": (executable, "update-local", "--skip-header"),
            "git rev-list --count HEAD": ("git", "rev-list", "--count", "HEAD"),
        }
        # buildver never writes git's commit-graph (a kill during that write leaves git's lock behind): measured
        # without it, as on a fresh clone, then with the graph that git gc or git maintenance writes.
        without = wall_times(commands, runs=11, cwd=history, env=clean)
        assert not list(info.glob("commit-graph*")), "buildver wrote into .git"
        start = time.perf_counter()
        subprocess.run(["git", "commit-graph", "write", "--reachable", "--split"], cwd=history, check=True)
        written = time.perf_counter() - start
        with_graph = wall_times(commands, runs=11, cwd=history, env=clean)
        print(f"deriving changelist and branch from a git repository with {commits:,} commits (medians of 11):")
        print(f"  {'':<52} {'no commit-graph':>16} {'commit-graph':>13}")
        for name in commands:
            print(f"  {name:<52} {without[name] * 1000:13.1f} ms {with_graph[name] * 1000:10.1f} ms")
        print(f"  git commit-graph write --reachable --split, once: {written * 1000:.1f} ms")
        derived = subprocess.run(
            [executable, "update-local", "--json", "--skip-header"],
            cwd=history,
            env=clean,
            capture_output=True,
            text=True,
            check=True,
        )
        print(
            "  derived:",
            derived.stdout.split('"Changelist": ')[1].split(",")[0],
            "commits,",
            derived.stdout.split('"BranchName": ')[1].split(",")[0],
        )


if __name__ == "__main__":
    main()
