"""What ``buildver show`` reports about a Build.version: one set of named fields, as text, JSON, ``NAME=value``
lines or single values (no printing here).

Every form uses the same names, the JSON keys: the Build.version keys, then what Unreal derives from them.
"""

from __future__ import annotations

from buildver.errors import VersionFileError
from buildver.text import printable, terminal_controls
from buildver.versions.build_version import FIELDS, VersionFile

DERIVED_FIELDS = ("EngineVersion", "CompatibleEngineVersion", "EffectiveBuildVersion", "IsFormalBuild")
"""What Unreal derives from the file: FEngineVersion::Current() and CompatibleWith() in ToString form, BUILD_VERSION,
and whether this is a formal build (a changelist and IsPromotedBuild)."""

FIELD_NAMES = (*(field.name for field in FIELDS), *DERIVED_FIELDS)
"""Every name ``show --field`` accepts, in the order ``show`` lists them."""

_SHELL_PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:/@%+=-"
"""Characters no shell treats specially in a word: such a value needs no quotes (and so suits $GITHUB_ENV too).
A set of characters rather than a regular expression: compiling one costs every ``show`` 0.1 ms at start-up."""


def version_file_fields(version_file: VersionFile) -> dict[str, object]:
    """Every field present in the file under its Build.version name, plus both engine versions in ToString form."""
    record = version_file.record
    fields = record.to_json_fields(version_file.present)
    fields["EngineVersion"] = str(record.engine_version)
    fields["CompatibleEngineVersion"] = str(record.compatible_engine_version)
    return fields


def show_fields(version_file: VersionFile) -> dict[str, object]:
    """What ``show`` reports: the fields present in the file, then every derived field."""
    record = version_file.record
    fields = version_file_fields(version_file)
    fields["EffectiveBuildVersion"] = record.effective_build_version
    fields["IsFormalBuild"] = int(record.is_formal_build)
    return fields


def field_value(version_file: VersionFile, name: str) -> object:
    """One field by its name in FIELD_NAMES; a Build.version key the file leaves out has the value Unreal reads."""
    fields = show_fields(version_file)
    if name in fields:
        return fields[name]
    return version_file.record.to_json_fields()[name]


def describe_version_file(version_file: VersionFile) -> str:
    """A readable summary: the file, then each field under its JSON key, strings shown as they are."""
    fields = show_fields(version_file)
    lines = [printable(str(version_file.path))]
    for name, value in fields.items():
        shown = printable(str(value))
        if name == "IsFormalBuild" and not value:
            shown += " (needs a changelist and IsPromotedBuild 1)"
        lines.append(f"  {name:<25}{shown}")
    return "\n".join(lines) + "\n"


def value_lines(source: object, values: list[tuple[str, object]]) -> str:
    """Each value on a line of its own, in the order asked (a name asked twice, twice), for a script; a value
    holding a line break is refused, naming ``source`` (the file the values were read from)."""
    return "".join(f"{_one_line(source, name, value)}\n" for name, value in values)


def environment_lines(source: object, fields: dict[str, object]) -> str:
    """``NAME=value`` lines for a shell's ``eval`` or ``$GITHUB_ENV``.

    A value made only of characters no shell treats specially is written bare (every number and version, and
    branch names such as ``++UE5+Release-5.3``); any other is single-quoted for the shell, ``'`` as ``'\\''``
    ($GITHUB_ENV would keep those quotes in the value). A value holding a line break or NUL is refused: one line
    per variable is what keeps a value from setting another variable, in either reader.
    """
    lines = []
    for name, value in fields.items():
        text = _one_line(source, name, value)
        if text.strip(_SHELL_PLAIN):  # some character is not in the set
            text = "'" + text.replace("'", "'\\''") + "'"
        lines.append(f"{name}={text}\n")
    return "".join(lines)


def _one_line(source: object, name: str, value: object) -> str:
    text = str(value)
    if any(char in text for char in "\n\r\0\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise VersionFileError(
            f"{source}: {name} {text!r} holds a line break or NUL, which one line per value cannot "
            "carry; use --format json"
        )
    if terminal_controls(text):  # printed as it is (a script takes it back exactly): never escaped, so refused
        raise VersionFileError(
            f"{source}: {name} {text!r} holds a terminal control character, which would reach the terminal as it is; "
            "use --format json"
        )
    return text
