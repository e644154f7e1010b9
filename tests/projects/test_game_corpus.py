"""Public game projects' own config files, as they are, through the real ``buildver show --json``.

``tests/data/game_corpus/MANIFEST.tsv`` lists each project: its source (repository@commit), the files kept (whole
files under a permissive licence, else the Android, iOS and GeneralProjectSettings sections verbatim), the engine
the test sets up for it (a launcher install named by the association, an Install.ini source build under a GUID, or
the folder above the project), and the values UnrealBuildTool's and the engine's rules give, computed by hand from
the sources cited in docs/game-rules.md and written there with the reasoning - not by buildver.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "data" / "game_corpus"
ENGINE_KEYS = {"Project", "Engine", "GameVersionSources"}


@dataclass(frozen=True)
class CorpusProject:
    """One MANIFEST row."""

    name: str
    engine: str
    expected: dict[str, object]


def corpus() -> list[CorpusProject]:
    with (CORPUS / "MANIFEST.tsv").open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [CorpusProject(row["project"], row["engine"], json.loads(row["expected"])) for row in rows]


def make_engine(root: Path, version: str) -> None:
    """An engine root (``IsValidRootDirectory``) whose Build.version is ``version`` (major.minor.patch)."""
    major, minor, patch = (int(part) for part in version.split("."))
    (root / "Engine" / "Binaries").mkdir(parents=True)
    (root / "Engine" / "Build").mkdir(parents=True)
    record = {"MajorVersion": major, "MinorVersion": minor, "PatchVersion": patch, "Changelist": 0}
    (root / "Engine" / "Build" / "Build.version").write_text(json.dumps(record))


def set_up(project: CorpusProject, machine: Path) -> tuple[Path, str]:
    """The project's folder on a machine whose engine is found as the MANIFEST says; the engine's release."""
    home = machine / "home"
    kind, _, rest = project.engine.partition(" ")
    if kind == "launcher":
        engine = machine / "Epic" / f"UE_{rest}"
        make_engine(engine, f"{rest}.0")
        listing = {"InstallationList": [{"InstallLocation": str(engine), "AppName": f"UE_{rest}"}]}
        (home / ".config" / "Epic" / "UnrealEngineLauncher").mkdir(parents=True)
        (home / ".config" / "Epic" / "UnrealEngineLauncher" / "LauncherInstalled.dat").write_text(json.dumps(listing))
        folder, release = machine / project.name, rest
    elif kind == "Install.ini":
        key, version = rest.split(" ")
        engine = machine / "Source"
        make_engine(engine, version)
        (home / ".config" / "Epic" / "UnrealEngine").mkdir(parents=True)
        (home / ".config" / "Epic" / "UnrealEngine" / "Install.ini").write_text(f"[Installations]\n{key}={engine}\n")
        folder, release = machine / project.name, version.rsplit(".", 1)[0]
    else:
        assert project.engine.startswith("folder above "), project.engine
        release = project.engine.removeprefix("folder above ")
        make_engine(machine / "Engine root", f"{release}.0")
        folder = machine / "Engine root" / project.name
    home.mkdir(parents=True, exist_ok=True)
    shutil.copytree(CORPUS / project.name, folder)
    return folder, release


def test_the_corpus_holds_twenty_public_projects_or_more() -> None:
    projects = corpus()
    assert len(projects) >= 20
    assert {project.name for project in projects} == {path.name for path in CORPUS.iterdir() if path.is_dir()}


@pytest.mark.parametrize("project", corpus(), ids=lambda project: project.name)
def test_show_gives_what_unreal_s_rules_give_for_a_public_project(project: CorpusProject, tmp_path: Path) -> None:
    folder, release = set_up(project, tmp_path)
    environ = {key: value for key, value in os.environ.items() if key != "IsBuildMachine"}
    environ["HOME"] = str(tmp_path / "home")
    environ.pop("XDG_CONFIG_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "buildver", "show", "--json"],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    shown = json.loads(done.stdout)
    assert shown.pop("schema_version") == 1
    assert shown["Engine"]["release"] == release
    assert {key: value for key, value in shown.items() if key not in ENGINE_KEYS} == project.expected
