"""The compiled core of ``assets scan`` (``buildver/packages/_native.c``) gives exactly the pure-Python reader's output.

Both readers run over every real fixture package, the malformed corpus, synthetic packages of every layout and
fuzzed headers; each fuzzed file is scanned after its unmutated original, so that a header the core wrongly takes
for its original's would borrow the original's result and show. The tests of the core skip where this install has
none (a pure-Python install); the tests of the fallback and of the workers run everywhere.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from helpers import copy_checkout
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from package_builder import ERAS, FILTER_EDITOR_ONLY, SyntheticPackage

import buildver.packages.scanning as scanning
from buildver import EngineVersion
from buildver.cli.assets import _JsonOutput, _print_results
from buildver.packages.verdicts import ScanResult
from buildver.projects.place import PlaceEngine

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO.parent / "shared" / "fixtures" / "uasset"
MALFORMED = REPO / "tests" / "data" / "malformed" / "package"

ENGINES = [
    EngineVersion.parse(text)
    for text in (
        "5.6.0-43139311+++UE5+Release-5.6",
        "5.3.0-27405482+++UE5+Release-5.3",
        "4.27.2-18319896+++UE4+Release-4.27",
        "5.2.0",  # no changelist: the empty-engine-version rule does not apply
        "4.20.0-4369336+++UE4+Release-4.20",
    )
]


def the_core() -> ModuleType:
    core = scanning.native_core()
    if core is None:
        pytest.skip("this install has no compiled core (a pure-Python install): nothing to compare")
    return core


def native_results(root: Path, engine: EngineVersion, warn_empty_root: Path | None = None) -> list[ScanResult]:
    """The scan of one process with the core: the core lists and reads, Python reads each header's first file."""
    core = the_core()
    return [
        result if result.path else scanning._with_path(result, path)
        for path, result in scanning._scan_native([root], engine, core)
    ]


def python_results(root: Path, engine: EngineVersion, monkeypatch: pytest.MonkeyPatch) -> list[ScanResult]:
    with monkeypatch.context() as patch:
        patch.setattr(scanning, "_CORE", [None])
        return list(scanning.scan([root], engine, jobs=1))


def json_text(root: Path, engine: EngineVersion, jobs: int, monkeypatch: pytest.MonkeyPatch, pure: bool) -> str:
    """What ``assets scan --json`` writes, through the command's own writer."""
    with monkeypatch.context() as patch:
        if pure:
            patch.setattr(scanning, "_CORE", [None])
        out = _Capture()
        output = _JsonOutput(out, PlaceEngine(engine, "--against"))  # type: ignore[arg-type]
        _print_results(scanning.scan_shared([root], engine, jobs=jobs), output, None)
        return out.text


class _Capture:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)


def copy_fixtures(target: Path) -> Path:
    if not FIXTURES.is_dir():
        pytest.skip(f"no fixtures in {FIXTURES}")
    shutil.copytree(FIXTURES, target / "Content")
    return target / "Content"


class TestBothReadersAgree:
    """Every file gives the same result, in the same order, with the core and without it."""

    @pytest.mark.parametrize("engine", ENGINES, ids=str)
    def test_every_fixture_package(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: EngineVersion
    ) -> None:
        content = copy_fixtures(tmp_path)
        expected = python_results(content, engine, monkeypatch)
        assert len(expected) >= 200
        assert native_results(content, engine) == expected

    def test_every_fixture_package_is_read_by_the_core(self, tmp_path: Path) -> None:
        """The real packages are the common case: none of them is handed back to the Python reader."""
        core = the_core()
        content = copy_fixtures(tmp_path)
        codes = [core.read_key(str(path)) for path in sorted(content.rglob("*.uasset"))]
        assert len(codes) >= 200
        assert min(codes) >= 0

    def test_the_json_output(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        the_core()
        content = copy_fixtures(tmp_path)
        for engine in ENGINES[:2]:
            pure = json_text(content, engine, 1, monkeypatch, pure=True)
            assert json_text(content, engine, 1, monkeypatch, pure=False) == pure
            assert json_text(content, engine, 2, monkeypatch, pure=False) == pure
            assert [entry["path"] for entry in json.loads(pure)["packages"]] == [
                result.path for result in python_results(content, engine, monkeypatch)
            ]

    def test_the_malformed_corpus_and_every_synthetic_layout(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        content = tmp_path / "Content"
        content.mkdir()
        for path in sorted(MALFORMED.iterdir()):
            (content / f"{path.stem}.uasset").write_bytes(path.read_bytes())
        for era, package in ERAS.items():
            for variant, built in synthetic_variants(package).items():
                (content / f"Era{era}-{variant}.uasset").write_bytes(built)
        for engine in ENGINES:
            assert native_results(content, engine) == python_results(content, engine, monkeypatch)

    def test_git_lfs_pointers_are_handed_to_python_and_named(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The core reads no pointer (it has no package tag): the Python reader names it, for both readers alike."""
        core = the_core()
        content = tmp_path / "Content"
        content.mkdir()
        pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"ab" * 32 + b"\nsize 40\n"
        (content / "A.uasset").write_bytes(pointer)
        (content / "B.uasset").write_bytes(ERAS["-8"].build())
        (content / "C.uasset").write_bytes(pointer)
        assert core.read_key(str(content / "A.uasset")) == core.CODE_PYTHON
        results = native_results(content, ENGINES[1])
        assert [result.status for result in results[::2]] == ["lfs-pointer", "lfs-pointer"]
        assert results[1].status != "lfs-pointer"
        assert results == python_results(content, ENGINES[1], monkeypatch)

    def test_folders_the_core_leaves_to_python(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A name that is not UTF-8 (sorted by Python's rules then), a folder given with a trailing separator."""
        content = tmp_path / "Content"
        odd = content / "Odd"
        odd.mkdir(parents=True)
        package = ERAS["-8"].build()
        (content / "Plain.uasset").write_bytes(package)
        if sys.platform != "darwin":  # APFS refuses names that are not UTF-8
            (odd / os.fsdecode(b"Caf\xe9.uasset")).write_bytes(package)
            (odd / "Cafe.uasset").write_bytes(package)
            (odd / "Z\u00e9.uasset").write_bytes(package)
        core = the_core()
        if sys.platform != "darwin":
            assert core.scan_folder(str(odd)) is None
        assert core.scan_folder(str(content / "Missing")) is None
        engine = ENGINES[0]
        assert native_results(content, engine) == python_results(content, engine, monkeypatch)
        trailing = Path(str(content) + os.sep)
        assert [r.path for r in native_results(trailing, engine)] == [
            r.path for r in python_results(trailing, engine, monkeypatch)
        ]

    @pytest.mark.skipif(sys.platform != "linux", reason="paths beyond PATH_MAX (4096 bytes) as Linux allows them")
    def test_a_path_longer_than_path_max_is_left_to_python(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The core opens each file relative to its folder, which reaches a path Python cannot open: such a file
        must not borrow the result of an earlier file with the same header (found by a review under ASan)."""
        content = tmp_path / "Content"
        package = ERAS["-8"].build()
        (content / "A").mkdir(parents=True)
        (content / "A" / "First.uasset").write_bytes(package)
        deep = content / "B"
        for _ in range(16):
            deep = deep / ("d" * 240)
        deep.mkdir(parents=True)
        descriptor = os.open(deep, os.O_RDONLY)
        try:  # the full path is too long to open; the name relative to its folder is not
            with open(
                f"{'x' * 240}.uasset", "wb", opener=lambda name, flags: os.open(name, flags, dir_fd=descriptor)
            ) as stream:
                stream.write(package)
        finally:
            os.close(descriptor)
        engine = ENGINES[0]
        native, python = native_results(content, engine), python_results(content, engine, monkeypatch)
        assert native == python
        assert [result.status.value for result in python] == ["ok", "corrupt"]


def synthetic_variants(package: SyntheticPackage) -> dict[str, bytes]:
    """A package of one layout, and the odd cases of it: cooked, byte-swapped, UTF-16 strings, long branch, ..."""
    variants = {
        "plain": package,
        "cooked": package.with_(package_flags=FILTER_EDITOR_ONLY | 0x40000, end_tag=False),
        "swapped": package.with_(big_endian=True),
        "utf16": package.with_(utf16=True),
        "licensee": package.with_(licensee=3),
        "long-branch": package.with_(saved_by=(5, 1, 0, 123, "++X+" + "b" * 20_000)),
        "chunks": package.with_(chunk_ids=(1, 2, 3), additional_packages_to_cook=("/Game/A", "/Game/B")),
        "no-tag": package.with_(end_tag=False),
        "names-elsewhere": package.with_(overrides={"name_offset": 7}),
        "texture-allocations": package.with_(overrides={"texture_allocations": 2}),
        "compressed": package.with_(overrides={"compressed_chunks": 1}),
        "header-size": package.with_(overrides={"total_header_size": 1 << 30}),
        "big-body": package.with_(body_size=70_000),
        "licensee-4.26": package.with_(saved_by=(4, 26, 0, 0x80000000 | 13000000, "++UE4+Release-4.26")),
    }
    built = {}
    for name, variant in variants.items():
        try:
            built[name] = variant.build()
        except (struct.error, ValueError):  # a variant this layout cannot express
            continue
    return built


BASES = [package.build() for package in ERAS.values()] + [
    ERAS["-9"].with_(package_flags=FILTER_EDITOR_ONLY, end_tag=False).build(),
    ERAS["-7"].with_(file_version_ue4=500).build(),
]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """An original package and a copy with a few bytes or 32-bit fields changed, or cut short."""
    original = draw(st.sampled_from(BASES + fixture_bases()))
    data = bytearray(original)
    summary_end = min(len(data), 1024)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, summary_end - 4))
        if draw(st.booleans()):
            data[at] = draw(st.integers(0, 255))
        else:
            value = draw(st.sampled_from([0, 1, -1, 2, 7, 1 << 20, (1 << 31) - 1, -(1 << 31), len(data), 0x80000000]))
            data[at : at + 4] = struct.pack("<I", value & 0xFFFFFFFF)
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return original, bytes(data)


def fixture_bases() -> list[bytes]:
    if not FIXTURES.is_dir():
        return []
    paths = sorted(FIXTURES.rglob("*.uasset"))
    return [path.read_bytes() for path in paths[:: max(1, len(paths) // 12)]]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pair=mutated(), engine=st.sampled_from(ENGINES))
def test_fuzzed_headers_give_the_python_readers_result(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    pair: tuple[bytes, bytes],
    engine: EngineVersion,
) -> None:
    the_core()
    content = tmp_path_factory.mktemp("fuzz")
    original, changed = pair
    (content / "A-original.uasset").write_bytes(original)
    (content / "B-changed.uasset").write_bytes(changed)
    assert native_results(content, engine) == python_results(content, engine, monkeypatch)


class TestChoosingTheReader:
    """``BUILDVER_PURE_PYTHON=1`` turns the core off; ``--verbose`` says which reader runs."""

    @pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("0", False), ("", False)])
    def test_the_variable(self, monkeypatch: pytest.MonkeyPatch, value: str, pure: bool) -> None:
        monkeypatch.setenv("BUILDVER_PURE_PYTHON", value)
        core = scanning._load_core()
        if pure:
            assert core is None
        else:
            assert core is not None or not _core_built()

    @pytest.mark.parametrize("pure", ["1", "0"])
    def test_verbose_names_the_reader(self, tmp_path: Path, pure: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "buildver", "assets", "scan", str(tmp_path), "--against", "5.5.0", "--verbose"],
            capture_output=True,
            text=True,
            env={**os.environ, "BUILDVER_PURE_PYTHON": pure},
            check=False,
        )
        assert done.returncode == 0, done.stderr
        if pure == "1":
            expected = "the pure-Python reader (BUILDVER_PURE_PYTHON is set)"
        elif _core_built():
            expected = "the compiled core (buildver.packages._native)"
        else:
            expected = "the pure-Python reader (this install has no compiled core)"
        assert done.stderr.startswith(f"buildver: reading package headers with {expected}")
        assert done.stdout.endswith("\nno packages found\n")

    def test_show_does_not_load_the_core(self) -> None:
        """Start-up of other commands stays where it was: only the scan imports the core."""
        code = (
            "import atexit, sys\n"
            "atexit.register(lambda: print('loaded:', 'buildver.packages._native' in sys.modules, file=sys.stderr))\n"
            "from buildver.__main__ import run\n"
            f"sys.argv = ['buildver', 'show', '--json', '--file', {str(REPO / 'Build' / 'Build.version')!r}]\n"
            "run()\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        assert (done.returncode, done.stderr) == (0, "loaded: False\n")
        assert json.loads(done.stdout)["EngineVersion"]


def _core_built() -> bool:
    """Whether this install has the compiled core (whatever ``BUILDVER_PURE_PYTHON`` says)."""
    return importlib.util.find_spec("buildver.packages._native") is not None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table in /proc")
@pytest.mark.parametrize("pure", ["1", "0"])
def test_workers_end_when_the_scan_is_killed(tmp_path: Path, pure: str) -> None:
    """Issue 23, item 7: SIGKILL the real command mid-scan; its worker processes are gone within seconds."""
    content = tmp_path / "Content"
    content.mkdir()
    package = ERAS["-8"].build()
    for index in range(3000):
        (content / f"P{index:05}.uasset").write_bytes(package)
    # stdout is a pipe nobody reads: the command blocks once it is full, with its workers started and idle.
    command = [sys.executable, "-m", "buildver", "assets", "scan", str(content), "--against", "5.5.0", "--json"]
    process = subprocess.Popen(
        [*command, "--jobs", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "BUILDVER_PURE_PYTHON": pure},
    )
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = children_of(process.pid)
        assert len(workers) >= 2, "the command did not start its two workers"
        time.sleep(1.0)  # let them finish their tasks and wait on the queue
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if alive(pid)]
    finally:
        process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()
        for pid in children_of(process.pid):
            os.kill(pid, signal.SIGKILL)


def children_of(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Still running: a zombie (dead, waiting for a parent that does not reap it) does not count."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
def test_an_install_without_a_compiler_runs_the_python_reader_with_the_same_output(tmp_path: Path) -> None:
    """``CC=false``: the wheel builds without the core, installs in a fresh environment and scans as the core does."""
    source = tmp_path / "source"
    copy_checkout(source)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            str(wheels),
            str(source),
        ],
        env={**os.environ, "CC": "false"},
        capture_output=True,
        check=True,
        timeout=600,
    )
    [wheel] = wheels.glob("buildver-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [
            name
            for name in archive.namelist()
            if name.startswith(("buildver/packages/_native.", "buildver/projects/_ini_native."))
            and not name.endswith(".pyi")
        ]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run([str(scripts / "python"), "-m", "pip", "install", "--quiet", str(wheel)], check=True, timeout=600)
    content = tmp_path / "Content"
    content.mkdir()
    for era, package in ERAS.items():
        for variant, built in synthetic_variants(package).items():
            (content / f"Era{era}-{variant}.uasset").write_bytes(built)
    if FIXTURES.is_dir():
        shutil.copytree(FIXTURES, content / "Fixtures")
    arguments = ["assets", "scan", str(content), "--against", "5.3.0-27405482+++UE5+Release-5.3", "--json", "--verbose"]
    clean = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    pure = subprocess.run(
        [str(scripts / "buildver"), *arguments], cwd=tmp_path, capture_output=True, text=True, check=False, env=clean
    )
    here = subprocess.run(
        [sys.executable, "-m", "buildver", *arguments], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert pure.stderr.startswith("buildver: reading package headers with the pure-Python reader (this install has no")
    assert pure.returncode == here.returncode == 1  # some variants are corrupt
    assert pure.stdout == here.stdout


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to see which files the core opens")
def test_the_core_never_opens_a_special_file(tmp_path: Path) -> None:
    """The core opens only what the listing gives as a regular file; FIFOs, devices and links go to Python's stat."""
    the_core()
    content = tmp_path / "Content"
    content.mkdir()
    (content / "Real.uasset").write_bytes(ERAS["-8"].build())
    os.mkfifo(content / "Pipe.uasset")
    (content / "Zero.uasset").symlink_to("/dev/zero")
    (content / "PipeLink.umap").symlink_to(content / "Pipe.uasset")
    log = tmp_path / "trace.txt"
    code = (
        "import sys; from pathlib import Path; from buildver import EngineVersion; "
        "import buildver.packages.scanning as s; "
        "print([str(r.status) for r in s.scan([Path(sys.argv[1])], EngineVersion.parse('5.5.0'), jobs=1)])"
    )
    done = subprocess.run(
        ["strace", "-f", "-e", "trace=open,openat", "-o", str(log), sys.executable, "-c", code, str(content)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['not-a-package', 'not-a-package', 'ok', 'not-a-package']"
    opened = log.read_text()
    assert "Real.uasset" in opened  # the trace sees the core's opens
    assert not [name for name in ("Pipe.uasset", "Zero.uasset", "PipeLink.umap") if name in opened]
