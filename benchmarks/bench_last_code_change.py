"""Issue 33 benchmark: ``update-local --compatible-cl last-code-change`` on long git histories.

Run from the repository root after ``pip install -e ".[test]"``: ``python benchmarks/bench_last_code_change.py``.
``BENCH_COMMITS`` sets the history's length (default 50,000 commits, each changing one content file). Three
repositories of that length differ only in where the last code change is: 10 commits before HEAD (a team that
commits code every day), 10,000 before (a long content sprint), and only in the first commit (a Blueprint-only
game whose code is its .uproject: the whole history is walked). In each, medians of interleaved runs, side by side:

- ``update-local --dry-run`` with the changelist from git, without and with ``--compatible-cl last-code-change``
  (the difference is what the last code change costs);
- the git commands buildver runs for it, alone: the first-parent walk listing changed paths up to the code change
  (``git log -n``), and the count of the commits after it (the floor of the walk buildver stops early);
- in the first case only, the same search narrowed by git pathspecs (``git log --first-parent -1 -- '**/*.cpp'``
  and the rest of UGS's extensions), which buildver does not use: git matches every pathspec against every name
  of every tree it compares, and 17 globs over a folder of 1,000 assets cost a second per few hundred commits.

Each is measured without git's commit-graph (a fresh clone, as CI has it), then with the one ``git gc`` or ``git
maintenance`` writes.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _timing import GIT_IDENTITY, installed, wall_times

from buildver.code_filter import UGS_CODE_EXTENSIONS

ROOT = Path(__file__).resolve().parents[1]
VERSION = (ROOT / "tests" / "data" / "build_version" / "ue5.0.3.version").read_bytes()


def make_history(root: Path, commits: int, code_at: int) -> None:
    """``commits`` commits on main, each changing one of 1,000 content files; the first commit holds the game's
    .uproject, Build.version and one source file, and commit ``code_at`` (1-based) changes the source file."""
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main", str(root)], check=True)
    stream = []

    def blob(path: str, data: bytes) -> None:
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for number in range(1, commits + 1):
        message = f"change {number}".encode()
        header = f"commit refs/heads/main\nmark :{number}\ncommitter b <b@example.com> {1_700_000_000 + number} +0000\n"
        stream.append(header.encode() + f"data {len(message)}\n".encode() + message + b"\n")
        if number > 1:
            stream.append(f"from :{number - 1}\n".encode())
        if number == 1:
            blob("Game.uproject", b'{"FileVersion": 3}')
            blob("Build/Build.version", VERSION)
            blob("Source/Game/Game.cpp", b"int game;")
        elif number == code_at:
            blob("Source/Game/Game.cpp", f"int game = {number};".encode())
        else:
            blob(f"Content/Assets/Asset{number % 1000}.uasset", f"asset {number}".encode())
        stream.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "--quiet", "main"], cwd=root, check=True)


def main() -> None:
    python, executable = installed()
    commits = int(os.environ.get("BENCH_COMMITS", "50000"))
    runs = int(os.environ.get("BENCH_RUNS", "11"))
    pathspecs = [f":(top,glob,icase)**/*{extension}" for extension in UGS_CODE_EXTENSIONS]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("uebp_", "GITHUB_"))} | GIT_IDENTITY
    cases = {"10 commits back": commits - 10, "10,000 commits back": commits - 10_000, "only the first commit": 1}
    with tempfile.TemporaryDirectory() as folder:
        for name, code_at in cases.items():
            history = Path(folder) / f"history-{code_at}"
            start = time.perf_counter()
            make_history(history, commits, code_at)
            made = time.perf_counter() - start
            found = subprocess.run(
                ["git", "log", "--format=%H", "-1", "--", "Source/Game/Game.cpp"],
                cwd=history,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            walked = str(commits - code_at + 1)
            commands: dict[str, Sequence[str]] = {
                "python -c pass": (python, "-c", "pass"),
                "update-local --dry-run": (executable, "update-local", "--dry-run", "--skip-header", "--branch", "B"),
                "update-local --dry-run --compatible-cl last-code-change": (
                    *(executable, "update-local", "--dry-run", "--skip-header", "--branch", "B"),
                    *("--compatible-cl", "last-code-change"),
                ),
                "git log --first-parent --name-only -n <to it>": (
                    *("git", "log", "--first-parent", "-m", "--root", "--no-renames", "--format=%x00%H"),
                    *("--name-only", "-z", "-n", walked, "HEAD"),
                ),
                "git rev-list --count <it>..HEAD": ("git", "rev-list", "--count", f"{found}..HEAD"),
            }
            if code_at == commits - 10:
                commands["git log --first-parent -1 -- <17 globs>"] = (
                    *("git", "log", "--first-parent", "-1", "--format=%H", "HEAD", "--", *pathspecs),
                )
            without = wall_times(commands, runs=runs, cwd=history, env=clean)
            subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=history, check=True)
            with_graph = wall_times(commands, runs=runs, cwd=history, env=clean)
            stamped = subprocess.run(
                [*commands["update-local --dry-run --compatible-cl last-code-change"], "--json"],
                cwd=history,
                env=clean,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            compatible = stamped.split('"CompatibleChangelist": ')[1].split(",")[0]
            print(
                f"{commits:,} commits, the last code change {name} (changelist {compatible}; made in {made:.1f} s), "
                f"medians of {runs}:"
            )
            print(f"  {'':<58} {'no commit-graph':>16} {'commit-graph':>13}")
            for command in commands:
                print(f"  {command:<58} {without[command] * 1000:13.1f} ms {with_graph[command] * 1000:10.1f} ms")
            for label, medians in (("no commit-graph", without), ("commit-graph", with_graph)):
                above = (
                    medians["update-local --dry-run --compatible-cl last-code-change"]
                    - medians["update-local --dry-run"]
                )
                floor = medians["git log --first-parent --name-only -n <to it>"]
                floor += medians["git rev-list --count <it>..HEAD"]
                print(
                    f"  {label}: last-code-change adds {above * 1000:.1f} ms to update-local; "
                    f"the two git commands alone take {floor * 1000:.1f} ms"
                )


if __name__ == "__main__":
    main()
