"""Engine identifiers compared as Unreal compares them: FString ``==`` folds ASCII letters only, and an Install.ini
key is re-spelt through ``FGuid::Parse`` by the release that reads it (Linux: braces in 4.22 and 5.0, none from 5.1;
macOS: braces), a key that is not a GUID becoming the zero GUID. Where the answer is one release's or platform's
only, ``how`` (or the error) says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildver.errors import EngineLookupError
from buildver.projects.engine import project_engine

GUID = "2D4A449E-4019-A940-3B48-56BCFCE8A219"  # the trial corpus's source-5.1 key


def make_engine(root: Path) -> Path:
    (root / "Engine" / "Binaries").mkdir(parents=True)
    (root / "Engine" / "Build").mkdir(parents=True)
    return root


def machine(tmp_path: Path, settings: str, key: str) -> tuple[Path, Path]:
    """A HOME whose Install.ini lists one engine under ``key``; ``settings`` is Unreal's folder under HOME."""
    home = tmp_path / "home"
    install_ini = home / settings / "UnrealEngine" / "Install.ini"
    install_ini.parent.mkdir(parents=True)
    engine = make_engine(tmp_path / "Source")
    install_ini.write_text(f"[Installations]\n{key}={engine}\n", encoding="utf-8")
    return home, engine


def project(tmp_path: Path, association: str) -> Path:
    path = tmp_path / "Game" / "Game.uproject"
    path.parent.mkdir()
    path.write_text(json.dumps({"FileVersion": 3, "EngineAssociation": association}), encoding="utf-8")
    return path


def test_a_braced_association_matches_a_bare_linux_key_only_in_the_releases_that_print_braces(tmp_path: Path) -> None:
    home, engine = machine(tmp_path, ".config/Epic", GUID)
    found = project_engine(project(tmp_path, "{" + GUID + "}"), platform="linux", environ={}, home=home)
    assert found.root == engine
    assert found.how.endswith(
        f"; Install.ini key {GUID!r} matches '{{{GUID}}}' in Unreal 4.22 to 5.0 on Linux only; Unreal 5.1 and later "
        f"on Linux reads it as {GUID!r}"
    )


def test_a_bare_association_matches_a_linux_key_from_5_1_only(tmp_path: Path) -> None:
    home, _ = machine(tmp_path, ".config/Epic", GUID)
    found = project_engine(project(tmp_path, GUID.lower()), platform="linux", environ={}, home=home)
    assert "only" in found.how  # 5.1 and later on Linux only: 4.22 and 5.0 print braces
    assert "Unreal 4.22 to 5.0 on Linux reads it as" in found.how


@pytest.mark.parametrize("association", [GUID.replace("-", ""), "(" + GUID + ")"])
def test_a_guid_spelling_no_release_prints_matches_nothing(tmp_path: Path, association: str) -> None:
    home, _ = machine(tmp_path, ".config/Epic", "{" + GUID + "}")
    with pytest.raises(EngineLookupError) as caught:
        project_engine(project(tmp_path, association), platform="linux", environ={}, home=home)
    assert f"Install.ini key '{{{GUID}}}' is not {association!r} to Unreal: " in str(caught.value)


def test_macos_prints_braces_so_a_bare_association_matches_nothing(tmp_path: Path) -> None:
    home, _ = machine(tmp_path, "Library/Application Support/Epic", GUID)
    with pytest.raises(EngineLookupError, match=r"Unreal on macOS \(read in 5\.0, 5\.1 and 5\.4\) reads it as"):
        project_engine(project(tmp_path, GUID), platform="darwin", environ={}, home=home)


def test_an_install_ini_key_that_is_not_a_guid_is_the_zero_guid_to_unreal(tmp_path: Path) -> None:
    key = "4.27.2-wzf_master-4.244317"
    home, _ = machine(tmp_path, ".config/Epic", key)
    with pytest.raises(EngineLookupError) as caught:
        project_engine(project(tmp_path, key), platform="linux", environ={}, home=home)
    assert (
        f"Install.ini key {key!r} is not {key!r} to Unreal: Unreal 4.22 to 5.0 on Linux (not a GUID: the zero GUID) "
        "reads it as '{00000000-0000-0000-0000-000000000000}'"
    ) in str(caught.value)


def test_a_windows_registry_name_is_taken_as_written(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "Source")
    key = "4.27.2-wzf_master-4.244317"
    found = project_engine(
        project(tmp_path, key.upper()),
        platform="win32",
        environ={"PROGRAMDATA": str(tmp_path / "ProgramData")},
        home=tmp_path,
        registry=lambda: [(key, str(engine))],
    )
    assert found.root == engine


def test_identifiers_fold_ascii_letters_only(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "Source")
    environ = {"PROGRAMDATA": str(tmp_path / "ProgramData")}
    with pytest.raises(EngineLookupError, match="is not installed here"):
        project_engine(
            project(tmp_path, "kbuild"),
            platform="win32",
            environ=environ,
            home=tmp_path,
            registry=lambda: [("\u212aBuild", str(engine))],  # KELVIN SIGN: str.lower() makes it 'k', Unreal does not
        )
