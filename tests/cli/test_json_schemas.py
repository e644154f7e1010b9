"""Every ``--json`` document carries its ``schema_version`` and validates against the JSON Schema buildver ships
(``buildver/cli/schemas``, published in ``docs/schemas/``): each command run on a realistic machine (a launcher
engine and a registered source build in a temporary HOME, a game under git with TankFire's config files, plugins,
packages and data documents), its output validated as a tool author's would be."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import EPIC_532_VERSION, git, install_launcher_engine, run_cli
from jsonschema import Draft202012Validator

from buildver.cli.schemas import SCHEMA_VERSIONS, load_schema, schema_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
MALFORMED = DATA / "malformed"


class Machine:
    """A build machine: Unreal 5.3 from the launcher, a 5.3.1 source build beside it, and a game on 5.3 in git."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.engine = install_launcher_engine(root, monkeypatch)
        self.source_build = root / "Source" / "UE5"
        (self.source_build / "Engine" / "Binaries").mkdir(parents=True)
        (self.source_build / "Engine" / "Build").mkdir(parents=True)
        (self.source_build / "Engine" / "Build" / "Build.version").write_text(
            EPIC_532_VERSION.replace('"PatchVersion": 2', '"PatchVersion": 1')
        )
        self.game = root / "TankFire"
        shutil.copytree(DATA / "ini" / "tankfire" / "Config", self.game / "Config")
        (self.game / "TankFire.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
        (self.game / "Build").mkdir()
        (self.game / "Build" / "Build.version").write_text(
            EPIC_532_VERSION.replace('5,\n\t"MinorVersion": 3', '1,\n\t"MinorVersion": 4')
        )
        (self.game / "pyproject.toml").write_text(
            '[tool.buildver]\nskip-header = true\nproject-version = "{Major}.{Minor}.{Patch}.{Changelist}"\n'
        )
        plugin = {"FileVersion": 3, "Version": 1, "VersionName": "1.0", "EngineVersion": "5.2.0"}
        (self.game / "Plugins" / "Old").mkdir(parents=True)
        (self.game / "Plugins" / "Old" / "Old.uplugin").write_text(json.dumps(plugin))
        content = self.game / "Content"
        content.mkdir()
        shutil.copy(MALFORMED / "package" / "newer-ue5-file-version.bin", content / "Statue.uasset")
        shutil.copy(MALFORMED / "empty-engine-version.package", content / "Lamp.uasset")
        shutil.copy(MALFORMED / "package" / "text.bin", content / "Notes.uasset")
        shutil.copy(MALFORMED / "package" / "truncated-24.bin", content / "Broken.umap")
        data = self.game / "Data"
        data.mkdir()
        shutil.copy(ROOT / "examples" / "data" / "rock.json", data / "rock.json")
        shutil.copy(MALFORMED / "document" / "newer-engine.json", data / "crate.json")
        (self.root / "Empty").mkdir()
        git(self.game, "init", "--quiet")
        git(self.game, "add", "--all")
        git(self.game, "commit", "--quiet", "-m", "first")
        monkeypatch.chdir(self.game)

    def stage_a_changelist_going_backwards(self) -> None:
        version = self.game / "Build" / "Build.version"
        version.write_text(version.read_text().replace("29314046", "29314045"))
        shutil.copy(MALFORMED / "package" / "newer-ue5-file-version.bin", self.game / "Content" / "Door.uasset")
        git(self.game, "add", "--all")

    def register_the_source_build(self) -> str:
        code, out, err = run_cli(self.capsys, "engine", "register", str(self.source_build), "--json")
        assert (code, err) == (0, ""), err
        identifier: str = json.loads(out)["identifier"]
        return identifier

    def enter_a_plugin_repository(self) -> None:
        """A plugin's own repository (no Build.version): show prints the .uplugin's Version and VersionName."""
        repository = self.root / "OldPlugin"
        shutil.copytree(self.game / "Plugins" / "Old", repository)
        git(repository, "init", "--quiet")
        os.chdir(repository)

    capsys: pytest.CaptureFixture[str]


# (the document's schema, what is set up first, the arguments, the exit code)
Setup = Callable[[Machine], object]
CASES: list[tuple[str, str, Setup | None, list[str], int]] = [
    ("show in a game", "show", None, ["show", "--json"], 0),
    ("show fields", "show", None, ["show", "--json", "--field", "ProjectVersion", "--field", "EngineVersion"], 0),
    (
        "show of the engine",
        "show",
        None,
        ["show", "--format", "json", "-f", "../Epic/UE_5.3/Engine/Build/Build.version"],
        0,
    ),
    ("show in a plugin's repository", "show", Machine.enter_a_plugin_repository, ["show", "--json"], 0),
    ("compare", "compare", None, ["compare", "--json", "5.3.2-29314046+++UE5+Release-5.3", "5.3.1-28051148"], 11),
    ("compare equal", "compare", None, ["compare", "--json", "5.3.2", "5.3.2"], 0),
    ("compatible", "compatible", None, ["compatible", "--json", "5.3.2-29314046", "5.4.0-33043543"], 1),
    ("update-local dry run", "update-local", None, ["update-local", "--cl", "5", "--dry-run", "--json"], 0),
    (
        "update-local",
        "update-local",
        None,
        ["update-local", "--cl", "29314047", "--branch", "++Game+Main", "--json"],
        0,
    ),
    ("engine", "engine", None, ["engine", "--json"], 0),
    ("engine versions", "engine-versions", None, ["engine", "--versions", "--json"], 0),
    ("bump dry run", "bump", None, ["bump", "minor", "--dry-run", "--json"], 0),
    ("bump", "bump", None, ["bump", "--set", "1.5.0", "--json"], 0),
    ("engines", "engines", Machine.register_the_source_build, ["engines", "--json"], 0),
    ("engine register", "engine-register", None, ["engine", "register", "../Source/UE5", "--json"], 0),
    (
        "engine register dry run",
        "engine-register",
        None,
        ["engine", "register", "../Source/UE5", "--dry-run", "--json"],
        0,
    ),
    ("engine switch", "engine-switch", None, ["engine", "switch", "5.3", "--json"], 0),
    ("engine switch dry run", "engine-switch", None, ["engine", "switch", "", "--force", "--dry-run", "--json"], 0),
    ("data inspect", "data-inspect", None, ["data", "inspect", "--json", "Data/rock.json", "Data/crate.json"], 0),
    ("project check", "project-check", None, ["project", "check", "--json"], 1),
    ("project check against", "project-check", None, ["project", "check", "--format", "json", "--against", "5.2"], 1),
    ("assets scan", "assets-scan", None, ["assets", "scan", "Content", "--json"], 1),
    ("assets scan of a release", "assets-scan", None, ["assets", "scan", "Content", "--against", "5.3", "--json"], 1),
    (
        "assets scan of nothing",
        "assets-scan",
        None,
        ["assets", "scan", "../Empty", "--against", "5.3", "--format", "json"],
        0,
    ),
    ("guard", "guard", Machine.stage_a_changelist_going_backwards, ["guard", "--json"], 1),
    ("guard with nothing staged", "guard", None, ["guard", "--format", "json"], 0),
]


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Machine:
    monkeypatch.delenv("IsBuildMachine", raising=False)
    found = Machine(tmp_path, monkeypatch)
    found.capsys = capsys
    return found


def validate(name: str, document: object) -> None:
    """``document`` against the shipped schema ``name``: a failure names the key at fault."""
    Draft202012Validator(load_schema(name)).validate(document)


@pytest.mark.parametrize(("case", "name", "setup", "argv", "exit_code"), CASES, ids=[case[0] for case in CASES])
def test_every_json_document_carries_its_schema_version_and_validates_against_its_schema(
    machine: Machine, case: str, name: str, setup: Setup | None, argv: list[str], exit_code: int
) -> None:
    if setup is not None:
        setup(machine)
    code, out, err = run_cli(machine.capsys, *argv)
    assert code == exit_code, err
    document = json.loads(out)
    assert next(iter(document)) == "schema_version"
    assert document["schema_version"] == SCHEMA_VERSIONS[name]
    validate(name, document)


def test_guard_outside_git_is_a_document_without_a_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "guard", "--json")
    document = json.loads(out)
    assert (code, document["root"], document["checked"]) == (0, None, 0)
    validate("guard", document)


def test_the_cases_run_every_document_there_is() -> None:
    assert {case[1] for case in CASES} == set(SCHEMA_VERSIONS)


def _json_commands() -> set[str]:
    """Every command of the command line that takes ``--json``, by its words (``engine register``)."""
    from buildver.cli.app import build_app
    from buildver.cli.engine import engine_actions_app

    found: set[str] = set()

    def walk(command: Any, words: tuple[str, ...]) -> None:  # typer's vendored click: a group has commands
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))
        if any("--json" in getattr(parameter, "opts", ()) for parameter in command.params):
            found.add(" ".join(words))

    walk(typer.main.get_command(build_app(["--help"])), ())
    walk(typer.main.get_command(engine_actions_app), ("engine",))
    return found


def test_every_command_that_prints_json_is_validated() -> None:
    validated = [" ".join(case[3]) for case in CASES]
    commands = _json_commands()
    assert commands == {
        "show",
        "compare",
        "compatible",
        "update-local",
        "bump",
        "engine",
        "engines",
        "engine register",
        "engine switch",
        "data inspect",
        "project check",
        "assets scan",
        "guard",
    }
    assert all(any(run.startswith(f"{command} ") for run in validated) for command in commands)


@pytest.mark.parametrize("name", sorted(SCHEMA_VERSIONS))
def test_each_schema_is_a_draft_2020_12_schema_of_its_own_version(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"urn:buildver:schema:{name}:{SCHEMA_VERSIONS[name]}"
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSIONS[name]
    assert "schema_version" in schema["required"]


@pytest.mark.parametrize("name", sorted(SCHEMA_VERSIONS))
def test_the_docs_publish_the_schema_the_package_ships(name: str) -> None:
    published = ROOT / "docs" / "schemas" / f"{name}.schema.json"
    assert published.read_bytes() == schema_file(name).read_bytes()


def test_the_docs_publish_no_other_schema() -> None:
    published = {path.name for path in (ROOT / "docs" / "schemas").iterdir()}
    assert published == {f"{name}.schema.json" for name in SCHEMA_VERSIONS}


def _enum(name: str, *keys: str) -> list[Any]:
    found: Any = load_schema(name)
    for key in keys:
        found = found[key]
    return list(found["enum"])


def test_the_schemas_list_the_checks_and_statuses_the_library_has() -> None:
    from buildver.guard.settings import CHECKS
    from buildver.packages.verdicts import ScanStatus
    from buildver.projects.engine import AssociationKind
    from buildver.projects.verdicts import Kind, Status

    assert _enum("guard", "$defs", "check") == [check.key for check in CHECKS]
    assert _enum("assets-scan", "$defs", "status") == [str(status) for status in ScanStatus]
    assert _enum("project-check", "$defs", "status") == [str(status) for status in Status]
    kind = load_schema("project-check")["properties"]["results"]["items"]["properties"]["kind"]
    assert kind["enum"] == [str(item) for item in Kind]
    assert _enum("engine", "properties", "kind") == [str(item) for item in AssociationKind]
    assert _enum("engines", "properties", "engines", "items", "properties", "kind") == [
        str(item) for item in AssociationKind
    ]


@pytest.mark.parametrize(
    ("name", "broken"),
    [
        ("show", {"schema_version": 2, "MajorVersion": 5}),
        ("show", {"MajorVersion": 5}),
        ("guard", {"schema_version": 1, "root": None, "checked": 0, "files": [], "findings": [], "errors": 0}),
        ("assets-scan", {"schema_version": 1, "engine": {}, "packages": [], "counts": {}}),
        ("compare", {"schema_version": 1, "first": "5.3", "second": "5.3.0-0", "first_licensee": False}),
    ],
)
def test_a_document_that_is_not_the_schemas_is_refused(name: str, broken: dict[str, object]) -> None:
    from jsonschema import ValidationError

    with pytest.raises(ValidationError):
        validate(name, broken)
