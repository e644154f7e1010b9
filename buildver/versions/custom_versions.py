"""One stored custom version: the key, the version and (in older layouts) the friendly name of a custom version.

Unreal keeps these in an FCustomVersionContainer: package summaries store one (``buildver.packages.reader``), and so do
buildver's own versioned documents (``buildver.serialization``). Registering a custom version with the code that
knows it is another concept: ``buildver.serialization.CustomVersion``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StoredCustomVersion"]


@dataclass(frozen=True, slots=True)
class StoredCustomVersion:
    """One entry of a custom-version container, as a package or a document stores it."""

    guid: str
    """The key as Unreal prints it with DigitsWithHyphens: ``XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX``."""
    version: int
    friendly_name: str | None = None
    """Stored only by some layouts (a package's Guids layout, LegacyFileVersion -3 to -5; document format 1)."""
