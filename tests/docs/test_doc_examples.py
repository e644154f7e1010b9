"""The docs' examples, run again: what README.md and docs/*.md show a command print is what it prints.

A ``console`` or ``pycon`` block preceded by ``<!-- example: tree=NAME [root=PATH] -->`` is an example. Its tree is
built in a temporary folder from files of this repository (``TREES`` below), and each ``$ buildver ...`` line runs
there, one after the other, as ``python -m buildver ...`` with a clean environment; stdout and stderr, as a terminal
shows them, must be the lines below it. ``; echo "exit $?"`` after a command shows its exit code, ``$ cat FILE``
a file the commands before it wrote, and ``root=PATH`` the folder the page's absolute paths name. A ``pycon``
block runs as a doctest in its tree. Any other ``console`` or ``pycon`` block says in ``<!-- not run: ... -->``
why it is not run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import helpers
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATA = ROOT / "tests" / "data"
FIXTURES = helpers.FIXTURES  # the shared real packages (skipped where absent)
"""Real Unreal packages beside the checkout, never copied into it; the examples over them skip without it."""

MARK = re.compile(r"^<!-- (?P<kind>example|not run): ?(?P<attributes>.*?) -->$")
BLOCK = re.compile(
    r"^(?P<fence>```+)(?P<language>console|pycon|python)\n(?P<body>.*?)^(?P=fence)$", re.MULTILINE | re.DOTALL
)
EXIT_CODE = '; echo "exit $?"'

# Variables through which a build system or CI changes what buildver does (the changelist and branch sources,
# $GITHUB_OUTPUT, git's own, colour): none reaches an example. Compared in upper case, as Windows does.
DROPPED_PREFIXES = (
    "GITHUB_",
    "CI",
    "UEBP_",
    "BUILD_",
    "P4",
    "JENKINS_",
    "TEAMCITY",
    "GITLAB_",
    "TF_BUILD",
    "SYSTEM_PULLREQUEST",
    "CHANGE_",
    "BRANCH_NAME",
    "GIT_",
    "FORCE_COLOR",
    "NO_COLOR",
)
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Build Machine",
    "GIT_AUTHOR_EMAIL": "build@example.com",
    "GIT_COMMITTER_NAME": "Build Machine",
    "GIT_COMMITTER_EMAIL": "build@example.com",
}


@dataclass(frozen=True)
class Example:
    """One marked block: where it is, the tree it runs in, and what it shows."""

    page: str
    line: int
    language: str
    tree: str
    root: str | None
    body: str

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[tuple[int, str, str, re.Match[str] | None]]:
    """Every ``console``, ``pycon`` and ``python`` block of a page: its line, language, text, and the comment above it
    (only ``console`` and ``pycon`` blocks can be run; a ``python`` block says why it is not)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for block in BLOCK.finditer(text):
        line = text.count("\n", 0, block.start()) + 1
        above = text[: block.start()].rstrip("\n").rpartition("\n")[2]
        found.append((line, block["language"], block["body"], MARK.match(above)))
    return found


def examples() -> list[Example]:
    found = []
    for path in PAGES:
        for line, language, body, mark in blocks(path):
            if mark is not None and mark["kind"] == "example":
                attributes = dict(item.split("=", 1) for item in mark["attributes"].split())
                page = path.relative_to(ROOT).as_posix()
                found.append(Example(page, line, language, attributes["tree"], attributes.get("root"), body))
    return found


# -- The trees the examples run in ----------------------------------------------------------------------------------


def copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8", newline="")


def build_version(major: int, minor: int, patch: int, changelist: int, compatible: int, **more: object) -> str:
    """A Build.version as Unreal 5's writer lays it out (tabs, no final newline)."""
    fields: dict[str, object] = {
        "MajorVersion": major,
        "MinorVersion": minor,
        "PatchVersion": patch,
        "Changelist": changelist,
        "CompatibleChangelist": compatible,
        "IsLicenseeVersion": 0,
        "IsPromotedBuild": 0,
        **more,
    }
    return "{\n" + ",\n".join(f'\t"{key}": {json.dumps(value)}' for key, value in fields.items()) + "\n}"


def engine_4_25(root: Path) -> None:
    """A 4.25.4 engine tree: Engine/Build/Build.version beside Engine/Source/."""
    copy(DATA / "build_version" / "ue4.25.4.version", root / "Engine" / "Build" / "Build.version")
    (root / "Engine" / "Source").mkdir()


def bad_changelist(root: Path) -> None:
    copy(DATA / "malformed" / "build_version" / "negative-changelist.version", root / "Build" / "Build.version")


def bad_config(root: Path) -> None:
    copy(ROOT / "Build" / "Build.version", root / "Build" / "Build.version")
    copy(DATA / "malformed" / "config" / "unknown-key.buildver.toml", root / "buildver.toml")


def guard(root: Path) -> None:
    """A git repository: HEAD has a 5.3.2 Build.version at changelist 1000; staged, 999 with a forced BuildId."""
    environment = {**clean_environment(root.parent / "home"), **GIT_IDENTITY, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*arguments: str) -> None:
        subprocess.run(["git", *arguments], cwd=root, env=environment, check=True, capture_output=True)

    git("init", "--quiet")
    write(root, {"Build/Build.version": build_version(5, 3, 2, 1000, 0, BranchName="++Game+Main")})
    write(root, {"pyproject.toml": "[tool.buildver]\nskip-header = true\n"})
    git("add", "--all")
    git("commit", "--quiet", "-m", "first")
    write(root, {"Build/Build.version": build_version(5, 3, 2, 999, 0, BranchName="++Game+Main", BuildId="forced")})
    git("add", "Build/Build.version")


def game_history(root: Path) -> None:
    """A game's git repository: the game, a code commit, then two content-only ones; fixed dates make fixed hashes."""
    environment = {**clean_environment(root.parent / "home"), **GIT_IDENTITY, "GIT_CONFIG_NOSYSTEM": "1"}

    def commit(message: str, files: dict[str, str], day: int) -> None:
        write(root, files)
        date = f"{1_767_225_600 + day * 86_400} +0000"  # 2026-01-01, then a day a commit
        dated = {**environment, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        subprocess.run(["git", "add", "--all"], cwd=root, env=dated, check=True, capture_output=True)
        subprocess.run(
            ["git", "commit", "--quiet", "-m", message], cwd=root, env=dated, check=True, capture_output=True
        )

    subprocess.run(["git", "init", "--quiet", "--initial-branch=main"], cwd=root, env=environment, check=True)
    settings = 'skip-header = true\nrepository-name = "Game"\ncompatible-changelist = "last-code-change"\n'
    game = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3"\n}'
    version = build_version(1, 2, 0, 0, 0, BranchName="")
    commit("The game", {"Game.uproject": game, "Build/Build.version": version, "buildver.toml": settings}, 0)
    commit("Hero: double jump", {"Source/Game/Hero.cpp": "void Jump() {}\n"}, 1)
    commit("Arena: lighting", {"Content/Maps/Arena.umap": "arena"}, 2)
    commit("Rifle: new material", {"Content/Weapons/Rifle.uasset": "rifle"}, 3)


def packages(root: Path) -> None:
    """A 5.5.4 package and a 5.2.1 one: real packages from the shared fixtures."""
    if not FIXTURES.is_dir():
        pytest.skip(f"the real packages of {FIXTURES} are not on this machine")
    copy(FIXTURES / "uasset-rs" / "UE55" / "SimpleRefs" / "SimpleRefsRoot.uasset", root / "Content" / "Door.uasset")
    copy(FIXTURES / "uasset-rs" / "UE52" / "SimpleRefs" / "SimpleRefsRoot.uasset", root / "Content" / "Rock.uasset")


def odd_packages(root: Path) -> None:
    """One package of each other status, from the malformed corpus."""
    malformed = DATA / "malformed"
    copy(malformed / "package" / "newer-ue5-file-version.bin", root / "Content" / "Statue.uasset")
    copy(malformed / "empty-engine-version.package", root / "Content" / "Lamp.uasset")
    copy(malformed / "package" / "cooked.bin", root / "Content" / "Cooked.uasset")
    copy(malformed / "package" / "text.bin", root / "Content" / "Notes.uasset")
    copy(malformed / "package" / "truncated-24.bin", root / "Content" / "Broken.umap")


def lfs_pointers(root: Path) -> None:
    """A clone of a game whose packages are in Git LFS, made without git lfs pull: a pointer where the package is."""
    oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
    pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 41234\n"
    write(root, {"Content/Door.uasset": pointer, "Content/Rock.uasset": pointer})


def project(root: Path) -> None:
    """An Epic 5.3.2 engine at UE/ beside a game with a 5.3 project, a plugin for 5.2.0 and one for 5.3.0."""

    def plugin(name: str, engine_version: str) -> str:
        return (
            f'{{\n\t"FileVersion": 3,\n\t"Version": 1,\n\t"VersionName": "1.0",\n\t"FriendlyName": "{name}",\n'
            f'\t"EngineVersion": "{engine_version}",\n'
            f'\t"Modules": [{{"Name": "{name}", "Type": "Runtime", "LoadingPhase": "Default"}}]\n}}'
        )

    write(
        root,
        {
            "UE/Engine/Build/Build.version": build_version(
                5, 3, 2, 29314046, 27405482, IsPromotedBuild=1, BranchName="++UE5+Release-5.3"
            ),
            "UE/Engine/Binaries/Win64/UnrealEditor.modules": '{"BuildId": "27405482", "Modules": {}}',
            "Game/Game.uproject": '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Modules": []\n}',
            "Game/Plugins/Old/Old.uplugin": plugin("Old", "5.2.0"),
            "Game/Plugins/Weather/Weather.uplugin": plugin("Weather", "5.3.0"),
            "Game/Binaries/Win64/UnrealEditor.modules": '{"BuildId": "27405482", "Modules": {}}',
        },
    )
    (root / "UE" / "Engine" / "Source").mkdir()


def release_game(root: Path) -> None:
    """A game repository after ``buildver init --version 1.4.2``: TankFire's real config files (ProjectVersion
    1.0.3.0, StoreVersion 3), a ``.uproject``, its Build.version, its header and the ProjectVersion template."""
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", root / "Config")
    write(
        root,
        {
            "TankFire.uproject": '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Modules": []\n}',
            "Build/Build.version": build_version(1, 4, 2, 0, 0, BranchName=""),
            "buildver.toml": (
                'version-file = "Build/Build.version"\nproject-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n'
            ),
        },
    )
    environment = {**clean_environment(root.parent / "home"), **GIT_IDENTITY, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(
        [sys.executable, "-m", "buildver", "header"], cwd=root, env=environment, check=True, capture_output=True
    )
    for arguments in (["init", "--quiet"], ["add", "--all"], ["commit", "--quiet", "-m", "TankFire 1.4.2"]):
        subprocess.run(["git", *arguments], cwd=root, env=environment, check=True, capture_output=True)


def plugin_repository(root: Path) -> None:
    """The UXTools plugin's own repository at its real 0.11.0 release (Version 4)."""
    copy(DATA / "plugins" / "uxtools" / "release-0.12.0" / "before.uplugin", root / "UXTools.uplugin")


def engine_5_3(root: Path) -> None:
    """A 5.3.2 engine tree: Epic's Build.version values, and a Version.h in 5.3's shape."""
    template = (DATA / "engine" / "Version-5.3.h.template").read_text()
    write(
        root,
        {
            "Engine/Build/Build.version": build_version(
                5, 3, 2, 0, 27405482, IsPromotedBuild=1, BranchName="++UE5+Release-5.3"
            ),
            "Engine/Source/Runtime/Launch/Resources/Version.h": template.replace("$major", "5")
            .replace("$minor", "3")
            .replace("$patch", "2"),
        },
    )


def data(root: Path) -> None:
    """The worked example's schema and document, and two documents saved by newer code."""
    copy(ROOT / "examples" / "asset_schema.py", root / "examples" / "asset_schema.py")
    copy(ROOT / "examples" / "data" / "rock.json", root / "examples" / "data" / "rock.json")
    copy(DATA / "malformed" / "document" / "newer-engine.json", root / "props" / "crate.json")
    copy(DATA / "malformed" / "document" / "newer-custom.json", root / "props" / "lamp.json")


TREES: dict[str, Callable[[Path], None]] = {
    "empty": lambda root: None,
    "engine-4.25": engine_4_25,
    "bad-changelist": bad_changelist,
    "bad-config": bad_config,
    "guard": guard,
    "game-history": game_history,
    "packages": packages,
    "odd-packages": odd_packages,
    "lfs-pointers": lfs_pointers,
    "project": project,
    "data": data,
    "release-game": release_game,
    "plugin-repository": plugin_repository,
    "engine-5.3": engine_5_3,
}


# -- Running an example ---------------------------------------------------------------------------------------------


def clean_environment(home: Path) -> dict[str, str]:
    """This process's environment without CI, build-system, git and colour variables, as a plain terminal has it."""
    kept = {name: value for name, value in os.environ.items() if not name.upper().startswith(DROPPED_PREFIXES)}
    home.mkdir(exist_ok=True)
    return {
        **kept,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "NO_COLOR": "1",
        "TERM": "dumb",
        "COLUMNS": "120",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr reach the one pipe in the order they were written
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUTF8": "1",
    }


def shown(output: str, tree: Path, root: str | None) -> str:
    """``output`` with the tree's folder spelled as the page spells it (``root``)."""
    if root is not None:
        for spelling in {str(tree.resolve()), str(tree)}:
            output = output.replace(spelling, root)
    return output


def separators(text: str) -> str:
    """On Windows, ``/`` for every path separator (``\\``, or ``\\\\`` in JSON) of a transcript; elsewhere the text."""
    return re.sub(r"\\\\|\\", "/", text) if os.name == "nt" else text


def run_console(example: Example, tree: Path, environment: dict[str, str]) -> str:
    """The transcript of the example's commands run in ``tree``, laid out as the block lays it out."""
    transcript = []
    for line in example.body.splitlines():
        if not line.startswith("$ "):
            continue
        command = line[2:]
        transcript.append(line + "\n")
        show_exit = command.endswith(EXIT_CODE)
        argv = shlex.split(command.removesuffix(EXIT_CODE))
        if argv[:1] == ["cat"] and len(argv) == 2:
            text = (tree / argv[1]).read_text(encoding="utf-8")
            transcript.append(text if text.endswith("\n") else text + "\n")  # the prompt starts a line of its own
            continue
        if argv[:1] != ["buildver"]:
            pytest.fail(f"{example.name}: an example runs buildver or cat, not {command!r}")
        result = subprocess.run(
            [sys.executable, "-m", "buildver", *argv[1:]],
            cwd=tree,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            encoding="utf-8",
            check=False,
            timeout=60,
        )
        transcript.append(shown(result.stdout, tree, example.root))
        if show_exit:
            transcript.append(f"exit {result.returncode}\n")
    return "".join(transcript)


DOCTEST = """
import doctest, sys
test = doctest.DocTestParser().get_doctest(sys.stdin.read(), {}, sys.argv[1], sys.argv[1], 0)
runner = doctest.DocTestRunner()
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


@pytest.mark.parametrize("example", examples(), ids=lambda example: example.name)
def test_the_example_prints_what_the_page_shows(example: Example, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    TREES[example.tree](tree)
    environment = clean_environment(tmp_path / "home")
    if example.language == "console":
        # Paths print in the platform's own form; the pages show POSIX ones.
        assert separators(run_console(example, tree, environment)) == separators(example.body)
    else:
        result = subprocess.run(
            [sys.executable, "-c", DOCTEST, example.name],
            input=example.body,
            cwd=tree,
            env=environment,
            capture_output=True,
            encoding="utf-8",
            check=False,
            timeout=60,
        )
        if result.returncode != 0:
            pytest.fail(result.stdout + result.stderr, pytrace=False)


def test_the_pages_hold_examples_of_every_tree() -> None:
    assert {example.tree for example in examples()} == set(TREES)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_console_and_pycon_block_is_run_or_says_why_not(page: Path) -> None:
    unmarked = [line for line, _, _, mark in blocks(page) if mark is None]
    assert unmarked == [], "mark each with <!-- example: tree=NAME --> or <!-- not run: why -->"


def readme_copies() -> list[str]:
    """What the README repeats from the docs: its YAML configurations and its tables of rules and checks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    configurations = re.findall(r"^```yaml\n.*?^```$", readme, re.MULTILINE | re.DOTALL)
    tables = re.findall(r"^\| (?:rule|key) \|.*?\n(?!\|)", readme, re.MULTILINE | re.DOTALL)
    return configurations + tables


def test_the_readmes_configurations_and_tables_are_those_of_the_docs() -> None:
    docs = "\n".join(path.read_text(encoding="utf-8") for path in PAGES[1:])
    copies = readme_copies()
    assert copies
    assert [copy for copy in copies if copy not in docs] == []
