"""Issues 5 and 15: ``buildver guard`` on a commit that stages Build.version, and on one that stages 10,000 packages.

Targets: the first at most 12x ``python -c pass``; the second under 1 s (issue 15: 10,000 packages; issue 5 had
1,000). Run from the repository root after
``pip install -e ".[test]"``: ``python benchmarks/bench_guard.py``. The packages are copies of the real Unreal
packages in ``../shared/fixtures/uasset/`` (the 10,000-package case is skipped without them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from _timing import GIT_IDENTITY, installed, wall_times

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "uasset"
VERSION = (ROOT / "tests" / "data" / "build_version" / "ue5.0.3.version").read_bytes()
PACKAGES = 10_000


def git(root: Path, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=root, check=True, env={**os.environ, **GIT_IDENTITY})


def report(title: str, medians: dict[str, float]) -> None:
    base = medians["python -c pass"]
    print(title)
    for name, median in medians.items():
        print(f"  {name:<44} {median * 1000:7.1f} ms   {median / base:5.2f}x python -c pass")


def main() -> None:
    python, executable = installed()
    python_pass = (python, "-c", "pass")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "Game"
        (work / "Build").mkdir(parents=True)
        git(work, "init", "--quiet", "--initial-branch=main")
        version = work / "Build" / "Build.version"
        version.write_bytes(VERSION)
        git(work, "add", "Build/Build.version")
        git(work, "commit", "--quiet", "-m", "first")
        version.write_bytes(VERSION.replace(b'"PatchVersion": 3', b'"PatchVersion": 4'))
        git(work, "add", "Build/Build.version")
        env = {**os.environ, **GIT_IDENTITY}
        report(
            "guard on a commit that stages Build.version (target: at most 12x python -c pass):",
            wall_times(
                {
                    "python -c pass": python_pass,
                    "buildver guard (staged files from git)": (executable, "guard"),
                    "buildver guard Build/Build.version": (executable, "guard", "Build/Build.version"),
                    "python -c 'import typer'": (python, "-c", "import typer"),
                },
                cwd=work,
                env=env,
            ),
        )

        sources = sorted(FIXTURES.glob("uasset-rs/UE50/**/*.uasset"))
        if not sources:
            print(f"no packages in {FIXTURES}: the {PACKAGES:,}-package case is skipped")
            return
        git(work, "commit", "--quiet", "-m", "5.0.4")
        names = []
        for number in range(PACKAGES):
            source = sources[number % len(sources)]
            target = work / "Content" / f"Folder{number // 100}" / f"{source.stem}{number}.uasset"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            names.append(target.relative_to(work).as_posix())
        git(work, "add", "Content")
        size = sum((work / name).stat().st_size for name in names)
        output = subprocess.run([executable, "guard"], cwd=work, env=env, capture_output=True, text=True, check=False)
        print(f"  (the guard says: {output.stdout.splitlines()[-1]})")
        report(
            f"guard on a commit that stages {PACKAGES:,} packages ({size / 1e6:.1f} MB; target: under 1 s):",
            wall_times(
                {
                    "python -c pass": python_pass,
                    "buildver guard (staged files from git)": (executable, "guard"),
                    f"buildver guard <{PACKAGES:,} files> (as pre-commit)": (executable, "guard", *names),
                },
                runs=7,
                cwd=work,
                env=env,
            ),
        )


if __name__ == "__main__":
    main()
