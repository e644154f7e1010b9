"""Unreal's ``.modules`` manifests: the BuildId and the module files of one binaries folder.

Source: ``docs/unreal-rules.md`` §6 (UBT ``ModuleManifest.cs``, the C++ ``FModuleManifest`` reader,
``FModuleManager::FindModulePaths``). The runtime loads a folder's modules only when the manifest's BuildId equals the
executable's, so every manifest checked in beside the others must carry the same BuildId.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from buildver.errors import ModulesManifestError

__all__ = ["ModulesManifest", "build_id_problems", "parse_modules_manifest"]

_KNOWN_FIELDS = ("buildid", "modules", "librarydependencies")
"""The C++ reader fails on any other field; LibraryDependencies appears in 5.x merged-module builds."""


@dataclass(frozen=True, slots=True)
class ModulesManifest:
    """One ``.modules`` file: its BuildId and the module name → file name table."""

    path: str
    build_id: str
    modules: Mapping[str, str] = field(default_factory=dict)


def parse_modules_manifest(data: bytes, path: str) -> ModulesManifest:
    """Read a manifest's bytes; keys are matched case-insensitively, as both of Unreal's readers do."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ModulesManifestError(f"{path}: byte {exc.start}: the file is not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise ModulesManifestError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits; nesting Python cannot follow
        raise ModulesManifestError(f"{path}: not a manifest ({str(exc) or type(exc).__name__})") from exc
    if not isinstance(document, dict):
        raise ModulesManifestError(f"{path}: expected a JSON object, not {type(document).__name__}")
    values = {key.lower(): value for key, value in document.items()}
    unknown = [key for key in document if key.lower() not in _KNOWN_FIELDS]
    if unknown:
        raise ModulesManifestError(f"{path}: unknown field {unknown[0]!r} (Unreal's reader refuses the manifest)")
    build_id = values.get("buildid")
    if not isinstance(build_id, str):
        problem = "missing" if build_id is None else f"must be a string, not {build_id!r}"
        raise ModulesManifestError(f"{path}: BuildId {problem}")
    modules = values.get("modules", {})
    if not isinstance(modules, dict) or not all(isinstance(value, str) for value in modules.values()):
        raise ModulesManifestError(f"{path}: Modules must be an object of module names to file names")
    return ModulesManifest(path, build_id, modules)


def build_id_problems(
    manifests: Mapping[str, ModulesManifest], checked: Iterable[str], forced_build_id: str = ""
) -> dict[str, str]:
    """Why each of the ``checked`` manifests would have its modules skipped, by path (only those with a problem).

    ``manifests`` holds every manifest of their binaries folders (by posix path). FModuleManager uses a
    folder's manifest only when its BuildId is the running build's, so a folder's manifests must agree with each
    other and with a BuildId that Build.version forces.
    """
    problems: dict[str, str] = {}
    for path in sorted(set(checked)):
        manifest = manifests.get(path)
        if manifest is None:
            continue
        folder = posixpath.dirname(path)
        others = [
            other
            for other in manifests.values()
            if posixpath.dirname(other.path) == folder and other.build_id != manifest.build_id
        ]
        if others:
            listed = ", ".join(f"{posixpath.basename(other.path)} has {other.build_id!r}" for other in others[:3])
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            problems[path] = (
                f"BuildId {manifest.build_id!r} differs from the folder's other manifests ({listed}{more}): "
                "Unreal skips the modules of out-of-date manifests"
            )
        elif forced_build_id and manifest.build_id != forced_build_id:
            problems[path] = f"BuildId {manifest.build_id!r} is not Build.version's forced BuildId {forced_build_id!r}"
    return problems
