"""Repeated keys in descriptors: Unreal loads them (Unreal 5 reads the first of keys that match without regard to
case, Unreal 4 the last), so buildver does too, warns, and says the true reason. The shape is that of Epic's Lyra
sample's Plugins/UIExtension/UIExtension.uplugin, whose "Plugins" array comes twice (written for these tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from buildver.projects.descriptors import parse_plugin_descriptor, parse_project_descriptor
from buildver.projects.verdicts import Status, check_association, check_plugin
from buildver.versions.engine_version import EngineVersion

PLUGINS = '[{"Name": "ModularGameplay", "Enabled": true}]'
LYRA_SHAPE = (
    f'{{"FileVersion": 3, "VersionName": "1.0", "EngineVersion": "5.3.0", "Plugins": {PLUGINS}, "Plugins": {PLUGINS}}}'
).encode()


def test_an_exact_repeat_is_read_once_with_a_warning_saying_so() -> None:
    descriptor = parse_plugin_descriptor(LYRA_SHAPE, "UIExtension.uplugin")
    assert descriptor.plugins == ("ModularGameplay",)
    assert descriptor.notes == ("'Plugins' appears 2 times, with the same value each time: Unreal reads it as once",)
    result = check_plugin(descriptor, EngineVersion(5, 3, 0))
    assert (result.status, result.warnings) == (Status.COMPATIBLE, descriptor.notes)


@pytest.mark.parametrize(
    ("engine", "declared", "status"),
    [
        (EngineVersion(5, 3, 0), "5.3.0", Status.COMPATIBLE),  # Unreal 5: the first
        (EngineVersion(4, 27, 0), "4.27.0", Status.COMPATIBLE),  # Unreal 4: the last
        (EngineVersion(5, 2, 0), "5.3.0", Status.REFUSED),
    ],
)
def test_differing_repeats_are_read_as_each_generation_reads_them(
    engine: EngineVersion, declared: str, status: Status
) -> None:
    data = b'{"FileVersion": 3, "EngineVersion": "5.3.0", "engineVersion": "4.27.0"}'
    descriptor = parse_plugin_descriptor(data, "P.uplugin")
    result = check_plugin(descriptor, engine)
    assert (result.declared, result.status) == (declared, status)
    assert result.warnings == (
        "'engineVersion' appears 2 times with different values (keys match without regard to case): Unreal 5 reads "
        "the first, Unreal 4 the last",
    )


def test_a_project_association_is_read_as_each_generation_reads_it() -> None:
    descriptor = parse_project_descriptor(
        b'{"FileVersion": 3, "EngineAssociation": "5.3", "EngineAssociation": "4.27"}', "G.uproject"
    )
    assert check_association(descriptor, EngineVersion(5, 3, 0)).declared == "5.3"
    assert check_association(descriptor, EngineVersion(4, 27, 2)).declared == "4.27"


def test_a_repeat_unreal_4_cannot_load_is_said() -> None:
    descriptor = parse_plugin_descriptor(b'{"FileVersion": 3, "FileVersion": 9}', "P.uplugin")
    assert descriptor.file_version == 3
    assert descriptor.notes[-1] == (
        "Unreal 4, which reads the last of repeated keys, could not load it: FileVersion 9 is not a descriptor "
        "version Unreal reads (1 to 3)"
    )


def test_project_check_passes_the_lyra_shape_and_warns_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "Plugins" / "UIExtension" / "UIExtension.uplugin"
    plugin.parent.mkdir(parents=True)
    plugin.write_bytes(LYRA_SHAPE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "project", "check", "--against", "5.3.2")
    assert code == 0
    assert "compatible     plugin   5.3.0                      Plugins/UIExtension/UIExtension.uplugin" in out
    assert err == (
        "buildver: warning: Plugins/UIExtension/UIExtension.uplugin: 'Plugins' appears 2 times, with the same value "
        "each time: Unreal reads it as once\n"
    )
    code, out, _ = run_cli(capsys, "project", "check", "--against", "5.3.2", "--json")
    assert json.loads(out)["results"][0]["warnings"] == [
        "'Plugins' appears 2 times, with the same value each time: Unreal reads it as once"
    ]
