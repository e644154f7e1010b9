"""update-local on engine trees of each generation: the bytes that engine's own ``RunUAT UpdateLocalVersion`` writes.

Each tree is a real git repository laid out as an engine checkout (``Engine/Build/Build.version`` beside
``Engine/Source/``), with the Build.version Epic ships for that release and a Version.h in that release's shape.
Every expected file names the engine source it follows; ``docs/unreal-rules.md`` has the whole table.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import git

from buildver.cli.app import main
from buildver.stamp.rules import HEADER_HINT, choose_rules
from buildver.versions.engine_tree import engine_root
from buildver.versions.generations import BUILDVER_RULES, GENERATIONS, rule_set_named

DATA = Path(__file__).parents[1] / "data"
VERSION_H = Path("Engine/Source/Runtime/Launch/Resources/Version.h")
OLD_MARKER = "Engine/Build/NotForLicensees/EpicInternal.txt"
RESTRICTED_MARKER = "Engine/Restricted/NotForLicensees/Build/EpicInternal.txt"


def version_h_422(major: int, minor: int, patch: int, shape: str = "4.22") -> bytes:
    """Version.h in the shape of 4.22 to 5.2 or (``shape="5.3"``) of 5.3 and later, for this version."""
    template = string.Template((DATA / "engine" / f"Version-{shape}.h.template").read_text())
    return template.substitute(major=major, minor=minor, patch=patch).encode()


VERSION_H_418 = (DATA / "header" / "Version-4.18.h").read_bytes()
METADATA_CS = "Engine/Source/Programs/DotNETCommon/MetaData.cs"
METADATA_CS_5 = "Engine/Source/Programs/Shared/MetaData.cs"  # where 5.x keeps it; its UAT no longer stamps it
METADATA = (DATA / "engine" / "MetaData.cs").read_bytes()


def stamped_metadata(version: str) -> bytes:
    old = b'AssemblyInformationalVersion("4.0.0")'
    return METADATA.replace(old, f'AssemblyInformationalVersion("{version}")'.encode())


@dataclass(frozen=True)
class EngineCase:
    """An engine tree, the Build.version UAT writes for ``update-local --cl 123 --promoted 1``, and why."""

    name: str
    build_version: bytes
    version_h: bytes
    expected_build_version: str
    expected_version_h: bytes | None  # None: Version.h stays byte for byte as it was
    expected_metadata: bytes | None = None  # None: MetaData.cs stays byte for byte as it was
    marker: str | None = None
    changelist: str = "123"
    rules: str = ""

    @property
    def rules_name(self) -> str:
        return self.rules or self.name


def _lines(*lines: str) -> str:
    return "{\n" + ",\n".join(f"\t{line}" for line in lines) + "\n}"


CASES = [
    # 4.18 (windystrife/UnrealEngine_NVIDIAGameWorks@0f9675a 4.18.3, UE4Build.cs UpdateVersionFiles):
    # IsLicenseeVersion only from -Licensee; CompatibleCL defaults to the changelist; BuildVersion.cs writes
    # BuildId always, no BuildVersion key; Version.h patched by VersionFileUpdater (BRANCH_NAME,
    # BUILT_FROM_CHANGELIST, the Epic ENGINE_COMPATIBLE_CL_VERSION (occurrence 1), ENGINE_IS_LICENSEE_VERSION,
    # ENGINE_IS_PROMOTED_BUILD).
    EngineCase(
        "4.18",
        (DATA / "build_version" / "ue4.18.3.version").read_bytes(),
        VERSION_H_418,
        _lines(
            '"MajorVersion": 4',
            '"MinorVersion": 18',
            '"PatchVersion": 3',
            '"Changelist": 123',
            '"CompatibleChangelist": 123',
            '"IsLicenseeVersion": 0',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE4+main"',
            '"BuildId": ""',
        ),
        VERSION_H_418.replace(b'#define BRANCH_NAME "++UE4+Release-4.18"', b'#define BRANCH_NAME "++UE4+main"')
        .replace(b"#define BUILT_FROM_CHANGELIST 0", b"#define BUILT_FROM_CHANGELIST 123")
        .replace(
            b"#define ENGINE_COMPATIBLE_CL_VERSION 3709383 /* Or hotfix compatibility changelist */",
            b"#define ENGINE_COMPATIBLE_CL_VERSION 123",
        )
        .replace(
            b"#define ENGINE_IS_PROMOTED_BUILD  (BUILT_FROM_CHANGELIST > 0)", b"#define ENGINE_IS_PROMOTED_BUILD  1"
        ),
        # MetaData.cs: FEngineVersionSupport.FromVersionFile(Version.h, CL), the changelist as "0000000".
        stamped_metadata("4.18.3-0000123+++UE4+main"),
    ),
    # 4.22 follows 4.21 (Mu-L/TracerInteractiveUE4Plugins@cb12528 4.22.0, UE4Build.cs UpdateVersionFiles):
    # Version.h left alone; IsLicenseeVersion = -Licensee or no Engine/Build/NotForLicensees/EpicInternal.txt;
    # CompatibleCL defaults to the changelist; BuildVersion.cs writes BuildId and BuildVersion always ("" when null).
    EngineCase(
        "4.22",
        (DATA / "build_version" / "ue4.22.3.version").read_bytes(),
        version_h_422(4, 22, 3),
        _lines(
            '"MajorVersion": 4',
            '"MinorVersion": 22',
            '"PatchVersion": 3',
            '"Changelist": 123',
            '"CompatibleChangelist": 123',
            '"IsLicenseeVersion": 1',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE4+main"',
            '"BuildId": ""',
            '"BuildVersion": ""',
        ),
        None,
        # MetaData.cs: "{Major}.{Minor}.{Patch}-{Changelist}+{BranchName}" of the new Build.version.
        stamped_metadata("4.22.3-123+++UE4+main"),
        rules="4.21",
    ),
    # 4.27 follows 4.26 (Stiiiff/EphemereEngine@c96df6b 4.27.2, UE4Build.cs UpdateVersionFiles): the marker is
    # Engine/Restricted/NotForLicensees/Build/EpicInternal.txt; CompatibleCL kept unless the licensee flag changes
    # (here 0 -> 1: reset to 0, "it corresponds to a different P4 server"); BuildVersion.cs writes BuildId and
    # BuildVersion only when they are not empty.
    EngineCase(
        "4.27",
        (DATA / "build_version" / "ue4.27.2.version").read_bytes(),
        version_h_422(4, 27, 2),
        _lines(
            '"MajorVersion": 4',
            '"MinorVersion": 27',
            '"PatchVersion": 2',
            '"Changelist": 123',
            '"CompatibleChangelist": 0',
            '"IsLicenseeVersion": 1',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE4+main"',
        ),
        None,
        stamped_metadata("4.27.2-123+++UE4+main"),
        rules="4.26",
    ),
    # 5.0 (songjihu/UnrealEngine-5.0.3-release@344a5f1, UnrealBuild.cs UpdateVersionFiles): as 4.26, without the
    # MetaData.cs step.
    EngineCase(
        "5.0",
        (DATA / "build_version" / "ue5.0.3.version").read_bytes(),
        version_h_422(5, 0, 3),
        _lines(
            '"MajorVersion": 5',
            '"MinorVersion": 0',
            '"PatchVersion": 3',
            '"Changelist": 123',
            '"CompatibleChangelist": 0',
            '"IsLicenseeVersion": 1',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE5+main"',
        ),
        None,
    ),
    # 5.0 inside Epic: the marker exists, the licensee flag stays 0 and CompatibleCL is kept.
    EngineCase(
        "5.0",
        (DATA / "build_version" / "ue5.0.3.version").read_bytes(),
        version_h_422(5, 0, 3),
        _lines(
            '"MajorVersion": 5',
            '"MinorVersion": 0',
            '"PatchVersion": 3',
            '"Changelist": 19600000',
            '"CompatibleChangelist": 19505902',
            '"IsLicenseeVersion": 0',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE5+main"',
        ),
        None,
        marker=RESTRICTED_MARKER,
        changelist="19600000",
    ),
    # 5.8 (unicorn2022/UE5.8.0@5d9a05c, UpdateLocalVersion.Automation.cs, UnrealBuild.cs and BuildVersion.cs):
    # as 5.3 (BuildURL removed: UpdateLocalVersion passes none), plus uebp_CodeCL as the compatible changelist;
    # the file Epic ships ends in "\n\n", which BuildVersion.Write does not write.
    EngineCase(
        "5.8",
        (DATA / "build_version" / "ue5.8.0.version").read_bytes(),
        version_h_422(5, 8, 0, shape="5.3"),
        _lines(
            '"MajorVersion": 5',
            '"MinorVersion": 8',
            '"PatchVersion": 0',
            '"Changelist": 123',
            '"CompatibleChangelist": 0',
            '"IsLicenseeVersion": 1',
            '"IsPromotedBuild": 1',
            '"BranchName": "++UE5+main"',
        ),
        None,
    ),
]


def tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def make_engine(root: Path, case: EngineCase) -> Path:
    """An engine checkout in a new git repository named after the engine's major version."""
    files = {
        "Engine/Build/Build.version": case.build_version,
        VERSION_H.as_posix(): case.version_h,
        METADATA_CS if case.name.startswith("4.") else METADATA_CS_5: METADATA,
        "Engine/Build/BatchFiles/RunUAT.sh": b"#!/bin/sh\n",
        "Engine/Source/Programs/AutomationTool/Scripts/UpdateLocalVersion.Automation.cs": b"// stand-in\n",
    }
    if case.marker:
        files[case.marker] = b""
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "engine")
    return root / "Engine" / "Build" / "Build.version"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}{'-epic' if c.marker else ''}" for c in CASES])
def test_an_engine_tree_is_stamped_as_its_own_uat_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, case: EngineCase
) -> None:
    root = tmp_path / f"UE{case.name[0]}"
    root.mkdir()
    version = make_engine(root, case)
    before = tree(root)
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", case.changelist, "--promoted", "1"]) == 0
    captured = capsys.readouterr()
    # 4.18's UAT makes a hotfix's compatible changelist its own, which its Version.h refuses: said before writing.
    hotfix = case.name == "4.18"
    assert ("must be manually defined for hotfix builds" in captured.err) is hotfix
    assert captured.err.count("\n") == int(hotfix)
    expected = dict(before)
    expected["Engine/Build/Build.version"] = case.expected_build_version.encode()
    if case.expected_version_h is not None:
        expected[VERSION_H.as_posix()] = case.expected_version_h
    if case.expected_metadata is not None:
        expected[METADATA_CS] = case.expected_metadata
    assert tree(root) == expected  # every other file, BuildVersion.h included, as it was (or absent)
    assert version.read_text() == case.expected_build_version
    # The guard passes a commit of the stamped tree.
    git(root, "add", "-A")
    assert main(["guard"]) == 0
    assert capsys.readouterr().out.endswith("no problems\n")
    # A second run changes nothing.
    assert main(["update-local", "--cl", case.changelist, "--promoted", "1"]) == 0
    assert capsys.readouterr().out.endswith("up to date: nothing written\n")


@pytest.mark.parametrize("case", CASES[1:], ids=[case.name for case in CASES[1:]])
def test_dry_run_and_json_say_which_rules_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, case: EngineCase
) -> None:
    root = tmp_path / "UE"
    root.mkdir()
    version = make_engine(root, case)
    before = version.read_bytes()
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "123", "--dry-run"]) == 0
    out = capsys.readouterr().out
    stamped = json.loads(before)
    first_line = (
        f"rules: Unreal {case.rules_name} UpdateLocalVersion (engine tree at {stamped['MajorVersion']}."
        f"{stamped['MinorVersion']}.{stamped['PatchVersion']}: the rules UAT has had since {case.rules_name})"
    )
    assert out.splitlines()[0] == first_line
    assert main(["update-local", "--cl", "123", "--dry-run", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["Rules"]["Name"] == case.rules_name
    assert document["Rules"]["Reason"].startswith("engine tree at")
    metadata = [str(root / METADATA_CS)] if case.expected_metadata is not None else []
    assert document["FilesChanged"] == [str(version), *metadata]
    assert version.read_bytes() == before


def test_a_4_22_engine_writes_a_header_only_when_one_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "UE5"
    root.mkdir()
    version = make_engine(root, CASES[3])
    monkeypatch.chdir(root)
    assert main(["header", "--check"]) == 0
    assert capsys.readouterr().out.startswith(
        "no header to check: Unreal 5.0 UpdateLocalVersion leaves Version.h alone (engine tree at 5.0"
    )
    (root / "Game").mkdir()
    assert main(["update-local", "--cl", "7", "--header", "Game/StampedVersion.h"]) == 0
    text = (root / "Game" / "StampedVersion.h").read_text()
    assert "#define BUILT_FROM_CHANGELIST 7" in text
    assert (root / VERSION_H).read_bytes() == CASES[3].version_h
    # Naming the engine's own Version.h asks for a patch it cannot take: the error says how to leave it alone.
    before = version.read_bytes()
    code = main(["update-local", "--cl", "8", "--header", str(VERSION_H)])
    err = capsys.readouterr().err
    assert code == 1
    assert "unable to find line '#define BRANCH_NAME'" in err
    assert err.rstrip().endswith(f"; {HEADER_HINT}")
    assert version.read_bytes() == before


def test_a_4_18_engine_without_its_version_h_is_an_error_that_says_how_to_skip_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "UE4"
    root.mkdir()
    version = make_engine(root, CASES[0])
    (root / VERSION_H).unlink()
    before = version.read_bytes()
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "5"]) == 1
    err = capsys.readouterr().err
    assert "Version.h is missing, and 4.18's rules patch it" in err
    assert "--skip-header" in err
    assert version.read_bytes() == before
    assert main(["update-local", "--cl", "5", "-SkipHeader"]) == 0
    assert json.loads(version.read_bytes())["Changelist"] == 5


def test_the_licensee_flag_overrides_the_marker_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "UE5"
    root.mkdir()
    version = make_engine(root, CASES[4])  # Epic's marker present: 0 by default
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "9", "-Licensee"]) == 0
    assert json.loads(version.read_bytes())["IsLicenseeVersion"] == 1
    assert main(["update-local", "--cl", "9", "--no-licensee"]) == 0
    assert json.loads(version.read_bytes())["IsLicenseeVersion"] == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("marker", "rules", "licensee"),
    [
        # 4.20.0 to 4.25.4 check Engine/Build/...; 4.26.0 and later Engine/Restricted/... (both Mu-L releases)
        (OLD_MARKER, "4.20", 0),
        (RESTRICTED_MARKER, "4.20", 1),
        (OLD_MARKER, "4.25", 0),
        (RESTRICTED_MARKER, "4.25", 1),
        (OLD_MARKER, "4.26", 1),
        (RESTRICTED_MARKER, "4.26", 0),
        (RESTRICTED_MARKER, "5.8", 0),
    ],
)
def test_each_generation_looks_for_epics_marker_where_its_uat_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str, rules: str, licensee: int
) -> None:
    root = tmp_path / "UE"
    root.mkdir()
    version = make_engine(root, CASES[3])
    (root / marker).parent.mkdir(parents=True, exist_ok=True)
    (root / marker).write_bytes(b"")
    assert main(["update-local", "-f", str(version), "--cl", "9", "--branch", "B", "--rules", rules]) == 0
    assert json.loads(version.read_bytes())["IsLicenseeVersion"] == licensee
    capsys.readouterr()


def test_uebp_code_cl_is_the_compatible_changelist_only_where_uat_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "UE5"
    root.mkdir()
    version = make_engine(root, CASES[5])
    monkeypatch.setenv("uebp_CodeCL", "120")
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "123"]) == 0
    assert json.loads(version.read_bytes())["CompatibleChangelist"] == 120
    assert main(["update-local", "--cl", "124", "--rules", "5.6"]) == 0
    assert json.loads(version.read_bytes())["CompatibleChangelist"] == 120  # kept: 5.6's UAT does not read it
    capsys.readouterr()


def test_a_project_that_is_not_an_engine_still_gets_its_generated_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "Game"
    (root / "Build").mkdir(parents=True)
    version = root / "Build" / "Build.version"
    version.write_bytes((DATA / "build_version" / "ue5.0.3.version").read_bytes() + b"\n")
    git(root, "init", "--quiet", "--initial-branch=main")
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "123", "--promoted", "1", "--branch", "++Game+Main", "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "rules: buildver's own rules (not an engine tree (no Engine/Build/Build.version beside Engine/Source/))"
    )
    assert main(["update-local", "--cl", "123", "--promoted", "1", "--branch", "++Game+Main"]) == 0
    assert version.read_bytes().endswith(b"}\n")  # buildver's rules keep the file's ending
    document = json.loads(version.read_bytes())
    assert (document["Changelist"], document["IsLicenseeVersion"], document["CompatibleChangelist"]) == (
        123,
        0,
        19505902,
    )
    assert "#define PROJECT_CHANGELIST 123" in (root / "Build" / "BuildVersion.h").read_text()
    capsys.readouterr()


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ((4, 17, 2), "4.18"),
        ((4, 18, 3), "4.18"),
        ((4, 19, 2), "4.18"),
        ((4, 20, 0), "4.20"),
        ((4, 21, 1), "4.21"),
        ((4, 22, 3), "4.21"),
        ((4, 24, 0), "4.21"),
        ((4, 24, 1), "4.24.1"),
        ((4, 25, 4), "4.24.1"),
        ((4, 26, 0), "4.26"),
        ((4, 27, 2), "4.26"),
        ((5, 0, 3), "5.0"),
        ((5, 2, 1), "5.0"),
        ((5, 3, 2), "5.3"),
        ((5, 7, 4), "5.3"),
        ((5, 8, 0), "5.8"),
        ((6, 0, 0), "5.8"),
    ],
)
def test_an_engine_tree_follows_the_last_generation_not_newer_than_itself(
    tmp_path: Path, version: tuple[int, int, int], expected: str
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Source").mkdir()
    chosen = choose_rules(tmp_path / "Engine" / "Build" / "Build.version", version)
    assert chosen.rules.name == expected
    assert chosen.engine_root == tmp_path


@pytest.mark.parametrize(
    "relative",
    ["Build/Build.version", "Engine/Build/Build.version", "Game/Engine/Build/Other.version"],
)
def test_only_an_engine_layout_is_an_engine_tree(tmp_path: Path, relative: str) -> None:
    path = tmp_path / relative
    path.parent.mkdir(parents=True)
    # Engine/Source/ is missing in every case except the one that has it below.
    assert engine_root(path) is None
    assert choose_rules(path, (5, 0, 3)).rules is BUILDVER_RULES


def test_rules_are_forced_by_the_flag_then_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Source").mkdir()
    path = tmp_path / "Engine" / "Build" / "Build.version"
    assert choose_rules(path, (5, 3, 0), forced="4.18", configured="5.8").rules.name == "4.18"
    assert choose_rules(path, (5, 3, 0), configured="buildver").rules is BUILDVER_RULES
    assert choose_rules(path, (5, 3, 0), configured="4.27").reason == "configured rules 4.27"
    assert choose_rules(path, (5, 3, 0), configured="4.27").rules.name == "4.26"
    assert choose_rules(path, (5, 3, 0), forced="4.24.1").rules.name == "4.24.1"
    assert choose_rules(path, (5, 3, 0), forced="4.24").rules.name == "4.21"


@pytest.mark.parametrize("text", ["5", "5.x", "v5.0", "5.0.1.2", "", "BUILDVER", "5.0."])
def test_a_rules_name_that_is_not_x_y_or_buildver_is_a_usage_error(text: str) -> None:
    from buildver.errors import UsageError

    with pytest.raises(UsageError, match=r"is not an engine version X\.Y\[\.Z\] or 'buildver'"):
        rule_set_named(text, "--rules")


def test_generations_are_in_order_and_each_cites_its_source() -> None:
    firsts = [rules.first for rules in GENERATIONS]
    assert firsts == sorted(firsts)
    assert len(set(firsts)) == len(firsts)
    assert all(rules.source for rules in GENERATIONS)


@pytest.mark.parametrize(("index", "header_checked"), [(0, True), (3, False), (5, False)])
def test_the_guard_checks_version_h_only_where_update_local_writes_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    index: int,
    header_checked: bool,
) -> None:
    case = CASES[index]
    root = tmp_path / "UE"
    root.mkdir()
    make_engine(root, case)
    monkeypatch.chdir(root)
    # A commit that edits Version.h by hand (a studio's own define) and stages a new changelist.
    header = root / VERSION_H
    header.write_bytes(header.read_bytes() + b"#define STUDIO_BUILD_FLAVOUR 2\n")
    stamped = json.loads(case.build_version)
    stamped["Changelist"] = 19600000
    (root / "Engine" / "Build" / "Build.version").write_text(json.dumps(stamped, indent="\t"))
    git(root, "add", "-A")
    code = main(["guard"])
    out = capsys.readouterr().out
    if header_checked:
        # 4.18: UpdateLocalVersion patches Version.h, so it must match the staged Build.version.
        assert code == 1
        assert f"{VERSION_H.as_posix()}: error[header]: out of step with Engine/Build/Build.version" in out
    else:
        # 4.20 and later: UAT leaves Version.h alone, and the guard checks only its numbers (engine-numbers).
        assert (code, out) == (0, "buildver guard: 2 files checked, no problems\n")


KEY_CASES = [
    # (rules, extra arguments, keys after BranchName): BuildVersion.cs's WriteProperties of each generation.
    # 4.18: BuildId always written; -Build goes only to Version.h; BuildURL unknown, so left as it was.
    ("4.18", ["-Build=Nightly 7"], ['"BuildId": "CarbonBID"', '"BuildURL": "https://ci.example/1"']),
    # 4.20: no BuildVersion key yet, and -Build goes nowhere.
    ("4.20", ["-Build=Nightly 7"], ['"BuildId": "CarbonBID"', '"BuildURL": "https://ci.example/1"']),
    # 4.21 to 4.25: BuildId and BuildVersion always written ("" when null); -Build stored.
    ("4.22", [], ['"BuildId": "CarbonBID"', '"BuildVersion": ""', '"BuildURL": "https://ci.example/1"']),
    (
        "4.25",
        ["-Build=Nightly 7"],
        ['"BuildId": "CarbonBID"', '"BuildVersion": "Nightly 7"', '"BuildURL": "https://ci.example/1"'],
    ),
    # 4.26 to 5.2: only when not empty.
    ("4.26", [], ['"BuildId": "CarbonBID"', '"BuildURL": "https://ci.example/1"']),
    (
        "4.26",
        ["-Build=Nightly 7"],
        ['"BuildId": "CarbonBID"', '"BuildVersion": "Nightly 7"', '"BuildURL": "https://ci.example/1"'],
    ),
    # 5.3 and later: UpdateLocalVersion passes no BuildURL, and an empty one is not written.
    ("5.3", [], ['"BuildId": "CarbonBID"']),
    ("5.8", ["-Build=Nightly 7"], ['"BuildId": "CarbonBID"', '"BuildVersion": "Nightly 7"']),
    # buildver's own rules keep every key the file has and clear BuildURL in place.
    ("buildver", [], ['"BuildId": "CarbonBID"', '"BuildURL": ""']),
]


@pytest.mark.parametrize(("rules", "arguments", "tail"), KEY_CASES)
def test_each_generation_writes_the_keys_its_build_version_writer_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rules: str, arguments: list[str], tail: list[str]
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Source").mkdir()
    version = tmp_path / "Engine" / "Build" / "Build.version"
    version.write_text(
        _lines(
            '"MajorVersion": 5',
            '"MinorVersion": 3',
            '"PatchVersion": 2',
            '"Changelist": 0',
            '"CompatibleChangelist": 0',
            '"IsLicenseeVersion": 1',
            '"IsPromotedBuild": 0',
            '"BranchName": "UE5"',
            '"BuildId": "CarbonBID"',
            '"BuildURL": "https://ci.example/1"',
        )
    )
    command = ["update-local", "-f", str(version), "-CL=5", "-Branch=B", "-SkipHeader", "--rules", rules, *arguments]
    assert main(command) == 0, capsys.readouterr().err
    head = ['"MajorVersion": 5', '"MinorVersion": 3', '"PatchVersion": 2', '"Changelist": 5']
    compatible = '"CompatibleChangelist": 5' if rules in ("4.18", "4.20", "4.22") else '"CompatibleChangelist": 0'
    licensee = '"IsLicenseeVersion": 0' if rules == "4.18" else '"IsLicenseeVersion": 1'
    expected = _lines(*head, compatible, licensee, '"IsPromotedBuild": 1', '"BranchName": "B"', *tail)
    assert version.read_text() == expected
    capsys.readouterr()


METADATA_CASES = [
    # (line in MetaData.cs, version, line after): VersionFileUpdater.SetAssemblyInformationalVersion's pattern.
    (
        '[assembly: AssemblyInformationalVersion("4.0.0")]',
        "4.27.2-5+B",
        '[assembly: AssemblyInformationalVersion("4.27.2-5+B")]',
    ),
    (
        '[ASSEMBLY:   assemblyinformationalversion ( "x" ) ]',
        "1.2.3-4+B",
        '[ASSEMBLY:   assemblyinformationalversion ( "1.2.3-4+B" ) ]',
    ),
    # A branch that would end the C# string or start a line is escaped (UAT writes it raw).
    (
        '[assembly: AssemblyInformationalVersion("")]',
        'a"b\\c\nd',
        '[assembly: AssemblyInformationalVersion("a\\"b\\\\c\\u000Ad")]',
    ),
]


@pytest.mark.parametrize(("line", "version", "expected"), METADATA_CASES)
def test_metadata_cs_gets_the_informational_version_between_its_quotes(line: str, version: str, expected: str) -> None:
    from buildver.stamp.metadata_cs import set_informational_version

    text = f"// tools\r\n{line}\r\n{line}\r\n"
    assert set_informational_version(text, version, "MetaData.cs") == f"// tools\r\n{expected}\r\n{line}\r\n"


def test_metadata_cs_without_the_attribute_is_an_error_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "UE4"
    root.mkdir()
    version = make_engine(root, CASES[1])
    (root / METADATA_CS).write_text("// no attribute here\n")
    before = tree(root)
    assert main(["update-local", "-f", str(version), "--cl", "5", "--branch", "B"]) == 1
    assert "MetaData.cs: no [assembly: AssemblyInformationalVersion" in capsys.readouterr().err
    assert tree(root) == before


def test_the_skip_header_setting_leaves_every_header_alone_in_update_local_header_and_the_guard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "UE4"
    root.mkdir()
    version = make_engine(root, CASES[0])  # 4.18: Version.h would be patched
    (root / "buildver.toml").write_text("skip-header = true\n")
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "123"]) == 0
    assert (root / VERSION_H).read_bytes() == VERSION_H_418
    assert json.loads(version.read_bytes())["Changelist"] == 123
    assert main(["header", "--check"]) == 0
    assert "no header to check: skip-header is set in the configuration" in capsys.readouterr().out
    git(root, "add", "-A")
    assert main(["guard"]) == 0


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('rules = "5"', "rules: '5' is not an engine version X.Y[.Z] or 'buildver'"),
        ("rules = 5.3", "rules must be a non-empty string, not 5.3"),
        ('skip-header = "yes"', "skip-header must be true or false, not 'yes'"),
    ],
)
def test_bad_rules_and_skip_header_settings_are_errors_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, setting: str, message: str
) -> None:
    root = tmp_path / "UE5"
    root.mkdir()
    version = make_engine(root, CASES[3])
    before = tree(root)
    (root / "buildver.toml").write_text(setting + "\n")
    monkeypatch.chdir(root)
    assert main(["update-local", "--cl", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"buildver: error: {root / 'buildver.toml'}: ")
    assert message in err
    assert version.read_bytes() == before["Engine/Build/Build.version"]


def test_an_explicit_compatible_cl_of_0_keeps_the_value_and_reads_no_code_cl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 5.8 UpdateLocalVersion: uebp_CodeCL only when -CompatibleCL is absent; 0 is then "not written" (kept).
    # 4.18 to 4.24.0: the changelist is the default, and -CompatibleCL=0 replaces it with 0, which is not written.
    root = tmp_path / "UE5"
    root.mkdir()
    version = make_engine(root, CASES[5])
    monkeypatch.setenv("uebp_CodeCL", "120")
    monkeypatch.chdir(root)
    stamped = json.loads(version.read_bytes())
    stamped["IsLicenseeVersion"], stamped["CompatibleChangelist"] = 1, 99
    version.write_text(json.dumps(stamped, indent="\t"))
    for rules in ("5.8", "4.22", "4.18"):
        assert (
            main(["update-local", "--cl", "123", "-CompatibleCL=0", "--rules", rules, "--licensee", "-SkipHeader"]) == 0
        )
        assert json.loads(version.read_bytes())["CompatibleChangelist"] == 99, rules
    capsys.readouterr()


REMOVAL_CASES = [
    # Keys in an unusual order: what 4.26+ removes (an empty BuildId, BuildURL from 5.3) may stand before every key
    # that stays, and a new key must not be anchored inside what is removed.
    '{"BuildId": "", "MajorVersion": 5, "MinorVersion": 3, "PatchVersion": 2}',
    '{"BuildURL":"a","BuildId":"", "MajorVersion": 5, "MinorVersion": 3, "PatchVersion": 2}',
    '{"MajorVersion": 5, "BuildId": "", "MinorVersion": 3, "BuildURL": "u", "PatchVersion": 2}',
    '{"MajorVersion": 5, "MinorVersion": 3, "PatchVersion": 2, "BuildId": "", "BuildURL": "u"}',
]


@pytest.mark.parametrize("text", REMOVAL_CASES)
def test_keys_removed_and_inserted_together_leave_valid_json_with_the_new_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    (tmp_path / "Engine" / "Build").mkdir(parents=True)
    (tmp_path / "Engine" / "Source").mkdir()
    version = tmp_path / "Engine" / "Build" / "Build.version"
    version.write_text(text)
    assert main(["update-local", "-f", str(version), "--cl", "5", "--branch", "y", "--build", "B", "-SkipHeader"]) == 0
    document = json.loads(version.read_text())
    assert (document["Changelist"], document["BranchName"], document["BuildVersion"]) == (5, "y", "B")
    assert "BuildId" not in document
    assert "BuildURL" not in document
    capsys.readouterr()


def test_a_project_outside_an_engine_keeps_its_generated_header_whatever_rules_are_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_bytes((DATA / "build_version" / "ue5.0.3.version").read_bytes())
    (tmp_path / "buildver.toml").write_text('rules = "5.3"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["update-local", "--cl", "5", "--branch", "B"]) == 0
    assert "#define PROJECT_CHANGELIST 5" in (tmp_path / "Build" / "BuildVersion.h").read_text()
    assert main(["header", "--check"]) == 0
    assert capsys.readouterr().out.endswith("BuildVersion.h: up to date\n")


def test_a_version_h_number_that_is_not_ascii_digits_is_not_read(tmp_path: Path) -> None:
    from buildver.stamp.metadata_cs import version_h_numbers

    text = "#define ENGINE_MAJOR_VERSION\t4\n#define ENGINE_MINOR_VERSION\t18\n#define ENGINE_PATCH_VERSION\t\u00b2\n"
    assert version_h_numbers(text) is None
    assert version_h_numbers(text.replace("\u00b2", "3")) == (4, 18, 3)
