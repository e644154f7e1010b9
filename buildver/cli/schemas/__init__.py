"""The JSON Schemas (draft 2020-12) of every document the command line prints with ``--json``, shipped with the
package (``<name>.schema.json`` beside this module) and published in ``docs/schemas/``.

``SCHEMA_VERSIONS`` (kept in ``buildver.cli.common``, which every command loads anyway, so that printing a document
imports nothing more) is the one place each document's ``schema_version`` is written: ``print_json`` puts it first
in the document, and each schema holds the same number as a constant. The number grows when a reader written for the
document could misread the new one (a key removed or renamed, a value of another type or meaning); a key added, or
a value added to a list of statuses or checks, keeps it (``docs/json-schemas.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from buildver.cli.common import SCHEMA_VERSIONS

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["SCHEMA_VERSIONS", "load_schema", "schema_file"]


def schema_file(name: str) -> Traversable:
    """The JSON Schema of the document ``name`` (a key of ``SCHEMA_VERSIONS``), as installed with the package."""
    from importlib.resources import files

    if name not in SCHEMA_VERSIONS:
        raise KeyError(f"no JSON document named {name!r} (known: {', '.join(SCHEMA_VERSIONS)})")
    return files(__name__).joinpath(f"{name}.schema.json")


def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the document ``name``, read."""
    import json

    schema: dict[str, Any] = json.loads(schema_file(name).read_text(encoding="utf-8"))
    return schema
