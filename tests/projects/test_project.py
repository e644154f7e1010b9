"""``buildver.projects`` and ``buildver project check``: Unreal's plugin, project and binaries rules on real files.

The descriptors are written for these tests in the engine's format: tab-indented JSON with the keys the engine
reads (FileVersion, VersionName, EngineVersion, Modules, Plugins, EngineAssociation).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import GitRepository, git

from buildver.cli.app import main
from buildver.cli.project import render_table
from buildver.errors import DescriptorError
from buildver.projects.check import ProjectReport, check_project
from buildver.projects.descriptors import (
    PluginDescriptor,
    ProjectDescriptor,
    parse_plugin_descriptor,
    parse_project_descriptor,
)
from buildver.projects.engine import EngineInstallation, IdentifierLookup
from buildver.projects.lenient_version import parse_unreal_engine_version
from buildver.projects.place import PlaceKind, find_place
from buildver.projects.verdicts import CheckResult, Kind, Status, check_association, check_manifests, check_plugin
from buildver.versions.build_version import BuildVersion, load_build_version, render_new_file
from buildver.versions.engine_version import EngineVersion

# Epic's 5.3.2 hotfix: CompatibleWith() keeps the compatible changelist and drops the patch.
EPIC_532 = BuildVersion(5, 3, 2, 29314046, 27405482, is_promoted_build=True, branch_name="++UE5+Release-5.3")
# A licensee's 5.3.2: CompatibleWith() keeps the patch (4.22+ and UE5).
LICENSEE_532 = BuildVersion(5, 3, 2, 500, 450, is_licensee_version=True, branch_name="++Studio+Main")
# A source build without a changelist: every changelist comparison is "neither".
SOURCE_530 = BuildVersion(5, 3, 0, branch_name="++UE5+Release-5.3")


def uplugin(engine_version: str | None = None, *, modules: tuple[str, ...] = ("Example",), **extra: object) -> bytes:
    """A plugin descriptor as the editor's plugin wizard writes it."""
    fields: dict[str, object] = {
        "FileVersion": 3,
        "Version": 1,
        "VersionName": "1.0",
        "FriendlyName": "Example",
        "Description": "",
        "Category": "Other",
        "CreatedBy": "",
        "CanContainContent": True,
        "IsBetaVersion": False,
        "Installed": False,
    }
    if engine_version is not None:
        fields["EngineVersion"] = engine_version
    fields["Modules"] = [{"Name": name, "Type": "Runtime", "LoadingPhase": "Default"} for name in modules]
    fields.update(extra)
    return json.dumps(fields, indent="\t").encode()


def uproject(association: str | None = "5.3", **extra: object) -> bytes:
    """A project descriptor as the editor writes it."""
    fields: dict[str, object] = {"FileVersion": 3}
    if association is not None:
        fields["EngineAssociation"] = association
    fields.update(
        {
            "Category": "",
            "Description": "",
            "Modules": [{"Name": "Game", "Type": "Runtime", "LoadingPhase": "Default"}],
            "Plugins": [{"Name": "ModelingToolsEditorMode", "Enabled": True, "TargetAllowList": ["Editor"]}],
        }
    )
    fields.update(extra)
    return json.dumps(fields, indent="\t").encode()


def modules(build_id: str, *names: str) -> bytes:
    """A .modules manifest as UBT writes it."""
    return json.dumps({"BuildId": build_id, "Modules": {name: f"UnrealEditor-{name}.dll" for name in names}}).encode()


def write(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


# -- FEngineVersion::Parse with Unreal's C rules ----------------------------------------------------------------------

PARSE_CASES = [
    ("5.3.0", EngineVersion(5, 3, 0)),
    ("5.3.2-29314046+++UE5+Release-5.3", EngineVersion(5, 3, 2, 29314046, "++UE5+Release-5.3")),
    # strtoull skips white space and a sign, and stops at the first character that is not a digit.
    (" 5. 3.+0", EngineVersion(5, 3, 0)),
    ("5.3.0abc", EngineVersion(5, 3, 0)),
    ("5.3.0-12abc", EngineVersion(5, 3, 0, 12)),
    ("-0.3.0", EngineVersion(0, 3, 0)),
    # An empty number is 0.
    ("..", EngineVersion(0, 0, 0)),
    ("4.19.0-", EngineVersion(4, 19, 0)),
    # Bit 31 of the changelist is the licensee flag, read as stored.
    ("5.3.0-2147483748", EngineVersion(5, 3, 0, 100, licensee=True)),
    # The text ends at a NUL, as a C string does.
    ("5.3.0\x00-7", EngineVersion(5, 3, 0)),
]
PARSE_FAILURES = ["5.3", "5", "", "five", "65536.0.0", "5.3.-1", "5.3.0-4294967296", "5.3.0-" + "9" * 30, "5.-1.0"]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_reads_what_unreal_reads(text: str, expected: EngineVersion) -> None:
    assert parse_unreal_engine_version(text) == expected


@pytest.mark.parametrize("text", PARSE_FAILURES)
def test_parse_fails_where_unreal_fails(text: str) -> None:
    assert parse_unreal_engine_version(text) is None


# -- the plugin rule --------------------------------------------------------------------------------------------------

PLUGIN_CASES = [
    # (engine, EngineVersion in the descriptor, status, words in the reason)
    (EPIC_532, None, Status.COMPATIBLE, "names no EngineVersion"),
    (EPIC_532, "", Status.COMPATIBLE, "names no EngineVersion"),
    # What plugin packaging writes ("{Major}.{Minor}.0") agrees with an Epic hotfix, whose CompatibleWith has patch 0.
    (EPIC_532, "5.3.0", Status.COMPATIBLE, "agrees with CompatibleWith() 5.3.0-27405482"),
    (EPIC_532, "5.3.0abc", Status.COMPATIBLE, "agrees"),
    # The engine's own patch is newer than its CompatibleWith: GetNewest sees a difference, so Unreal refuses.
    (EPIC_532, "5.3.2", Status.REFUSED, "made for 5.3.2, newer than CompatibleWith() 5.3.0-27405482"),
    (
        EPIC_532,
        "5.2.0",
        Status.REFUSED,
        "made for 5.2.0, older than CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 by minor",
    ),
    (EPIC_532, "5.4.0", Status.REFUSED, "newer than CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 by minor"),
    (EPIC_532, "4.27.0", Status.REFUSED, "older than CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 by major"),
    # Changelists of one vendor are compared: any other changelist refuses the plugin, an older one too.
    (EPIC_532, "5.3.0-27405482", Status.COMPATIBLE, "agrees"),
    (EPIC_532, "5.3.0-100", Status.REFUSED, "made for 5.3.0-100, older than CompatibleWith() 5.3.0-27405482"),
    # A licensee changelist is never compared with Epic's.
    (EPIC_532, "5.3.0-2147483748", Status.COMPATIBLE, "agrees"),
    # A licensee build keeps its patch in CompatibleWith: the packaged "5.3.0" is refused by patch.
    (LICENSEE_532, "5.3.0", Status.REFUSED, "older than CompatibleWith() 5.3.2-450+++Studio+Main by patch"),
    (LICENSEE_532, "5.3.2", Status.COMPATIBLE, "agrees with CompatibleWith() 5.3.2-450+++Studio+Main"),
    # An engine without a changelist compares no changelist.
    (SOURCE_530, "5.3.0-123", Status.COMPATIBLE, "agrees with CompatibleWith() 5.3.0-0"),
    # A version that does not parse is only a warning in Unreal's log: the plugin loads.
    (EPIC_532, "5.3", Status.WARNING, "EngineVersion '5.3' does not parse"),
    (EPIC_532, "latest", Status.WARNING, "Unreal logs a warning and loads it"),
]


@pytest.mark.parametrize(("engine", "declared", "status", "words"), PLUGIN_CASES)
def test_check_plugin_follows_is_plugin_compatible(
    engine: BuildVersion, declared: str | None, status: Status, words: str
) -> None:
    descriptor = PluginDescriptor("Plugins/Example/Example.uplugin", 3, engine_version=declared or "")
    result = check_plugin(descriptor, engine.compatible_engine_version)
    assert (result.kind, result.path, result.status, result.declared) == (
        Kind.PLUGIN,
        "Plugins/Example/Example.uplugin",
        status,
        declared or None,
    )
    assert words in result.reason


# -- the project rule -------------------------------------------------------------------------------------------------

ASSOCIATION_CASES = [
    # (engine, EngineAssociation, status, words in the reason)
    (EPIC_532, "5.3", Status.COMPATIBLE, "a launcher build of 5.3, this engine's release"),
    (SOURCE_530, "5.3", Status.COMPATIBLE, "this engine's release"),
    (EPIC_532, "5.4", Status.REFUSED, "made with Unreal 5.4, newer than this engine 5.3.2: Unreal refuses to open it"),
    (EPIC_532, "6.0", Status.REFUSED, "newer than this engine"),
    (EPIC_532, "5.2", Status.CONVERT, "older than this engine 5.3.2: Unreal offers to convert the project"),
    (EPIC_532, "4.27", Status.CONVERT, "offers to convert"),
    (EPIC_532, "{B488FF40-2787-4A31-B7C7-6FAA0D016157}", Status.NOT_DECIDABLE, "a GUID"),
    (EPIC_532, "000438DA-08D8-E173-2322-DD9C4256781A", Status.NOT_DECIDABLE, "a GUID"),
    (EPIC_532, "B488FF4027874A31B7C76FAA0D016157", Status.NOT_DECIDABLE, "a GUID"),
    # Only MAJOR.MINOR is a launcher version: anything else is looked up among the machine's engines.
    (EPIC_532, "5.3.2", Status.NOT_DECIDABLE, "neither MAJOR.MINOR nor a GUID"),
    (EPIC_532, "4.26.2-ABC", Status.NOT_DECIDABLE, "neither MAJOR.MINOR nor a GUID"),
    # Without the folders, a path and an empty association cannot be decided.
    (EPIC_532, "../UnrealEngine", Status.NOT_DECIDABLE, "a path to an engine folder"),
    (EPIC_532, "..\\UnrealEngine", Status.NOT_DECIDABLE, "a path to an engine folder"),
    (EPIC_532, "", Status.NOT_DECIDABLE, "no EngineAssociation and no engine folder above the project"),
]


@pytest.mark.parametrize(("engine", "association", "status", "words"), ASSOCIATION_CASES)
def test_check_association_decides_launcher_versions_and_never_guesses_the_rest(
    engine: BuildVersion, association: str, status: Status, words: str
) -> None:
    descriptor = ProjectDescriptor("Game.uproject", 3, engine_association=association)
    result = check_association(descriptor, engine.engine_version)
    assert (result.kind, result.status, result.declared) == (Kind.PROJECT, status, association)
    assert words in result.reason


def engine_tree(root: Path, record: BuildVersion = EPIC_532) -> Path:
    """An engine folder as Unreal recognizes one (Engine/Binaries and Engine/Build), with its Build.version."""
    write(root, {"Engine/Build/Build.version": render_new_file(record).encode()})
    (root / "Engine" / "Binaries" / "Win64").mkdir(parents=True)
    (root / "Engine" / "Source").mkdir()  # an engine tree: Engine/Build/Build.version beside Engine/Source/
    return root / "Engine" / "Build" / "Build.version"


@pytest.mark.parametrize(
    ("project", "association", "status", "words"),
    [
        ("UE/Game", "", Status.COMPATIBLE, "lives in this engine's folder"),
        ("UE/Games/Shooter", "", Status.COMPATIBLE, "lives in this engine's folder"),
        ("Other/Game", "", Status.NOT_DECIDABLE, "Unreal uses the engine folder above the project"),
        ("Elsewhere/Game", "", Status.NOT_DECIDABLE, "no engine folder above the project"),
        ("Elsewhere/Game", "../../UE", Status.COMPATIBLE, "path names this engine's folder"),
        ("Elsewhere/Game", "..\\..\\UE", Status.COMPATIBLE, "path names this engine's folder"),
        ("Elsewhere/Game", "../../Other", Status.NOT_DECIDABLE, "not this engine's"),
    ],
)
def test_check_association_resolves_empty_associations_and_paths_through_the_folders(
    tmp_path: Path, project: str, association: str, status: Status, words: str
) -> None:
    engine_tree(tmp_path / "UE")
    engine_tree(tmp_path / "Other")
    (tmp_path / project).mkdir(parents=True)
    descriptor = ProjectDescriptor("Game.uproject", 3, engine_association=association)
    result = check_association(
        descriptor, EPIC_532.engine_version, project_dir=tmp_path / project, engine_root=tmp_path / "UE"
    )
    assert result.status is status
    assert words in result.reason


GUID = "{B488FF40-2787-4A31-B7C7-6FAA0D016157}"


@pytest.mark.parametrize(
    ("association", "registered_as", "engine_root", "status", "words"),
    [
        # GetEngineRootDirFromIdentifier gives the engine being checked: Unreal opens the project without converting.
        (GUID, "UE", "UE", Status.COMPATIBLE, f"the EngineAssociation {GUID} is registered on this machine as "),
        ("MyEngine", "UE", "UE", Status.COMPATIBLE, ", this engine's folder"),
        ("5.3.2", "UE", "UE", Status.COMPATIBLE, "is registered on this machine as"),
        # Another folder: which build is there is not this check's to know.
        (GUID, "Other", "UE", Status.NOT_DECIDABLE, "Other, not this engine's folder"),
        (GUID, "Other", None, Status.NOT_DECIDABLE, "the folder of the engine checked against is not known"),
        (GUID, "UE", None, Status.NOT_DECIDABLE, "the folder of the engine checked against is not known"),
        # Registered nowhere here: the reason says where buildver looked.
        (GUID, None, "UE", Status.NOT_DECIDABLE, "a GUID: a source build registered on one machine"),
        (GUID, None, "UE", Status.NOT_DECIDABLE, "not on this one (looked in Launcher.dat, Install.ini)"),
        ("MyEngine", None, "UE", Status.NOT_DECIDABLE, "and none has that name (looked in Launcher.dat, Install.ini)"),
    ],
)
def test_check_association_decides_a_registered_identifier_like_a_path(
    tmp_path: Path, association: str, registered_as: str | None, engine_root: str | None, status: Status, words: str
) -> None:
    engine_tree(tmp_path / "UE")
    engine_tree(tmp_path / "Other")
    installation = None if registered_as is None else EngineInstallation(association, tmp_path / registered_as, "x")
    registered = IdentifierLookup(association, installation, ("Launcher.dat", "Install.ini"))
    descriptor = ProjectDescriptor("Game.uproject", 3, engine_association=association)
    result = check_association(
        descriptor,
        EPIC_532.engine_version,
        project_dir=tmp_path / "Game",
        engine_root=None if engine_root is None else tmp_path / engine_root,
        registered=registered,
    )
    assert (result.status, result.declared) == (status, association)
    assert words in result.reason
    if registered_as is not None:
        assert str(tmp_path / registered_as) in result.reason


def test_check_association_says_why_this_machine_s_lists_could_not_be_read() -> None:
    registered = IdentifierLookup(GUID, None, (), problem="Install.ini: line 2: a section header without its ']'")
    descriptor = ProjectDescriptor("Game.uproject", 3, engine_association=GUID)
    result = check_association(descriptor, EPIC_532.engine_version, registered=registered)
    assert result.status is Status.NOT_DECIDABLE
    assert result.reason.endswith(
        "this machine's list cannot be read: Install.ini: line 2: a section header without its ']'"
    )


# -- reading descriptors ----------------------------------------------------------------------------------------------


def test_plugin_descriptor_reads_the_fields_the_engine_reads() -> None:
    data = uplugin("5.3.0", modules=("Example", "ExampleEditor"), Plugins=[{"Name": "Niagara", "Enabled": True}])
    assert parse_plugin_descriptor(data, "Example.uplugin") == PluginDescriptor(
        "Example.uplugin", 3, "1.0", "5.3.0", ("Example", "ExampleEditor"), ("Niagara",)
    )


def test_project_descriptor_reads_the_fields_the_engine_reads() -> None:
    assert parse_project_descriptor(uproject("5.3"), "Game.uproject") == ProjectDescriptor(
        "Game.uproject", 3, "5.3", ("Game",), ("ModelingToolsEditorMode",)
    )


LENIENT_CASES = [
    # Keys are matched without regard to case, as both of Unreal's readers do.
    (b'{"fileversion": 3, "ENGINEVERSION": "5.3.0"}', "5.3.0"),
    # Unreal 5 parses descriptors with RapidJSON's trailing-comma flag.
    (
        b'{\n\t"FileVersion": 3,\n\t"EngineVersion": "5.3.0",\n\t"Modules": [{"Name": "A", "Type": "Runtime",},],\n}',
        "5.3.0",
    ),
    # A UTF-8 byte-order mark, and UTF-16 with its mark (FFileHelper::LoadFileToString reads both).
    (b'\xef\xbb\xbf{"FileVersion": 3, "EngineVersion": "5.3.0"}', "5.3.0"),
    ('{"FileVersion": 3, "EngineVersion": "5.3.0"}'.encode("utf-16"), "5.3.0"),
    # The older name of the version key, and null as an absent value.
    (b'{"PluginFileVersion": 2, "EngineVersion": null}', ""),
    # A comma inside a string is not a trailing comma.
    (b'{"FileVersion": 3, "EngineVersion": "5.3.0", "Description": "a, ]"}', "5.3.0"),
]


@pytest.mark.parametrize(("data", "engine_version"), LENIENT_CASES)
def test_plugin_descriptor_accepts_what_unreal_accepts(data: bytes, engine_version: str) -> None:
    assert parse_plugin_descriptor(data, "P.uplugin").engine_version == engine_version


MALFORMED_CASES = [
    (b"", "P.uplugin: the file is empty"),
    (b"\xff\x00\x00", "P.uplugin: byte 0: the file is not UTF-8"),
    (b'{"FileVersion": 3,', "P.uplugin: line 1, column 19: Expecting property name enclosed in double quotes"),
    (b'{"FileVersion": 3 // a comment\n}', "P.uplugin: line 1, column 19: Expecting ',' delimiter"),
    (b"{,}", "P.uplugin: line 1, column 2: Expecting property name enclosed in double quotes"),
    (b"[3]", "P.uplugin: expected a JSON object, not an array"),
    (b'{"FileVersion": NaN}', "P.uplugin: not a descriptor (NaN is not JSON)"),
    (b'{"Version": 1}', "P.uplugin: no FileVersion: Unreal refuses a descriptor without one"),
    (b'{"FileVersion": "3"}', "P.uplugin: FileVersion must be an integer, not '3'"),
    (b'{"FileVersion": true}', "P.uplugin: FileVersion must be an integer, not true"),
    (b'{"FileVersion": 4}', "P.uplugin: FileVersion 4 is not a descriptor version Unreal reads (1 to 3)"),
    (b'{"FileVersion": 0}', "P.uplugin: FileVersion 0 is not a descriptor version Unreal reads (1 to 3)"),
    (b'{"FileVersion": 3, "EngineVersion": 5.3}', "P.uplugin: EngineVersion must be a string, not 5.3"),
    (b'{"FileVersion": 3, "Modules": {}}', "P.uplugin: Modules must be an array, not an object"),
    (b'{"FileVersion": 3, "Modules": ["A"]}', "P.uplugin: Modules[0] must be an object, not 'A'"),
    (b'{"FileVersion": 3, "Modules": [{"Type": "Runtime"}]}', "P.uplugin: Modules[0] has no 'Name' field"),
    (b'{"FileVersion": 3, "Modules": [{"Name": "A"}]}', "P.uplugin: Modules[0] has no 'Type' field"),
    (
        b'{"FileVersion": 3, "Modules": [{"Name": 7, "Type": "Runtime"}]}',
        "P.uplugin: Modules[0] Name must be a string, not 7",
    ),
    (b'{"FileVersion": 3, "Plugins": [{"Name": "A"}]}', "P.uplugin: Plugins[0] has no 'Enabled' field"),
    (
        b'{"FileVersion": 3, "Plugins": [{"Name": "A", "Enabled": []}]}',
        "P.uplugin: Plugins[0] Enabled must be true or false, not an array",
    ),
    (b'{"FileVersion": 3, "Plugins": [{"Name": "A", "Enabled": null}]}', "P.uplugin: Plugins[0] has no 'Enabled'"),
    (b'{"FileVersion": ' + b"9" * 5000 + b"}", "P.uplugin: not a descriptor ("),
    (b"[" * 100_000, "P.uplugin: not a descriptor ("),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED_CASES)
def test_a_malformed_plugin_descriptor_is_one_error_naming_the_file_and_the_place(data: bytes, message: str) -> None:
    with pytest.raises(DescriptorError) as caught:
        parse_plugin_descriptor(data, "P.uplugin")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"EngineAssociation": "5.3"}', "G.uproject: no FileVersion"),
        (b'{"ProjectFileVersion": 3, "EngineAssociation": 5.3}', "G.uproject: EngineAssociation must be a string"),
        (b'{"FileVersion": 9}', "G.uproject: FileVersion 9 is not a descriptor version Unreal reads"),
    ],
)
def test_a_malformed_project_descriptor_is_one_error_naming_the_file(data: bytes, message: str) -> None:
    with pytest.raises(DescriptorError, match="^" + message):
        parse_project_descriptor(data, "G.uproject")


# -- binaries manifests -----------------------------------------------------------------------------------------------


def test_check_manifests_wants_the_folder_s_build_id_the_forced_one_and_the_engine_s() -> None:
    manifests = {
        "Binaries/Win64/UnrealEditor.modules": modules("a", "Game"),
        "Binaries/Win64/UnrealEditor-Extra.modules": modules("b", "Extra"),
        "Binaries/Linux/UnrealEditor.modules": b"{broken",
        "Plugins/X/Binaries/Win64/UnrealEditor.modules": modules("engine", "X"),
        "Plugins/Y/Binaries/Win64/UnrealEditor.modules": modules("stale", "Y"),
    }
    engine = ("Engine/Binaries/Win64/UnrealEditor.modules", "engine")
    results = check_manifests(
        manifests,
        engine_build_ids={
            "Plugins/X/Binaries/Win64/UnrealEditor.modules": engine,
            "Plugins/Y/Binaries/Win64/UnrealEditor.modules": engine,
        },
    )
    assert [(result.path, result.status, result.declared) for result in results] == [
        ("Binaries/Linux/UnrealEditor.modules", Status.MALFORMED, None),
        ("Binaries/Win64/UnrealEditor-Extra.modules", Status.REFUSED, "b"),
        ("Binaries/Win64/UnrealEditor.modules", Status.REFUSED, "a"),
        ("Plugins/X/Binaries/Win64/UnrealEditor.modules", Status.COMPATIBLE, "engine"),
        ("Plugins/Y/Binaries/Win64/UnrealEditor.modules", Status.REFUSED, "stale"),
    ]
    assert results[0].reason.startswith("line 1, column 2:")
    assert "differs from the folder's other manifests (UnrealEditor.modules has 'a')" in results[1].reason
    assert results[3].reason == "BuildId matches the engine's (Engine/Binaries/Win64/UnrealEditor.modules)"
    assert results[4].reason.startswith(
        "BuildId 'stale' is not the engine's 'engine' (Engine/Binaries/Win64/UnrealEditor.modules): Unreal skips"
    )
    forced = check_manifests({"Binaries/Win64/UnrealEditor.modules": modules("a")}, forced_build_id="forced")
    assert forced[0].status is Status.REFUSED
    assert "is not Build.version's forced BuildId 'forced'" in forced[0].reason


# -- the library over a folder ----------------------------------------------------------------------------------------


def test_check_project_searches_where_unreal_searches_and_orders_project_plugins_modules(tmp_path: Path) -> None:
    version = engine_tree(tmp_path / "UE")
    write(
        tmp_path / "Game",
        {
            "Game.uproject": uproject("5.3"),
            "Plugins/B/B.uplugin": uplugin("5.3.0"),
            "Plugins/A/A.uplugin": uplugin("5.2.0"),
            "Binaries/Win64/UnrealEditor.modules": modules("x", "Game"),
            "Mods/M/M.uplugin": uplugin(),
            # Where Unreal does not look: build output, a project's other folders, below a plugin's own folder.
            "Intermediate/Staging/Plugins/A/A.uplugin": b"not read",
            "Saved/Copy.uproject": b"not read",
            "Content/Stray/Stray.uplugin": b"not read",
            "Plugins/B/Content/Nested/Nested.uplugin": b"not read",
            "Plugins/B/Extras/Inner/Inner.uplugin": b"not read",
            "Plugins/Group/Content/Stray/Stray.uplugin": b"not read",
        },
    )
    report = check_project(tmp_path / "Game", load_build_version(version))
    assert [(r.kind, r.path, r.status) for r in report.results] == [
        (Kind.PROJECT, "Game.uproject", Status.COMPATIBLE),
        (Kind.PLUGIN, "Mods/M/M.uplugin", Status.COMPATIBLE),
        (Kind.PLUGIN, "Plugins/A/A.uplugin", Status.REFUSED),
        (Kind.PLUGIN, "Plugins/B/B.uplugin", Status.COMPATIBLE),
        (Kind.MODULES, "Binaries/Win64/UnrealEditor.modules", Status.COMPATIBLE),
    ]
    assert report.failed
    assert report.counts() == {Status.COMPATIBLE: 4, Status.REFUSED: 1}
    with pytest.raises(AttributeError):
        report.results[0].status = Status.REFUSED  # type: ignore[misc]
    assert isinstance(report.results[0], CheckResult)


# -- the command ------------------------------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A realistic layout: an Epic 5.3.2 engine beside a game with a project, plugins and editor binaries."""
    engine_tree(tmp_path / "UE")
    write(
        tmp_path,
        {
            "UE/Engine/Binaries/Win64/UnrealEditor.modules": modules("27405482", "Core", "Engine"),
            "UE/Engine/Plugins/FX/Niagara/Niagara.uplugin": uplugin("5.3.0", modules=("Niagara",)),
            "UE/Engine/Plugins/FX/Niagara/Binaries/Win64/UnrealEditor.modules": modules("27405482", "Niagara"),
            "UE/Engine/Plugins/Old/Legacy/Legacy.uplugin": uplugin("5.1.0"),
            "Game/Game.uproject": uproject("5.3"),
            "Game/Plugins/Weather/Weather.uplugin": uplugin("5.3.0", modules=("Weather",)),
            "Game/Plugins/Weather/Binaries/Win64/UnrealEditor.modules": modules("27405482", "Weather"),
            "Game/Binaries/Win64/UnrealEditor.modules": modules("27405482", "Game"),
        },
    )
    return tmp_path


def test_check_prints_a_table_and_exits_0_when_everything_loads(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    code, out, err = run(capsys, "project", "check", "Game", "-f", "UE/Engine/Build/Build.version")
    assert (code, err) == (0, "")
    assert out == (
        "engine 5.3.2-29314046+++UE5+Release-5.3, CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 "
        "(UE/Engine/Build/Build.version)\n"
        "STATUS         KIND     DECLARED                   PATH\n"
        "compatible     project  5.3                        Game.uproject\n"
        "compatible     plugin   5.3.0                      Plugins/Weather/Weather.uplugin\n"
        "compatible     modules  27405482                   Binaries/Win64/UnrealEditor.modules\n"
        "compatible     modules  27405482                   Plugins/Weather/Binaries/Win64/UnrealEditor.modules\n"
        "4 checked: 4 compatible\n"
    )


def test_check_exits_1_and_gives_the_reason_under_each_refused_row(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        workspace / "Game",
        {
            "Plugins/Old/Old.uplugin": uplugin("5.2.0"),
            "Plugins/Odd/Odd.uplugin": uplugin("5.3"),
            "Binaries/Win64/UnrealEditor.modules": modules("4c1d3b0e-stale", "Game"),
        },
    )
    monkeypatch.chdir(workspace / "Game")
    code, out, err = run(capsys, "project", "check", "-f", "../UE/Engine/Build/Build.version")
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[2:] == [
        "compatible     project  5.3                        Game.uproject",
        "warning        plugin   5.3                        Plugins/Odd/Odd.uplugin",
        "    EngineVersion '5.3' does not parse as MAJOR.MINOR.PATCH: Unreal logs a warning and loads it",
        "refused        plugin   5.2.0                      Plugins/Old/Old.uplugin",
        "    made for 5.2.0, older than CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 by minor: Unreal asks "
        '"designed for build ... Attempt to load it anyway?" and skips the plugin on No',
        "compatible     plugin   5.3.0                      Plugins/Weather/Weather.uplugin",
        "refused        modules  4c1d3b0e-stale             Binaries/Win64/UnrealEditor.modules",
        "    BuildId '4c1d3b0e-stale' is not the engine's '27405482' (Engine/Binaries/Win64/UnrealEditor.modules): "
        "Unreal skips these modules as out of date and asks to rebuild them",
        "compatible     modules  27405482                   Plugins/Weather/Binaries/Win64/UnrealEditor.modules",
        "6 checked: 3 compatible, 1 warning, 2 refused",
    ]


def test_check_json_is_one_document_for_scripts(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    code, out, err = run(capsys, "project", "check", "Game", "--json", "--file", "UE/Engine/Build/Build.version")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["engine_version"] == "5.3.2-29314046+++UE5+Release-5.3"
    assert document["compatible_with"] == "5.3.0-27405482+++UE5+Release-5.3"
    assert document["counts"] == {"compatible": 4}
    assert document["results"][0] == {
        "kind": "project",
        "path": "Game.uproject",
        "status": "compatible",
        "declared": "5.3",
        "reason": "a launcher build of 5.3, this engine's release",
    }


def test_check_of_an_engine_tree_finds_its_native_projects_by_their_empty_association(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workspace, {"UE/Templates/TP_Blank/TP_Blank.uproject": uproject("")})
    monkeypatch.chdir(workspace)
    code, out, _ = run(capsys, "project", "check", "UE", "-f", "UE/Engine/Build/Build.version")
    assert (code, out.splitlines()[2:]) == (
        0,
        [
            'compatible     project  ""                         Templates/TP_Blank/TP_Blank.uproject',
            "1 checked: 1 compatible",
        ],
    )


def test_check_engine_plugins_adds_the_engine_s_own_and_refuses_the_stale_one(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    code, out, _ = run(capsys, "project", "check", "UE", "-f", "UE/Engine/Build/Build.version")
    assert (code, out.splitlines()[2:]) == (0, ["nothing to check: no .uproject, .uplugin or binaries .modules found"])
    code, out, err = run(capsys, "project", "check", "UE", "--engine-plugins", "-f", "UE/Engine/Build/Build.version")
    assert (code, err) == (1, "")
    assert out.splitlines()[2:] == [
        "compatible     plugin   5.3.0                      Engine/Plugins/FX/Niagara/Niagara.uplugin",
        "refused        plugin   5.1.0                      Engine/Plugins/Old/Legacy/Legacy.uplugin",
        "    made for 5.1.0, older than CompatibleWith() 5.3.0-27405482+++UE5+Release-5.3 by minor: Unreal asks "
        '"designed for build ... Attempt to load it anyway?" and skips the plugin on No',
        "compatible     modules  27405482                   "
        "Engine/Plugins/FX/Niagara/Binaries/Win64/UnrealEditor.modules",
        "3 checked: 2 compatible, 1 refused",
    ]


def test_check_engine_plugins_lists_engine_plugins_beside_the_project_s(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    code, out, _ = run(
        capsys, "project", "check", "Game", "--json", "--engine-plugins", "-f", "UE/Engine/Build/Build.version"
    )
    assert code == 1
    statuses = {result["path"]: result["status"] for result in json.loads(out)["results"]}
    assert statuses == {
        "Game.uproject": "compatible",
        "Engine/Plugins/FX/Niagara/Niagara.uplugin": "compatible",
        "Engine/Plugins/Old/Legacy/Legacy.uplugin": "refused",
        "Plugins/Weather/Weather.uplugin": "compatible",
        "Binaries/Win64/UnrealEditor.modules": "compatible",
        "Engine/Plugins/FX/Niagara/Binaries/Win64/UnrealEditor.modules": "compatible",
        "Plugins/Weather/Binaries/Win64/UnrealEditor.modules": "compatible",
    }


def test_check_engine_plugins_needs_an_engine_build_version(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workspace, {"Game/Build/Build.version": render_new_file(EPIC_532).encode()})
    monkeypatch.chdir(workspace / "Game")
    code, out, err = run(capsys, "project", "check", "--engine-plugins", "-f", "Build/Build.version")
    assert (code, out) == (2, "")
    version = Path("Build") / "Build.version"
    assert err == (
        f"buildver: error: {version}: --engine-plugins needs the engine's Engine/Build/Build.version (with "
        "Engine/Source/ beside it), to know where the engine's plugins are\n"
    )


def test_outside_a_project_check_finds_the_build_version_as_every_command_does(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A plugin's own repository: no .uproject here or above, so the Build.version here or above is the engine's.
    write(workspace, {"Weather/Build/Build.version": render_new_file(LICENSEE_532).encode()})
    write(workspace, {"Weather/Weather.uplugin": uplugin("5.3.0")})
    monkeypatch.chdir(workspace / "Weather")
    code, out, _ = run(capsys, "project", "check", "Weather.uplugin")
    assert code == 1
    assert out.splitlines()[0].startswith("engine 5.3.2-500+++Studio+Main, CompatibleWith() 5.3.2-450+++Studio+Main")
    assert "refused        plugin   5.3.0                      Weather.uplugin" in out
    # The configuration's version-file wins over discovery.
    write(workspace, {"Weather/buildver.toml": b'version-file = "Build/Epic.version"\n'})
    write(workspace, {"Weather/Build/Epic.version": render_new_file(EPIC_532).encode()})
    code, out, _ = run(capsys, "project", "check", "Weather.uplugin")
    assert code == 0
    assert "(" + (workspace / "Weather" / "Build" / "Epic.version").as_posix() + ")" in out.splitlines()[0]


def test_a_malformed_descriptor_is_one_error_line_and_exit_1_while_the_others_are_still_checked(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workspace / "Game", {"Plugins/Broken/Broken.uplugin": b'{\n\t"FileVersion": 3,\n\t"EngineVersion": }\n'})
    monkeypatch.chdir(workspace)
    code, out, err = run(capsys, "project", "check", "Game", "-f", "UE/Engine/Build/Build.version")
    assert code == 1
    assert err == "buildver: error: Plugins/Broken/Broken.uplugin: line 3, column 19: Expecting value\n"
    assert "Broken" not in out
    assert out.splitlines()[-1] == "5 checked: 4 compatible, 1 malformed"
    code, out, err = run(capsys, "project", "check", "Game", "--json", "-f", "UE/Engine/Build/Build.version")
    assert code == 1
    broken = [result for result in json.loads(out)["results"] if result["status"] == "malformed"]
    assert broken == [
        {
            "kind": "plugin",
            "path": "Plugins/Broken/Broken.uplugin",
            "status": "malformed",
            "declared": None,
            "reason": "line 3, column 19: Expecting value",
        }
    ]


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["project", "check", "Missing"], 2, "Invalid value for '[PATH]': Path 'Missing' does not exist."),
        (["project", "check", "Game", "-f", "UE/Nope.version"], 1, "UE/Nope.version: the version file is missing"),
        (
            ["project", "check", "UE/Engine/Build/Build.version", "-f", "UE/Engine/Build/Build.version"],
            2,
            "UE/Engine/Build/Build.version: not a .uproject or .uplugin; give one of those or a folder",
        ),
    ],
)
def test_check_bad_input_is_one_line_never_a_traceback(
    capsys: pytest.CaptureFixture[str],
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    code: int,
    message: str,
) -> None:
    monkeypatch.chdir(workspace)
    result, out, err = run(capsys, *argv)
    assert (result, out) == (code, "")
    assert err.count("\n") == 1
    assert message in err


def test_values_from_descriptors_cannot_drive_the_terminal(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workspace / "Game", {"Plugins/Odd/Odd.uplugin": uplugin("5.3\x1b[2J")})
    monkeypatch.chdir(workspace)
    code, out, _ = run(capsys, "project", "check", "Game", "-f", "UE/Engine/Build/Build.version")
    assert code == 0
    assert "\x1b" not in out
    assert "warning        plugin   5.3\\x1b[2J                 Plugins/Odd/Odd.uplugin" in out


def test_a_bare_project_group_shows_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "project")
    assert code == 0
    assert "check" in out


@pytest.mark.parametrize(
    ("declared", "width"),
    [
        (("5.3", "5.3.0", "27405482"), 26),  # the usual values keep the table as it was
        ((GUID, "5.3.0"), 38),  # a braced GUID is shown whole, and the column is as wide as it needs
        (("../../Engines/UnrealEngine-5.3-Source-Studio", GUID), 44),  # a path association too
    ],
)
def test_the_declared_column_shows_every_association_whole(declared: tuple[str, ...], width: int) -> None:
    results = tuple(
        CheckResult(Kind.PROJECT, f"Game{number}/Game.uproject", Status.COMPATIBLE, value, "")
        for number, value in enumerate(declared)
    )
    engine = EPIC_532.engine_version
    table = render_table(ProjectReport("UE/Engine/Build/Build.version", engine, engine, results)).splitlines()
    assert table[1] == "STATUS         KIND     " + "DECLARED".ljust(width) + " PATH"
    assert table[2:-1] == [
        f"compatible     project  {value.ljust(width)} Game{number}/Game.uproject"
        for number, value in enumerate(declared)
    ]


@pytest.mark.parametrize(
    ("engine_version", "advice"),
    [
        ("5.3.0", "--against 5.3, or --file with the engine's Engine/Build/Build.version"),
        ("4.27.2", "--against 4.27, or --file"),
        ("4.27", "--against MAJOR.MINOR, or --file"),  # Unreal cannot parse it either
        (None, "--against MAJOR.MINOR, or --file"),
    ],
)
def test_a_plugin_repository_without_an_engine_is_told_to_name_one_with_against(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    engine_version: str | None,
    advice: str,
) -> None:
    repository = tmp_path / "Weather"
    write(repository, {"Weather.uplugin": uplugin(engine_version), "Source/Weather/Weather.Build.cs": b""})
    git(repository, "init", "-q")
    for folder in (repository, repository / "Source" / "Weather"):
        monkeypatch.chdir(folder)
        code, out, err = run(capsys, "project", "check")
        assert (code, out) == (1, "")
        assert err.startswith(f"buildver: error: {repository / 'Weather.uplugin'}: a plugin's own repository, ")
        # The same advice wherever the engine is needed.
        assert run(capsys, "assets", "scan", ".")[2] == err
        assert f"; name the engine: {advice}" in err
        assert "init" not in err
        assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("files", "start", "plugin"),
    [
        (("Weather.uplugin",), ".", "Weather.uplugin"),
        (("Weather.uplugin",), "Source/Weather", "Weather.uplugin"),
        (("Weather.uplugin",), "Weather.uplugin", "Weather.uplugin"),
        (("B.uplugin", "A.uplugin"), ".", "A.uplugin"),
        (("Weather.uplugin", "Game.uproject"), ".", None),  # a project: its engine is the project's
        (("Plugins/Weather/Weather.uplugin", "Game.uproject"), "Plugins/Weather", None),  # a project's plugin
        ((), ".", None),
    ],
)
def test_a_plugin_repository_is_a_uplugin_at_or_above_with_no_uproject(
    tmp_path: Path, files: tuple[str, ...], start: str, plugin: str | None
) -> None:
    write(tmp_path, dict.fromkeys(files, b"{}"))
    (tmp_path / "Source" / "Weather").mkdir(parents=True, exist_ok=True)
    (tmp_path / "Plugins" / "Weather").mkdir(parents=True, exist_ok=True)
    git(tmp_path, "init", "-q")
    place = find_place(tmp_path / start)
    assert (place.kind is PlaceKind.PLUGIN, place.plugin) == (plugin is not None, plugin and tmp_path / plugin)


def test_the_console_script_runs_the_check_in_a_fresh_process(workspace: Path) -> None:
    write(workspace / "Game", {"Plugins/Old/Old.uplugin": uplugin("5.2.0")})
    result = subprocess.run(
        [sys.executable, "-m", "buildver", "project", "check", "Game", "-f", "UE/Engine/Build/Build.version"],
        cwd=workspace,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
    )
    assert (result.returncode, result.stderr) == (1, "")
    assert "refused        plugin   5.2.0                      Plugins/Old/Old.uplugin" in result.stdout


# -- the guard runs the same plugin rule on staged .uplugin files -----------------------------------------------------


@pytest.fixture
def repo(git_repository: GitRepository) -> Path:
    root = git_repository(commits=0)
    write(root, {"Engine/Build/Build.version": render_new_file(EPIC_532).encode()})
    git(root, "add", "--", "Engine/Build/Build.version")
    git(root, "commit", "--quiet", "--no-verify", "-m", "engine")
    return root


def guard(capsys: pytest.CaptureFixture[str], root: Path, files: dict[str, bytes]) -> tuple[int, list[str]]:
    write(root, files)
    git(root, "add", "--", *files)
    code = main(["guard"])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    ("data", "code", "lines"),
    [
        (uplugin("5.3.0"), 0, ["buildver guard: 1 file checked, no problems"]),
        (uplugin(), 0, ["buildver guard: 1 file checked, no problems"]),
        (
            uplugin("5.2.0"),
            1,
            [
                "Plugins/X/X.uplugin: error[plugin-incompatible]: made for 5.2.0, older than CompatibleWith() "
                '5.3.0-27405482+++UE5+Release-5.3 by minor: Unreal asks "designed for build ... Attempt to load it '
                'anyway?" and skips the plugin on No',
                "buildver guard: 1 file checked: 1 error, 0 warnings",
            ],
        ),
        (
            uplugin("5.3"),
            0,
            [
                "Plugins/X/X.uplugin: warning[plugin-engine-version-unparsed]: "
                "EngineVersion '5.3' does not parse as MAJOR.MINOR.PATCH: Unreal logs "
                "a warning and loads it",
                "buildver guard: 1 file checked: 0 errors, 1 warning",
            ],
        ),
        (
            b'{"EngineVersion": "5.3.0"}',
            1,
            [
                "Plugins/X/X.uplugin: error[plugin-invalid]: no FileVersion: Unreal refuses a descriptor without one",
                "buildver guard: 1 file checked: 1 error, 0 warnings",
            ],
        ),
    ],
)
def test_guard_runs_the_plugin_rule_on_staged_descriptors(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    code: int,
    lines: list[str],
) -> None:
    monkeypatch.chdir(repo)
    assert guard(capsys, repo, {"Plugins/X/X.uplugin": data}) == (code, lines)


def test_guard_judges_the_staged_plugin_against_the_staged_engine(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    # Moving the engine to 5.4 makes the committed 5.3 plugin incompatible: both are judged as staged.
    moved = render_new_file(EPIC_532.replace(minor_version=4, patch_version=0, compatible_changelist=0)).encode()
    code, lines = guard(capsys, repo, {"Engine/Build/Build.version": moved, "Plugins/X/X.uplugin": uplugin("5.3.0")})
    assert code == 1
    assert lines[0].startswith(
        "Plugins/X/X.uplugin: error[plugin-incompatible]: made for 5.3.0, older than CompatibleWith() 5.4.0-"
    )


def test_guard_plugin_checks_are_configured_like_the_others(
    capsys: pytest.CaptureFixture[str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    config = b'[tool.buildver.guard]\nplugin-incompatible = "warning"\nplugin-engine-version-unparsed = "off"\n'
    files = {"pyproject.toml": config, "Plugins/X/X.uplugin": uplugin("5.2.0"), "Plugins/Y/Y.uplugin": uplugin("5.3")}
    code, lines = guard(capsys, repo, files)
    assert code == 0
    assert [line.split(":")[0:2] for line in lines] == [
        ["Plugins/X/X.uplugin", " warning[plugin-incompatible]"],
        ["buildver guard", " 2 files checked"],
    ]


def test_guard_without_an_engine_says_the_plugins_were_not_checked(
    capsys: pytest.CaptureFixture[str], git_repository: GitRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = git_repository(commits=0)
    monkeypatch.chdir(root)
    code, lines = guard(capsys, root, {"Plugins/X/X.uplugin": uplugin("1.0.0")})
    assert code == 0
    assert lines[0] == (
        "Plugins/X/X.uplugin: warning[no-engine-version]: 1 staged .uplugin files not checked against an engine (no "
        ".uproject at or above it names an engine, and the repository's Build/Build.version is not in the index; set "
        'engine = "MAJOR.MINOR" (or the path of its Build.version) under [tool.buildver])'
    )


def test_the_guard_hook_passes_plugin_descriptors_to_the_guard() -> None:
    hooks = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    pattern = re.search(r"files: '(.*)'", hooks)
    assert pattern is not None
    assert re.search(pattern.group(1), "Plugins/X/X.uplugin")
    assert re.search(pattern.group(1), "Game/Game.uproject")  # its EngineAssociation (project-engine-older)
