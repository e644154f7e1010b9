"""Hostile names on every printed line of every command (issue 30's second demand).

Each hostile text (a line break then a workflow command, ``::add-mask::`` at a line's start, escape sequences,
bytes that are not UTF-8, bidi controls, a leading ``-``) is put in one place a command reads: the folders above
the game, the ``.uproject``'s name, the primary module's name, ini values, Build.version's strings, the branch (every
variable buildver reads one from, ``--branch``, git's branch), the machine's engine lists, package and document
names, and the command line's arguments. Then every command runs there, and:

- no line of stdout or stderr starts a GitHub workflow command (``::`` after leading blanks) or holds a control
  character (but tab), a bidi control or a byte that is not UTF-8;
- ``--json`` prints one JSON document (UTF-8, names that are not UTF-8 escaped);
- ``$GITHUB_OUTPUT`` gets only ``name=value`` lines (or a heredoc whose delimiter no value holds);
- no traceback, exit 70, undocumented exit code or hang.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import worlds
from .common import BUILDVER, ROOT, Options, Suite, environment, git, run, run_problems, text, unsafe_lines
from .worlds import World

HOSTILE = {
    "line-break": "x\n::warning title=owned::hostile",
    "add-mask": "::add-mask::secret",
    "old-form-command": "a ##[add-mask]secret",
    "escape": "\x1b]0;owned\x07\x1b[2J\x1b[31mred",
    "not-utf8": os.fsdecode(b"bad\xff\xfename"),
    "bidi": "abc\u202eexe.txt",
    "dash": "-rf",
    "carriage-return": "ok\r::error::hostile",
    "c1-controls": "csi\x9b2J\x7fdel",
}
QUICK_HOSTILE = ("line-break", "add-mask", "not-utf8")


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string (control characters escaped); lone surrogates cannot be written."""
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Place:
    """A world with the hostile text put somewhere; the extra environments and arguments its commands take."""

    world: World
    package: Path | None = None
    document: Path | None = None
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    """Environments (``name: variables``) that update-local also runs with (the branch's sources)."""
    arguments: list[list[str]] = field(default_factory=list)


def _stage_all(world: World) -> None:
    """Stage a Build.version whose Changelist went backwards and every file: the guard has findings to print."""
    version = world.cwd / "Build" / "Build.version"
    if version.is_file():
        version.write_bytes(version.read_bytes().replace(b'"Changelist": 0', b'"Changelist": 7'))
        git(world.cwd, "add", "--all")
        git(world.cwd, "commit", "--quiet", "--no-verify", "-m", "seven")
        version.write_bytes(version.read_bytes().replace(b'"Changelist": 7', b'"Changelist": 3'))
    git(world.cwd, "add", "--all")


def folder(root: Path, hostile: str) -> Place:
    world = worlds.launcher_game(root / hostile)
    return Place(World("folder", root, world.cwd, world.home))


def project(root: Path, hostile: str) -> Place:
    world = worlds.launcher_game(root, name=hostile)
    return Place(World("project", root, world.cwd, world.home))


def module(root: Path, hostile: str) -> Place:
    """A bare game whose primary module is the hostile name: ``init`` writes the header's path into the settings."""
    world = worlds.bare_game(root)
    descriptor = next(world.cwd.glob("*.uproject"))
    data = json.loads(descriptor.read_text())
    data["Modules"][0]["Name"] = hostile
    descriptor.write_text(json.dumps(data))
    (world.cwd / "Source" / hostile).mkdir(parents=True)
    return Place(World("module", root, world.cwd, world.home), arguments=[["init", "--version", "1.0.0"]])


def ini(root: Path, hostile: str) -> Place:
    world = worlds.launcher_game(root)
    raw = os.fsencode(hostile)
    for relative, old in (
        ("Config/DefaultGame.ini", b"ProjectVersion=1.0.3.0"),
        ("Config/DefaultEngine.ini", b"VersionDisplayName=1.0"),
        ("Config/DefaultEngine.ini", b"StoreVersion=3"),
    ):
        path = world.cwd / relative
        data = path.read_bytes()
        assert old in data, (relative, old)
        path.write_bytes(data.replace(old, old.split(b"=")[0] + b"=" + raw))
    return Place(World("ini", root, world.cwd, world.home))


def build_version(root: Path, hostile: str) -> Place:
    """Build.version's strings (BranchName, BuildVersion, BuildId) hold the hostile text, escaped as JSON."""
    world = worlds.launcher_game(root)
    version = world.cwd / "Build" / "Build.version"
    escaped = json.dumps(hostile)
    data = version.read_text().replace('"BranchName": ""', f'"BranchName": {escaped},\n\t"BuildVersion": {escaped}')
    version.write_text(data.replace("\n}", f',\n\t"BuildId": {escaped}\n}}'))
    return Place(World("build-version", root, world.cwd, world.home))


def build_version_raw(root: Path, hostile: str) -> Place:
    """The same strings, raw in the file (not valid JSON where they hold control characters or other bytes)."""
    world = worlds.launcher_game(root)
    version = world.cwd / "Build" / "Build.version"
    data = version.read_bytes().replace(b'"BranchName": ""', b'"BranchName": "' + os.fsencode(hostile) + b'"')
    version.write_bytes(data)
    return Place(World("build-version-raw", root, world.cwd, world.home))


BRANCH_VARIABLES = {
    "github": {"GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "{}"},
    "github-head": {"GITHUB_ACTIONS": "true", "GITHUB_HEAD_REF": "{}"},
    "gitlab": {"GITLAB_CI": "true", "CI_COMMIT_REF_NAME": "{}"},
    "azure": {"TF_BUILD": "True", "BUILD_SOURCEBRANCH": "refs/heads/{}"},
    "jenkins": {"JENKINS_URL": "http://ci", "BRANCH_NAME": "{}"},
    "uebp-escaped": {"uebp_BuildRoot_Escaped": "{}"},
    "uebp-p4": {"uebp_BuildRoot_P4": "//depot/{}"},
    "uebp-cl": {"uebp_CL": "{}"},
    "uebp-code-cl": {"uebp_CodeCL": "{}", "uebp_CL": "5"},
}


def branch(root: Path, hostile: str) -> Place:
    """The branch from every variable buildver reads one from, from ``--branch``, and from git's branch."""
    world = worlds.launcher_game(root)
    variants: dict[str, dict[str, str]] = {"git": {}}
    try:
        git(world.cwd, "checkout", "--quiet", "-b", hostile)
    except RuntimeError:
        variants = {}  # git refuses the name as a branch
    for name, variables in BRANCH_VARIABLES.items():
        variants[name] = {key: value.format(hostile) for key, value in variables.items()}
    return Place(
        World("branch", root, world.cwd, world.home),
        variants=variants,
        arguments=[["update-local", "--cl", "5", "--branch", hostile]],
    )


def engine_lists(root: Path, hostile: str) -> Place:
    """The machine's lists: a launcher entry and an Install.ini key named with the hostile text, each engine in a
    folder named with it; the game names the registered one."""
    home = root / "home"
    launcher = worlds.engine(root / f"Epic {hostile}" / "UE_5.3")
    source = worlds.engine(root / f"Source {hostile}")
    listing = [
        {"InstallLocation": str(launcher), "AppName": hostile},
        {"InstallLocation": str(launcher), "AppName": "UE_5.3"},
    ]
    worlds.write(
        home / ".config/Epic/UnrealEngineLauncher/LauncherInstalled.dat", json.dumps({"InstallationList": listing})
    )
    worlds.write(home / ".config/Epic/UnrealEngine/Install.ini", os.fsencode(f"[Installations]\n{hostile}={source}\n"))
    new = worlds.engine(root / f"New {hostile}")
    folder = worlds.game(root / "Game", association=hostile)
    worlds.commit(folder)
    world = World("engine-lists", root, folder, home)
    return Place(
        world,
        arguments=[
            ["engine", "register", "--dry-run", str(new)],
            ["engine", "register", str(new)],
            ["engine", "switch", "--dry-run", "5.3"],
            ["engine", "switch", "--dry-run", "--force", hostile],
        ],
    )


def files(root: Path, hostile: str) -> Place:
    """A package and a document named with the hostile text, in a folder named with it too."""
    world = worlds.launcher_game(root)
    content = world.cwd / "Content" / hostile
    content.mkdir(parents=True)
    package = content / f"{hostile}.uasset"
    package.write_bytes(b"not a package at all")
    documents = world.cwd / "Data" / hostile
    documents.mkdir(parents=True)
    document = documents / f"{hostile}.json"
    shutil.copy(ROOT / "examples" / "data" / "rock.json", document)
    return Place(World("files", root, world.cwd, world.home), package=package, document=document)


def arguments(root: Path, hostile: str) -> Place:
    """The hostile text as the value of every option and argument that takes one."""
    world = worlds.launcher_game(root)
    return Place(
        World("arguments", root, world.cwd, world.home),
        arguments=[
            ["compare", hostile, "1.0.0"],
            ["compare", "--json", "1.0.0", hostile],
            ["compatible", hostile, "1.0.0"],
            ["show", "--field", hostile],
            ["show", "-f", hostile],
            ["show", "--format", hostile],
            ["update-local", "--file", hostile],
            ["update-local", "--cl", hostile],
            ["update-local", "--build", hostile, "--dry-run", "--cl", "5", "--branch", "x"],
            ["update-local", "--header", hostile, "--dry-run", "--cl", "5", "--branch", "x"],
            ["update-local", "--rules", hostile],
            ["update-local", "--env", f"uebp_CL={hostile}"],
            ["update-local", "--env", hostile],
            ["update-local", f"-Branch={hostile}", "--cl", "5", "--dry-run"],
            ["update-local", "--build-id", hostile, "--cl", "5", "--branch", "x", "--dry-run"],
            ["header", "--header", hostile, "--check"],
            ["init", "--file", hostile],
            ["engine", hostile],
            ["engine", "--json", hostile],
            ["engine", "register", hostile],
            ["engine", "switch", hostile, "5.3"],
            ["project", "check", hostile],
            ["project", "check", "--against", hostile],
            ["assets", "scan", hostile],
            ["assets", "scan", "--json", "--against", hostile, "."],
            ["data", "inspect", hostile],
            ["data", "upgrade", "--schema", hostile, "x.json"],
            ["guard", "--", hostile],
            [hostile],
        ],
    )


PLACES: dict[str, Callable[[Path, str], Place]] = {
    "folder": folder,
    "project": project,
    "module": module,
    "ini": ini,
    "build-version": build_version,
    "build-version-raw": build_version_raw,
    "branch": branch,
    "engine-lists": engine_lists,
    "files": files,
    "arguments": arguments,
}
QUICK_PLACES = ("folder", "ini", "branch", "files")
COMMON = [
    ["show"],
    ["show", "--json"],
    ["show", "--format", "env"],
    ["update-local", "--cl", "9", "--dry-run"],
    ["update-local", "--cl", "9", "--json", "--dry-run"],
    ["header", "--check"],
    ["engine"],
    ["engine", "--json"],
    ["engines"],
    ["engines", "--json"],
    ["project", "check"],
    ["project", "check", "--json"],
    ["assets", "scan", "."],
    ["assets", "scan", "--json", "."],
    ["update-local", "--cl", "9"],
    ["update-local", "--cl", "10", "--json"],
    ["header"],
]


STAMPS = [["update-local", "--dry-run"], ["update-local", "--json"], ["update-local"]]


def commands(place: Place) -> list[list[str]]:
    found = [*place.arguments, *COMMON]
    if place.document is not None:
        schema = str(ROOT / "examples" / "asset_schema.py") + ":SCHEMA"
        found += [
            ["data", "inspect", str(place.document)],
            ["data", "inspect", "--json", str(place.document)],
            ["data", "upgrade", "--schema", schema, "--dry-run", str(place.document)],
            ["data", "upgrade", "--schema", schema, str(place.document)],
        ]
    if place.package is not None:
        found += [["assets", "scan", str(place.package)], ["assets", "scan", "--json", str(place.package)]]
    return [*found, ["guard"]]


def github_output_problems(path: Path) -> list[str]:
    """``$GITHUB_OUTPUT`` must hold only ``name=value`` lines, or ``name<<DELIMITER`` heredocs."""
    if not path.exists():
        return []
    lines = path.read_bytes().decode("utf-8", errors="surrogateescape").split("\n")
    problems = []
    delimiter = None
    for line in lines[:-1] if lines and lines[-1] == "" else lines:
        if delimiter is not None:
            if line == delimiter:
                delimiter = None
            continue
        if "<<" in line and "=" not in line.split("<<")[0]:
            delimiter = line.split("<<", 1)[1]
        elif "=" not in line or not line.split("=", 1)[0].isidentifier():
            problems.append(f"GITHUB_OUTPUT line {line[:80]!a} is not name=value")
    return problems


def one_run(place: Place, variables: dict[str, str], command: list[str]) -> tuple[list[str], str]:
    """Run one command in the place; its problems, and what it printed (for -v)."""
    output = place.world.root / "github-output"
    output.unlink(missing_ok=True)
    env = environment(place.world.home, {**variables, "GITHUB_OUTPUT": str(output)})
    result = run([*BUILDVER, *command], place.world.cwd, env, timeout=60)
    json_output = "--json" in command or "json" in command
    problems = run_problems(result, json_output=json_output)
    problems += unsafe_lines(result.stdout, "stdout", json_output=json_output) + unsafe_lines(result.stderr, "stderr")
    problems += github_output_problems(output)
    return problems, f"exit {result.returncode}\n{text(result.stdout)[-500:]}{text(result.stderr)[-500:]}"


def attack(options: Options, suite: Suite, use_strace: bool) -> None:
    hostiles = {name: HOSTILE[name] for name in (QUICK_HOSTILE if options.quick else HOSTILE)}
    places = {name: PLACES[name] for name in (QUICK_PLACES if options.quick else PLACES)}
    for place_name, make in places.items():
        ran = 0
        for hostile_name, hostile in hostiles.items():
            case = f"{place_name}={hostile_name}"
            if not options.wants(f"names:{case}"):
                continue
            root = options.work / "names" / case
            shutil.rmtree(root, ignore_errors=True)
            try:
                place = make(root, hostile)
                _stage_all(place.world)
            except (OSError, RuntimeError, ValueError) as exc:
                print(f"  names {case}: cannot be made here ({exc})")
                continue
            runs: list[tuple[str, dict[str, str], list[str]]] = [("", {}, command) for command in commands(place)]
            runs += [(name, variables, command) for name, variables in place.variants.items() for command in STAMPS]
            for variant, variables, command in runs:
                problems, shown = one_run(place, variables, command)
                label = f"{case}{'/' + variant if variant else ''} buildver {ascii(' '.join(command))[1:-1]}"
                suite.check(label, problems)
                ran += 1
                if options.verbose:
                    print(f"  {label}: {shown if problems else 'ok'}", flush=True)
            shutil.rmtree(root, ignore_errors=True)
        print(f"  names {place_name}: {ran} runs", flush=True)
