"""Unreal's ``Build/Build.version``: the record, its validation, and load/save that keep the file's format.

Sources: ``docs/unreal-rules.md`` §2 (UBT ``BuildVersion.cs`` and ``JsonWriter.cs`` of each release, the C++
``FBuildVersion`` reader).
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile each field's annotation text into
# a ForwardRef at import, which every command pays (benchmarks/bench_core.py, import time).

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from buildver.errors import InvalidVersionError, NoVersionFileError, VersionFileError
from buildver.reading import is_lfs_pointer
from buildver.text import unencodable
from buildver.versions.engine_version import MAX_CHANGELIST, MAX_COMPONENT, EngineVersion
from buildver.versions.json_layout import (
    JsonLayout,
    JsonLayoutError,
    Member,
    encode_string,
    line_and_column,
    parse_object,
    with_edits,
)

if TYPE_CHECKING:
    from buildver.changes import FileChange

__all__ = [
    "FIELDS",
    "BuildVersion",
    "Field",
    "VersionFile",
    "WriterRules",
    "find_build_version",
    "load_build_version",
    "parse_build_version",
    "render_new_file",
]

_JSON_WHITESPACE = " \t\n\r"

SEARCHED_PATHS = (Path("Build/Build.version"), Path("Engine/Build/Build.version"))


class WriterRules(NamedTuple):
    """What a writer does whatever the file held (UBT's BuildVersion.Write differs by engine version; each
    generation's is in ``buildver.versions.generations``)."""

    always_written: frozenset[str] = frozenset()
    """Written even when empty: inserted with the empty value when the file lacks them."""
    omitted_when_empty: frozenset[str] = frozenset()
    """Not written when empty: removed from the file when their new value is empty."""
    ends_at_brace: bool = False
    """Nothing follows the closing brace (UBT's JsonWriter writes no final newline)."""


class Field(NamedTuple):
    """One Build.version key: its name in the file, its attribute on BuildVersion, and what it holds."""

    name: str
    attribute: str
    kind: str  # "component" (0-65535), "changelist" (0-2^31-1), "flag" (0-2^31-1, on when not 0) or "string"
    required: bool = False
    written_when_empty: bool = True
    """Unreal 5 omits BuildId, BuildVersion and BuildURL when they are empty."""

    def check(self, value: object) -> str | None:
        """Why ``value`` cannot be this field's value as read from JSON, or None when it can."""
        if self.kind == "string":
            if not isinstance(value, str):
                return f"must be a string, not {_json_repr(value)}"
            return _unencodable(value)
        if self.kind == "flag":
            # One rule, Unreal's: UBT reads a flag as an integer and tests it with != 0 (so 2 is on, and the file
            # keeps its 2); true, which UBT's C# reader silently reads as 0 and its C++ reader refuses, is refused,
            # and so is a negative number (the C++ reader takes digits only).
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CHANGELIST:
                rule = f"an integer from 0 to {MAX_CHANGELIST} (0 is off, any other value on)"
                return f"must be {rule}, not {_json_repr(value)}"
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer, not {_json_repr(value)}"
        limit = _LIMITS[self.kind]
        if not 0 <= value <= limit:
            hint = " (bit 31 is Unreal's licensee flag; use IsLicenseeVersion)" if self.kind == "changelist" else ""
            return f"must be from 0 to {limit}, not {value}{hint}"
        return None


_LIMITS = {"component": MAX_COMPONENT, "changelist": MAX_CHANGELIST}

FIELDS: tuple[Field, ...] = (
    Field("MajorVersion", "major_version", "component", required=True),
    Field("MinorVersion", "minor_version", "component", required=True),
    Field("PatchVersion", "patch_version", "component", required=True),
    Field("Changelist", "changelist", "changelist"),
    Field("CompatibleChangelist", "compatible_changelist", "changelist"),
    Field("IsLicenseeVersion", "is_licensee_version", "flag"),
    Field("IsPromotedBuild", "is_promoted_build", "flag"),
    Field("BranchName", "branch_name", "string"),
    Field("BuildId", "build_id", "string", written_when_empty=False),
    Field("BuildVersion", "build_version", "string", written_when_empty=False),
    Field("BuildURL", "build_url", "string", written_when_empty=False),
)
"""Every key Unreal knows, in the order Unreal 5 writes them."""

_FIELDS_BY_FOLDED_NAME = {field.name.lower(): field for field in FIELDS}
_FIELDS_BY_NAME = {field.name: field for field in FIELDS}


def _unencodable(text: str) -> str | None:
    """Why ``text`` cannot be written as UTF-8 (:func:`buildver.text.unencodable`), or None."""
    index = unencodable(text)
    if index is None:
        return None
    return f"must be text UTF-8 can encode, not {text!r} (character {index} is a lone surrogate)"


def _json_repr(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "an array"
    return repr(value)


# NamedTuples rather than dataclasses: as immutable, and every command that reads Build.version creates these
# classes at start-up, where a dataclass (and importing dataclasses) costs about two milliseconds in all
# (benchmarks/bench_core.py). The fields are checked in BuildVersion.__new__.
class _BuildVersionFields(NamedTuple):
    major_version: int
    minor_version: int
    patch_version: int
    changelist: int = 0
    compatible_changelist: int = 0
    is_licensee_version: bool = False
    is_promoted_build: bool = False
    branch_name: str = ""
    build_id: str = ""
    build_version: str = ""
    build_url: str = ""


class BuildVersion(_BuildVersionFields):
    """The values of a Build.version, checked against Unreal's ranges; flags are booleans."""

    __slots__ = ()

    # The signature repeats the fields so that type checkers check every construction.
    def __new__(
        cls,
        major_version: int,
        minor_version: int,
        patch_version: int,
        changelist: int = 0,
        compatible_changelist: int = 0,
        is_licensee_version: bool = False,
        is_promoted_build: bool = False,
        branch_name: str = "",
        build_id: str = "",
        build_version: str = "",
        build_url: str = "",
    ) -> "BuildVersion":
        record = super().__new__(
            cls,
            major_version,
            minor_version,
            patch_version,
            changelist,
            compatible_changelist,
            is_licensee_version,
            is_promoted_build,
            branch_name,
            build_id,
            build_version,
            build_url,
        )
        for field, value in zip(FIELDS, record, strict=True):
            if field.kind == "flag":
                problem = None if isinstance(value, bool) else f"must be a bool, not {value!r}"
            else:
                problem = field.check(value)
            if problem:
                raise InvalidVersionError(f"{field.name} {problem}")
        return record

    def replace(self, **changes: Any) -> "BuildVersion":
        """A copy with some values changed (validated like any new record)."""
        return BuildVersion(**{**self._asdict(), **changes})

    @property
    def effective_compatible_changelist(self) -> int:
        """BuildVersion.EffectiveCompatibleChangelist: CompatibleChangelist when both it and Changelist are set."""
        if self.changelist != 0 and self.compatible_changelist != 0:
            return self.compatible_changelist
        return self.changelist

    @property
    def effective_build_version(self) -> str:
        """The BUILD_VERSION string UBT compiles in: BuildVersion, else ``{BranchName}-CL-{Changelist}``."""
        return self.build_version or f"{self.branch_name}-CL-{self.changelist}"

    @property
    def is_formal_build(self) -> bool:
        """TargetRules.bFormalBuild: a changelist is set and the build is promoted."""
        return self.changelist != 0 and self.is_promoted_build

    @property
    def engine_version(self) -> EngineVersion:
        """FEngineVersion::Current() for this file."""
        return EngineVersion(
            self.major_version,
            self.minor_version,
            self.patch_version,
            self.changelist,
            self.branch_name,
            self.is_licensee_version,
        )

    @property
    def compatible_engine_version(self) -> EngineVersion:
        """FEngineVersion::CompatibleWith(): patch 0 for Epic builds, the real patch for licensee builds."""
        return EngineVersion(
            self.major_version,
            self.minor_version,
            self.patch_version if self.is_licensee_version else 0,
            self.effective_compatible_changelist,
            self.branch_name,
            self.is_licensee_version,
        )

    def to_json_fields(self, present: frozenset[str] | None = None) -> dict[str, object]:
        """The fields under their Build.version names (flags as 0/1), limited to ``present`` when given."""
        result: dict[str, object] = {}
        for field in FIELDS:
            if present is not None and field.name not in present:
                continue
            value = getattr(self, field.attribute)
            result[field.name] = int(value) if field.kind == "flag" else value
        return result


class VersionFile(NamedTuple):
    """A Build.version as loaded: its path, its record, and the layout that saving keeps."""

    path: Path
    record: BuildVersion
    layout: JsonLayout | None = None
    """None for a file that does not exist yet (it is written the way Unreal's writer does)."""
    data: bytes | None = None
    """The bytes as read (None for a new file)."""

    @property
    def present(self) -> frozenset[str]:
        """The canonical names of the known keys the file holds."""
        if self.layout is None:
            return frozenset()
        folded = (member.key.lower() for member in self.layout.members)
        return frozenset(_FIELDS_BY_FOLDED_NAME[key].name for key in folded if key in _FIELDS_BY_FOLDED_NAME)

    def line_of(self, name: str) -> int | None:
        """The line (1-based) of the key ``name`` (any case, as Unreal reads keys), or None when the file has none."""
        if self.layout is None:
            return None
        folded = name.lower()
        for member in self.layout.members:
            if member.key.lower() == folded:
                return line_and_column(self.layout.text, member.key_start)[0]
        return None

    def render(self, record: BuildVersion | None = None, writer: WriterRules | None = None) -> bytes:
        """The file's bytes holding ``record``: only the values that differ are rewritten.

        ``writer`` adds the keys a writer always writes, removes the ones it leaves out when they are empty, and
        can end the file at its closing brace.
        """
        record = self.record if record is None else record
        if self.layout is None:
            return render_new_file(record).encode("utf-8")
        text = _render_changes(self.layout, self.record, record, writer)
        return (("\ufeff" if self.layout.bom else "") + text).encode("utf-8")

    def change_to(self, record: BuildVersion, writer: WriterRules | None = None) -> "FileChange":
        """The planned change that saves ``record`` into this file (``writer`` as for ``render``)."""
        # Imported here: reading commands (show, compare) never write, and need not load the writing machinery.
        from buildver.changes import FileChange

        new = self.render(record, writer)
        # The edits are by position; read the result back so that no combination of them can ever write a file
        # that is not the record (or not JSON).
        try:
            written = parse_build_version(new, self.path).record
        except VersionFileError as exc:
            raise VersionFileError(f"{self.path}: buildver could not write the new values in place ({exc})") from exc
        if written != record:
            raise VersionFileError(
                f"{self.path}: buildver could not write the new values in place; nothing was written"
            )
        return FileChange(self.path, self.data, new)


def render_new_file(record: BuildVersion, newline: str = "\n") -> str:
    """A new Build.version exactly as Unreal 5's BuildVersion.Write produces it (no final newline)."""
    lines = [
        f'\t"{field.name}": {_encode_value(field, getattr(record, field.attribute))}'
        for field in FIELDS
        if field.written_when_empty or getattr(record, field.attribute)
    ]
    return "{" + newline + ("," + newline).join(lines) + newline + "}"


def _encode_value(field: Field, value: object) -> str:
    if field.kind == "string":
        assert isinstance(value, str)
        return encode_string(value)
    return str(int(value))  # type: ignore[call-overload]


def _render_changes(layout: JsonLayout, old: BuildVersion, new: BuildVersion, writer: WriterRules | None) -> str:
    """The layout's text with the values of ``new`` that differ from ``old``, and the writer's rules applied."""
    always_written = writer.always_written if writer else frozenset()
    omitted_when_empty = writer.omitted_when_empty if writer else frozenset()
    members_by_field = {
        _FIELDS_BY_FOLDED_NAME[m.key.lower()].name: m for m in layout.members if m.key.lower() in _FIELDS_BY_FOLDED_NAME
    }
    removed = set()
    for name in members_by_field.keys() & omitted_when_empty:
        field = _FIELDS_BY_NAME[name]
        if getattr(new, field.attribute) == _default(field):
            removed.add(name)
    # New keys go after a key that stays: an anchor inside a removed member's span would overlap its removal.
    kept = {name: member for name, member in members_by_field.items() if name not in removed}
    edits: list[tuple[int, int, str]] = []
    for position, field in enumerate(FIELDS):
        if field.name in removed:
            continue
        value = getattr(new, field.attribute)
        member = kept.get(field.name)
        # Unchanged values keep their bytes: a flag stored as 2 stays 2 while it stays true.
        if value == getattr(old, field.attribute) and (member is not None or field.name not in always_written):
            continue
        if member is not None:
            edits.append((member.value_start, member.value_end, _encode_value(field, value)))
        elif value != _default(field) or field.name in always_written:
            edits.append(_insertion(layout, kept, FIELDS[:position], field, value))
    if writer and writer.ends_at_brace:
        end = len(layout.text.rstrip(_JSON_WHITESPACE))
        edits.append((end, len(layout.text), ""))
    indices = sorted(layout.members.index(members_by_field[name]) for name in removed)
    return with_edits(layout, edits + _removals(layout, indices))


def _removals(layout: JsonLayout, indices: list[int]) -> list[tuple[int, int, str]]:
    """Spans that remove the members at ``indices`` (sorted), each with the separator before it.

    Members at the start of the object have no separator before them: that run goes with the separator after
    it, up to the first member that stays. (Build.version's required keys mean that one always exists.)
    """
    members = layout.members
    leading = 0
    while leading < len(indices) and indices[leading] == leading:
        leading += 1
    spans = [(members[index - 1].value_end, members[index].value_end, "") for index in indices[leading:]]
    if leading:
        end = members[leading].key_start if leading < len(members) else members[leading - 1].value_end
        spans.append((members[0].key_start, end, ""))
    return spans


def _default(field: Field) -> object:
    return "" if field.kind == "string" else 0


def _insertion(
    layout: JsonLayout,
    members_by_field: dict[str, Member],
    preceding: tuple[Field, ...],
    field: Field,
    value: object,
) -> tuple[int, int, str]:
    """Insert a missing key after the nearest key that Unreal writes before it, in the file's own style."""
    entry = f'"{field.name}"{layout.separator}{_encode_value(field, value)}'
    for earlier in reversed(preceding):
        if earlier.name in members_by_field:
            end = members_by_field[earlier.name].value_end
            return (end, end, layout.member_separator + entry)
    if members_by_field:
        start = min(member.key_start for member in members_by_field.values())
        return (start, start, entry + layout.member_separator)
    end = layout.object_start
    return (end, end, layout.newline + layout.indent + entry + layout.newline)


def parse_build_version(data: bytes, path: Path) -> VersionFile:
    """Validate the bytes of a Build.version; every problem is a VersionFileError naming ``path`` and the place."""
    if not data.strip():
        raise VersionFileError(f"{path}: the file is empty")
    if is_lfs_pointer(data):
        raise VersionFileError(
            f"{path}: a Git LFS pointer, not the file: run git lfs pull, or stop tracking Build.version with LFS "
            "(UAT and UBT read it as JSON)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise VersionFileError(f"{path}: line {line} (byte {exc.start}): the file is not UTF-8 ({exc.reason})") from exc
    try:
        layout = parse_object(text)
    except JsonLayoutError as exc:
        raise VersionFileError(f"{path}: line {exc.line}, column {exc.column}: {exc.message}") from exc
    values: dict[str, object] = {}
    seen: dict[str, Member] = {}
    for member in layout.members:
        folded = member.key.lower()
        if folded in seen:
            first = _position(layout, seen[folded].key_start)
            raise VersionFileError(
                f"{path}: {_position(layout, member.key_start)}: duplicate key {member.key!r} (first at {first})"
            )
        seen[folded] = member
        field = _FIELDS_BY_FOLDED_NAME.get(folded)
        if field is None:
            continue
        problem = field.check(member.value)
        if problem:
            raise VersionFileError(f"{path}: {_position(layout, member.value_start)}: {field.name} {problem}")
        values[field.attribute] = bool(member.value) if field.kind == "flag" else member.value
    missing = [field.name for field in FIELDS if field.required and field.attribute not in values]
    if missing:
        raise VersionFileError(f"{path}: missing required key{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return VersionFile(path, BuildVersion(**values), layout, data)  # type: ignore[arg-type]


def _position(layout: JsonLayout, index: int) -> str:
    line, column = line_and_column(layout.text, index)
    return f"line {line}, column {column}"


def find_build_version(start: Path | None = None) -> Path:
    """``Build/Build.version`` or ``Engine/Build/Build.version`` in ``start`` or its parents, up to the repo root."""
    start = Path.cwd() if start is None else start
    for folder in _folders_up_to_repository_root(start.resolve()):
        for relative in SEARCHED_PATHS:
            candidate = folder / relative
            if candidate.is_file():
                return candidate
    raise NoVersionFileError(
        f"{start}: no Build/Build.version or Engine/Build/Build.version here or in a parent folder "
        "(up to the repository root)"
    )


def _folders_up_to_repository_root(start: Path) -> Iterator[Path]:
    for folder in (start, *start.parents):
        yield folder
        if (folder / ".git").exists():
            return


def load_build_version(path: str | os.PathLike[str]) -> VersionFile:
    """Read and validate the Build.version at ``path`` (``buildver.versions.current`` says which one is in use)."""
    file_path = Path(path)
    return parse_build_version(_read_bytes(file_path), file_path)


def _read_bytes(path: Path) -> bytes:
    from buildver.reading import NotRegularFileError, read_regular_file

    try:
        data = read_regular_file(path)
    except IsADirectoryError as exc:
        raise VersionFileError(f"{path}: is a folder, not a version file") from exc
    except NotRegularFileError as exc:
        raise VersionFileError(f"{path}: is {exc.strerror}") from exc
    except OSError as exc:
        raise VersionFileError(f"{path}: cannot read the file ({exc.strerror})") from exc
    if data is None:
        raise VersionFileError(f"{path}: the version file is missing")
    return data
