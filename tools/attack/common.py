"""What every attack shares: running buildver, snapshots of a world's files, strace, and the tally of defects."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
BUILDVER = [sys.executable, "-m", "buildver"]
TEMP_SUFFIX = ".buildver-tmp"
JOURNAL_NAME = ".buildver-journal"
LOCK_NAME = ".buildver-lock"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Attack",
    "GIT_AUTHOR_EMAIL": "attack@example.com",
    "GIT_COMMITTER_NAME": "Attack",
    "GIT_COMMITTER_EMAIL": "attack@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
DROPPED = ("COVERAGE_PROCESS_", "uebp_", "GITHUB_", "GITLAB_", "CI", "TF_BUILD", "JENKINS_", "TEAMCITY_", "GIT_")
CRASH_EXIT_CODE = 70
DOCUMENTED_EXIT_CODES = {0, 1, 2, 3, 130}
"""docs/command-line.md's table: 0 done, 1 refused or invalid input, 2 usage, 3 cannot write or lock, 130 Ctrl-C."""


@dataclass
class Suite:
    """One kind of attack: how many cases ran, and the cases that found a defect (one line each, its problems)."""

    name: str
    cases: int = 0
    defects: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def check(self, case: str, problems: Iterable[str]) -> None:
        """Count one case, and keep each of its problems as a defect named by the case."""
        self.cases += 1
        if problems:
            self.defects.append(f"{case}: {'; '.join(problems)}")
            print(f"  DEFECT {self.defects[-1]}", flush=True)


@dataclass(frozen=True)
class Options:
    """What the runner was asked: ``quick`` samples each attack; ``work`` is where the worlds are made."""

    quick: bool
    work: Path
    verbose: bool
    only: frozenset[str] = frozenset()

    def wants(self, name: str) -> bool:
        """Whether ``name`` (a suite, or ``suite:case``) is among those ``--only`` asked for (prefixes count)."""
        return not self.only or any(name.startswith(part) or part.startswith(f"{name}:") for part in self.only)


def environment(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The harness's own environment without CI, git and Unreal variables, with ``home`` as HOME."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith(DROPPED)}
    kept.update(IDENTITY)
    kept.update({"HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONSAFEPATH": "1", "NO_COLOR": "1"})
    kept.update({"XDG_CACHE_HOME": str(home / ".cache"), "COLUMNS": "120", "TERM": "dumb"})
    kept.update(extra or {})
    return kept


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(
    command: Sequence[str | bytes], cwd: Path, env: Mapping[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command``; bytes out, never raising on its exit code; a time-out is exit -999 with what it printed."""
    try:
        return subprocess.run(
            list(command),
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            # A background job (a CI script's `&`) starts with SIGINT ignored and its children inherit it: the
            # Ctrl-C the kills inject must reach buildver as a user's would.
            preexec_fn=_default_ctrl_c if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout if isinstance(exc.stdout, bytes) else b""
        stderr = exc.stderr if isinstance(exc.stderr, bytes) else b""
        return subprocess.CompletedProcess(list(command), -999, stdout, stderr + b"\n(timed out)")


def git(cwd: Path, *arguments: str | bytes, env: Mapping[str, str] | None = None) -> str:
    result = subprocess.run(
        ["git", *arguments],
        cwd=cwd,
        env={**os.environ, **IDENTITY, "GIT_LITERAL_PATHSPECS": "1", **(env or {})},
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {arguments!r}: {result.stderr.decode(errors='replace')}")
    return result.stdout.decode(errors="replace").strip()


def text(data: bytes) -> str:
    """Output as a program reading it would see it: UTF-8, any other byte kept as a surrogate escape."""
    return data.decode("utf-8", errors="surrogateescape")


def last_line(data: bytes) -> str:
    lines = text(data).strip().splitlines()
    return ascii(lines[-1]) if lines else "''"


# -- Snapshots -------------------------------------------------------------------------------------------------------

Snapshot = dict[str, bytes | str]
"""Every file of a world by its path relative to the world (bytes), a symbolic link as its target (str); git's
folders and buildver's lock file are left out; GUIDs are replaced by one placeholder, so that two runs that each
made a new one compare equal."""
_GUID = re.compile(rb"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


def snapshot(root: Path) -> Snapshot:
    found: Snapshot = {}
    for folder, folders, files in os.walk(root):
        folders[:] = [name for name in folders if name != ".git" and not os.path.islink(os.path.join(folder, name))]
        for name in files + [name for name in os.listdir(folder) if os.path.islink(os.path.join(folder, name))]:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            if name == LOCK_NAME or relative in found or name == ".git" or "/.cache/" in f"/{relative}":
                continue
            if os.path.islink(path):
                found[relative] = os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as stream:
                    found[relative] = _GUID.sub(b"GUID", stream.read())
    return found


def leftovers(state: Snapshot) -> list[str]:
    """buildver's temporary, backup and journal files in a snapshot."""
    return sorted(name for name in state if name.endswith(TEMP_SUFFIX) or os.path.basename(name) == JOURNAL_NAME)


def without_leftovers(state: Snapshot) -> Snapshot:
    left = set(leftovers(state))
    return {name: data for name, data in state.items() if name not in left}


def changed_names(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))


# -- strace ------------------------------------------------------------------------------------------------------------

KILL_SYSCALLS = (
    "write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat,"
    "ftruncate,fchmod,chmod,fchmodat,symlink,symlinkat,openat"
)
"""Every system call that changes a file, a folder or what buildver writes next, and openat (kept only when it
opens for writing)."""
_CALL = re.compile(r"^(?:\[pid +\d+\] )?(?P<name>\w+)\((?P<arguments>.*)\) += (?P<result>-?\d+|\?)")
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")


@dataclass(frozen=True)
class Call:
    """One system call of a traced run: its name, its ordinal among the calls of that name, the paths it names."""

    name: str
    ordinal: int
    arguments: str
    paths: tuple[str, ...]

    @property
    def opens_for_writing(self) -> bool:
        return any(flag in self.arguments for flag in _WRITE_FLAGS)

    def __str__(self) -> str:
        where = f" {self.paths[-1]!a}" if self.paths else ""
        return f"{self.name}#{self.ordinal}{where}"


def strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    probe = subprocess.run(["strace", "-qq", "-o", os.devnull, "true"], capture_output=True, check=False)
    return probe.returncode == 0


def trace(command: Sequence[str], cwd: Path, env: Mapping[str, str], syscalls: str) -> list[Call]:
    """The calls of ``syscalls`` that ``command`` makes (its own process, not its children), in order."""
    log = cwd.parent / f".trace-{os.getpid()}-{time.monotonic_ns()}"
    strace = ["strace", "-qq", "-s", "4096", "-e", "signal=none", "-e", f"trace={syscalls}", "-o", str(log)]
    run([*strace, *command], cwd, env)
    counts: dict[str, int] = {}
    calls = []
    for line in log.read_text(encoding="latin-1").splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        name = match["name"]
        counts[name] = counts.get(name, 0) + 1
        paths = tuple(
            os.path.normpath(os.path.join(cwd, _unescape(quoted)))
            for quoted in re.findall(r'"((?:[^"\\]|\\.)*)"', match["arguments"])
        )
        calls.append(Call(name, counts[name], match["arguments"], paths if name != "write" else ()))
    log.unlink()
    return calls


def _unescape(quoted: str) -> str:
    """A string as strace prints it (C escapes, octal and hex bytes) back as the file name Python would use."""
    simple = {"n": b"\n", "t": b"\t", "r": b"\r", "v": b"\v", "f": b"\f", '"': b'"', "\\": b"\\"}

    def byte(match: re.Match[str]) -> str:
        escape = match[1]
        if escape in simple:
            value = simple[escape]
        elif escape.startswith("x"):
            value = bytes([int(escape[1:], 16)])
        else:
            value = bytes([int(escape, 8)])
        return value.decode("latin-1")

    raw = re.sub(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)", byte, quoted)
    return os.fsdecode(raw.encode("latin-1", errors="surrogateescape"))


def inject(
    command: Sequence[str], cwd: Path, env: Mapping[str, str], call: Call, *, signal: str = "", error: str = ""
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` with ``call`` (its name and ordinal) given ``signal`` or failing with ``error``."""
    tamper = f"signal={signal}" if signal else f"error={error}"
    spec = f"inject={call.name}:{tamper}:when={call.ordinal}"
    return run(["strace", "-qq", "-o", os.devnull, "-e", f"trace={call.name}", "-e", spec, *command], cwd, env)


# -- Output checks -----------------------------------------------------------------------------------------------------

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def unsafe_lines(data: bytes, stream: str, *, json_output: bool = False) -> list[str]:
    """What in printed output could drive a terminal or a CI runner: control characters (but tab), bidi controls,
    bytes that are not UTF-8, a line that starts a GitHub workflow command (``::name::``) or holds one of the older
    form (``##[name]``, anywhere). A JSON document keeps
    bidi controls (its strings are the exact values, for programs; JSON escapes every C0 control itself)."""
    problems = []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(f"{stream}: byte {exc.start} is not UTF-8 ({data[max(0, exc.start - 20) : exc.start + 5]!r})")
    shown = text(data)
    for number, line in enumerate(shown.split("\n"), 1):
        if line.lstrip().startswith("::") or re.match(r"^\s*::\w", line):
            problems.append(f"{stream} line {number} starts a workflow command: {line[:100]!a}")
        if "##[" in line:  # the runner's older form, read anywhere in a line (actions/runner ActionCommand.TryParse)
            problems.append(f"{stream} line {number} holds an old-form workflow command: {line[:100]!a}")
        body = line.removesuffix("\r")  # a CRLF file's line end, in a diff
        controls = sorted({char for char in body if (ord(char) < 32 and char != "\t") or 0x7F <= ord(char) < 0xA0})
        if controls:
            problems.append(f"{stream} line {number} holds {''.join(controls)!a}: {line[:100]!a}")
        bidi = sorted({char for char in line if char in _BIDI})
        if bidi and not json_output:
            problems.append(f"{stream} line {number} holds bidi controls {''.join(bidi)!a}: {line[:100]!a}")
    return problems


def run_problems(result: subprocess.CompletedProcess[bytes], *, json_output: bool = False) -> list[str]:
    """What any run must never do: crash, hang, print a traceback, exit with an undocumented code, or end a failed
    run without its one ``buildver: error:`` line; with ``json_output``, print anything but one JSON document."""
    problems = []
    err = text(result.stderr)
    if result.returncode == -999:
        problems.append("hangs (no exit within the time limit)")
    if "Traceback (most recent call last)" in err:
        problems.append(f"traceback: {last_line(result.stderr)}")
    if result.returncode == CRASH_EXIT_CODE:
        problems.append(f"crashes (exit 70): {last_line(result.stderr)}")
    elif result.returncode not in DOCUMENTED_EXIT_CODES and result.returncode >= 0:
        problems.append(f"exit {result.returncode}, not a documented code: {last_line(result.stderr)}")
    if result.returncode not in (0, -999) and result.returncode >= 0:
        errors = [line for line in err.splitlines() if line.startswith("buildver: error: ")]
        if (not errors and result.returncode != 1) or len(errors) > 1:
            problems.append(f"exit {result.returncode} with {len(errors)} 'buildver: error:' lines: {err[-300:]!a}")
    if json_output and result.returncode in (0, 1) and result.stdout.strip():
        try:
            json.loads(result.stdout.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            problems.append(f"--json output is not JSON ({exc}): {result.stdout[:120]!r}")
    return problems
