"""What a ``.uplugin`` or ``.uproject`` says that matters to an engine build, as immutable records."""

from __future__ import annotations

from dataclasses import dataclass

from buildver.projects.descriptor_json import entries, file_version, read_object, string_field

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


@dataclass(frozen=True, slots=True)
class ProjectDescriptor:
    """What a ``.uproject`` says that matters here."""

    path: str
    file_version: int
    engine_association: str = ""
    """As written; empty when the project names no engine (Unreal then looks in the project's parent folders)."""
    modules: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()


def parse_plugin_descriptor(data: bytes, path: str) -> PluginDescriptor:
    """Read a ``.uplugin``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place."""
    document = read_object(data, path)
    return PluginDescriptor(
        path=path,
        file_version=file_version(document, path, "PluginFileVersion"),
        version_name=string_field(document, "VersionName", path),
        engine_version=string_field(document, "EngineVersion", path),
        modules=entries(document, "Modules", path, ("Name", "Type")),
        plugins=entries(document, "Plugins", path, ("Name", "Enabled")),
    )


def parse_project_descriptor(data: bytes, path: str) -> ProjectDescriptor:
    """Read a ``.uproject``; a descriptor Unreal could not load is a DescriptorError naming ``path`` and the place."""
    document = read_object(data, path)
    return ProjectDescriptor(
        path=path,
        file_version=file_version(document, path, "ProjectFileVersion"),
        engine_association=string_field(document, "EngineAssociation", path),
        modules=entries(document, "Modules", path, ("Name", "Type")),
        plugins=entries(document, "Plugins", path, ("Name", "Enabled")),
    )
