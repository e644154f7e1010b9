"""What ``buildver show`` reports about a Build.version, as text and as JSON fields (no printing here)."""

from __future__ import annotations

from buildver.build_version import FIELDS, VersionFile


def version_file_fields(version_file: VersionFile) -> dict[str, object]:
    """Every field present in the file under its Build.version name, plus both engine versions in ToString form."""
    record = version_file.record
    fields = record.to_json_fields(version_file.present)
    fields["EngineVersion"] = str(record.engine_version)
    fields["CompatibleEngineVersion"] = str(record.compatible_engine_version)
    return fields


def describe_version_file(version_file: VersionFile) -> str:
    """A readable summary: the file, its fields, and what Unreal derives from them."""
    record = version_file.record
    present = version_file.present
    lines = [f"{version_file.path}"]
    for field in FIELDS:
        value = getattr(record, field.attribute)
        if field.name not in present:
            continue
        shown = repr(value) if field.kind == "string" else str(int(value))
        lines.append(f"  {field.name:<22}{shown}")
    lines += [
        f"  {'EngineVersion':<22}{record.engine_version}",
        f"  {'CompatibleWith':<22}{record.compatible_engine_version}",
        f"  {'BUILD_VERSION':<22}{record.effective_build_version!r}",
        f"  {'FormalBuild':<22}{'yes' if record.is_formal_build else 'no'}"
        + ("" if record.is_formal_build else " (needs a changelist and IsPromotedBuild)"),
    ]
    return "\n".join(lines) + "\n"
