"""The guard through the real pre-commit framework, with every kind of staged entry (issue 30's third demand).

A repository with a committed Build.version (Changelist 1000) and a game, and the README's local hook as its
``.pre-commit-config.yaml``; for each kind of entry (a file, an executable, links to /dev/zero, to a FIFO and out
of the repository, a submodule, a deletion, a rename, paths that start with ``-``, are not UTF-8, hold a line break
or a workflow command, a huge file, an LFS pointer, a ``.uproject`` change, an intent-to-add entry, a ``.uproject``
in a subfolder) that entry alone is staged and ``pre-commit run`` runs, and:

- pre-commit passes or fails as the entry deserves, naming the finding the entry deserves, never skipping an entry
  that matches the hook's files ("(no files to check)") unless git stages nothing there (a deletion);
- ``buildver guard`` run by hand on the same index finds the same findings;
- no output line starts a workflow command or holds a control character; no traceback, no hang.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import worlds
from .common import BUILDVER, ROOT, Options, Suite, environment, git, run, run_problems, text, unsafe_lines

GOOD = 1000


def version(changelist: int | str) -> str:
    return (
        '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 2,\n\t"PatchVersion": 1,\n'
        f'\t"Changelist": {changelist},\n\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n'
        '\t"IsPromotedBuild": 1,\n\t"BranchName": "++Game+Main"\n}'
    )


def readme_hook() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks: list[str] = re.findall(r"```yaml\n(repos:\n.*?)```", readme, re.DOTALL)
    return next(block for block in blocks if block.startswith("repos:\n  - repo: local"))


def make_repository(root: Path) -> worlds.World:
    """The repository every entry is staged in: Build.version at 1000, a launcher game, the README's hook."""
    world = worlds.launcher_game(root / "machine")
    repository = root / "repo"
    worlds.write(repository / "Build" / "Build.version", version(GOOD))
    shutil.copytree(world.cwd, repository / "Game", ignore=shutil.ignore_patterns(".git"))
    (repository / "Game" / "buildver.toml").unlink()
    worlds.write(repository / ".pre-commit-config.yaml", readme_hook())
    worlds.commit(repository)
    return worlds.World("guard", root, repository, world.home)


@dataclass(frozen=True)
class Entry:
    """A kind of staged entry: how to stage it, whether the commit must pass, and what the guard must say."""

    name: str
    stage: Callable[[Path], None]
    passes: bool
    says: str = ""
    skipped: bool = False  # git stages no file there (a deletion, intent-to-add): pre-commit has nothing to pass
    pre_commit_exit: int | None = None
    """pre-commit's own exit code where pre-commit itself cannot run the hook (not buildver's to fix)."""


def _write_and_add(relative: str | bytes, data: bytes | str) -> Callable[[Path], None]:
    def stage(repository: Path) -> None:
        path = os.path.join(os.fsencode(repository), os.fsencode(relative))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as stream:
            stream.write(data.encode() if isinstance(data, str) else data)
        git(repository, "add", "--", os.fsdecode(relative))

    return stage


def _link(relative: str, target: str) -> Callable[[Path], None]:
    def stage(repository: Path) -> None:
        path = repository / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        os.symlink(target, path)
        git(repository, "add", "--", relative)

    return stage


def _link_to_fifo(repository: Path) -> None:
    os.mkfifo(repository / "fifo")
    _link("Content/Linked.uasset", "../fifo")(repository)


def _executable(repository: Path) -> None:
    _write_and_add("Build/Build.version", version(GOOD + 1))(repository)
    os.chmod(repository / "Build" / "Build.version", 0o755)
    git(repository, "add", "--chmod=+x", "--", "Build/Build.version")


def _submodule(repository: Path) -> None:
    inner = repository / "Content" / "Sub.uasset"
    inner.mkdir(parents=True)
    git(inner, "init", "--quiet")
    git(inner, "commit", "--quiet", "--allow-empty", "-m", "inside")
    git(repository, "add", "--", "Content/Sub.uasset")


def _deleted(relative: str) -> Callable[[Path], None]:
    def stage(repository: Path) -> None:
        git(repository, "rm", "--quiet", "--", relative)

    return stage


def _renamed(repository: Path) -> None:
    (repository / "Build" / "Moved").mkdir()
    git(repository, "mv", "Build/Build.version", "Build/Moved/Build.version")


def _renamed_backwards(repository: Path) -> None:
    _renamed(repository)
    _write_and_add("Build/Moved/Build.version", version(GOOD - 1))(repository)


def _intent_to_add(relative: str, data: bytes | str) -> Callable[[Path], None]:
    def stage(repository: Path) -> None:
        path = repository / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        git(repository, "add", "--intent-to-add", "--", relative)

    return stage


def _uproject(association: str, relative: str = "Game/Game.uproject") -> Callable[[Path], None]:
    descriptor = json.dumps({"FileVersion": 3, "EngineAssociation": association, "Modules": []}, indent="\t")
    return _write_and_add(relative, descriptor)


def _both(*stages: Callable[[Path], None]) -> Callable[[Path], None]:
    def stage(repository: Path) -> None:
        for one in stages:
            one(repository)

    return stage


LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)
HUGE = 3 * 16 * 1024 * 1024
NEGATIVE = version(-5)
ENTRIES = [
    Entry("regular", _write_and_add("Build/Build.version", version(GOOD + 1)), True),
    Entry(
        "regular-backwards", _write_and_add("Build/Build.version", version(GOOD - 1)), False, "error[version-backwards]"
    ),
    Entry("executable", _executable, True),
    Entry("link-to-dev-zero", _link("Build/Build.version", "/dev/zero"), False, "Build/Build.version: error["),
    Entry("link-to-fifo", _link_to_fifo, False, "Content/Linked.uasset: error["),
    Entry(
        "link-outside",
        _link("Game/Config/DefaultGame.ini", "../../../../../etc/passwd"),
        False,
        "DefaultGame.ini: error[",
    ),
    Entry("submodule", _submodule, False, "Content/Sub.uasset: error["),
    Entry("deleted", _deleted("Build/Build.version"), True, skipped=True),
    Entry("deleted-uproject", _deleted("Game/Game.uproject"), True, skipped=True),
    Entry("renamed", _renamed, True),
    # A limit, not checked here as a defect: the guard judges a renamed file as the file it becomes (git diff
    # --no-renames, buildver.vcs.staged_changes), so a Build.version moved and lowered in one commit has no HEAD
    # file at its new path to compare with. Reported in issue 30's closing note.
    Entry("renamed-backwards", _renamed_backwards, True),
    Entry(
        "dash-path", _write_and_add("-rf/Build.version", NEGATIVE), False, "-rf/Build.version: error[version-invalid]"
    ),
    # pre-commit decodes git's file names as UTF-8 and stops ("An unexpected error has occurred: UnicodeDecodeError",
    # exit 3) before any hook runs: the commit is refused, by pre-commit; buildver guard by hand refuses the file.
    Entry(
        "not-utf8-path",
        _write_and_add(b"bad\xff/Build.version", NEGATIVE),
        False,
        "bad\\udcff/Build.version: error[",
        pre_commit_exit=3,
    ),
    Entry("line-break-path", _write_and_add("a\nb/Build.version", NEGATIVE), False, "a\\nb/Build.version: error["),
    Entry(
        "workflow-command-path",
        _write_and_add("::add-mask::x/Build.version", NEGATIVE),
        False,
        "error[version-invalid]",
    ),
    Entry("escape-path", _write_and_add("\x1b[31mred/Build.version", NEGATIVE), False, "error[version-invalid]"),
    Entry("bidi-path", _write_and_add("abc\u202eexe/Build.version", NEGATIVE), False, "error[version-invalid]"),
    Entry("huge", _write_and_add("Huge/Build.version", b" " * HUGE), False, "not read"),
    Entry("lfs-pointer", _write_and_add("Content/Big.uasset", LFS_POINTER), True),
    Entry("uproject-change", _uproject("5.4"), True),
    Entry(
        "uproject-unreadable", _write_and_add("Game/Game.uproject", "{ not json"), False, "Game/Game.uproject: error["
    ),
    # git commits no content for an intent-to-add entry: pre-commit passes the hook nothing, the guard checks nothing.
    Entry("intent-to-add", _intent_to_add("Content/New.uasset", b"not a package"), True, skipped=True),
    Entry("intent-to-add-version", _intent_to_add("Other/Build.version", NEGATIVE), True, skipped=True),
    Entry("uproject-in-subfolder", _uproject("5.3", "Games/Sub/Sub.uproject"), True),
    Entry("uproject-older", _uproject("4.27"), False, "error[project-engine-older]"),
    Entry(
        "uplugin-unreadable", _write_and_add("Game/Plugins/P/P.uplugin", "{ not json"), False, "error[plugin-invalid]"
    ),
    Entry(
        "uplugin-unreadable-engine-unknown",
        _both(
            _uproject("{E95117F9-7FC3-4CEE-8B95-62A245C2AC7F}"),
            _write_and_add("Game/Plugins/P/P.uplugin", "{ not json"),
        ),
        False,
        "error[plugin-invalid]",
    ),
    Entry(
        "uproject-in-subfolder-bad",
        _write_and_add("Games/Sub/Sub.uproject", "[1, 2"),
        False,
        "Games/Sub/Sub.uproject: error[",
    ),
]
QUICK = ("regular-backwards", "link-to-fifo", "submodule", "not-utf8-path", "intent-to-add")
_FINDING = re.compile(r"^(.*?: (?:error|warning)\[[\w-]+\]: .*)$", re.MULTILINE)


def attack(options: Options, suite: Suite, use_strace: bool) -> None:
    if shutil.which("git") is None:
        suite.defects.append("git is not installed: the guard attack cannot run")
        return
    base = options.work / "guard"
    stage = worlds.Stage(base / "world", make_repository)
    cache = base / "pre-commit-cache"
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    for entry in ENTRIES:
        if (options.quick and entry.name not in QUICK) or not options.wants(f"guard:{entry.name}"):
            continue
        world = stage.fresh()
        repository = world.cwd
        entry.stage(repository)
        env = environment(world.home, {"PATH": path, "PRE_COMMIT_HOME": str(cache)})
        hooked = run([sys.executable, "-m", "pre_commit", "run"], repository, env, timeout=300)
        by_hand = run([*BUILDVER, "guard"], repository, env, timeout=120)
        out = text(hooked.stdout) + text(hooked.stderr)
        problems = run_problems(by_hand) + unsafe_lines(by_hand.stdout, "guard stdout")
        problems += unsafe_lines(by_hand.stderr, "guard stderr") + unsafe_lines(hooked.stdout, "pre-commit stdout")
        if hooked.returncode == -999:
            problems.append("pre-commit hangs")
        if "Traceback" in out:
            problems.append("pre-commit shows a traceback")
        expected = (0 if entry.passes else 1) if entry.pre_commit_exit is None else entry.pre_commit_exit
        if hooked.returncode != expected:
            problems.append(f"pre-commit exits {hooked.returncode}, expected {expected}")
        if by_hand.returncode != (0 if entry.passes else 1):
            problems.append(f"buildver guard by hand exits {by_hand.returncode}, expected {0 if entry.passes else 1}")
        if "no files to check" in out and not entry.skipped:
            problems.append("pre-commit skipped the hook: (no files to check)")
        if entry.says and entry.says not in out and entry.pre_commit_exit is None:
            problems.append(f"pre-commit does not say {entry.says!r}")
        if entry.says and entry.says not in text(by_hand.stdout):
            problems.append(f"buildver guard does not say {entry.says!r}")
        hooked_findings = set(_FINDING.findall(text(hooked.stdout)))
        hand_findings = set(_FINDING.findall(text(by_hand.stdout)))
        if hooked_findings != hand_findings and not entry.skipped and entry.pre_commit_exit is None:
            problems.append(f"pre-commit and by hand differ: {sorted(hooked_findings ^ hand_findings)}")
        suite.check(f"guard {entry.name}", problems)
        if options.verbose or problems:
            print(
                f"  guard {entry.name}: pre-commit {hooked.returncode}, by hand {by_hand.returncode} {problems or ''}"
            )
            if options.verbose:
                print("    " + out.strip().replace("\n", "\n    "))
    stage.remove()
    print(f"  guard: {suite.cases} kinds of staged entry", flush=True)
