"""Documents in files and the ``buildver data`` commands, on real files and the README's worked example."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from buildver.cli.data import data_app
from buildver.errors import DocumentError, UsageError, WriteError
from buildver.serialization import Schema, import_schema, load_file, plan_upgrade, save_file

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE_SCHEMA = f"{REPOSITORY / 'examples' / 'asset_schema.py'}:SCHEMA"
EXAMPLE_DOCUMENT = REPOSITORY / "examples" / "data" / "rock.json"
RECORDED_VERSIONS = REPOSITORY / "tests" / "data" / "serialization" / "example_versions.json"
MATERIALS_GUID = "6f1c2f1e-5a0b-4a8e-9c1d-0d2b8a3e4f10"

app = typer.Typer()
app.add_typer(data_app, name="data")
runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, ["data", *args])


@pytest.fixture
def rock(tmp_path: Path) -> Path:
    path = tmp_path / "rock.json"
    shutil.copyfile(EXAMPLE_DOCUMENT, path)
    return path


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_worked_example_upgrades_through_three_versions(rock: Path) -> None:
    result = load_file(import_schema(EXAMPLE_SCHEMA), rock)
    assert result.data == {
        "$type": "Prop",
        "mesh_path": "props/rock.fbx",
        "scale": [2, 2, 2],
        "material": {"$type": "Material", "color": [1.0, 0.502, 0.0]},
        "components": [{"$type": "Collider", "shape": "sphere", "size": [1.0, 1.0, 1.0], "$version": 0}],
        "$version": 2,
    }
    assert [(record.path, record.from_version, record.to_version) for record in result.upgraded] == [("root", 0, 2)]
    assert [(record.path, record.replaced_by) for record in result.replaced] == [("root.components[0]", "Collider")]
    assert [(record.path, record.reason) for record in result.dropped] == [("root.components[1]", "deprecated")]


def test_the_example_schema_versions_never_decrease() -> None:
    """O3DE #15251: a version that went down made every saved asset look like it came from the future."""
    schema = import_schema(EXAMPLE_SCHEMA)
    recorded = json.loads(RECORDED_VERSIONS.read_text(encoding="utf-8"))
    current = {
        "engine": schema.engine_version,
        "licensee": schema.licensee_version,
        **{f"custom {known.guid}": known.latest for known in schema.custom_versions},
        **{f"class {name}": decl.version for name, decl in schema.classes.items()},
    }
    assert {key: value for key, value in current.items() if key in recorded and value < recorded[key]} == {}
    assert set(recorded) <= set(current)


def test_upgrade_writes_the_latest_versions_and_a_second_run_finds_it_up_to_date(rock: Path) -> None:
    first = run("upgrade", "--schema", EXAMPLE_SCHEMA, str(rock))
    assert (first.exit_code, first.stderr) == (0, "")
    assert first.stdout == f"{rock}: upgraded from engine 0: 1 upgraded, 1 replaced, 1 dropped\n"
    saved = json.loads(rock.read_text(encoding="utf-8"))
    assert saved["$buildver"] == {"format": 2, "engine": 1, "licensee": 0, "custom": {MATERIALS_GUID: 1}}
    again = run("upgrade", "--schema", EXAMPLE_SCHEMA, str(rock))
    assert (again.exit_code, again.stdout) == (0, f"{rock}: up to date\n")


def test_dry_run_prints_a_diff_and_writes_nothing(rock: Path) -> None:
    before = rock.read_bytes()
    result = run("upgrade", "--dry-run", "--schema", EXAMPLE_SCHEMA, str(rock))
    assert result.exit_code == 0
    assert result.stdout.startswith(f"--- {rock}\n+++ {rock}\n")  # outside the current folder: full paths
    assert '-    "mesh": "props/rock.fbx",\n' in result.stdout
    assert '+    "mesh_path": "props/rock.fbx",\n' in result.stdout
    assert rock.read_bytes() == before


def test_a_newer_document_is_refused_and_left_alone_while_the_others_are_upgraded(rock: Path, tmp_path: Path) -> None:
    newer = write(
        tmp_path / "newer.json", {"$buildver": {"format": 2, "engine": 7, "licensee": 0, "custom": {}}, "root": {}}
    )
    before = newer.read_bytes()
    result = run("upgrade", "--schema", EXAMPLE_SCHEMA, str(newer), str(rock))
    assert result.exit_code == 1
    assert result.stderr == (
        f"buildver: error: {newer}: contains a newer version than this code supports: engine version 7, "
        "newest supported 1; licensee version 0, newest supported 0\n"
    )
    assert result.stdout == f"{rock}: upgraded from engine 0: 1 upgraded, 1 replaced, 1 dropped\n"
    assert newer.read_bytes() == before


def test_many_files_show_a_progress_bar_on_stderr(tmp_path: Path) -> None:
    files = [shutil.copyfile(EXAMPLE_DOCUMENT, tmp_path / f"{index:02}.json") for index in range(25)]
    result = run("upgrade", "--schema", EXAMPLE_SCHEMA, *map(str, files))
    assert result.exit_code == 0
    assert "upgrading" in result.stderr
    assert result.stdout.count("upgraded from engine 0") == 25


def test_unversioned_files_are_adopted_when_asked(tmp_path: Path) -> None:
    path = write(tmp_path / "old.json", {"$type": "Prop", "mesh": "a.fbx", "scale": 1})
    refused = run("upgrade", "--schema", EXAMPLE_SCHEMA, str(path))
    assert refused.exit_code == 1
    assert "no '$buildver' version header" in refused.stderr
    adopted = run("upgrade", "--schema", EXAMPLE_SCHEMA, "--unversioned", "oldest", str(path))
    assert adopted.exit_code == 0
    assert json.loads(path.read_text(encoding="utf-8"))["root"] == {
        "$type": "Prop",
        "$version": 2,
        "mesh_path": "a.fbx",
        "scale": [1, 1, 1],
    }


def test_inspect_prints_versions_and_differences_without_refusing_newer_data(rock: Path, tmp_path: Path) -> None:
    newer = write(
        tmp_path / "newer.json",
        {"$buildver": {"format": 2, "engine": 7, "licensee": 0, "custom": {MATERIALS_GUID: 3}}, "root": {}},
    )
    result = run("inspect", "--schema", EXAMPLE_SCHEMA, str(rock), str(newer))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"{rock}: format 1, engine 0, licensee 0, custom: -; engine 0 is older than 1\n"
        f"{newer}: format 2, engine 7, licensee 0, custom: StudioMaterials 3; engine 7 is newer than 1; "
        f"custom version 'StudioMaterials' ({MATERIALS_GUID}) 3 is newer than 1\n"
    )


def test_inspect_json_reports_each_file_and_errors_go_to_stderr(rock: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": 1, "a": 2}', encoding="utf-8")
    result = run("inspect", "--json", str(rock), str(broken))
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert list(document) == ["schema_version", "documents"]  # a file named schema_version cannot clash
    assert list(document["documents"]) == [str(rock)]
    assert document["documents"][str(rock)]["format"] == 1
    assert result.stderr == f"buildver: error: {broken}: member 'a' appears twice\n"


OTHER_GUID = "0a1b2c3d-0000-4000-8000-000000000001"

# (the document's custom versions, whether --schema is given, the names --json shows)
CUSTOM_NAMES = [
    ({MATERIALS_GUID: 1}, True, ["StudioMaterials"]),  # format 2 stores no name: the schema's
    ({MATERIALS_GUID: 1}, False, [None]),  # no schema, no name to show
    ({MATERIALS_GUID: 1, OTHER_GUID: 4}, True, ["StudioMaterials", None]),  # one the schema does not register
    ([{"key": MATERIALS_GUID, "version": 1, "name": "OldName"}], True, ["OldName"]),  # format 1: the stored name
]


@pytest.mark.parametrize(("custom", "with_schema", "names"), CUSTOM_NAMES)
def test_inspect_json_names_custom_versions_as_the_text_does(
    tmp_path: Path, custom: object, with_schema: bool, names: list[str | None]
) -> None:
    header_format = 1 if isinstance(custom, list) else 2
    document = write(
        tmp_path / "doc.json",
        {"$buildver": {"format": header_format, "engine": 1, "licensee": 0, "custom": custom}, "root": {}},
    )
    schema = ["--schema", EXAMPLE_SCHEMA] if with_schema else []
    result = run("inspect", "--json", *schema, str(document))
    assert (result.exit_code, result.stderr) == (0, "")
    shown = json.loads(result.stdout)["documents"][str(document)]["custom"]
    assert [entry["name"] for entry in shown] == names
    text = run("inspect", *schema, str(document)).stdout
    for entry in shown:
        assert f"{entry['name'] or entry['guid']} {entry['version']}" in text


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nothing", "--schema 'nothing': expected MODULE:OBJECT or FILE.py:OBJECT"),
        ("no/such/file.py:SCHEMA", "--schema 'no/such/file.py:SCHEMA': no file 'no/such/file.py'"),
        (f"{EXAMPLE_SCHEMA}X", f"--schema '{EXAMPLE_SCHEMA}X': '{EXAMPLE_SCHEMA.rsplit(':', 1)[0]}' has no 'SCHEMAX'"),
        (
            f"{EXAMPLE_SCHEMA.rsplit(':', 1)[0]}:MATERIALS",
            f"--schema '{EXAMPLE_SCHEMA.rsplit(':', 1)[0]}:MATERIALS': "
            "'MATERIALS' is CustomVersion, not a buildver Schema",
        ),
        (
            "buildver_no_such_module:X",
            "--schema 'buildver_no_such_module:X': cannot import 'buildver_no_such_module': "
            "ModuleNotFoundError: No module named 'buildver_no_such_module'",
        ),
    ],
)
def test_wrong_schema_names_are_usage_errors(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        import_schema(spec)
    assert str(caught.value) == message
    assert caught.value.exit_code == 2


def test_a_schema_can_be_named_by_module_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_schema_module_for_buildver.py").write_text(
        "from buildver.serialization import Schema\ndef make():\n    return Schema(engine=3)\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_schema("my_schema_module_for_buildver:make").engine_version == 3


# (file text, message)
UNREADABLE_FILES: list[tuple[bytes, str]] = [
    (b'{"a": ', "line 1, column 7: expecting value"),
    (b'{"a": NaN}', "NaN is not JSON"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
]


@pytest.mark.parametrize(("content", "message"), UNREADABLE_FILES)
def test_unreadable_files_are_document_errors(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(DocumentError) as caught:
        load_file(Schema(), path)
    assert str(caught.value) == f"{path}: {message}"


def test_a_missing_file_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no such file"):
        plan_upgrade(Schema(), tmp_path / "missing.json")


@pytest.mark.skipif(os.name != "posix", reason="permission bits")
def test_atomic_writes_keep_permissions_and_leave_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o640)
    save_file(Schema(engine=2), path, {"a": 1})
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert json.loads(path.read_text(encoding="utf-8"))["root"] == {"a": 1}
    assert [entry.name for entry in tmp_path.iterdir()] == ["data.json"]


def test_a_read_only_document_is_refused_unless_forced(rock: Path) -> None:
    rock.chmod(0o444)
    before = rock.read_bytes()
    refused = run("upgrade", "--schema", EXAMPLE_SCHEMA, str(rock))
    assert refused.exit_code == 3
    assert refused.stderr == f"buildver: error: {rock}: the file is read-only; pass --force to make it writable\n"
    assert rock.read_bytes() == before
    forced = run("upgrade", "--force", "--schema", EXAMPLE_SCHEMA, str(rock))
    assert forced.exit_code == 0
    assert json.loads(rock.read_text(encoding="utf-8"))["$buildver"]["format"] == 2


def test_a_document_changed_between_reading_and_writing_is_not_overwritten(rock: Path) -> None:
    plan = plan_upgrade(import_schema(EXAMPLE_SCHEMA), rock)
    rock.write_text("{}", encoding="utf-8")  # another tool saved it meanwhile
    with pytest.raises(WriteError, match="the file changed while buildver was working"):
        plan.apply()
    assert rock.read_text(encoding="utf-8") == "{}"


def test_an_unknown_unversioned_mode_is_a_usage_error(rock: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from buildver.cli.app import main

    code = main(["data", "upgrade", "--schema", EXAMPLE_SCHEMA, "--unversioned", "newest", str(rock)])
    assert code == 2
    assert capsys.readouterr().err == (
        "buildver: error: Invalid value for '--unversioned': 'newest' is not one of 'error', 'oldest', 'latest'.\n"
    )


def test_a_document_whose_root_is_dropped_is_not_saved(tmp_path: Path) -> None:
    path = write(tmp_path / "note.json", {"$buildver": {"format": 2, "engine": 1, "licensee": 0, "custom": {}},
                                          "root": {"$type": "EditorNote"}})  # fmt: skip
    with pytest.raises(DocumentError) as caught:
        plan_upgrade(import_schema(EXAMPLE_SCHEMA), path)
    assert str(caught.value) == f"{path}: the root object was dropped (deprecated); nothing to save"


def test_remove_upgrade_leftovers_lists_each_folder_once_and_spares_other_files(tmp_path: Path) -> None:
    from buildver.changes import TEMP_SUFFIX
    from buildver.serialization import remove_upgrade_leftovers

    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b.json").write_text("{}", encoding="utf-8")
    left = [f".a.json.0123456789ab{TEMP_SUFFIX}", f".b.json.0123456789ab.backup{TEMP_SUFFIX}"]
    kept = [f".c.json.0123456789ab{TEMP_SUFFIX}", f".a.json.orig.0123456789ab{TEMP_SUFFIX}"]
    for name in [*left, *kept]:
        (tmp_path / name).write_bytes(b"x")
    removed = remove_upgrade_leftovers([tmp_path / "a.json", tmp_path / "b.json", tmp_path / "missing" / "d.json"])
    assert sorted(path.name for path in removed) == sorted(left)
    assert sorted(os.listdir(tmp_path)) == sorted([*kept, "a.json", "b.json"])
