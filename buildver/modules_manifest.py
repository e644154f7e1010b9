"""Unreal's ``.modules`` manifests: the BuildId and the module files of one binaries folder.

Source: ``../shared/reference/ue-build-versioning.md`` section 4 (UBT ``ModuleManifest.cs``, the C++
``FModuleManifest`` reader). The runtime loads a folder's modules only when the manifest's BuildId equals the
executable's, so every manifest checked in beside the others must carry the same BuildId.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from buildver.errors import ModulesManifestError

__all__ = ["ModulesManifest", "parse_modules_manifest"]

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
