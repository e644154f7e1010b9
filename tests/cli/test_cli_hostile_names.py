"""Issue 30, items 7 and 8: every command run in a folder whose name is hostile.

A folder named ``game<LF>::warning title=x::...<ESC>[31m``: no printed line may start with ``::`` (GitHub Actions
runs such a line as a workflow command: ``::add-mask::``, ``::stop-commands::``) or hold a raw control character
(an escape sequence drives the terminal). A folder whose name is not UTF-8: every ``--json`` document is still
UTF-8 JSON, and the name's bytes come back from it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import BUILDVER, GIT_IDENTITY, git

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="line breaks and escapes are not allowed in Windows names"),
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

DATA = Path(__file__).parents[1] / "data"
REPOSITORY = Path(__file__).parents[2]
UE503 = (DATA / "build_version" / "ue5.0.3.version").read_bytes()
HOSTILE = "game\n::warning title=x::owned\x1b[31m\r::add-mask::x ##[stop-commands]token"
SCHEMA = f"{REPOSITORY / 'examples' / 'asset_schema.py'}:SCHEMA"
ROCK = REPOSITORY / "examples" / "data" / "rock.json"


def buildver(cwd: Path | bytes, *arguments: str) -> subprocess.CompletedProcess[bytes]:
    environment = {name: value for name, value in os.environ.items() if name not in ("FORCE_COLOR", "NO_COLOR")}
    return subprocess.run(
        [BUILDVER, *arguments], cwd=cwd, capture_output=True, env={**environment, **GIT_IDENTITY}, timeout=60
    )


def bad_lines(output: bytes) -> list[str]:
    text = output.decode("utf-8")  # strict: every line buildver prints is UTF-8
    return [
        line
        for line in text.split("\n")
        # GitHub Actions reads a workflow command after leading blanks too (the runner trims the line first). A tab
        # is file content in a diff (Build.version is indented with tabs): it moves nothing but the cursor; so is
        # the CR of a CRLF file's line end.
        if line.lstrip().startswith("::")
        or "##[" in line  # the runner's older form of a command, read anywhere in a line (ActionCommand.TryParse)
        or any(unicodedata.category(char) == "Cc" and char != "\t" for char in line.removesuffix("\r"))
    ]


def test_no_command_prints_a_hostile_folder_name_raw(tmp_path: Path) -> None:
    root = tmp_path / HOSTILE
    (root / "Build").mkdir(parents=True)
    (root / "Build" / "Build.version").write_bytes(UE503)
    git(root, "init", "--quiet")
    (root / "Content").mkdir()
    (root / "Content" / "Bad.uasset").write_bytes(b"not a package")
    shutil.copyfile(ROCK, root / "rock.json")
    shutil.copyfile(ROCK, root / "stone.json")
    empty = tmp_path / f"{HOSTILE}-new"
    empty.mkdir()
    plugin = tmp_path / f"{HOSTILE}-plugin"
    plugin.mkdir()
    (plugin / f"{HOSTILE}.uplugin").write_text('{"FileVersion": 3, "Version": 1, "VersionName": "1.0"}')
    git(plugin, "init", "--quiet")
    runs = [
        (root, ["update-local", "--cl", "5", "--branch", "++Game+Main"]),
        (root, ["update-local", "--cl", "6", "--dry-run"]),
        # Without --branch the branch comes from the folder's name, whose line break is refused (one escaped line).
        (root, ["update-local", "--cl", "6", "--json", "--branch", "++Game+Main"]),
        (root, ["header"]),
        (root, ["show"]),
        (root, ["show", "--json"]),
        (root, ["bump", "patch", "--dry-run"]),
        (root, ["bump", "patch"]),
        (root, ["bump", "patch", "--json"]),
        (root, ["bump", "--set", "1.0.0"]),  # refused: older, the path in the error line
        (plugin, ["bump", "minor"]),
        (plugin, ["show"]),
        (root, ["compare", "1.0.0", "1.0.1"]),
        (root, ["assets", "scan", ".", "--against", "5.3"]),
        (root, ["assets", "scan", ".", "--against", "5.3", "--json"]),
        (root, ["project", "check", "--against", "5.3"]),
        (root, ["engine"]),
        (root, ["data", "inspect", str(root / "rock.json")]),
        (root, ["data", "inspect", "--json", str(root / "rock.json")]),
        (root, ["data", "upgrade", "--schema", SCHEMA, "--dry-run", str(root / "stone.json")]),
        (root, ["data", "upgrade", "--schema", SCHEMA, str(root / "rock.json")]),
        (root, ["data", "upgrade", "--schema", SCHEMA, str(root / "rock.json")]),
        (root, ["guard"]),
        (root, ["init"]),
        (empty, ["init", "--version", "5.3.0"]),
        (root, ["show", "-f", str(root / "missing" / "Build.version")]),
    ]
    header = root / "Build" / "BuildVersion.h"
    seen_paths = 0
    for cwd, arguments in runs:
        if arguments == ["guard"]:
            header.write_text(header.read_text().replace("5", "4"))
            git(root, "add", "--all")
            runs_header_check = buildver(cwd, "header", "--check")
            assert runs_header_check.returncode == 1
            assert bad_lines(runs_header_check.stdout + runs_header_check.stderr) == []
        result = buildver(cwd, *arguments)
        output = result.stdout + result.stderr
        assert b"Traceback" not in output, (arguments, output)
        assert bad_lines(result.stdout) == [], (arguments, result.stdout)
        assert bad_lines(result.stderr) == [], (arguments, result.stderr)
        seen_paths += b"::warning title=x::owned" in output
        if "--json" in arguments:
            json.loads(result.stdout)
    assert seen_paths >= 10  # the paths were printed, escaped


@pytest.mark.parametrize("arguments", [["engine", "--json"], ["assets", "scan", "--json", "--against", "5.3", "."]])
def test_json_is_utf_8_json_when_a_name_is_not_utf_8(tmp_path: Path, arguments: list[str]) -> None:
    """It wrote the name's raw bytes: not UTF-8, and ``json.loads`` refused the document."""
    engine = os.fsencode(tmp_path) + b"/engine\xff\xfe"
    os.makedirs(engine + b"/Engine/Build")
    os.makedirs(engine + b"/Engine/Binaries")
    os.makedirs(engine + b"/Game/Content")
    with open(engine + b"/Engine/Build/Build.version", "wb") as stream:
        stream.write(UE503)
    with open(engine + b"/Game/Game.uproject", "w") as stream:
        stream.write('{"FileVersion": 3, "EngineAssociation": ""}')
    with open(engine + b"/Game/Content/Rock\xe9.uasset", "wb") as stream:
        stream.write(b"not a package")
    result = buildver(engine + b"/Game", *arguments)
    assert result.returncode in (0, 1), result.stderr
    document = json.loads(result.stdout.decode("utf-8"))
    if arguments[0] == "engine":
        assert os.fsencode(document["project"]) == engine + b"/Game/Game.uproject"
        assert b'"engine_root": "' + os.fsencode(tmp_path) + b'/engine\\udcff\\udcfe"' in result.stdout
    else:
        paths = [os.path.normpath(os.fsencode(entry["path"])) for entry in document["packages"]]
        assert paths == [b"Content/Rock\xe9.uasset"]
        assert document["engine"]["version"] == "5.3.0-0"  # --against


@pytest.mark.parametrize("name", ["::add-mask::x", "  ::warning::x", "::"])
def test_a_path_at_the_start_of_a_line_never_starts_a_workflow_command(tmp_path: Path, name: str) -> None:
    """The attack harness (tools/attack, names): a line that begins with a path (``show -f``'s first line, the
    guard's findings) began with ``::add-mask::`` when the path did, which GitHub Actions runs as a command."""
    (tmp_path / name).mkdir()
    (tmp_path / name / "Build.version").write_bytes(UE503)
    relative = f"{name}/Build.version"
    shown = buildver(tmp_path, "show", "-f", relative)
    missing = buildver(tmp_path, "show", "-f", f"{name}/missing/Build.version")
    assert shown.returncode == 0, shown.stderr
    assert missing.returncode == 1, missing.stderr
    first = shown.stdout.decode().splitlines()[0]
    assert first.endswith("\\x3a" + name.lstrip(" ")[1:] + "/Build.version"), first  # the first colon escaped
    for output in (shown.stdout, shown.stderr, missing.stdout, missing.stderr):
        assert bad_lines(output) == [], output


GAME_VERSION = b'{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0\n}'
HOSTILE_INI_LINES = "::add-mask::secret=1\r\nDescription=\x1b]0;owned\x07\x1b[2J\x9b31m\u202eexe\r\n".encode()


@pytest.mark.parametrize(
    "arguments",
    [["update-local", "--cl", "5", "--branch", "++Game+Main", "--dry-run"], ["engine", "register", "--dry-run", "New"]],
    ids=["update-local", "engine register"],
)
def test_a_dry_run_shows_the_lines_of_a_hostile_file_escaped(tmp_path: Path, arguments: list[str]) -> None:
    """The attack harness (tools/attack, names): a --dry-run diff showed the files' own lines as they are, so a
    context line ``::add-mask::secret=...`` of an ini file (a space, then ``::``: GitHub's runner trims the line)
    was a workflow command, and an escape sequence in a line drove the terminal. Tabs and CRLF stay as they are."""
    game = tmp_path / "Game"
    (game / "Config").mkdir(parents=True)
    (game / "Build").mkdir()
    (game / "Build" / "Build.version").write_bytes(GAME_VERSION)
    (game / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": "5.3"}')
    (game / "buildver.toml").write_text('project-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n')
    section = b"[/Script/EngineSettings.GeneralProjectSettings]\r\n"
    (game / "Config" / "DefaultGame.ini").write_bytes(section + HOSTILE_INI_LINES + b"ProjectVersion=1.0.0.0\r\n")
    home = tmp_path / "home"
    settings = home / ".config" / "Epic" / "UnrealEngine"
    settings.mkdir(parents=True)
    (settings / "Install.ini").write_bytes(b"[Installations]\n" + HOSTILE_INI_LINES.replace(b"\r\n", b"\n"))
    for folder in ("Engine/Binaries", "Engine/Build"):
        (game / "New" / folder).mkdir(parents=True)
    environment = {name: value for name, value in os.environ.items() if name not in ("FORCE_COLOR", "NO_COLOR")}
    result = subprocess.run(
        [BUILDVER, *arguments], cwd=game, capture_output=True, env={**environment, "HOME": str(home)}, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert bad_lines(result.stdout) == [], result.stdout
    assert "\u202e" not in result.stdout.decode()
    assert b" \\x3a:add-mask::secret=1" in result.stdout
    assert b"\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eexe" in result.stdout
    if arguments[0] == "update-local":
        assert b'\t"MajorVersion": 1,\n' in result.stdout  # a tab is shown as it is
        assert b"+ProjectVersion=1.4.2.5\r\n" in result.stdout  # so is a CRLF line's end


@pytest.mark.parametrize(
    "arguments",
    [["engine", "--json"], ["show", "--json"], ["assets", "scan", "--json", "--against", "5.3", "."]],
    ids=["engine", "show", "assets scan"],
)
def test_json_escapes_del_and_c1_controls(tmp_path: Path, arguments: list[str]) -> None:
    """The attack harness (tools/attack, names): JSON escapes only C0 controls itself, so a folder holding DEL or a
    C1 control (U+009B is CSI, which a terminal obeys as ESC [) reached the terminal raw from every --json."""
    name = "csi\x9b2J\x7fdel"
    engine = tmp_path / name
    for folder in ("Engine/Build", "Engine/Binaries", "Game/Content"):
        (engine / folder).mkdir(parents=True)
    (engine / "Engine" / "Build" / "Build.version").write_bytes(UE503)
    (engine / "Game" / "Game.uproject").write_text('{"FileVersion": 3, "EngineAssociation": ""}')
    (engine / "Game" / "Build").mkdir()
    (engine / "Game" / "Build" / "Build.version").write_bytes(UE503)
    (engine / "Game" / "Content" / f"{name}.uasset").write_bytes(b"not a package")
    result = buildver(engine / "Game", *arguments)
    assert result.returncode in (0, 1), result.stderr
    assert bad_lines(result.stdout) == [], result.stdout
    assert b"\\u009b2J\\u007fdel" in result.stdout
    assert name in json.dumps(json.loads(result.stdout), ensure_ascii=False)
