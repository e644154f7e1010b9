"""Kills and failed system calls at every write of every writing command, in every world (issue 30's first demand).

For each scenario (a command in a world) one traced run lists the system calls that change a file (write, fsync,
rename, link, unlink, mkdir, an open for writing...). Then, for every one of them, a fresh copy of the world runs the
command with strace delivering SIGKILL, SIGTERM or SIGINT at that call, or making it fail (ENOSPC, EIO, EACCES,
EPERM, EMFILE; every open of a file of the world fails with EMFILE once, reads too). After each trial:

- a signal: the world's files, all of them together, are those before the run or those one run writes, unless the
  run left its journal (a change of several files cut in the middle); Ctrl-C ends in exit 130 and one line;
- recovery alone (what the next writing run does first) leaves them all old or all new;
- a failed call: exit 0 with every file new (a warning may name what was left behind), or a documented exit code,
  one ``buildver: error:`` line and every file old; never a traceback, exit 70 or a hang;
- when the trial left anything but the files before or after one run, the same command run again exits 0 with
  every file as one run writes it, and nothing left behind.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import worlds
from .common import (
    BUILDVER,
    KILL_SYSCALLS,
    Call,
    Options,
    Snapshot,
    Suite,
    changed_names,
    environment,
    inject,
    leftovers,
    run,
    run_problems,
    snapshot,
    text,
    trace,
    without_leftovers,
)
from .worlds import World

UPDATE = ["update-local", "--cl", "1234", "--branch", "++Game+Main"]
SIGNALS = ("KILL", "TERM", "INT")
ERRORS = {
    "write": "ENOSPC",
    "pwrite64": "ENOSPC",
    "writev": "EIO",
    "fsync": "EIO",
    "fdatasync": "EIO",
    "rename": "EACCES",
    "renameat": "EACCES",
    "renameat2": "EACCES",
    "link": "EPERM",
    "linkat": "EPERM",
    "unlink": "EPERM",
    "unlinkat": "EPERM",
    "mkdir": "EACCES",
    "mkdirat": "EACCES",
    "ftruncate": "EIO",
    "fchmod": "EPERM",
    "chmod": "EPERM",
    "fchmodat": "EPERM",
    "openat": "EMFILE",
}


@dataclass(frozen=True)
class Scenario:
    """A command run in a world; ``version_file`` (relative to where it runs) when its recovery can run alone."""

    command: str
    world: str
    make: Callable[[Path], World]
    arguments: Callable[[World], list[str]]
    version_file: str | None = None
    per_file: bool = False
    """Each file is its own all-or-nothing write (data upgrade): each is old or new, a failed one old."""
    done: str = ""
    """What the command says, refusing, when run again on its own result (init: "already exists")."""

    @property
    def name(self) -> str:
        return f"{self.command}@{self.world}"


def _with_stale_header(root: Path) -> World:
    """A launcher game stamped once, whose Build.version then moved on: ``header`` has one file to write."""
    world = worlds.launcher_game(root)
    stamped = run([*BUILDVER, *UPDATE], world.cwd, environment(world.home))
    assert stamped.returncode == 0, text(stamped.stderr)
    version = world.cwd / "Build" / "Build.version"
    version.write_text(version.read_text().replace('"Changelist": 1234', '"Changelist": 1300'))
    return world


def _machine_with_both_lists(root: Path) -> World:
    """A GUID game on a machine that also lists a launcher 5.3: ``engine switch`` can move it to 5.3."""
    world = worlds.guid_game(root)
    worlds.launcher_list(world.home, {"UE_5.3": worlds.engine(root / "Epic Games" / "UE_5.3")})
    return world


def scenarios() -> list[Scenario]:
    found = [
        Scenario("update-local", name, make, lambda world: UPDATE, "Build/Build.version")
        for name, make in worlds.GAMES.items()
    ]
    found[[scenario.world for scenario in found].index("version-subfolder")] = Scenario(
        "update-local",
        "version-subfolder",
        worlds.subfolder_game,
        lambda world: UPDATE,
        "Versioning/Build/Build.version",
    )
    found += [
        Scenario("update-local", name, make, lambda world: UPDATE, "Engine/Build/Build.version")
        for name, make in worlds.ENGINES.items()
    ]
    found += [
        Scenario("header", "launcher", _with_stale_header, lambda world: ["header"], "Build/Build.version"),
        Scenario(
            "init",
            "bare-game",
            worlds.bare_game,
            lambda world: ["init", "--version", "1.0.0"],
            "Build/Build.version",
            done="already exists",
        ),
        Scenario(
            "data-upgrade",
            "documents",
            worlds.documents,
            lambda world: ["data", "upgrade", "--schema", "asset_schema.py:SCHEMA", "rock.json", "props/stone.json"],
            per_file=True,
        ),
        Scenario(
            "engine-register",
            "machine",
            worlds.machine,
            lambda world: ["engine", "register", str(world.named["new engine"])],
        ),
        Scenario("engine-switch", "guid", _machine_with_both_lists, lambda world: ["engine", "switch", "5.3"]),
    ]
    return found


QUICK = {"update-local@launcher", "update-local@engine-4.18", "init@bare-game", "engine-register@machine"}


def points(calls: Sequence[Call], root: Path) -> list[Call]:
    """The calls to attack: every one that changes something, and every open of a file of the world."""
    inside = str(root) + os.sep
    chosen = []
    for call in calls:
        if call.name != "openat" or (call.paths and call.paths[-1].startswith(inside)):
            chosen.append(call)
    return chosen


def _recover_only(world: World, version_file: str) -> str | None:
    """What the next writing run does first, alone: take the lock with the journal's project and recover."""
    script = (
        "import sys; from pathlib import Path; from buildver.stamp.update import journal_project, version_file_lock\n"
        "path = Path(sys.argv[1])\n"
        "with version_file_lock(path, write=True, project=journal_project(path)): pass\n"
    )
    result = run([BUILDVER[0], "-c", script, version_file], world.cwd, environment(world.home))
    return None if result.returncode == 0 else f"recovery alone fails: {text(result.stderr).strip()[-300:]}"


def _state_problems(label: str, state: Snapshot, old: Snapshot, new: Snapshot, *, per_file: bool = False) -> list[str]:
    bare = without_leftovers(state)
    if bare in (old, new):
        return []
    if per_file and set(bare) == set(new) and all(bare[name] in (old.get(name), new[name]) for name in bare):
        return []
    newer = [name for name in changed_names(old, bare) if bare.get(name) == new.get(name)]
    other = [name for name in changed_names(old, bare) if bare.get(name) != new.get(name)]
    return [f"{label}: files neither all old nor all new (new: {newer}; neither: {other})"]


def trial(
    scenario: Scenario,
    stage: worlds.Stage,
    call: Call,
    old: Snapshot,
    new: Snapshot,
    *,
    signal: str = "",
    error: str = "",
) -> list[str]:
    world = stage.fresh()
    env = environment(world.home)
    command = [*BUILDVER, *scenario.arguments(world)]
    result = inject(command, world.cwd, env, call, signal=signal, error=error)
    after = snapshot(world.root)
    err = text(result.stderr)
    problems = []
    journalled = any(name.endswith(".buildver-journal") for name in leftovers(after))
    if signal:
        if signal == "INT":
            if result.returncode != 130:
                problems.append(f"Ctrl-C exits {result.returncode}: {err.strip()[-200:]!r}")
            problems += [problem for problem in run_problems(result) if "exit 130" not in problem]
            if leftovers(after) and not journalled:  # with a journal, its backups are what recovery needs
                problems.append(f"Ctrl-C left temporary files and no journal: {leftovers(after)}")
            if journalled and "journal" not in err:
                problems.append(f"Ctrl-C left a journal but says: {err.strip()!r}")
            if not journalled:
                problems += _state_problems("after Ctrl-C", after, old, new, per_file=scenario.per_file)
        elif not journalled:
            problems += _state_problems(f"after SIG{signal}", after, old, new, per_file=scenario.per_file)
        if journalled and scenario.version_file is not None and (world.cwd / scenario.version_file).exists():
            why = _recover_only(world, scenario.version_file)
            if why is not None:
                problems.append(why)
            else:
                recovered = snapshot(world.root)
                problems += _state_problems("after recovery alone", recovered, old, new)
                temporary = leftovers(recovered)
                if temporary and any(name.endswith(".buildver-journal") for name in temporary):
                    problems.append(f"recovery alone left its journal: {temporary}")
    else:
        problems += run_problems(result)
        bare = without_leftovers(after)
        if scenario.per_file and result.returncode > 0:  # the failed files old, the others new, none torn
            problems += _state_problems(f"exit {result.returncode}", after, old, new, per_file=True)
            if leftovers(after):
                problems.append(f"exit {result.returncode} left {leftovers(after)}")
        elif result.returncode == 0:
            if bare != new:
                problems.append(
                    f"exit 0, but the files are not those of a full run (differ: {changed_names(new, bare)})"
                )
            left = leftovers(after)
            if left and "buildver: warning:" not in err:
                problems.append(f"exit 0 left {left} without a warning")
        elif result.returncode > 0 and call.name == "write" and call.arguments.startswith(("1,", "2,")):
            # Printing failed (stdout or stderr on a full disk): the files, written or not, are whole.
            problems += _state_problems(f"exit {result.returncode} (printing failed)", after, old, new)
        elif result.returncode > 0:
            if bare != old:
                problems.append(
                    f"exit {result.returncode} but files changed: {changed_names(old, bare)}: {err.strip()[-200:]!r}"
                )
            if leftovers(after):
                problems.append(f"exit {result.returncode} left {leftovers(after)}")
    now = snapshot(world.root)
    if now in (old, new):  # nothing left behind: the next run is a first run, or one with nothing to do (the
        return problems  # reference run and its repetition showed both)
    again = run([*BUILDVER, *scenario.arguments(world)], world.cwd, env)
    final = snapshot(world.root)
    refused_as_done = scenario.done and again.returncode != 0 and scenario.done in text(again.stderr)
    if again.returncode != 0 and not (refused_as_done and final == new):
        problems.append(f"the next run exits {again.returncode}: {text(again.stderr).strip()[-300:]!r}")
    elif final != new:
        problems.append(f"the next run leaves files unlike one run's (differ: {changed_names(new, final)})")
    return problems


def attack(options: Options, suite: Suite, use_strace: bool) -> None:
    if not use_strace:
        suite.defects.append("strace cannot trace here: no kills or faults ran")
        return
    for scenario in scenarios():
        if (options.quick and scenario.name not in QUICK) or not options.wants(f"kills:{scenario.name}"):
            continue
        stage = worlds.Stage(options.work / "kills" / re.sub(r"\W", "-", scenario.name), scenario.make)
        world = stage.fresh()
        old = snapshot(world.root)
        env = environment(world.home)
        command = [*BUILDVER, *scenario.arguments(world)]
        calls = trace(command, world.cwd, env, KILL_SYSCALLS)
        new = snapshot(world.root)
        reference = run(command, world.cwd, env)  # the same command again, untraced: nothing left to do
        repeated = reference.returncode == 0 or (scenario.done and scenario.done in text(reference.stderr))
        if leftovers(new) or new == old or not repeated or snapshot(world.root) != new:
            suite.check(f"{scenario.name} reference", [f"one run does not write cleanly: {text(reference.stderr)!r}"])
            continue
        attacked = points(calls, world.root)
        if options.quick:
            attacked = attacked[:: max(1, len(attacked) // 6)]
        counted = 0
        for call in attacked:
            kinds = [("signal", signal) for signal in (("KILL", "INT") if options.quick else SIGNALS)]
            if call.name in ERRORS:
                kinds.append(("error", ERRORS[call.name]))
            for kind, value in kinds:
                label = f"{scenario.name} {call} {'SIG' if kind == 'signal' else ''}{value}"
                problems = trial(scenario, stage, call, old, new, **{kind: value})
                suite.check(label, problems)
                counted += 1
                if options.verbose:
                    print(f"  {label}: {problems or 'ok'}", flush=True)
        print(f"  kills {scenario.name}: {len(attacked)} calls, {counted} trials", flush=True)
        stage.remove()
    shutil.rmtree(options.work / "kills", ignore_errors=True)
