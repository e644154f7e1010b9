"""An app bundle's version code (``bEnableBundle``): StoreVersion with no architecture's offset, as UnrealBuildTool
rewrites the combined bundle's manifest (``GetStoreVersion("default")``); shown by ``show``. On PiozaLauncher's
public DefaultEngine.ini (tests/data/ini/pioza, Shieldowskyy/PiozaLauncher@91b47b966f5cfc295bf7392b901cf77a7060c9da,
MIT), which sets ``bEnableBundle=True`` on line 340 and ``StoreVersion=1`` on line 309."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import install_launcher_engine, run_cli

from buildver.projects.game_version import (
    AndroidArch,
    android_bundle_version_code,
    android_version_code,
    load_game_versions,
)
from buildver.projects.unreal_ini import parse_ini

PIOZA = Path(__file__).parents[1] / "data" / "ini" / "pioza"
PIOZA_ENGINE = (PIOZA / "Config" / "DefaultEngine.ini").read_bytes()


def test_a_real_bundle_project_s_bundle_code_is_its_store_version() -> None:
    versions = load_game_versions(PIOZA, engine=(5, 5), engine_changelist=0, environ={})
    bundle = versions.android_bundle_version_code
    assert bundle is not None
    assert (bundle.value, bundle.source) == (1, "Config/DefaultEngine.ini:309")
    assert bundle.rule == "StoreVersion, no architecture's offset (bEnableBundle, Config/DefaultEngine.ini:340)"


@pytest.mark.parametrize(
    ("engine", "changes", "arm64", "bundle"),
    [
        ((5, 3), {b"StoreVersion=1": b"StoreVersion=4", b"OffsetArm64=0": b"OffsetArm64=4"}, 8, 4),
        ((4, 27), {b"StoreVersion=1": b"StoreVersion=36", b"OffsetArm64=0": b"OffsetArm64=1"}, 37, 36),
        ((5, 3), {b"bEnableBundle=True": b"bEnableBundle=False"}, 1, None),
        ((5, 3), {b"bEnableBundle=True": b"bEnableBundle=1"}, 1, 1),
    ],
)
def test_the_bundle_gets_no_architecture_s_offset(
    engine: tuple[int, int], changes: dict[bytes, bytes], arm64: int, bundle: int | None
) -> None:
    data = PIOZA_ENGINE
    for old, new in changes.items():
        assert old in data
        data = data.replace(old, new)
    files = (parse_ini(data, "Config/DefaultEngine.ini"),)
    found = android_bundle_version_code(files, engine=engine, engine_changelist=None, build_machine=False)
    assert (None if found is None else found.value) == bundle
    code = android_version_code(files, AndroidArch.ARM64, engine=engine, engine_changelist=None, build_machine=False)
    assert code.value == arm64


def test_the_bundle_takes_the_changelist_on_a_build_machine() -> None:
    data = PIOZA_ENGINE.replace(b"StoreVersion=1", b"StoreVersion=1\nbUseChangeListAsStoreVersion=True")
    files = (parse_ini(data, "Config/DefaultEngine.ini"),)
    found = android_bundle_version_code(files, engine=(5, 1), engine_changelist=4242, build_machine=True)
    assert found is not None
    assert found.value == 4242


def test_show_gives_the_bundle_s_code_beside_each_architecture_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_launcher_engine(tmp_path, monkeypatch)
    monkeypatch.delenv("IsBuildMachine", raising=False)
    folder = tmp_path / "Pioza"
    shutil.copytree(PIOZA / "Config", folder / "Config")
    config = folder / "Config" / "DefaultEngine.ini"
    config.write_bytes(PIOZA_ENGINE.replace(b"StoreVersion=1", b"StoreVersion=4").replace(b"Arm64=0", b"Arm64=4"))
    (folder / "Pioza.uproject").write_text(json.dumps({"FileVersion": 3, "EngineAssociation": "5.3"}))
    monkeypatch.chdir(folder)
    code, out, err = run_cli(
        capsys, "show", "--field", "AndroidVersionCodeArm64", "--field", "AndroidVersionCodeBundle"
    )
    assert (code, out, err) == (0, "8\n4\n", "")
    code, out, _ = run_cli(capsys, "show")
    assert (
        "  AndroidVersionCodeBundle 4               Config/DefaultEngine.ini:309: StoreVersion, no architecture's "
        "offset (bEnableBundle, Config/DefaultEngine.ini:340)"
    ) in out.splitlines()
