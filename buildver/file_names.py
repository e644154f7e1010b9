"""What Unreal's files are called: the one place that knows the names and suffixes the commands look for."""

from __future__ import annotations

__all__ = ["MANIFEST_SUFFIX", "PACKAGE_EXTENSIONS", "PLUGIN_SUFFIX", "PROJECT_SUFFIX", "VERSION_FILE_NAME"]

VERSION_FILE_NAME = "Build.version"
PACKAGE_EXTENSIONS = (".uasset", ".umap")
MANIFEST_SUFFIX = ".modules"
PLUGIN_SUFFIX = ".uplugin"
PROJECT_SUFFIX = ".uproject"
