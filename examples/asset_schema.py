"""The worked example of docs/versioned-data.md: an asset through three versions, a custom version, deprecations.

``Prop`` version 0 stored ``mesh`` and a uniform ``scale``; version 1 renamed ``mesh`` to ``mesh_path``
(NameChange); version 2 made ``scale`` per axis (TypeChange). Materials stored colours as 0-255 integers until
the ``StudioMaterials`` custom version ``LINEAR_COLOR``. ``LegacyCollider`` was replaced by ``Collider`` and
``EditorNote`` was removed. Use it with ``buildver data upgrade --schema examples/asset_schema.py:SCHEMA``.
"""

from __future__ import annotations

from buildver.serialization import Archive, CustomVersion, DataNode, Schema, VersionEnum


class AssetVersion(VersionEnum):
    """Pipeline-wide versions (Unreal's engine object version): add members at the end only."""

    INITIAL = 0
    PROP_COMPONENTS = 1


class PropVersion(VersionEnum):
    """The versions of the Prop class."""

    INITIAL = 0
    RENAMED_MESH = 1
    PER_AXIS_SCALE = 2


class MaterialsVersion(VersionEnum):
    """The materials team's own versions, independent of the pipeline's (a GUID-keyed custom version)."""

    BEFORE_CUSTOM_VERSION_WAS_ADDED = 0
    LINEAR_COLOR = 1


MATERIALS = CustomVersion.from_enum("6f1c2f1e-5a0b-4a8e-9c1d-0d2b8a3e4f10", MaterialsVersion, "StudioMaterials")


def serialize_material(ar: Archive, node: DataNode) -> None:
    """Colours were 0-255 before LINEAR_COLOR; saving declares the custom version so documents record it."""
    ar.using_custom_version(MATERIALS)
    if ar.is_loading and ar.custom_ver(MATERIALS) < MaterialsVersion.LINEAR_COLOR:
        node.set("color", [round(channel / 255, 4) for channel in node.get("color", [255, 255, 255])])


def replace_legacy_collider(node: DataNode) -> None:
    """A LegacyCollider was a sphere given by its radius; a Collider has a shape and a size per axis."""
    radius = node.get("radius", 0.5)
    node.convert("Collider")
    node.set("shape", "sphere")
    node.set("size", [radius * 2] * 3)


SCHEMA = Schema(engine=AssetVersion, custom_versions=[MATERIALS])
(
    SCHEMA.class_("Prop", PropVersion)
    .name_change(PropVersion.INITIAL, PropVersion.RENAMED_MESH, "mesh", "mesh_path")
    .type_change(
        "scale",
        PropVersion.RENAMED_MESH,
        PropVersion.PER_AXIS_SCALE,
        lambda scale: [scale] * 3,
        from_type=float,
        to_type=list,
    )
)
SCHEMA.class_("Material", serializer=serialize_material)
SCHEMA.class_("Collider")
SCHEMA.deprecate("LegacyCollider", replace_legacy_collider)
SCHEMA.deprecate("EditorNote")
