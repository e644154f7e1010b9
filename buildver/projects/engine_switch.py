"""A project switched to another engine: the ``.uproject``'s EngineAssociation rewritten in place, every other byte
kept (``UnrealVersionSelector -switchversion`` without the reformatting).

Unreal's ``FDesktopPlatformBase::SetEngineIdentifierForProject`` (4.22 to 5.8) loads the whole file into an
``FJsonObject``, sets the field with ``SetStringField`` and writes the object again with ``TJsonWriter``: the value
of an existing key is replaced where it is (``TMap::Add`` on a key it holds, ``TSet::TryReplaceExisting``), and a key
the file lacks is added after the last member. buildver writes the value where the key is (every occurrence of a key
repeated in another case, so that Unreal 4 and 5 read the same) and adds a missing key after the last member, in the
file's own indentation, separators and line endings; the encoding, byte-order mark, key order and every other
character stay as they were. ``docs/project-rules.md`` §7 cites the sources.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from buildver.changes import FileChange, apply_changes, locked, read_existing, remove_leftovers
from buildver.errors import DescriptorError, EngineLookupError
from buildver.projects.descriptor_json import _blank_trailing_commas, read_object
from buildver.projects.engine import ProjectEngine, association_of, project_engine, read_registry_builds
from buildver.text import unencodable
from buildver.versions.json_layout import JsonLayoutError, encode_string, parse_object, with_edits

__all__ = ["Switch", "plan_switch", "switch_engine", "with_association"]

_KEY = "EngineAssociation"
_UTF16_MARKS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


@dataclass(frozen=True, slots=True)
class Switch:
    """A planned switch: the ``.uproject``'s change, the engine the new association leads to on this machine (None
    when it leads nowhere here and ``force`` was given), and why it leads nowhere."""

    project: Path
    previous: str
    association: str
    change: FileChange
    engine: ProjectEngine | None
    problem: str = ""

    def to_json(self) -> dict[str, object]:
        """The switch as a JSON object."""
        return {
            "project": str(self.project),
            "previous_association": self.previous,
            "association": self.association,
            "changed": self.change.changed,
            "engine_root": None if self.engine is None else str(self.engine.root),
            "resolved_by": None if self.engine is None else self.engine.how,
            "problem": self.problem or None,
        }


def plan_switch(
    project: Path,
    association: str,
    *,
    force: bool = False,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> Switch:
    """The ``.uproject`` at ``project`` with EngineAssociation ``association``; nothing is written.

    The association is resolved as :func:`project_engine` resolves a project's (a release, a GUID or other
    registered name, a path relative to the project's folder, or empty); one this machine cannot resolve is an
    EngineLookupError unless ``force``. A file that is no descriptor is a DescriptorError.
    """
    shown = str(project)
    try:
        data = read_existing(project)
    except OSError as exc:
        raise DescriptorError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if data is None:
        raise DescriptorError(f"{shown}: no such file")
    try:
        previous = association_of(data, shown)
    except EngineLookupError as exc:
        raise DescriptorError(str(exc)) from None
    new = with_association(data, association, shown)
    engine, problem = None, ""
    try:
        engine = project_engine(
            project, platform=platform, environ=environ, home=home, registry=registry, association=association
        )
    except EngineLookupError as exc:
        if not force:
            raise EngineLookupError(f"{exc}; to write it all the same, pass --force") from None
        problem = str(exc)
    return Switch(project, previous, association, FileChange(project, data, new), engine, problem)


def switch_engine(
    project: Path,
    association: str,
    *,
    force: bool = False,
    dry_run: bool = False,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Callable[[], list[tuple[str, str]]] = read_registry_builds,
) -> Switch:
    """:func:`plan_switch`, then (unless ``dry_run``) the ``.uproject`` written all or nothing under its folder's lock,
    after what killed runs left beside it is removed (also when it already names the association); WriteError when
    it cannot be (the file is then as it was)."""
    switch = plan_switch(
        project, association, force=force, platform=platform, environ=environ, home=home, registry=registry
    )
    if not dry_run:
        with locked(project.parent):
            remove_leftovers(project.parent, project.name)
            if switch.change.changed:
                apply_changes([switch.change])  # refuses a file changed since it was read
    return switch


def with_association(data: bytes, association: str, shown: str) -> bytes:
    """A ``.uproject``'s bytes with EngineAssociation set to ``association``, every other byte kept; DescriptorError
    when the file cannot be edited in place (not a descriptor, or JSON that Unreal reads but buildver cannot place)."""
    if unencodable(association) is not None:
        raise EngineLookupError(f"{association!r}: an association that is not UTF-8 text cannot be written to {shown}")
    encoding = next((name for mark, name in _UTF16_MARKS.items() if data.startswith(mark)), None)
    if encoding is not None:
        mark, body = data[:2], data[2:]
    else:
        encoding, mark, body = "utf-8", b"", data
    read_object(data, shown)  # the descriptor as Unreal reads it: refuses what is no descriptor, in Unreal's words
    text = body.decode(encoding)
    bom = text[:1] if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    try:
        layout = parse_object(_blank_trailing_commas(text))  # commas blanked: every position stays the same
    except JsonLayoutError as exc:
        raise DescriptorError(
            f"{shown}: line {exc.line}, column {exc.column}: cannot edit EngineAssociation in place ({exc.message})"
        ) from None
    layout = layout._replace(text=text)
    value = encode_string(association)
    edits = [
        (member.value_start, member.value_end, value) for member in layout.members if member.key.lower() == _KEY.lower()
    ]
    if not edits and layout.members:
        last = layout.members[-1]
        if len(layout.members) == 1:  # no separator to copy: the space before the first key, else one space
            gap = text[layout.object_start : last.key_start]
            layout = layout._replace(member_separator="," + (gap or " "))
        edits.append(
            (last.value_end, last.value_end, f"{layout.member_separator}{encode_string(_KEY)}{layout.separator}{value}")
        )
    elif not edits:
        inside = f"{layout.newline}{layout.indent}{encode_string(_KEY)}{layout.separator}{value}{layout.newline}"
        close = text.index("}", layout.object_start)
        edits.append((layout.object_start, close, inside))
    new = mark + (bom + with_edits(layout, edits)).encode(encoding)
    if association_of(new, shown) != association:  # pragma: no cover - a guard against a wrong edit
        raise DescriptorError(f"{shown}: the edited file does not read back as EngineAssociation {association!r}")
    return new
