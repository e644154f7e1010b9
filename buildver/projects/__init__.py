"""Projects and plugins: which ``.uproject``, ``.uplugin`` and ``.modules`` files an engine build loads."""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.projects.check import ProjectReport, check_project, find_descriptors
    from buildver.projects.descriptors import (
        PluginDescriptor,
        ProjectDescriptor,
        parse_plugin_descriptor,
        parse_project_descriptor,
    )
    from buildver.projects.engine import ProjectEngine, installed_engines, project_engine
    from buildver.projects.game import GameProject, read_game_project
    from buildver.projects.game_version import GameVersions, load_game_versions
    from buildver.projects.lenient_version import parse_unreal_engine_version
    from buildver.projects.modules_manifest import ModulesManifest, parse_modules_manifest
    from buildver.projects.place import (
        Place,
        PlaceEngine,
        PlaceKind,
        compatible_engine_version,
        current_engine_version,
        find_place,
        game_versions,
        place_engine,
    )
    from buildver.projects.unreal_ini import IniDocument, parse_ini
    from buildver.projects.verdicts import CheckResult, Kind, Status, check_association, check_manifests, check_plugin

__all__ = [
    "CheckResult",
    "GameProject",
    "GameVersions",
    "IniDocument",
    "Kind",
    "ModulesManifest",
    "Place",
    "PlaceEngine",
    "PlaceKind",
    "PluginDescriptor",
    "ProjectDescriptor",
    "ProjectEngine",
    "ProjectReport",
    "Status",
    "check_association",
    "check_manifests",
    "check_plugin",
    "check_project",
    "compatible_engine_version",
    "current_engine_version",
    "find_descriptors",
    "find_place",
    "game_versions",
    "installed_engines",
    "load_game_versions",
    "parse_ini",
    "parse_modules_manifest",
    "parse_plugin_descriptor",
    "parse_project_descriptor",
    "parse_unreal_engine_version",
    "place_engine",
    "project_engine",
    "read_game_project",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "ProjectEngine": "engine",
            "GameProject": "game",
            "read_game_project": "game",
            "GameVersions": "game_version",
            "load_game_versions": "game_version",
            "IniDocument": "unreal_ini",
            "parse_ini": "unreal_ini",
            "installed_engines": "engine",
            "project_engine": "engine",
            "PluginDescriptor": "descriptors",
            "ProjectDescriptor": "descriptors",
            "parse_plugin_descriptor": "descriptors",
            "parse_project_descriptor": "descriptors",
            "parse_unreal_engine_version": "lenient_version",
            "CheckResult": "verdicts",
            "Kind": "verdicts",
            "Status": "verdicts",
            "check_association": "verdicts",
            "check_manifests": "verdicts",
            "check_plugin": "verdicts",
            "Place": "place",
            "PlaceEngine": "place",
            "PlaceKind": "place",
            "compatible_engine_version": "place",
            "current_engine_version": "place",
            "find_place": "place",
            "game_versions": "place",
            "place_engine": "place",
            "ModulesManifest": "modules_manifest",
            "parse_modules_manifest": "modules_manifest",
            "ProjectReport": "check",
            "check_project": "check",
            "find_descriptors": "check",
        },
    )
