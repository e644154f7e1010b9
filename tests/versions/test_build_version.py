"""Build.version: validation, derived values, finding the file, and saves that keep the file's format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildver import EngineVersion
from buildver.errors import InvalidVersionError, VersionFileError
from buildver.versions.build_version import (
    FIELDS,
    BuildVersion,
    VersionFile,
    find_build_version,
    load_build_version,
    parse_build_version,
    render_new_file,
)

DATA = Path(__file__).parents[1] / "data" / "build_version"
LAYOUTS = sorted(DATA.glob("*.version"))
FILE = Path("Build/Build.version")


def parse(text: str | bytes) -> BuildVersion:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_build_version(data, FILE).record


MINIMAL = '{"MajorVersion": 5, "MinorVersion": 3, "PatchVersion": 2%s}'


@pytest.mark.parametrize("layout", LAYOUTS, ids=[p.name for p in LAYOUTS])
def test_every_historical_layout_round_trips_byte_for_byte(layout: Path) -> None:
    data = layout.read_bytes()
    version_file = parse_build_version(data, layout)
    assert version_file.render() == data
    assert version_file.render(version_file.record.replace()) == data


@pytest.mark.parametrize("layout", LAYOUTS, ids=[p.name for p in LAYOUTS])
def test_every_historical_layout_changes_only_the_changed_value(layout: Path) -> None:
    data = layout.read_bytes()
    version_file = parse_build_version(data, layout)
    saved = version_file.render(version_file.record.replace(changelist=123456, branch_name="++Studio+Main"))
    reread = parse_build_version(saved, layout)
    assert reread.record == version_file.record.replace(changelist=123456, branch_name="++Studio+Main")
    # Everything but the two values is kept: same lines apart from those carrying them.
    old_lines = data.decode("utf-8-sig").splitlines(keepends=True)
    new_lines = saved.decode("utf-8-sig").splitlines(keepends=True)
    assert len(old_lines) == len(new_lines)
    changed = [new for old, new in zip(old_lines, new_lines, strict=True) if old != new]
    assert all("changelist" in line.lower() or "branchname" in line.lower() for line in changed)
    assert saved.startswith(b"\xef\xbb\xbf") is data.startswith(b"\xef\xbb\xbf")
    assert saved.endswith(b"}") is data.endswith(b"}")


HISTORICAL_VALUES = [
    ("ue4.9.version", EngineVersion(4, 9, 2), EngineVersion(4, 9, 0)),
    ("ue4.18.3.version", EngineVersion(4, 18, 3), EngineVersion(4, 18, 0)),
    (
        "ue4.20.3-oculus.version",
        EngineVersion(4, 20, 3, 0, "++UE4+Partner-Oculus-4.20", True),
        EngineVersion(4, 20, 3, 0, "++UE4+Partner-Oculus-4.20", True),
    ),
    (
        "ue5.3-ue4docker-4-spaces.version",
        EngineVersion(5, 3, 0, 27405482, "++UE5+Release-5.3"),
        EngineVersion(5, 3, 0, 27405482, "++UE5+Release-5.3"),
    ),
    (
        "bom-crlf-unknown-keys.version",
        EngineVersion(5, 4, 4, 33043543, "++Studio+Main", True),
        EngineVersion(5, 4, 4, 33043543, "++Studio+Main", True),
    ),
    (
        "lowercase-keys.version",
        EngineVersion(5, 1, 1, 23058290, "++UE5+Release-5.1"),
        EngineVersion(5, 1, 0, 23058290, "++UE5+Release-5.1"),
    ),
]


@pytest.mark.parametrize(("name", "current", "compatible"), HISTORICAL_VALUES)
def test_historical_layouts_give_unreal_current_and_compatible_with(
    name: str, current: EngineVersion, compatible: EngineVersion
) -> None:
    record = parse_build_version((DATA / name).read_bytes(), DATA / name).record
    assert record.engine_version == current
    assert record.compatible_engine_version == compatible


DERIVED_CASES = [
    # (changelist, compatible, promoted, effective compatible, formal)
    (0, 0, False, 0, False),
    (0, 3709383, True, 0, False),
    (123, 0, True, 123, True),
    (123, 100, True, 100, True),
    (123, 100, False, 100, False),
]


@pytest.mark.parametrize(("changelist", "compatible", "promoted", "effective", "formal"), DERIVED_CASES)
def test_effective_compatible_changelist_and_formal_build(
    changelist: int, compatible: int, promoted: bool, effective: int, formal: bool
) -> None:
    record = BuildVersion(5, 3, 0, changelist, compatible, is_promoted_build=promoted)
    assert record.effective_compatible_changelist == effective
    assert record.is_formal_build is formal


def test_default_build_version_string_is_branch_cl_changelist() -> None:
    record = BuildVersion(5, 3, 0, 123, branch_name="++UE5+Main")
    assert record.effective_build_version == "++UE5+Main-CL-123"
    assert record.replace(build_version="Nightly").effective_build_version == "Nightly"


def test_compatible_with_keeps_the_patch_only_for_licensee_builds() -> None:
    record = BuildVersion(5, 3, 2, 500, 400, branch_name="B")
    assert record.compatible_engine_version == EngineVersion(5, 3, 0, 400, "B")
    licensee = record.replace(is_licensee_version=True)
    assert licensee.compatible_engine_version == EngineVersion(5, 3, 2, 400, "B", True)


INVALID_FILES = [
    (b"", "Build/Build.version: the file is empty"),
    (b"  \r\n\t", "Build/Build.version: the file is empty"),
    (b"\xff\xfe{}", "Build/Build.version: line 1 (byte 0): the file is not UTF-8"),
    (b'{"MajorVersion": 4,\n "MinorVersion": 1\xe9}', "line 2 (byte 38): the file is not UTF-8"),
    (b"[]", "line 1, column 1: expected '{' to open the object, found '['"),
    (b'{"MajorVersion": 4,}', "line 1, column 20: expected a key in double quotes, found '}'"),
    (b'{"MajorVersion": 4\n\t"MinorVersion": 1}', "line 2, column 2: expected ',' or '}', found '\"'"),
    (b'{"MajorVersion": 4', "line 1, column 19: unexpected end of file, expected ',' or '}'"),
    (b'{"MajorVersion": }', "line 1, column 18: expecting value in 'MajorVersion'"),
    (b'{"MajorVersion": 4} x', "line 1, column 21: unexpected 'x' after the closing '}'"),
    (b'{"MajorVersion": NaN}', "NaN is not valid JSON"),
    (b'{"MinorVersion": 1, "PatchVersion": 1}', "Build/Build.version: missing required key MajorVersion"),
    (b"{}", "missing required keys MajorVersion, MinorVersion, PatchVersion"),
    (MINIMAL.encode() % b', "Changelist": 1.5', "line 1, column 73: Changelist must be an integer, not 1.5"),
    (MINIMAL.encode() % b', "Changelist": 5.0', "Changelist must be an integer, not 5.0"),
    (MINIMAL.encode() % b', "Changelist": "5"', "Changelist must be an integer, not '5'"),
    (MINIMAL.encode() % b', "Changelist": -5', "Changelist must be from 0 to 2147483647, not -5"),
    (MINIMAL.encode() % b', "Changelist": 2147483648', "not 2147483648 (bit 31 is Unreal's licensee flag"),
    (MINIMAL.encode() % b', "CompatibleChangelist": 4294967295', "CompatibleChangelist must be from 0 to"),
    (
        MINIMAL.encode() % b', "IsPromotedBuild": true',
        "IsPromotedBuild must be an integer from 0 to 2147483647 (0 is off, any other value on), not true",
    ),
    (
        MINIMAL.encode() % b', "IsLicenseeVersion": false',
        "IsLicenseeVersion must be an integer from 0 to 2147483647 (0 is off, any other value on), not false",
    ),
    (
        MINIMAL.encode() % b', "IsLicenseeVersion": null',
        "IsLicenseeVersion must be an integer from 0 to 2147483647 (0 is off, any other value on), not null",
    ),
    (
        MINIMAL.encode() % b', "IsLicenseeVersion": -1',
        "IsLicenseeVersion must be an integer from 0 to 2147483647 (0 is off, any other value on), not -1",
    ),
    (
        MINIMAL.encode() % b', "IsPromotedBuild": 2147483648',
        "IsPromotedBuild must be an integer from 0 to 2147483647 (0 is off, any other value on), not 2147483648",
    ),
    (
        MINIMAL.encode() % b', "IsPromotedBuild": 1.0',
        "IsPromotedBuild must be an integer from 0 to 2147483647 (0 is off, any other value on), not 1.0",
    ),
    (
        MINIMAL.encode() % b', "IsPromotedBuild": "1"',
        "IsPromotedBuild must be an integer from 0 to 2147483647 (0 is off, any other value on), not '1'",
    ),
    (b'{"MajorVersion": 65536, "MinorVersion": 1, "PatchVersion": 1}', "MajorVersion must be from 0 to 65535"),
    (b'{"MajorVersion": 1, "MinorVersion": -1, "PatchVersion": 1}', "MinorVersion must be from 0 to 65535, not -1"),
    (MINIMAL.encode() % b', "BranchName": 5', "BranchName must be a string, not 5"),
    (MINIMAL.encode() % b', "BuildId": null', "BuildId must be a string, not null"),
    (MINIMAL.encode() % b', "BuildVersion": ["a"]', "BuildVersion must be a string, not an array"),
    (MINIMAL.encode() % b', "Changelist": 1, "changelist": 2', "duplicate key 'changelist' (first at line 1"),
    (MINIMAL.encode() % b', "X": 1, "X": 2', "duplicate key 'X'"),
    (MINIMAL.encode() % b', "X": {"a": 1, "a": 2}', "duplicate key 'a' in a nested object"),
    (b'{"MajorVersion": 4, "BranchName": "a\nb"}', "line 1, column 37: invalid control character in 'BranchName'"),
    (b'{"MajorVersion": 4 /* c */}', "line 1, column 20: expected ',' or '}', found '/'"),
    (MINIMAL.encode() % b', "BranchName": "\\ud800"', "BranchName must be text UTF-8 can encode, not '\\ud800'"),
]


@pytest.mark.parametrize(("data", "message"), INVALID_FILES)
def test_invalid_files_give_one_clear_error_naming_file_and_place(data: bytes, message: str) -> None:
    with pytest.raises(VersionFileError) as info:
        parse_build_version(data, FILE)
    text = str(info.value)
    assert text.startswith(str(FILE) + ": ")
    assert message in text
    assert "\n" not in text


def test_record_refuses_values_outside_unreal_ranges() -> None:
    with pytest.raises(InvalidVersionError, match="Changelist must be from 0 to 2147483647, not 2147483648"):
        BuildVersion(5, 0, 0, changelist=2**31)
    with pytest.raises(InvalidVersionError, match=r"IsPromotedBuild must be a bool, not 1"):
        BuildVersion(5, 0, 0, is_promoted_build=1)  # type: ignore[arg-type]


FLAG_VALUES = [(0, False), (1, True), (2, True), (2147483647, True)]


@pytest.mark.parametrize(("stored", "on"), FLAG_VALUES)
@pytest.mark.parametrize("name", ["IsLicenseeVersion", "IsPromotedBuild"])
def test_a_flag_is_any_integer_from_zero_to_int32_max_on_when_not_zero_as_unreal_reads_it(
    name: str, stored: int, on: bool
) -> None:
    data = (MINIMAL % f', "{name}": {stored}').encode()
    version_file = parse_build_version(data, FILE)
    assert getattr(version_file.record, FIELDS_BY_NAME[name].attribute) is on
    assert version_file.record.to_json_fields()[name] == int(on)  # shown as Unreal uses it
    assert version_file.render(version_file.record) == data
    # Saving other changes keeps the flag's own text.
    assert f'"{name}": {stored}'.encode() in version_file.render(version_file.record.replace(changelist=9))


FIELDS_BY_NAME = {field.name: field for field in FIELDS}


def test_new_file_is_written_as_unreal_writes_it() -> None:
    text = render_new_file(BuildVersion(0, 0, 0))
    assert text == (
        '{\n\t"MajorVersion": 0,\n\t"MinorVersion": 0,\n\t"PatchVersion": 0,\n\t"Changelist": 0,\n'
        '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
    )


def test_new_file_writes_build_id_and_version_only_when_set() -> None:
    text = render_new_file(BuildVersion(5, 1, 0, build_id="abc", build_url="https://x"))
    assert '\t"BranchName": "",\n\t"BuildId": "abc",\n\t"BuildURL": "https://x"\n}' in text
    assert "BuildVersion" not in text


def test_missing_key_is_inserted_after_its_unreal_predecessor_in_the_file_style() -> None:
    data = b'{\r\n  "MajorVersion" : 5,\r\n  "MinorVersion" : 1,\r\n  "PatchVersion" : 0\r\n}\r\n'
    version_file = parse_build_version(data, FILE)
    saved = version_file.render(version_file.record.replace(changelist=7, build_version="Nightly"))
    assert saved == (
        b'{\r\n  "MajorVersion" : 5,\r\n  "MinorVersion" : 1,\r\n  "PatchVersion" : 0,\r\n  "Changelist" : 7,'
        b'\r\n  "BuildVersion" : "Nightly"\r\n}\r\n'
    )


def test_missing_key_before_every_present_key_goes_first() -> None:
    data = b'{\n\t"Custom": 1,\n\t"MajorVersion": 5,\n\t"MinorVersion": 1,\n\t"PatchVersion": 0\n}'
    version_file = parse_build_version(data, FILE)
    saved = version_file.render(version_file.record.replace(changelist=9))
    assert json.loads(saved)["Changelist"] == 9
    assert saved.startswith(b'{\n\t"Custom": 1,\n\t"MajorVersion": 5,')


STRING_VALUES = ["plain", 'quote " and \\ backslash', "tab\tnew\nline", "control \x01\x7f\x9f", "ünïcødé ✓", "/slash/"]


@pytest.mark.parametrize("value", STRING_VALUES)
def test_strings_are_escaped_as_unreal_json_writer_does_and_read_back(value: str) -> None:
    version_file = parse_build_version((MINIMAL % ', "BranchName": ""').encode(), FILE)
    saved = version_file.render(version_file.record.replace(branch_name=value))
    assert parse_build_version(saved, FILE).record.branch_name == value
    assert json.loads(saved)["BranchName"] == value
    if "\x01" in value:
        assert b"\\u0001" in saved
        assert b"\\u007F" in saved
    if "ü" in value:
        assert "ünïcødé".encode() in saved


records = st.builds(
    BuildVersion,
    st.integers(0, 65535),
    st.integers(0, 65535),
    st.integers(0, 65535),
    st.integers(0, 2**31 - 1),
    st.integers(0, 2**31 - 1),
    st.booleans(),
    st.booleans(),
    st.text(),
    st.text(),
    st.text(),
    st.text(),
)


@given(records)
def test_new_files_read_back_as_written(record: BuildVersion) -> None:
    data = render_new_file(record).encode()
    version_file = parse_build_version(data, FILE)
    assert version_file.record == record
    assert version_file.render() == data


@given(st.sampled_from(LAYOUTS), records)
def test_any_record_saved_into_any_layout_reads_back(layout: Path, record: BuildVersion) -> None:
    version_file = parse_build_version(layout.read_bytes(), layout)
    saved = version_file.render(record)
    assert parse_build_version(saved, layout).record == record


def test_find_build_version_walks_up_to_the_repository_root(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "Engine" / "Build").mkdir(parents=True)
    target = repository / "Engine" / "Build" / "Build.version"
    target.write_text(MINIMAL % "")
    deep = repository / "Engine" / "Source" / "Runtime"
    deep.mkdir(parents=True)
    assert find_build_version(deep) == target


def test_find_build_version_prefers_build_over_engine_build(tmp_path: Path) -> None:
    for relative in ("Build", "Engine/Build"):
        (tmp_path / relative).mkdir(parents=True)
        (tmp_path / relative / "Build.version").write_text(MINIMAL % "")
    assert find_build_version(tmp_path) == tmp_path / "Build" / "Build.version"


def test_find_build_version_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_text(MINIMAL % "")
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    with pytest.raises(VersionFileError, match=r"no Build/Build\.version or Engine/Build/Build\.version"):
        find_build_version(repository)


@pytest.mark.parametrize(
    ("setup", "message"),
    [("missing", "the version file is missing"), ("folder", "is a folder, not a version file")],
)
def test_load_errors_name_the_file(tmp_path: Path, setup: str, message: str) -> None:
    target = tmp_path / "Build.version"
    if setup == "folder":
        target.mkdir()
    with pytest.raises(VersionFileError, match=message):
        load_build_version(target)


VALID = (DATA / "ue4.25.4.version").read_bytes()


def parse_or_error(data: bytes) -> VersionFile | VersionFileError:
    """The parsed file, or the one error the parser may raise (any other exception fails the test)."""
    try:
        return parse_build_version(data, FILE)
    except VersionFileError as error:
        return error


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_raise_only_version_file_error(data: bytes) -> None:
    result = parse_or_error(data)
    if isinstance(result, VersionFileError):
        assert str(result).startswith(f"{FILE}: ")
        assert "\n" not in str(result)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_real_files_raise_only_version_file_error_and_round_trip_when_valid(data: st.DataObject) -> None:
    mutated = bytearray(VALID)
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(mutated) - 1))
        action = data.draw(st.sampled_from(["replace", "delete", "insert"]))
        byte = data.draw(st.integers(0, 255))
        if action == "replace":
            mutated[position] = byte
        elif action == "delete":
            del mutated[position]
        else:
            mutated.insert(position, byte)
    result = parse_or_error(bytes(mutated))
    if isinstance(result, VersionFileError):
        assert "\n" not in str(result)
    else:
        assert result.render() == bytes(mutated)


def test_a_key_inserted_into_a_one_line_file_stays_on_that_line() -> None:
    data = b'{"MajorVersion": 5, "MinorVersion": 1, "PatchVersion": 0}\n'
    version_file = parse_build_version(data, FILE)
    saved = version_file.render(version_file.record.replace(changelist=7))
    assert saved == b'{"MajorVersion": 5, "MinorVersion": 1, "PatchVersion": 0, "Changelist": 7}\n'


LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 212\n"
)


def test_a_git_lfs_pointer_is_named_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from helpers import run_cli

    version = tmp_path / "Build" / "Build.version"
    version.parent.mkdir()
    version.write_bytes(LFS_POINTER)
    with pytest.raises(VersionFileError, match="a Git LFS pointer, not the file: run git lfs pull"):
        parse_build_version(LFS_POINTER, version)
    code, out, err = run_cli(capsys, "show", "-f", str(version))
    assert (code, out) == (1, "")
    assert err == (
        f"buildver: error: {version}: a Git LFS pointer, not the file: run git lfs pull, or stop tracking "
        "Build.version with LFS (UAT and UBT read it as JSON)\n"
    )
