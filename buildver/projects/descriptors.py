"""What a ``.uplugin`` or ``.uproject`` says that matters to an engine build, as immutable records."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from buildver.errors import DescriptorError
from buildver.projects.descriptor_json import entries, file_version, read_objects, string_field, string_list

__all__ = ["PluginDescriptor", "ProjectDescriptor", "parse_plugin_descriptor", "parse_project_descriptor"]


@dataclass(frozen=True, slots=True)
class PluginDescriptor:
    """What a ``.uplugin`` says that matters here; the keys are read as Unreal reads them (case-insensitively)."""

    path: str
    file_version: int
    version_name: str = ""
    engine_version: str = ""
    """As written; empty when the descriptor names no engine."""
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """What Unreal reads without a word but a reader should know: a key that comes more than once."""
    unreal4_declared: str | None = None
    """The EngineVersion Unreal 4 reads when a repeated key makes it differ from Unreal 5's, else None."""

    def engine_version_for(self, major: int) -> str:
        """The EngineVersion an engine of ``major`` reads (Unreal 4 and Unreal 5 differ on repeated keys)."""
        if major < 5 and self.unreal4_declared is not None:
            return self.unreal4_declared
        return self.engine_version


@dataclass(frozen=True, slots=True)
class ProjectDescriptor:
    """What a ``.uproject`` says that matters here."""

    path: str
    file_version: int
    engine_association: str = ""
    """As written; empty when the project names no engine (Unreal then looks in the project's parent folders)."""
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """What Unreal reads without a word but a reader should know: a key that comes more than once."""
    unreal4_declared: str | None = None
    """The EngineAssociation Unreal 4 reads when a repeated key makes it differ from Unreal 5's, else None."""
    additional_plugin_directories: tuple[str, ...] = ()
    """Folders of more plugins, as written (relative to the project's folder, or absolute)."""

    def engine_association_for(self, major: int) -> str:
        """The EngineAssociation an engine of ``major`` reads (Unreal 4 and Unreal 5 differ on repeated keys)."""
        if major < 5 and self.unreal4_declared is not None:
            return self.unreal4_declared
        return self.engine_association


_Descriptor = TypeVar("_Descriptor", PluginDescriptor, ProjectDescriptor)


def parse_plugin_descriptor(data: bytes, path: str) -> PluginDescriptor:
    """Read a ``.uplugin``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place.

    Read as Unreal 5 reads it; where a repeated key makes Unreal 4 read another EngineVersion, that is kept beside it.
    """
    return _read(data, path, _plugin, "engine_version")


def parse_project_descriptor(data: bytes, path: str) -> ProjectDescriptor:
    """Read a ``.uproject``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place.

    Read as Unreal 5 reads it; where a repeated key makes Unreal 4 read another EngineAssociation, that is kept
    beside it.
    """
    return _read(data, path, _project, "engine_association")


def _read(data: bytes, path: str, build: Callable[[Mapping[str, object], str], _Descriptor], field: str) -> _Descriptor:
    """The descriptor as Unreal 5 reads it, with the notes on repeated keys and Unreal 4's ``field`` (the engine it
    declares) when that differs."""
    first, last, found = read_objects(data, path)
    repeats: tuple[str, ...] = found  # annotated: mypy cannot infer it through replace() on a constrained TypeVar
    descriptor = build(first, path)
    if not repeats:
        return descriptor
    other = _other_reading(last, path, build)
    if isinstance(other, str):
        return replace(descriptor, notes=(*repeats, other))
    value: str = getattr(other, field)
    unreal4 = value if value != getattr(descriptor, field) else None
    return replace(descriptor, notes=repeats, unreal4_declared=unreal4)


def _plugin(document: Mapping[str, object], path: str) -> PluginDescriptor:
    return PluginDescriptor(
        path=path,
        file_version=file_version(document, path, "PluginFileVersion"),
        version_name=string_field(document, "VersionName", path),
        engine_version=string_field(document, "EngineVersion", path),
        modules=entries(document, "Modules", path, ("Name", "Type")),
        plugins=entries(document, "Plugins", path, ("Name", "Enabled")),
    )


def _project(document: Mapping[str, object], path: str) -> ProjectDescriptor:
    return ProjectDescriptor(
        path=path,
        file_version=file_version(document, path, "ProjectFileVersion"),
        engine_association=string_field(document, "EngineAssociation", path),
        modules=entries(document, "Modules", path, ("Name", "Type")),
        plugins=entries(document, "Plugins", path, ("Name", "Enabled")),
        additional_plugin_directories=string_list(document, "AdditionalPluginDirectories", path),
    )


def _other_reading(
    document: Mapping[str, object], path: str, build: Callable[[Mapping[str, object], str], _Descriptor]
) -> _Descriptor | str:
    """Unreal 4's reading (the last of repeated keys), or a note on why Unreal 4 could not load it at all."""
    try:
        return build(document, path)
    except DescriptorError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        return f"Unreal 4, which reads the last of repeated keys, could not load it: {reason}"
