"""The distribution: ``python -m build`` makes a wheel and an sdist that ``twine check`` accepts, and the wheel,
installed into a fresh virtual environment, runs ``buildver --version`` and ``buildver show``.

Slow (a build and a virtual environment with buildver's dependencies): marked ``slow``. The build runs without
isolation (setuptools from the test extra), so it needs no network; installing the wheel's dependencies does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers import copy_checkout

import buildver
from buildver.cli.schemas import SCHEMA_VERSIONS
from buildver.versions.build_version import BuildVersion, render_new_file

DECLARED = buildver.__version__  # pyproject.toml takes the version from it
SCHEMAS = [f"buildver/cli/schemas/{name}.schema.json" for name in SCHEMA_VERSIONS]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist of this checkout as it is now, built from a copy so that the checkout stays clean."""
    source = tmp_path_factory.mktemp("source")
    copy_checkout(source)
    out = tmp_path_factory.mktemp("dist")
    # Without --sdist or --wheel, build makes the sdist and then the wheel from the sdist: the sdist is complete.
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        check=True,
    )
    return out


def the_wheel(dist: Path) -> Path:
    """The one wheel: tagged for this interpreter and platform, as it may hold the compiled core of assets scan."""
    [wheel] = dist.glob(f"buildver-{DECLARED}-cp{sys.version_info.major}{sys.version_info.minor}-*.whl")
    return wheel


def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(dist: Path) -> None:
    names = sorted(path.name for path in dist.iterdir())
    assert names == [the_wheel(dist).name, f"buildver-{DECLARED}.tar.gz"]
    with tarfile.open(dist / f"buildver-{DECLARED}.tar.gz") as sdist:  # the cores' sources, for builds elsewhere
        assert {
            f"buildver-{DECLARED}/setup.py",
            f"buildver-{DECLARED}/buildver/packages/_native.c",
            f"buildver-{DECLARED}/buildver/projects/_ini_native.c",
        } <= set(sdist.getnames())
        assert {f"buildver-{DECLARED}/{name}" for name in SCHEMAS} <= set(sdist.getnames())
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *(str(dist / name) for name in names)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_package_its_type_marker_and_the_console_script(dist: Path) -> None:
    with zipfile.ZipFile(the_wheel(dist)) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"buildver-{DECLARED}.dist-info/entry_points.txt").decode()
    # Every module of every wing, and the type marker: a wing missing from the wheel would fail only on import.
    package = Path(__file__).resolve().parents[2] / "buildver"
    modules = {path.relative_to(package.parent).as_posix() for path in package.rglob("*.py")}
    assert {"buildver/cli/__init__.py", "buildver/versions/engine_version.py"} <= modules
    assert {*modules, "buildver/py.typed", *SCHEMAS} <= names  # the JSON Schemas tools read beside the package
    assert not any(name.startswith(("tests/", "benchmarks/", "examples/")) for name in names)
    assert "buildver = buildver.__main__:run" in entry_points
    # The compiled cores where a compiler built them (their sources stay out of the wheel).
    built = "pyd" if os.name == "nt" else "so"
    for core in ("buildver/packages/_native.", "buildver/projects/_ini_native."):
        files = [name for name in names if name.startswith(core)]
        assert {name.rsplit(".", 1)[-1] for name in files} == ({built, "pyi"} if shutil.which("cc") else {"pyi"})


def test_the_wheel_installed_in_a_fresh_environment_runs(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    wheel = the_wheel(dist)
    subprocess.run([str(scripts / "python"), "-m", "pip", "install", "--quiet", str(wheel)], check=True, timeout=600)
    buildver = str(scripts / "buildver")
    project = tmp_path / "Game"
    (project / ".git").mkdir(parents=True)
    (project / "Build").mkdir()
    (project / "Build" / "Build.version").write_text(render_new_file(BuildVersion(5, 3, 2, 27405482)))
    clean = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    version = subprocess.run(
        [buildver, "--version"], cwd=project, capture_output=True, text=True, check=False, env=clean
    )
    assert (version.returncode, version.stdout, version.stderr) == (0, f"buildver {DECLARED}\n", "")
    show = subprocess.run([buildver, "show"], cwd=project, capture_output=True, text=True, check=False, env=clean)
    assert (show.returncode, show.stderr) == (0, "")
    assert "  EngineVersion            5.3.2-27405482\n" in show.stdout
    # The installed package is the wheel's, not this checkout's.
    where = subprocess.run(
        [str(scripts / "python"), "-c", "import buildver; print(buildver.__file__)"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        env=clean,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv)
    # A tool reads the JSON Schemas from the installed package.
    schema = subprocess.run(
        [
            str(scripts / "python"),
            "-c",
            "from buildver.cli.schemas import load_schema; print(load_schema('guard')['$id'])",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        env=clean,
    )
    assert schema.stdout == "urn:buildver:schema:guard:1\n"
