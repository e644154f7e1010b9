"""Top-level members of a ``.uproject`` or ``.uplugin`` set in place, every other byte kept: what
``engine switch`` (EngineAssociation) and ``bump`` in a plugin's repository (Version, VersionName) write.

Unreal's own writers (``FDesktopPlatformBase::SetEngineIdentifierForProject``, ``FPluginDescriptor::UpdateJson``)
load the whole file into an ``FJsonObject``, set each field and write the object again with ``TJsonWriter``: the
value of an existing key is replaced where it is (``TMap::Add`` on a key it holds), a key the file lacks is added
after the last member. buildver does the same by position (``docs/project-rules.md`` §7): each occurrence of a key
(in any case, so that Unreal 4, which reads the last of repeated keys, and Unreal 5, which reads the first, read the
same) gets the new value, and a missing key is added after the last member in the file's own indentation,
separators and line endings; the encoding, byte-order mark, key order and every other character stay as they were.
"""

from __future__ import annotations

from collections.abc import Mapping

from buildver.errors import DescriptorError
from buildver.projects.descriptor_json import _blank_trailing_commas, read_object
from buildver.versions.json_layout import JsonLayoutError, encode_string, parse_object, with_edits

__all__ = ["with_members"]

_UTF16_MARKS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def with_members(data: bytes, values: Mapping[str, str], shown: str, what: str) -> bytes:
    """A descriptor's bytes with each key of ``values`` set to its value, given as JSON text (``encode_string``
    for a string, digits for a number); DescriptorError naming ``shown`` and ``what`` (the values' names, for the
    message) when the file cannot be edited in place: not a descriptor, or JSON that Unreal reads but buildver
    cannot place."""
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
            f"{shown}: line {exc.line}, column {exc.column}: cannot edit {what} in place ({exc.message})"
        ) from None
    layout = layout._replace(text=text)
    folded = {key.lower(): value for key, value in values.items()}
    edits = [
        (member.value_start, member.value_end, folded[member.key.lower()])
        for member in layout.members
        if member.key.lower() in folded
    ]
    present = {member.key.lower() for member in layout.members}
    missing = [(key, value) for key, value in values.items() if key.lower() not in present]
    if missing and layout.members:
        last = layout.members[-1]
        if len(layout.members) == 1:  # no separator to copy: the space before the first key, else one space
            gap = text[layout.object_start : last.key_start]
            layout = layout._replace(member_separator="," + (gap or " "))
        added = "".join(
            f"{layout.member_separator}{encode_string(key)}{layout.separator}{value}" for key, value in missing
        )
        edits.append((last.value_end, last.value_end, added))
    elif missing:
        members = f",{layout.newline}{layout.indent}".join(
            f"{encode_string(key)}{layout.separator}{value}" for key, value in missing
        )
        close = text.index("}", layout.object_start)
        edits.append((layout.object_start, close, f"{layout.newline}{layout.indent}{members}{layout.newline}"))
    return mark + (bom + with_edits(layout, edits)).encode(encoding)
