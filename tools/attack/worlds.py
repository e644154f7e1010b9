"""The places the attacks run in, each made whole in a folder of its own: games set up each way a studio sets one
up, engine trees of both generations of the header, and a folder of versioned documents.

A world is made once at the path its trials use, kept aside, and copied back for every trial (links and the
machine's engine lists name absolute paths inside it, so it must always live at the same path).
"""

from __future__ import annotations

import json
import shutil
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .common import DATA, ROOT, git

GAME_VERSION = (
    '{\n\t"MajorVersion": 1,\n\t"MinorVersion": 4,\n\t"PatchVersion": 2,\n\t"Changelist": 0,\n'
    '\t"CompatibleChangelist": 0,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 0,\n\t"BranchName": ""\n}'
)
ENGINE_53_VERSION = (
    '{\n\t"MajorVersion": 5,\n\t"MinorVersion": 3,\n\t"PatchVersion": 2,\n\t"Changelist": 29314046,\n'
    '\t"CompatibleChangelist": 27405482,\n\t"IsLicenseeVersion": 0,\n\t"IsPromotedBuild": 1,\n'
    '\t"BranchName": "++UE5+Release-5.3"\n}'
)
ENGINE_GUID = "E95117F9-7FC3-4CEE-8B95-62A245C2AC7F"
SETTINGS = (
    'header = "Source/{module}/BuildVersion.h"\n'
    'project-version = "{{Major}}.{{Minor}}.{{Patch}}.{{Changelist}}"\n'
    'android-store-version = "{{Changelist}}"\n'
)
VERSION_H = "Engine/Source/Runtime/Launch/Resources/Version.h"
METADATA_CS = "Engine/Source/Programs/DotNETCommon/MetaData.cs"


@dataclass(frozen=True)
class World:
    """A made world: its folder (``root``), where commands run, HOME, and the paths a scenario names."""

    name: str
    root: Path
    cwd: Path
    home: Path
    named: dict[str, Path] = field(default_factory=dict)


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def engine(folder: Path, version: str = ENGINE_53_VERSION) -> Path:
    """An installed engine: Engine/Binaries and Engine/Build/Build.version, as Unreal's IsValidRootDirectory wants."""
    (folder / "Engine" / "Binaries").mkdir(parents=True, exist_ok=True)
    write(folder / "Engine" / "Build" / "Build.version", version)
    return folder


def launcher_list(home: Path, engines: dict[str, Path]) -> None:
    listing = [{"InstallLocation": str(path), "AppName": name} for name, path in engines.items()]
    write(home / ".config/Epic/UnrealEngineLauncher/LauncherInstalled.dat", json.dumps({"InstallationList": listing}))


def install_ini(home: Path, engines: dict[str, Path]) -> Path:
    lines = "".join(f"{key}={path}\n" for key, path in engines.items())
    return write(home / ".config/Epic/UnrealEngine/Install.ini", f"[Installations]\n{lines}")


def game(
    folder: Path,
    name: str = "Game",
    association: str = "5.3",
    *,
    module: str = "Game",
    version_file: str = "Build/Build.version",
    config_link: bool = False,
    settings: bool = True,
) -> Path:
    """A game with TankFire's config files, an Android and a Windows layer that set the game's versions, one C++
    module, its own Build.version and the settings that stamp ProjectVersion and StoreVersion; the game's folder."""
    config = folder.parent / "Shared" / "Config" if config_link else folder / "Config"
    shutil.copytree(DATA / "ini" / "tankfire" / "Config", config)
    write(
        config / "Android" / "AndroidEngine.ini",
        "[/Script/AndroidRuntimeSettings.AndroidRuntimeSettings]\nStoreVersion=5\n",
    )
    write(
        config / "Windows" / "WindowsGame.ini",
        "[/Script/EngineSettings.GeneralProjectSettings]\nProjectVersion=1.0.4.0\n",
    )
    if config_link:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "Config").symlink_to("../Shared/Config", target_is_directory=True)
    descriptor = {"FileVersion": 3, "EngineAssociation": association, "Modules": [{"Name": module, "Type": "Runtime"}]}
    write(folder / f"{name}.uproject", json.dumps(descriptor, indent="\t"))
    (folder / "Source" / module).mkdir(parents=True)
    write(folder / "Source" / module / f"{module}.Build.cs", "// the module's rules\n")
    if version_file:
        write(folder / version_file, GAME_VERSION)
    if settings:
        named = "" if version_file == "Build/Build.version" else f'version-file = "{version_file}"\n'
        write(folder / "buildver.toml", named + SETTINGS.format(module=module))
    return folder


def commit(folder: Path) -> None:
    git(folder, "init", "--quiet")
    git(folder, "add", "--all")
    git(folder, "commit", "--quiet", "--no-verify", "-m", "world")


def launcher_game(root: Path, **options: object) -> World:
    """A game whose engine is a launcher install of 5.3, listed in the launcher's LauncherInstalled.dat."""
    home = root / "home"
    launcher_list(home, {"UE_5.3": engine(root / "Epic Games" / "UE_5.3")})
    folder = game(root / "Game", **options)  # type: ignore[arg-type]
    commit(folder)
    return World("launcher", root, folder, home)


def guid_game(root: Path) -> World:
    """A game whose engine is a source build registered by GUID in Install.ini."""
    home = root / "home"
    install_ini(home, {ENGINE_GUID: engine(root / "UnrealEngine")})
    folder = game(root / "Game", association="{" + ENGINE_GUID + "}")
    commit(folder)
    return World("guid", root, folder, home)


def native_game(root: Path) -> World:
    """A native game in an engine's depot (``EngineAssociation`` empty): the engine is the folder above."""
    home = root / "home"
    home.mkdir(parents=True)
    depot = engine(root / "Depot")
    write(depot / VERSION_H, _version_h_53())
    folder = game(depot / "MyGame", name="MyGame", association="", module="MyGame")
    commit(depot)
    return World("native", root, folder, home)


def config_link_game(root: Path) -> World:
    """A launcher game whose Config/ is a symbolic link to a shared folder beside it (in the same repository)."""
    home = root / "home"
    launcher_list(home, {"UE_5.3": engine(root / "Epic Games" / "UE_5.3")})
    folder = game(root / "Repo" / "Game", config_link=True)
    commit(root / "Repo")
    return World("config-link", root, folder, home)


def subfolder_game(root: Path) -> World:
    """A launcher game whose Build.version is in a subfolder (``Versioning/Build/``) named by the settings."""
    world = launcher_game(root, version_file="Versioning/Build/Build.version")
    return World("version-subfolder", world.root, world.cwd, world.home)


def _version_h_53() -> str:
    template = string.Template((DATA / "engine" / "Version-5.3.h.template").read_text())
    return template.substitute(major=5, minor=3, patch=2)


def engine_418(root: Path) -> World:
    """An engine tree of 4.18: UAT patches Version.h and MetaData.cs."""
    home = root / "home"
    home.mkdir(parents=True)
    tree = engine(root / "UE4", (DATA / "build_version" / "ue4.18.3.version").read_text())
    write(tree / VERSION_H, (DATA / "header" / "Version-4.18.h").read_bytes())
    write(tree / METADATA_CS, (DATA / "engine" / "MetaData.cs").read_bytes())
    commit(tree)
    return World("engine-4.18", root, tree, home)


def engine_53(root: Path) -> World:
    """An engine tree of 5.3: UAT writes Build.version alone."""
    home = root / "home"
    home.mkdir(parents=True)
    tree = engine(root / "UE5")
    write(tree / VERSION_H, _version_h_53())
    write(tree / "Engine/Source/Programs/Shared/MetaData.cs", (DATA / "engine" / "MetaData.cs").read_bytes())
    commit(tree)
    return World("engine-5.3", root, tree, home)


def bare_game(root: Path) -> World:
    """A launcher game without a Build.version or settings yet: what ``init --version`` starts from."""
    world = launcher_game(root, version_file="", settings=False)
    return World("bare-game", world.root, world.cwd, world.home)


def machine(root: Path) -> World:
    """A machine with one registered engine and an engine folder not registered yet."""
    home = root / "home"
    install_ini(home, {ENGINE_GUID: engine(root / "UnrealEngine")})
    new = engine(root / "Engines" / "UE_5.4", ENGINE_53_VERSION.replace('"MinorVersion": 3', '"MinorVersion": 4'))
    return World("machine", root, root, home, {"new engine": new})


def documents(root: Path) -> World:
    """Two versioned documents saved with older versions, and the worked example's schema."""
    home = root / "home"
    home.mkdir(parents=True)
    folder = root / "data"
    shutil.copy(ROOT / "examples" / "asset_schema.py", write(folder / "asset_schema.py", ""))
    shutil.copy(ROOT / "examples" / "data" / "rock.json", write(folder / "rock.json", ""))
    shutil.copy(ROOT / "examples" / "data" / "rock.json", write(folder / "props" / "stone.json", ""))
    return World("documents", root, folder, home)


GAMES: dict[str, Callable[[Path], World]] = {
    "launcher": launcher_game,
    "guid": guid_game,
    "native": native_game,
    "config-link": config_link_game,
    "version-subfolder": subfolder_game,
}
ENGINES: dict[str, Callable[[Path], World]] = {"engine-4.18": engine_418, "engine-5.3": engine_53}


class Stage:
    """A world made once at ``path`` and put back there, as it was made, for every trial."""

    def __init__(self, path: Path, make: Callable[[Path], World]) -> None:
        self.path = path
        self.kept = path.with_name(path.name + ".made")
        shutil.rmtree(self.kept, ignore_errors=True)
        shutil.rmtree(path, ignore_errors=True)
        self.world = make(path)
        path.rename(self.kept)

    def fresh(self) -> World:
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.copytree(self.kept, self.path, symlinks=True)
        return self.world

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.rmtree(self.kept, ignore_errors=True)
