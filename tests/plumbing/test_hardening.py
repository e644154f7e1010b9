"""Faults: SIGKILL at every point of update-local, 16 concurrent runs, a full disk and a read-only folder."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import GitRepository

from buildver.changes import JOURNAL_NAME, TEMP_SUFFIX, recover
from buildver.cli.app import main
from buildver.versions.build_version import parse_build_version

DATA = Path(__file__).parents[1] / "data"
OLD_VERSION = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
HARNESS = Path(__file__).parents[1] / "crash_harness.py"
ARGUMENTS = ["update-local", "-f", "Build/Build.version", "--cl", "123", "--branch", "++Game+Main", "--build", "CI-7"]
TRIALS = 100  # every step of the write, then random instants; tools/ attacks with many more


def fresh_tree(folder: Path) -> Path:
    (folder / "Build").mkdir(parents=True)
    (folder / "Build" / "Build.version").write_bytes(OLD_VERSION)
    return folder


def state(folder: Path) -> tuple[bytes, bytes | None]:
    header = folder / "Build" / "BuildVersion.h"
    return (folder / "Build" / "Build.version").read_bytes(), header.read_bytes() if header.exists() else None


def strays(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(TEMP_SUFFIX) or p.name == JOURNAL_NAME)


def child_environment() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


@dataclass(frozen=True)
class CrashScenario:
    """A command to kill at every step: how to lay out its files in a trial folder, and which files it writes."""

    name: str
    arguments: list[str]
    layout: Callable[[Path], Path]  # makes the files in the trial folder; returns the folder to run in
    written: Callable[[Path], tuple[bytes | None, ...]]  # the written files' contents (None: absent)
    journal: str | None  # the recovery journal, relative to the trial folder, for a command writing several files
    random_trials: int


def project_with_header_outside(folder: Path) -> Path:
    (folder / "out").mkdir(parents=True)
    return fresh_tree(folder / "project")


def document_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copyfile(ROCK_DOCUMENT, folder / "document.json")
    return folder


def contents(*relative: str) -> Callable[[Path], tuple[bytes | None, ...]]:
    def read(folder: Path) -> tuple[bytes | None, ...]:
        return tuple((folder / path).read_bytes() if (folder / path).exists() else None for path in relative)

    return read


ROCK_DOCUMENT = Path(__file__).resolve().parents[2] / "examples" / "data" / "rock.json"
ASSET_SCHEMA = f"{Path(__file__).resolve().parents[2] / 'examples' / 'asset_schema.py'}:SCHEMA"
CRASH_SCENARIOS = [
    CrashScenario(
        "update-local",
        ARGUMENTS,
        fresh_tree,
        contents("Build/Build.version", "Build/BuildVersion.h"),
        f"Build/{JOURNAL_NAME}",
        TRIALS,
    ),
    # A header outside the project (as the README allows): the journal names a target it cannot trust.
    CrashScenario(
        "header outside the project",
        [*ARGUMENTS, "--header", "../out/V.h"],
        project_with_header_outside,
        contents("project/Build/Build.version", "out/V.h"),
        f"project/Build/{JOURNAL_NAME}",
        60,
    ),
    CrashScenario(
        "data upgrade",
        ["data", "upgrade", "--schema", ASSET_SCHEMA, "document.json"],
        document_folder,
        contents("document.json"),
        None,
        40,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("scenario", CRASH_SCENARIOS, ids=[scenario.name for scenario in CRASH_SCENARIOS])
def test_sigkill_at_any_point_leaves_old_or_new_files_and_the_next_run_recovers(
    tmp_path: Path, scenario: CrashScenario
) -> None:
    def run_harness(cwd: Path, kill_at: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(HARNESS), str(kill_at), *scenario.arguments],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=child_environment(),
            check=False,
        )

    reference = tmp_path / "reference"
    counted = run_harness(scenario.layout(reference), 0)
    assert counted.returncode == 0, counted.stderr
    steps = int(counted.stderr.strip().rsplit("steps=", 1)[1])
    before = tmp_path / "before"
    scenario.layout(before)
    old, new = scenario.written(before), scenario.written(reference)
    assert old != new
    timed = tmp_path / "time"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "buildver", *scenario.arguments],
        cwd=scenario.layout(timed),
        check=True,
        capture_output=True,
        env=child_environment(),
    )
    runtime = time.perf_counter() - start
    generator = random.Random(20261121)
    # Every file-system step of the write, then random instants over the whole run (start-up included).
    plans: list[tuple[str, float]] = [("step", float(k)) for k in range(1, steps + 1)]
    plans += [("time", generator.uniform(0, runtime * 1.1)) for _ in range(max(scenario.random_trials - steps, 0))]

    def trial(index: int, plan: tuple[str, float]) -> str:
        folder = tmp_path / f"trial-{index}"
        cwd = scenario.layout(folder)
        kind, point = plan
        if kind == "step":
            run_harness(cwd, int(point))
        else:
            process = subprocess.Popen(
                [sys.executable, "-m", "buildver", *scenario.arguments],
                cwd=cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=child_environment(),
            )
            time.sleep(point)
            process.kill()  # SIGKILL on POSIX, TerminateProcess on Windows
            process.wait()
        written = scenario.written(folder)
        for position, value in enumerate(written):
            assert value in (old[position], new[position]), f"trial {index}: file {position} is neither old nor new"
        outcome = "old" if written == old else "new" if written == new else "mixed"
        if scenario.journal is not None:
            journal = folder / scenario.journal
            # Killed between two renames: the journal records the commit, and recovery finishes or undoes it.
            assert outcome != "mixed" or journal.exists(), f"trial {index}: mixed files without a recovery journal"
            recover(journal)
            assert scenario.written(folder) in (old, new), f"trial {index}: files from different states after recovery"
        os.chdir(cwd)
        assert main(scenario.arguments) == 0, f"trial {index}: the next run failed"
        assert scenario.written(folder) == new, f"trial {index}: the next run did not write the new files"
        assert strays(folder) == [], f"trial {index}: stray files {strays(folder)}"
        return outcome

    cwd = Path.cwd()
    try:
        outcomes = Counter(trial(index, plan) for index, plan in enumerate(plans))
    finally:
        os.chdir(cwd)
    assert sum(outcomes.values()) >= scenario.random_trials
    assert outcomes["old"] > 0  # the kills really landed before and after the write
    assert outcomes["new"] > 0
    print(f"\ncrash trials, {scenario.name}: {dict(outcomes)} ({steps} write steps, run {runtime * 1000:.0f} ms)")


def run_concurrently(folder: Path, changelists: list[int]) -> list[subprocess.CompletedProcess[str]]:
    def one(changelist: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "buildver",
                "update-local",
                "-f",
                "Build/Build.version",
                "--cl",
                str(changelist),
                "--branch",
                f"++Game+Run{changelist}",
            ],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
            env=child_environment(),
        )

    with ThreadPoolExecutor(max_workers=len(changelists)) as pool:
        return list(pool.map(one, changelists))


def test_sixteen_concurrent_runs_take_turns_and_leave_one_run_result(tmp_path: Path) -> None:
    folder = fresh_tree(tmp_path / "shared")
    changelists = [1000 + n for n in range(16)]
    results = run_concurrently(folder, changelists)
    for result in results:
        assert result.returncode in (0, 3), result.stderr
        if result.returncode == 3:
            assert result.stderr.startswith("buildver: error: ")
            assert "lock" in result.stderr
    version = parse_build_version((folder / "Build" / "Build.version").read_bytes(), folder / "Build.version")
    final = version.record.changelist
    assert final in changelists
    assert version.record.branch_name == f"++Game+Run{final}"
    alone = fresh_tree(tmp_path / "alone")
    run_concurrently(alone, [final])
    assert state(folder) == state(alone)  # byte for byte what that run alone writes, header included
    assert strays(folder) == []


@contextmanager
def small_filesystem(mount_point: Path, size: str) -> Iterator[Path]:
    """A size-limited tmpfs mounted for the test (needs root; skipped elsewhere)."""
    if sys.platform != "linux":
        pytest.skip("tmpfs mounts exist only on Linux (and need root)")
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount_point)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_full_disk_is_a_clear_error_and_leaves_the_files_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with small_filesystem(tmp_path / "disk", "1m") as disk:
        fresh_tree(disk)
        assert main([*ARGUMENTS[:1], "-f", str(disk / "Build" / "Build.version"), *ARGUMENTS[3:]]) == 0
        capsys.readouterr()
        before = state(disk)
        filler = disk / "filler"
        try:
            with filler.open("wb") as stream:
                while True:
                    stream.write(b"\0" * 4096)
                    stream.flush()
        except OSError as exc:
            full = exc
        assert "No space left on device" in str(full)
        monkeypatch.chdir(disk)
        code = main(["update-local", "-f", "Build/Build.version", "--cl", "999999", "--branch", "X" * 2000])
        err = capsys.readouterr().err
        assert code == 3
        assert err.startswith("buildver: error: ")
        assert "No space left on device" in err
        assert err.count("\n") == 1
        assert state(disk) == before
        assert strays(disk) == []


def test_a_read_only_folder_is_a_clear_error_and_leaves_the_files_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with small_filesystem(tmp_path / "ro", "1m") as disk:
        fresh_tree(disk)
        before = state(disk)
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True, check=False)
        if remounted.returncode != 0:
            pytest.skip("cannot remount read-only here")
        code = main(["update-local", "-f", str(disk / "Build" / "Build.version"), "--cl", "5", "--branch", "X"])
        err = capsys.readouterr().err
        assert code == 3
        assert err.startswith("buildver: error: ")
        assert "Read-only file system" in err
        assert state(disk) == before


def test_recover_leaves_a_file_someone_changed_after_the_kill(tmp_path: Path) -> None:
    folder = fresh_tree(tmp_path / "tree")
    # Kill after the journal is committed and before the renames: the journal's step is the 5th file step.
    steps_result = subprocess.run(
        [sys.executable, str(HARNESS), "0", *ARGUMENTS],
        cwd=fresh_tree(tmp_path / "c"),
        check=True,
        capture_output=True,
        text=True,
    )
    steps = int(steps_result.stderr.rsplit("steps=", 1)[1])
    for step in range(1, steps + 1):
        shutil.rmtree(folder)
        fresh_tree(folder)
        subprocess.run(
            [sys.executable, str(HARNESS), str(step), *ARGUMENTS], cwd=folder, capture_output=True, check=False
        )
        journal = folder / "Build" / JOURNAL_NAME
        if journal.exists() and (folder / "Build" / "Build.version").read_bytes() == OLD_VERSION:
            break
    else:
        pytest.fail("no kill point left a committed journal with the old Build.version")
    edited = b'{"MajorVersion": 9, "MinorVersion": 9, "PatchVersion": 9}'
    (folder / "Build" / "Build.version").write_bytes(edited)
    recover(journal)
    assert (folder / "Build" / "Build.version").read_bytes() == edited
    assert strays(folder) == []
    assert json.loads(edited)["MajorVersion"] == 9


# -- FIFOs and devices: refused with one line, never a hang -------------------------------------------------------

NEEDS_POSIX_SPECIAL_FILES = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
    reason="FIFOs (os.mkfifo) and /dev/zero, /dev/urandom, /dev/full exist only on POSIX systems",
)
HANG_LIMIT = 30  # seconds: a regression fails the test instead of hanging the suite


def special_file(kind: str, place: Path) -> Path:
    """A FIFO at ``place``, or a symbolic link there to the device ``kind`` names."""
    if kind == "fifo":
        os.mkfifo(place)
    else:
        place.symlink_to(f"/dev/{kind}")
    return place


def run_cli(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buildver", *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT,
        env=child_environment(),
        check=False,
    )


SPECIAL_VERSION_FILES = ["fifo", "zero", "urandom"]
VERSION_READERS = [
    ["show", "-f", "Build/Build.version"],
    ["show", "--json", "-f", "Build/Build.version"],
    ["update-local", "-f", "Build/Build.version", "--cl", "1", "--branch", "X"],
    ["update-local", "--dry-run", "-f", "Build/Build.version", "--cl", "1", "--branch", "X"],
    ["header", "-f", "Build/Build.version"],
    ["header", "--check", "-f", "Build/Build.version"],
]


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize("kind", SPECIAL_VERSION_FILES)
@pytest.mark.parametrize("command", VERSION_READERS, ids=" ".join)
def test_a_version_file_that_is_a_fifo_or_a_device_is_one_error_line_not_a_hang(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    (tmp_path / "Build").mkdir()
    special_file(kind, tmp_path / "Build" / "Build.version")
    result = run_cli(tmp_path, *command)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    expected = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert result.stderr == f"buildver: error: Build/Build.version: is not a regular file but {expected}\n"
    assert strays(tmp_path) == []


HEADER_TARGETS = [("fifo", "a FIFO (named pipe)"), ("full", "a character device"), ("zero", "a character device")]


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize(("kind", "expected"), HEADER_TARGETS)
@pytest.mark.parametrize("command", [["update-local", "--cl", "1", "--branch", "X"], ["header"], ["header", "--check"]])
def test_a_header_that_is_a_fifo_or_a_device_is_refused_before_anything_is_written(
    tmp_path: Path, kind: str, expected: str, command: list[str]
) -> None:
    folder = fresh_tree(tmp_path / "tree")
    header = special_file(kind, tmp_path / "V.h")
    result = run_cli(folder, *command, "-f", "Build/Build.version", "--header", str(header))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(
        f"buildver: error: {header}: cannot read the header (not a regular file but {expected})"
    )
    assert result.stderr.count("\n") == 1
    assert state(folder) == (OLD_VERSION, None)
    assert strays(folder) == []


def test_the_device_given_directly_as_the_header_is_refused(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("/dev/full exists only on Linux and some other POSIX systems")
    folder = fresh_tree(tmp_path / "tree")
    result = run_cli(folder, "update-local", "--cl", "1", "--branch", "X", "--header", "/dev/full")
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(
        "buildver: error: /dev/full: cannot read the header (not a regular file but a character device)"
    )
    assert result.stderr.count("\n") == 1
    assert state(folder) == (OLD_VERSION, None)


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_settings_and_documents_that_are_fifos_or_devices_are_refused(tmp_path: Path, kind: str) -> None:
    folder = fresh_tree(tmp_path / "tree")
    (folder / ".git").mkdir()
    special_file(kind, folder / "document.json")
    schema = f"{Path(__file__).resolve().parents[2] / 'examples' / 'asset_schema.py'}:SCHEMA"
    for command in (["data", "inspect", "document.json"], ["data", "upgrade", "--schema", schema, "document.json"]):
        result = run_cli(folder, *command)
        assert result.returncode == 1, result.stderr
        assert result.stderr.startswith("buildver: error: document.json: cannot read: not a regular file but a")
        assert result.stderr.count("\n") == 1


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize(("kind", "expected"), [("fifo", "a FIFO (named pipe)"), ("null", "a character device")])
def test_apply_changes_refuses_a_target_that_is_a_fifo_or_a_device(tmp_path: Path, kind: str, expected: str) -> None:
    target = tmp_path / "V.h"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        # Making a device node needs root; /dev/null exists on every POSIX system (it is refused before any write).
        target = Path("/dev/null")
    # In a child process, so that a regression (reading a FIFO blocks) fails the test instead of hanging the suite.
    script = (
        "import sys; from pathlib import Path; from buildver.changes import FileChange, apply_changes\n"
        "from buildver.errors import WriteError\n"
        "try:\n    apply_changes([FileChange(Path(sys.argv[1]), None, b'x')])\n"
        "except WriteError as exc:\n    print(exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(target)], capture_output=True, text=True, timeout=HANG_LIMIT, check=True
    )
    assert result.stdout == f"{target}: is not a regular file but {expected}; nothing was written\n"
    assert stat.S_ISFIFO(target.lstat().st_mode) if kind == "fifo" else target.exists()
    assert os.listdir(tmp_path) == ([] if kind != "fifo" else ["V.h"])


# -- buildver's own names are never a target ----------------------------------------------------------------------


@pytest.mark.parametrize("header", ["Build/.buildver-journal", "Build/.buildver-lock", "Build/.V.h.abc.buildver-tmp"])
def test_a_header_named_like_buildvers_journal_lock_or_temporary_files_is_refused(
    tmp_path: Path, header: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = fresh_tree(tmp_path / "tree")
    monkeypatch.chdir(folder)
    assert main([*ARGUMENTS, "--header", header]) == 3
    assert capsys.readouterr().err == (
        f"buildver: error: {Path(header)}: is a name buildver keeps for its own journal, lock or temporary files; "
        "choose another name; nothing was written\n"
    )
    assert state(folder) == (OLD_VERSION, None)
    assert sorted(p.name for p in (folder / "Build").iterdir()) == ["Build.version"]


# -- a dry run writes nothing, not even into .git ------------------------------------------------------------------


def tree_snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_dry_run_counting_commits_writes_nothing_into_the_repository(
    git_repository: GitRepository, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository("Game", commits=4)
    fresh_tree(root)
    monkeypatch.chdir(root)
    before = tree_snapshot(root)
    assert main(["update-local", "--dry-run", "-f", "Build/Build.version", "--branch", "B"]) == 0
    assert '+\t"Changelist": 4,' in capsys.readouterr().out
    assert tree_snapshot(root) == before  # .git included: no commit-graph, nothing else
    assert main(["update-local", "-f", "Build/Build.version", "--branch", "B", "--skip-header"]) == 0
    in_git = {name: data for name, data in before.items() if Path(name).parts[0] == ".git"}
    after = tree_snapshot(root)
    assert {name: data for name, data in after.items() if Path(name).parts[0] == ".git"} == in_git  # a real run too


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_teamcity_properties_file_that_is_a_fifo_or_a_device_is_ignored_not_waited_for(
    tmp_path: Path, kind: str
) -> None:
    properties = special_file(kind, tmp_path / "build.properties")
    script = (
        "import sys; from buildver.stamp.depot import ci_branch\n"
        "print(ci_branch(dict(argument.split('=', 1) for argument in sys.argv[1:])))"
    )
    arguments = ["TEAMCITY_VERSION=2025.11", f"TEAMCITY_BUILD_PROPERTIES_FILE={properties}"]
    result = subprocess.run(
        [sys.executable, "-c", script, *arguments], capture_output=True, text=True, timeout=HANG_LIMIT, check=True
    )
    assert result.stdout == "None\n"


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize(
    ("kind", "expected"),
    [("fifo", "a FIFO (named pipe)"), ("full", "a character device"), ("zero", "a character device")],
)
def test_a_github_output_that_is_a_fifo_or_a_device_is_refused_before_anything_is_written(
    tmp_path: Path, kind: str, expected: str
) -> None:
    folder = fresh_tree(tmp_path / "tree")
    outputs = special_file(kind, tmp_path / "outputs")
    result = subprocess.run(
        [sys.executable, "-m", "buildver", *ARGUMENTS],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT,
        env={**child_environment(), "GITHUB_OUTPUT": str(outputs)},
        check=False,
    )
    assert result.returncode == 3, result.stderr
    assert result.stderr == (
        f"buildver: error: {outputs}: cannot append to GITHUB_OUTPUT (not a regular file but {expected}); "
        "nothing was written\n"
    )
    assert state(folder) == (OLD_VERSION, None)


def test_any_later_run_undoes_a_run_killed_before_renaming_its_header_outside_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    arguments = [*ARGUMENTS, "--header", "../out/V.h"]
    for step in range(1, 40):
        trial = tmp_path / f"step-{step}"
        project = project_with_header_outside(trial)
        killed = subprocess.run(
            [sys.executable, str(HARNESS), str(step), *arguments], cwd=project, capture_output=True, check=False
        )
        if killed.returncode == 0:
            pytest.fail("no kill point left Build.version new and the header outside old")
        if (project / "Build" / JOURNAL_NAME).exists() and state(project)[0] != OLD_VERSION:
            break
    assert not (trial / "out" / "V.h").exists()  # Build.version new, the header outside not written yet
    monkeypatch.chdir(project)
    # The next run names no header outside (it writes the default one): recovery must not stop it.
    assert main(["header", "-f", "Build/Build.version"]) == 0, capsys.readouterr().err
    assert (project / "Build" / "Build.version").read_bytes() == OLD_VERSION  # undone: every file old
    assert sorted(path.name for path in (project / "Build").iterdir()) == ["Build.version", "BuildVersion.h"]
    assert main(arguments) == 0  # and the same command again finishes the job, leaving nothing behind
    assert (trial / "out" / "V.h").is_file()
    assert strays(trial) == []


@NEEDS_POSIX_SPECIAL_FILES
@pytest.mark.parametrize(("kind", "expected"), [("fifo", "a FIFO (named pipe)"), ("zero", "a character device")])
def test_a_project_descriptor_that_is_a_fifo_or_a_device_is_reported_not_waited_for(
    tmp_path: Path, kind: str, expected: str
) -> None:
    folder = fresh_tree(tmp_path / "tree")
    special_file(kind, folder / "Game.uproject")
    result = run_cli(folder, "project", "check", ".", "-f", "Build/Build.version")
    assert result.returncode == 1, result.stderr
    assert f"Game.uproject: cannot read the file (not a regular file but {expected})" in result.stderr
    assert "Traceback" not in result.stderr
