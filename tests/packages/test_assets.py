"""``assets scan``: classifying packages against an engine, walking folders, the ini setting and the command."""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import run_on_terminal
from package_builder import ERAS, FILTER_EDITOR_ONLY, SyntheticPackage
from typer.testing import CliRunner

import buildver.cli.assets
import buildver.packages.scanning
from buildver import EngineVersion
from buildver.cli.assets import assets_app
from buildver.errors import UsageError
from buildver.packages.engine_ini import find_engine_ini, parse_zero_engine_version_warning, zero_engine_version_warning
from buildver.packages.reader import parse_package_summary
from buildver.packages.scanning import iter_packages, scan
from buildver.packages.verdicts import ScanResult, ScanStatus, classify, scan_file

ENGINE_55 = EngineVersion.parse("5.5.4-40574608+++UE5+Release-5.5")

COOKED = ERAS["-8"].with_(
    file_version_ue4=0,
    file_version_ue5=0,
    custom_versions=(),
    package_flags=FILTER_EDITOR_ONLY | 0x2000,
    end_tag=False,
)
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)
"""A package in Git LFS, as a checkout without git lfs pull (or with GIT_LFS_SKIP_SMUDGE=1) leaves it."""
PACKAGES: dict[str, tuple[bytes, ScanStatus]] = {
    "Ok.uasset": (ERAS["-8"].build(), ScanStatus.OK),
    "Old.uasset": (ERAS["-5"].build(), ScanStatus.OK),
    "From56.uasset": (
        ERAS["-9"].with_(file_version_ue5=1017, compatible_with=(5, 6, 0, 42823860, "++UE5+Release-5.6")).build(),
        ScanStatus.NEWER_ENGINE,
    ),
    "FromSourceBuild.umap": (
        ERAS["-8"].with_(saved_by=(0, 0, 0, 0, ""), compatible_with=(0, 0, 0, 0, "")).build(),
        ScanStatus.EMPTY_ENGINE_VERSION,
    ),
    "Cooked.uasset": (COOKED.build(), ScanStatus.UNVERSIONED),
    "Future.uasset": (ERAS["-9"].with_(legacy_file_version=-10).build(), ScanStatus.NEWER_ENGINE),
    "Truncated.uasset": (ERAS["-8"].build()[:300], ScanStatus.CORRUPT),
    "Notes.uasset": (b"not a package, just notes\n", ScanStatus.NOT_A_PACKAGE),
    "InLfs.uasset": (LFS_POINTER, ScanStatus.LFS_POINTER),
}


def write_tree(root: Path) -> Path:
    content = root / "Content"
    for index, (name, (data, _)) in enumerate(sorted(PACKAGES.items())):
        folder = content / f"Folder{index % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (content / "Folder0" / "Ignored.uexp").write_bytes(b"\0" * 40)
    (content / "Folder0" / "Readme.txt").write_text("not scanned")
    return content


def write_package(tmp_path: Path, package: SyntheticPackage, name: str = "Thing.uasset") -> str:
    path = tmp_path / name
    path.write_bytes(package.build())
    return str(path)


class TestClassify:
    """Each status comes from the rule Unreal's linker applies, checked in its order."""

    @pytest.mark.parametrize("name", list(PACKAGES))
    def test_status(self, tmp_path: Path, name: str) -> None:
        data, expected = PACKAGES[name]
        path = tmp_path / name
        path.write_bytes(data)
        result = scan_file(str(path), ENGINE_55)
        assert result.status is expected
        assert (result.error is None) == (
            expected in (ScanStatus.OK, ScanStatus.EMPTY_ENGINE_VERSION, ScanStatus.UNVERSIONED)
        )

    def test_newer_file_versions_without_a_compatible_version_are_newer_engine(self, tmp_path: Path) -> None:
        # CompatibleWith has no changelist, so only the object versions tell that 5.3 cannot load it.
        package = ERAS["-8"].with_(file_version_ue5=1012, compatible_with=(5, 4, 0, 0, ""))
        result = scan_file(write_package(tmp_path, package), EngineVersion.parse("5.3.2-29314046+++UE5+Release-5.3"))
        assert result.status is ScanStatus.NEWER_ENGINE
        assert result.error == "FileVersionUE5 1012 is newer than 5.3 writes (1009)"

    def test_too_new_format_for_an_engine_the_table_does_not_know(self, tmp_path: Path) -> None:
        package = ERAS["-9"].with_(legacy_file_version=-10)
        result = scan_file(write_package(tmp_path, package), EngineVersion.parse("6.0.0-99999999"))
        assert result.status is ScanStatus.TOO_NEW_FORMAT
        assert result.to_json()["file_version_ue4"] is None
        assert result.legacy_file_version == -10

    def test_empty_engine_version_is_ok_when_the_warning_is_off(self, tmp_path: Path) -> None:
        package = ERAS["-8"].with_(saved_by=(0, 0, 0, 0, ""), compatible_with=(0, 0, 0, 0, ""))
        path = write_package(tmp_path, package)
        assert scan_file(path, ENGINE_55, warn_empty=False).status is ScanStatus.OK

    def test_empty_engine_version_is_ok_for_an_engine_without_changelist(self, tmp_path: Path) -> None:
        package = ERAS["-8"].with_(saved_by=(0, 0, 0, 0, ""), compatible_with=(0, 0, 0, 0, ""))
        assert scan_file(write_package(tmp_path, package), EngineVersion(5, 5, 0)).status is ScanStatus.OK

    def test_json_fields(self, tmp_path: Path) -> None:
        result = scan_file(write_package(tmp_path, ERAS["-8"]), ENGINE_55)
        assert result.to_json() == {
            "path": str(tmp_path / "Thing.uasset"),
            "status": "ok",
            "legacy_file_version": -8,
            "file_version_ue4": 522,
            "file_version_ue5": 1013,
            "licensee_version": 0,
            "saved_by": "5.5.4-40574608+++UE5+Release-5.5",
            "compatible_with": "5.5.0-37670630+++UE5+Release-5.5",
            "error": None,
        }

    def test_results_survive_pickling_between_processes(self, tmp_path: Path) -> None:
        result = scan_file(write_package(tmp_path, ERAS["-8"]), ENGINE_55)
        assert pickle.loads(pickle.dumps(result)) == result

    def test_only_newer_engine_corrupt_and_lfs_pointers_are_failures(self) -> None:
        assert {status for status in ScanStatus if status.is_failure} == {
            ScanStatus.NEWER_ENGINE,
            ScanStatus.CORRUPT,
            ScanStatus.LFS_POINTER,
        }

    def test_a_git_lfs_pointer_is_named_not_taken_for_a_text_file(self, tmp_path: Path) -> None:
        """Issue 31 item 5: a checkout of LFS pointers must not pass as "not-a-package"."""
        path = tmp_path / "Door.uasset"
        path.write_bytes(LFS_POINTER)
        result = scan_file(str(path), ENGINE_55)
        assert (result.status, result.error) == (
            ScanStatus.LFS_POINTER,
            f"{path}: byte 0: a Git LFS pointer, not the package: run git lfs pull to fetch it",
        )

    @pytest.mark.parametrize(
        "data",
        [
            LFS_POINTER + b"x" * (1025 - len(LFS_POINTER)),  # above Git LFS's 1024 bytes: not a pointer
            b"version https://git-lfs.github.com/spec/v2\noid sha256:" + b"0" * 64 + b"\n",  # another first line
            b"version https://git-lfs.github.com/spec/v1\noid sha256:zz\nsize 1\n",  # an oid Git LFS refuses
        ],
    )
    def test_only_what_git_lfs_takes_for_a_pointer_is_one(self, tmp_path: Path, data: bytes) -> None:
        path = tmp_path / "Door.uasset"
        path.write_bytes(data)
        assert scan_file(str(path), ENGINE_55).status is ScanStatus.NOT_A_PACKAGE


class TestScan:
    """Folders are walked in sorted order for .uasset and .umap, in one process or several."""

    def test_walks_packages_only_in_sorted_order(self, tmp_path: Path) -> None:
        content = write_tree(tmp_path)
        (content / "Folder1" / "UPPER.UASSET").write_bytes(ERAS["-8"].build())
        found = [Path(path).relative_to(content).as_posix() for path, _ in iter_packages(content)]
        assert found == sorted(found)
        assert "Folder1/UPPER.UASSET" in found
        assert not any(path.endswith((".uexp", ".txt")) for path in found)
        assert len(found) == len(PACKAGES) + 1

    def test_a_file_root_is_scanned_whatever_its_name(self, tmp_path: Path) -> None:
        path = tmp_path / "Renamed.bin"
        path.write_bytes(ERAS["-8"].build())
        assert [result.status for result in scan([path], ENGINE_55)] == [ScanStatus.OK]

    @pytest.mark.parametrize("jobs", [1, 2])
    def test_statuses(self, tmp_path: Path, jobs: int) -> None:
        content = write_tree(tmp_path)
        results = list(scan([content], ENGINE_55, jobs=jobs))
        assert {Path(result.path).name: result.status for result in results} == {
            name: status for name, (_, status) in PACKAGES.items()
        }

    def test_parallel_scan_matches_single_process_in_order(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        content = write_tree(tmp_path)
        for index in range(40):
            (content / f"Many{index:02}.uasset").write_bytes(ERAS["-7"].build())
        monkeypatch.setattr(buildver.packages.scanning, "CHUNK_SIZE", 3)
        assert list(scan([content], ENGINE_55, jobs=2)) == list(scan([content], ENGINE_55, jobs=1))

    def test_a_folder_that_cannot_be_listed_is_reported(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        # The refusal is simulated in os.scandir (root lists any folder), so the Python reader lists; the compiled
        # core hands every folder it cannot list to that same code (tests/packages/test_native.py).
        monkeypatch.setattr(buildver.packages.scanning, "_CORE", [None])
        content = write_tree(tmp_path)
        locked = content / "Folder1"
        real_scandir = os.scandir

        def scandir(path: str) -> object:
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied")
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
        results = {Path(result.path).name: result for result in scan([content], ENGINE_55)}
        assert results["Folder1"].status is ScanStatus.CORRUPT
        assert results["Folder1"].error == f"{locked}: cannot list the folder: Permission denied"


needs_posix_special_files = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="FIFOs and /dev/zero are POSIX"
)


def write_special_files(content: Path) -> dict[str, tuple[ScanStatus, str]]:
    """Real special files named like packages, beside regular ones: name -> (status, words of the reason)."""
    content.mkdir(parents=True, exist_ok=True)
    (content / "Real.uasset").write_bytes(ERAS["-8"].build())
    os.mkfifo(content / "Pipe.uasset")
    (content / "Zero.uasset").symlink_to("/dev/zero")
    (content / "Gone.uasset").symlink_to(content / "Missing.uasset")
    (content / "PipeLink.umap").symlink_to(content / "Pipe.uasset")
    (content / "Loop.uasset").symlink_to(content / "Loop.uasset")
    (content / "Folder.uasset").symlink_to(content.parent)
    (content / "Later.uasset").write_bytes(ERAS["-7"].build())
    return {
        "Real.uasset": (ScanStatus.OK, ""),
        "Pipe.uasset": (ScanStatus.NOT_A_PACKAGE, "not a regular file: a FIFO (named pipe), never opened"),
        "Zero.uasset": (ScanStatus.NOT_A_PACKAGE, "not a regular file: a character device, never opened"),
        "Gone.uasset": (ScanStatus.CORRUPT, "a symbolic link to"),
        "PipeLink.umap": (ScanStatus.NOT_A_PACKAGE, "a FIFO (named pipe)"),
        "Loop.uasset": (ScanStatus.CORRUPT, "cannot read: too many levels of symbolic links"),
        "Folder.uasset": (ScanStatus.NOT_A_PACKAGE, "a symbolic link to a folder, which is not followed"),
        "Later.uasset": (ScanStatus.OK, ""),
    }


@needs_posix_special_files
class TestSpecialFiles:
    """FIFOs, devices and links named like packages are reported, one result each, and never opened."""

    @pytest.mark.parametrize("jobs", [1, 2])
    @pytest.mark.parametrize("reader", ["python", "native"])
    def test_each_is_reported_in_walk_order_and_never_opened(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, reader: str
    ) -> None:
        if reader == "python":
            monkeypatch.setattr(buildver.packages.scanning, "_CORE", [None])
        elif buildver.packages.scanning.native_core() is None:
            pytest.skip("this install has no compiled core")
        expected = write_special_files(tmp_path / "Content")
        opened: list[str] = []
        real_open = os.open

        def spying_open(path: str, *arguments: int) -> int:
            opened.append(os.fspath(path))
            return real_open(path, *arguments)

        monkeypatch.setattr(os, "open", spying_open)
        results = list(scan([tmp_path / "Content"], ENGINE_55, jobs=jobs))
        assert [Path(result.path).name for result in results] == sorted(expected)
        for result in results:
            status, words = expected[Path(result.path).name]
            assert result.status is status, result
            if words:
                assert result.error is not None
                assert result.error.startswith(f"{result.path}: ")
                assert words in result.error
        if jobs == 1 and reader == "python":  # the workers of jobs=2 are other processes
            assert {Path(path).name for path in opened} == {"Real.uasset", "Later.uasset"}
        elif jobs == 1:  # the core opens in C (test_native.py traces it); Python reads only a header's first file
            assert {Path(path).name for path in opened} <= {"Real.uasset", "Later.uasset"}

    def test_iter_packages_gives_the_reason(self, tmp_path: Path) -> None:
        write_special_files(tmp_path / "Content")
        reasons = {Path(path).name: reason for path, reason in iter_packages(tmp_path / "Content")}
        assert reasons["Real.uasset"] is None
        assert reasons["Pipe.uasset"] == "not a regular file: a FIFO (named pipe), never opened"
        assert (
            reasons["Gone.uasset"]
            == f"cannot read: a symbolic link to {str(tmp_path / 'Content' / 'Missing.uasset')!r}, which does not exist"
        )

    @pytest.mark.parametrize("root", ["Pipe.uasset", "Zero.uasset", "Gone.uasset"])
    def test_a_special_file_given_as_the_root_is_reported_too(self, tmp_path: Path, root: str) -> None:
        expected = write_special_files(tmp_path / "Content")
        [result] = scan([tmp_path / "Content" / root], ENGINE_55)
        assert result.status is expected[root][0]

    def test_the_command_reports_them_and_returns(self, tmp_path: Path) -> None:
        """The real command in its own process, with a time limit: a FIFO opened for reading would block it."""
        expected = write_special_files(tmp_path / "Content")
        code = (
            "import sys, typer; from buildver.cli.assets import assets_app; app = typer.Typer(); "
            "app.add_typer(assets_app, name='assets'); app.callback()(lambda: None); app(sys.argv[1:])"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, "assets", "scan", str(tmp_path / "Content"), "--against", "5.5.0", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, done.stderr  # the dangling and looping links are corrupt
        statuses = {Path(entry["path"]).name: entry["status"] for entry in json.loads(done.stdout)["packages"]}
        assert statuses == {name: str(status) for name, (status, _) in expected.items()}


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
@pytest.mark.parametrize("pure_python", ["1", "0"])
def test_on_a_terminal_the_tree_is_walked_once(tmp_path: Path, pure_python: str) -> None:
    """The command on a real pseudo-terminal (where it shows progress) lists each folder once, with either reader."""
    content = write_tree(tmp_path)
    listed = tmp_path / "listed.txt"
    code = (
        "import os, sys, typer\n"
        "def logged(list_folder):\n"
        "    def listing(path, *more):\n"
        f"        with open({str(listed)!r}, 'a') as log: log.write(os.fspath(path) + '\\n')\n"
        "        return list_folder(path, *more)\n"
        "    return listing\n"
        "os.scandir = logged(os.scandir)\n"
        "import buildver.packages.scanning\n"
        "core = buildver.packages.scanning.native_core()\n"
        "if core is not None: core.scan_folder = logged(core.scan_folder)\n"
        "import buildver.cli.assets\n"
        "buildver.cli.assets.PROGRESS_AFTER_SECONDS = 0.0\n"
        "app = typer.Typer(); app.add_typer(buildver.cli.assets.assets_app, name='assets')\n"
        "app.callback()(lambda: None)\n"
        "app(sys.argv[1:])\n"
    )
    returncode, shown = run_on_terminal(
        [sys.executable, "-c", code, "assets", "scan", str(content), "--against", "5.5.0", "--jobs", "1"],
        env={**os.environ, "BUILDVER_PURE_PYTHON": pure_python},
    )
    assert returncode == 1  # Truncated.uasset is corrupt
    assert b"scanning:" in shown  # the progress line was drawn: this was a terminal
    # Each folder below the root once (the search for Config/DefaultEngine.ini lists the root and those above it).
    subfolders = sorted(os.fspath(folder) for folder in content.iterdir() if folder.is_dir())
    listed_below = [
        folder for folder in listed.read_text().splitlines() if folder.startswith(os.fspath(content) + os.sep)
    ]
    assert sorted(listed_below) == subfolders


class TestJobs:
    """``jobs=None`` chooses processes from the size of the tree; the results never depend on it."""

    @pytest.mark.parametrize("threshold", [1, 5, 10_000])
    def test_results_are_those_of_one_process(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threshold: int
    ) -> None:
        content = write_tree(tmp_path)
        for index in range(12):
            (content / f"Many{index:02}.uasset").write_bytes(ERAS["-7"].build())
        monkeypatch.setattr(buildver.packages.scanning, "CHUNK_SIZE", 2)
        monkeypatch.setattr(buildver.packages.scanning, "PARALLEL_THRESHOLD", threshold)
        monkeypatch.setattr(buildver.packages.scanning, "default_jobs", lambda: 2)
        assert list(scan([content], ENGINE_55, jobs=None)) == list(scan([content], ENGINE_55, jobs=1))

    @pytest.mark.parametrize(("found", "processes"), [(3, 1), (4, 2)])
    def test_processes_start_only_from_the_threshold(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, found: int, processes: int
    ) -> None:
        content = tmp_path / "Content"
        content.mkdir()
        for index in range(found):
            (content / f"P{index}.uasset").write_bytes(ERAS["-7"].build())
        monkeypatch.setattr(buildver.packages.scanning, "PARALLEL_THRESHOLD", 4)
        monkeypatch.setattr(buildver.packages.scanning, "default_jobs", lambda: 2)
        pools: list[int | None] = []

        class CountedPool(concurrent.futures.ProcessPoolExecutor):
            def __init__(self, max_workers: int | None = None, **options: Any) -> None:
                pools.append(max_workers)
                super().__init__(max_workers, **options)

        monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", CountedPool)
        results = list(scan([content], ENGINE_55, jobs=None))
        assert [result.status for result in results] == [ScanStatus.OK] * found
        assert pools == ([] if processes == 1 else [processes - 1])  # this process reads too

    def test_default_jobs_is_at_most_the_cpus_this_process_may_use(self) -> None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        assert 1 <= buildver.packages.scanning.default_jobs() <= cpus

    @pytest.mark.parametrize(
        ("cpus", "load", "jobs"),
        [
            (2, 0.0, 2),
            (2, 0.4, 2),
            (2, 0.6, 1),
            (2, 3.8, 1),
            (8, 2.2, 6),
            (8, 7.9, 1),
            (1, 0.0, 1),
            (4, None, 4),  # no load average (Windows): every CPU
            (0, None, 1),
        ],
    )
    def test_only_idle_cpus_get_a_process(self, cpus: int, load: float | None, jobs: int) -> None:
        assert buildver.packages.scanning.jobs_for(cpus, load) == jobs


class TestZeroEngineVersionWarning:
    """[Core.System] ZeroEngineVersionWarning in the project's Config/DefaultEngine.ini, read as GetBool does."""

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("", True),
            ("[Core.System]\nZeroEngineVersionWarning=0\n", False),
            ("[Core.System]\nZeroEngineVersionWarning=False\n", False),
            ("[core.system]\nzeroengineversionwarning = off\n", False),
            ("[Core.System]\nZeroEngineVersionWarning=1\n", True),
            ("[Core.System]\nZeroEngineVersionWarning=True\n", True),
            ("[Core.System]\nZeroEngineVersionWarning=abc\n", False),  # Atoi("abc") == 0
            ("[Core.System]\nZeroEngineVersionWarning=2x\n", True),
            ("[/Script/Engine.Engine]\nZeroEngineVersionWarning=0\n", True),
            ("[Core.System]\n;ZeroEngineVersionWarning=0\n", True),
            ("[Core.System]\nZeroEngineVersionWarning=0\nZeroEngineVersionWarning=1\n", True),
            ("[Core.System]\nZeroEngineVersionWarning=0\n!ZeroEngineVersionWarning=ClearArray\n", True),
            ("[Core.System]\n+ZeroEngineVersionWarning=0\n", False),
            ('[Core.System]\nZeroEngineVersionWarning="0"\n', False),
            ("[Core.System]\nZeroEngineVersionWarning=-1\n", True),  # atoi: one sign
            ("[Core.System]\nZeroEngineVersionWarning=--1\n", False),  # atoi("--1") == 0
            ("[ Core.System ]\nZeroEngineVersionWarning=0\n", True),  # the section name is taken as is
        ],
    )
    def test_get_bool(self, text: str, expected: bool) -> None:
        assert parse_zero_engine_version_warning(text) is expected

    def test_found_from_the_content_folder_in_utf16(self, tmp_path: Path) -> None:
        content = write_tree(tmp_path)
        (tmp_path / "Game.uproject").write_text("{}")
        (tmp_path / "Config").mkdir()
        ini = tmp_path / "Config" / "DefaultEngine.ini"
        ini.write_text("[Core.System]\r\nZeroEngineVersionWarning=0\r\n", encoding="utf-16")
        assert find_engine_ini(content / "Folder0") == ini
        assert zero_engine_version_warning(content) is False
        statuses = {Path(result.path).name: result.status for result in scan([content], ENGINE_55)}
        assert statuses["FromSourceBuild.umap"] is ScanStatus.OK

    def test_search_stops_at_the_project(self, tmp_path: Path) -> None:
        (tmp_path / "Config").mkdir()
        (tmp_path / "Config" / "DefaultEngine.ini").write_text("[Core.System]\nZeroEngineVersionWarning=0\n")
        project = tmp_path / "Projects" / "Game"
        (project / "Content").mkdir(parents=True)
        (project / "Game.uproject").write_text("{}")
        assert find_engine_ini(project / "Content") is None
        assert zero_engine_version_warning(project / "Content") is True


def cli_app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(assets_app, name="assets")

    @app.callback()
    def main() -> None:
        """A test host for the assets sub-app."""

    return app


class TestCommand:
    """``buildver assets scan``: table or JSON, exit 1 for newer-engine or corrupt."""

    def test_table_and_exit_code(self, tmp_path: Path) -> None:
        content = write_tree(tmp_path)
        result = CliRunner().invoke(cli_app(), ["assets", "scan", str(content), "--against", str(ENGINE_55)])
        assert result.exit_code == 1
        lines = result.stdout.splitlines()
        assert lines[0] == f"against {ENGINE_55}"
        assert lines[1].split() == ["STATUS", "L", "UE4", "UE5", "LIC", "SAVED", "BY", "PATH"]
        assert lines[-1] == (
            "9 files: 2 newer-engine, 1 corrupt, 1 lfs-pointer, 1 not-a-package, 1 empty-engine-version, "
            "1 unversioned, 2 ok"
        )
        assert any(line.startswith("    ") and "Truncated.uasset: byte " in line for line in lines)

    def test_json(self, tmp_path: Path) -> None:
        content = write_tree(tmp_path)
        result = CliRunner().invoke(cli_app(), ["assets", "scan", str(content), "--against", str(ENGINE_55), "--json"])
        assert result.exit_code == 1
        document = json.loads(result.stdout)
        assert list(document) == ["schema_version", "engine", "packages", "counts"]
        assert document["schema_version"] == 1
        assert document["engine"]["version"] == str(ENGINE_55)
        packages = document["packages"]
        assert len(packages) == len(PACKAGES)
        assert sum(document["counts"].values()) == len(PACKAGES)
        assert document["counts"]["unversioned"] == 1
        assert all(
            set(entry)
            == {
                "path",
                "status",
                "legacy_file_version",
                "file_version_ue4",
                "file_version_ue5",
                "licensee_version",
                "saved_by",
                "compatible_with",
                "error",
            }
            for entry in packages
        )
        assert {Path(entry["path"]).name: entry["status"] for entry in packages}["Cooked.uasset"] == "unversioned"

    def test_exit_0_without_newer_engine_or_corrupt_files_using_the_build_version(self, tmp_path: Path) -> None:
        (tmp_path / "Ok.uasset").write_bytes(ERAS["-8"].build())
        (tmp_path / "Cooked.uasset").write_bytes(COOKED.build())
        build_version = tmp_path / "Build.version"
        build_version.write_text(
            '{"MajorVersion": 5, "MinorVersion": 5, "PatchVersion": 4, "Changelist": 40574608,'
            ' "CompatibleChangelist": 37670630, "IsLicenseeVersion": 0, "IsPromotedBuild": 1,'
            ' "BranchName": "++UE5+Release-5.5"}'
        )
        result = CliRunner().invoke(
            cli_app(), ["assets", "scan", str(tmp_path), "--file", str(build_version), "--json"]
        )
        assert result.exit_code == 0, result.output
        assert [entry["status"] for entry in json.loads(result.stdout)["packages"]] == ["unversioned", "ok"]

    @pytest.mark.parametrize("pure", ["0", "1"])
    def test_a_checkout_of_lfs_pointers_fails_unless_allowed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pure: str
    ) -> None:
        """A game cloned without git lfs pull: every package is a pointer, and the scan must not go green."""
        monkeypatch.setattr(buildver.packages.scanning, "_CORE", [])
        monkeypatch.setenv("BUILDVER_PURE_PYTHON", pure)
        for name in ("A.uasset", "B.umap", "Sub/C.uasset"):
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes(LFS_POINTER)
        arguments = ["assets", "scan", str(tmp_path), "--against", str(ENGINE_55)]
        result = CliRunner().invoke(cli_app(), arguments)
        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[-1] == "3 files: 3 lfs-pointer"
        assert "a Git LFS pointer, not the package: run git lfs pull" in result.stdout
        allowed = CliRunner().invoke(cli_app(), [*arguments, "--allow-lfs-pointers", "--json"])
        assert allowed.exit_code == 0, allowed.output
        assert [entry["status"] for entry in json.loads(allowed.stdout)["packages"]] == ["lfs-pointer"] * 3

    def test_allowing_lfs_pointers_still_fails_on_other_failures(self, tmp_path: Path) -> None:
        (tmp_path / "A.uasset").write_bytes(LFS_POINTER)
        (tmp_path / "B.uasset").write_bytes(ERAS["-8"].build()[:300])
        result = CliRunner().invoke(
            cli_app(), ["assets", "scan", str(tmp_path), "--against", str(ENGINE_55), "--allow-lfs-pointers"]
        )
        assert result.exit_code == 1
        assert result.stdout.splitlines()[-1] == "2 files: 1 corrupt, 1 lfs-pointer"

    def test_empty_folder(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(cli_app(), ["assets", "scan", str(tmp_path), "--against", "5.5.0", "--json"])
        document = json.loads(result.stdout)
        assert (result.exit_code, document["packages"], document["counts"]) == (0, [], {})

    def test_against_and_file_together_is_a_usage_error(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(
            cli_app(), ["assets", "scan", str(tmp_path), "--against", "5.5.0", "--file", str(tmp_path)]
        )
        assert isinstance(result.exception, UsageError)
        assert result.exception.exit_code == 2

    def test_bad_version_and_missing_path(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(cli_app(), ["assets", "scan", str(tmp_path), "--against", "5.x"])
        assert result.exit_code == 2
        assert "invalid engine version '5.x'" in result.output
        result = CliRunner().invoke(cli_app(), ["assets", "scan", str(tmp_path / "missing"), "--against", "5.5.0"])
        assert result.exit_code == 2

    def test_progress_line_is_drawn_between_rows(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(buildver.cli.assets, "PROGRESS_AFTER_SECONDS", 0.0)
        stream, rows = io.StringIO(), io.StringIO()
        output = buildver.cli.assets._TableOutput(rows, ENGINE_55)
        progress = buildver.cli.assets._Progress(stream)
        output.add("A.uasset", ScanResult("A.uasset", ScanStatus.OK))
        progress.advance(output)
        progress.clear()
        assert "scanning: 1 file," in stream.getvalue()
        assert stream.getvalue().endswith("\r\x1b[K")
        assert "A.uasset" in rows.getvalue()


def test_a_package_without_file_versions_is_unversioned_even_without_the_cooked_flag() -> None:
    summary = parse_package_summary(SyntheticPackage(file_version_ue4=0, licensee=0, package_flags=0).build(), "u")
    assert summary.is_unversioned
    assert classify("u.uasset", summary, EngineVersion.parse("5.3.0-1")).status is ScanStatus.UNVERSIONED


JSON_RESULTS = [
    ScanResult("a/b.uasset", ScanStatus.OK, -8, 522, 1013, 0, ENGINE_55, ENGINE_55, None),
    ScanResult('odd "name"\\\n\u00e9.uasset', ScanStatus.CORRUPT, error='x: byte 4: "quoted"\ttab'),
    ScanResult("c.umap", ScanStatus.NEWER_ENGINE, -9, 522, 1017, 3, ENGINE_55, None, "why"),
]


@pytest.mark.parametrize("result", JSON_RESULTS, ids=["ok", "corrupt", "newer"])
def test_the_json_written_for_a_result_is_exactly_json_dumps_of_to_json(result: ScanResult) -> None:
    assert buildver.cli.assets.json_object(result) == json.dumps(result.to_json(), ensure_ascii=False)
