"""Version values and files: FEngineVersion, Build.version and its layout, the rules each UAT generation
follows (as data), the configuration, and which Build.version is in use. No wing below this one but the plumbing."""

from typing import TYPE_CHECKING

from buildver import _lazy_face

if TYPE_CHECKING:
    from buildver.versions.build_version import (
        BuildVersion,
        VersionFile,
        WriterRules,
        find_build_version,
        load_build_version,
        parse_build_version,
        render_new_file,
    )
    from buildver.versions.comparison import Comparison, Compatibility, check_compatibility, compare_versions
    from buildver.versions.config import Config, find_config, load_config
    from buildver.versions.current import (
        load_version_file,
        version_file_path,
    )
    from buildver.versions.custom_versions import StoredCustomVersion
    from buildver.versions.engine_tree import engine_root
    from buildver.versions.engine_version import EngineVersion, VersionComparison, VersionComponent
    from buildver.versions.generations import BUILDVER_RULES, GENERATIONS, RuleSet, generation_of, rule_set_named

__all__ = [
    "BUILDVER_RULES",
    "GENERATIONS",
    "BuildVersion",
    "Comparison",
    "Compatibility",
    "Config",
    "EngineVersion",
    "RuleSet",
    "StoredCustomVersion",
    "VersionComparison",
    "VersionComponent",
    "VersionFile",
    "WriterRules",
    "check_compatibility",
    "compare_versions",
    "engine_root",
    "find_build_version",
    "find_config",
    "generation_of",
    "load_build_version",
    "load_config",
    "load_version_file",
    "parse_build_version",
    "render_new_file",
    "rule_set_named",
    "version_file_path",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_face(
        __name__,
        {
            "StoredCustomVersion": "custom_versions",
            "EngineVersion": "engine_version",
            "VersionComparison": "engine_version",
            "VersionComponent": "engine_version",
            "Comparison": "comparison",
            "Compatibility": "comparison",
            "check_compatibility": "comparison",
            "compare_versions": "comparison",
            "BuildVersion": "build_version",
            "VersionFile": "build_version",
            "WriterRules": "build_version",
            "find_build_version": "build_version",
            "load_build_version": "build_version",
            "parse_build_version": "build_version",
            "render_new_file": "build_version",
            "BUILDVER_RULES": "generations",
            "GENERATIONS": "generations",
            "RuleSet": "generations",
            "generation_of": "generations",
            "rule_set_named": "generations",
            "engine_root": "engine_tree",
            "Config": "config",
            "find_config": "config",
            "load_config": "config",
            "load_version_file": "current",
            "version_file_path": "current",
        },
    )
