"""What several test modules share: git run with a throwaway identity, the type of the repository fixture, a copy
of this checkout, a command run on a pseudo-terminal, and the runner's reading of ``$GITHUB_OUTPUT``.

Test modules import these from here, never from ``conftest`` (which pytest loads by itself, as a plugin).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

__all__ = [
    "FIXTURES",
    "GIT_IDENTITY",
    "ROOT",
    "SHARED_FIXTURES",
    "GitRepository",
    "copy_checkout",
    "git",
    "read_github_output",
    "run_buildver",
    "run_on_terminal",
]

ROOT = Path(__file__).resolve().parents[1]
"""This checkout."""

SHARED_FIXTURES = ROOT.parent / "shared" / "fixtures" / "uasset"
"""Real Unreal packages beside the project (227 files, never copied into it), when the machine has them."""
FIXTURES = SHARED_FIXTURES
"""The real packages the tests read; the tests that need them skip when the folder is absent (a plain clone)."""

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Build Machine",
    "GIT_AUTHOR_EMAIL": "build@example.com",
    "GIT_COMMITTER_NAME": "Build Machine",
    "GIT_COMMITTER_EMAIL": "build@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *arguments: str) -> str:
    """Run git in ``cwd`` and return its output (the test fails when git does)."""
    result = subprocess.run(
        ["git", *arguments], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_IDENTITY}
    )
    return result.stdout.strip()


GitRepository = Callable[..., Path]


def run_buildver(
    cwd: Path, *arguments: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m buildver ARGUMENTS`` in ``cwd`` (the installed buildver), its output as text; a run that hangs
    fails the test after ``timeout`` seconds instead of stopping the suite."""
    return subprocess.run(
        [sys.executable, "-m", "buildver", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def copy_checkout(target: Path) -> None:
    """Copy this checkout as it is now (committed or not, untracked files too, ignored files left out) into
    ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in sorted({os.fsdecode(entry) for entry in listed.split(b"\0") if entry}):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / name)


def run_on_terminal(
    command: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, bytes]:
    """Run ``command`` with a pseudo-terminal as its stdin, stdout and stderr: its exit code and all it showed."""
    controller, terminal = os.openpty()
    try:
        try:
            process = subprocess.Popen(command, stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=cwd)
        finally:
            os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the last holder of the terminal has gone and everything was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    return process.wait(timeout=60), shown


def read_github_output(text: str) -> dict[str, str]:
    """Parse the GITHUB_OUTPUT format as the Actions runner does: ``name=value`` or ``name<<DELIMITER``."""
    outputs: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value_lines = []
            for value_line in lines:
                if value_line == delimiter:
                    break
                value_lines.append(value_line)
            outputs[name] = "\n".join(value_lines)
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


BUILDVER = str(Path(sys.executable).parent / "buildver")
COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "TERM")


def environment(settings: dict[str, str]) -> dict[str, str]:
    clean = {name: value for name, value in os.environ.items() if name not in COLOUR_VARIABLES}
    return {**clean, "TERM": "xterm", **settings}


def on_terminal(argv: list[str], settings: dict[str, str], cwd: Path | None = None) -> tuple[int, str]:
    """Run buildver with a pseudo-terminal as stdout and stderr: the exit code and everything it showed."""
    code, shown = run_on_terminal([BUILDVER, *argv], env=environment(settings), cwd=cwd)
    return code, shown.decode("utf-8").replace("\r\n", "\n")


EPIC_532_VERSION = (
    '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 29314046,\n'
    '\t"CompatibleChangelist": 27405482,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 1,\n'
    '\t"BranchName": "++UE5+Release-5.3"\n}'
)
"""Epic's 5.3.2 hotfix Build.version, as UBT writes it (tabs, no final newline)."""


def install_launcher_engine(
    machine: Path, monkeypatch: pytest.MonkeyPatch, version_text: str = EPIC_532_VERSION
) -> Path:
    """A launcher install of Unreal 5.3 under ``machine``, listed in the launcher's LauncherInstalled.dat of a
    temporary HOME (Linux and macOS places) and %ProgramData% (Windows), which the environment now points to."""
    engine = machine / "Epic" / "UE_5.3"
    (engine / "Engine" / "Binaries").mkdir(parents=True)
    (engine / "Engine" / "Build").mkdir(parents=True)
    (engine / "Engine" / "Build" / "Build.version").write_text(version_text)
    listing = json.dumps({"InstallationList": [{"InstallLocation": str(engine), "AppName": "UE_5.3"}]})
    for settings in (
        machine / "home" / ".config" / "Epic",
        machine / "home" / "Library" / "Application Support" / "Epic",
        machine / "ProgramData" / "Epic",
    ):
        (settings / "UnrealEngineLauncher").mkdir(parents=True)
        (settings / "UnrealEngineLauncher" / "LauncherInstalled.dat").write_text(listing)
    monkeypatch.setenv("HOME", str(machine / "home"))
    monkeypatch.setenv("PROGRAMDATA", str(machine / "ProgramData"))
    return engine


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the buildver command line in this process: its exit code, stdout and stderr."""
    from buildver.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def fixture_rows() -> list[dict[str, str]]:
    """The rows of ``FIXTURES``' MANIFEST.tsv (one per real package), or none when it is absent."""
    import csv

    manifest = FIXTURES / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def real_samples(per_format: int = 1) -> list[tuple[str, bytes]]:
    """Up to ``per_format`` real packages for each (LegacyFileVersion, FileVersionUE4, FileVersionUE5), as
    (path, bytes); a file whose size is not the listed one (replaced on a shared machine) is left out."""
    samples: list[tuple[str, bytes]] = []
    taken: dict[tuple[str, str, str], int] = {}
    for row in fixture_rows():
        key = (row["LegacyFileVersion"], row["FileVersionUE4"], row["FileVersionUE5"])
        path = FIXTURES / row["path"]
        if taken.get(key, 0) >= per_format or not path.is_file() or path.stat().st_size != int(row["size"]):
            continue
        taken[key] = taken.get(key, 0) + 1
        samples.append((row["path"], path.read_bytes()))
    return samples


# -- real system-call failures, injected by strace ------------------------------------------------------------
# A failure buildver's code cannot cause by itself (a rename failing half-way, a file unreadable to root) is made by
# the kernel: strace fails the chosen system call of the real process (-e inject). Python writes no bytecode in
# these runs, so that the calls counted in a first run are the same in the second.

NO_BYTECODE = {"PYTHONDONTWRITEBYTECODE": "1"}


def default_ctrl_c() -> None:
    """A ``preexec_fn``: a shell starts background jobs (CI scripts run with ``&``) with SIGINT ignored, every child
    inherits that, buildver too (Python keeps an ignored SIGINT ignored); give the child the default, as a
    terminal's Ctrl-C finds it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _strace_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "strace's fault injection exists only on Linux"
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace)"
    probe = subprocess.run(
        ["strace", "-o", os.devnull, "-e", "inject=openat:error=EACCES:when=1000", "true"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"strace cannot trace here (ptrace refused?): {probe.stderr.decode(errors='replace').strip()}"
    return None


STRACE_REASON = _strace_reason()
"""Why strace cannot inject failures on this machine, or None when it can."""
needs_strace = pytest.mark.skipif(STRACE_REASON is not None, reason=STRACE_REASON or "")


def syscall_ordinal(command: Sequence[str], cwd: Path, syscalls: str, path: str | Path) -> int:
    """The 1-based number, among the ``syscalls`` (``rename,renameat,renameat2``) of ``command`` run in ``cwd``, of
    the first one whose last path argument is ``path`` (relative to ``cwd``, or absolute)."""
    log = cwd.parent / f"{cwd.name}.strace"
    subprocess.run(
        ["strace", "-f", "-qq", "-s", "4096", "-e", "signal=none", "-e", f"trace={syscalls}", "-o", str(log), *command],
        cwd=cwd,
        capture_output=True,
        check=True,
        env={**os.environ, **NO_BYTECODE},
    )
    lines = log.read_text().splitlines()
    log.unlink()
    # The program may name the file relative to its folder or not: compare the absolute paths.
    wanted = os.path.normpath(os.path.join(cwd, path))
    last_paths = [
        os.path.normpath(os.path.join(cwd, quoted[-1]))
        if (quoted := re.findall(r'"((?:[^"\\]|\\.)*)"', line))
        else None
        for line in lines
    ]
    assert wanted in last_paths, f"no {syscalls} call names {wanted}: {lines}"
    return last_paths.index(wanted) + 1


def run_with_failed_syscall(
    command: Sequence[str],
    cwd: Path,
    syscalls: str,
    error: str,
    *,
    when: int | None = None,
    path: Path | None = None,
    env: dict[str, str] | None = None,
    signal: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with a system call failing with ``error`` (``EROFS``): the ``when``-th of ``syscalls``, or
    every one that names the absolute ``path`` (``strace -P``); with ``signal`` (``KILL``), the process also gets
    that signal there, as a power cut or ``kill -9`` would stop it."""
    inject = f"inject={syscalls}:error={error}" + ("" if signal is None else f":signal={signal}")
    inject += "" if when is None else f":when={when}"
    only = [] if path is None else ["-P", str(path)]
    return subprocess.run(
        ["strace", "-f", "-qq", "-o", os.devnull, *only, "-e", f"trace={syscalls}", "-e", inject, *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**(os.environ if env is None else env), **NO_BYTECODE},
    )
