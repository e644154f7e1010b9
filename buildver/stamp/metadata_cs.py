"""The engine's ``MetaData.cs``: the AssemblyInformationalVersion that UAT 4.18 to 4.27 stamps into its C# tools.

UpdateLocalVersion of those engines also rewrites ``Engine/Source/Programs/DotNETCommon/MetaData.cs`` with
``VersionFileUpdater.SetAssemblyInformationalVersion``: the first line matching
``[assembly: AssemblyInformationalVersion("...")]`` (any case, white space allowed where C# allows it) gets a new
string between its quotes; every other byte stays. ``docs/unreal-rules.md`` cites the sources.

Every function takes and returns text; reading and writing the file is the caller's job.
"""

from __future__ import annotations

import re

from buildver.errors import HeaderError
from buildver.stamp.header import join_lines, split_lines

__all__ = [
    "csharp_string_body",
    "informational_version",
    "set_informational_version",
    "version_h_numbers",
]


# VersionFileUpdater's own pattern (AutomationUtils/Utils.cs, 4.18 to 4.27), with .NET's IgnoreCase.
_ATTRIBUTE = re.compile(r'\[assembly:\s+AssemblyInformationalVersion\s*\(\s*"(?P<version>.*)"\s*\)\s*]', re.IGNORECASE)
# FEngineVersionSupport.ReadVersionFromFile: "#define ..._MAJOR_VERSION <value>" and MINOR and PATCH.
_VERSION_DEFINE = re.compile(r"#define.+_(?P<part>MAJOR|MINOR|PATCH)_VERSION\s+(?P<value>.+)", re.IGNORECASE)

# Characters that would end or change a C# regular string literal, or start a new line inside it.
_CSHARP_ESCAPES = {'"': '\\"', "\\": "\\\\"}
_CSHARP_NEWLINES = frozenset("\n\r\x85\u2028\u2029")


def csharp_string_body(text: str) -> str:
    """``text`` as the inside of a C# regular string literal: UAT writes it raw, which a branch name holding
    ``"`` or a newline would turn into code; buildver escapes exactly those and the other control characters."""
    parts = []
    for char in text:
        if char in _CSHARP_ESCAPES:
            parts.append(_CSHARP_ESCAPES[char])
        elif char in _CSHARP_NEWLINES or ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
            parts.append(f"\\u{ord(char):04X}")
        else:
            parts.append(char)
    return "".join(parts)


def informational_version(
    numbers: tuple[int, int, int], changelist: int, branch: str, *, padded_changelist: bool
) -> str:
    """``M.m.p-CL+Branch`` as UAT writes it: 4.18's FEngineVersionSupport pads the changelist to 7 digits."""
    major, minor, patch = numbers
    cl = f"{changelist:07d}" if padded_changelist else str(changelist)
    return f"{major}.{minor}.{patch}-{cl}+{branch}"


def version_h_numbers(text: str) -> tuple[int, int, int] | None:
    """MAJOR, MINOR and PATCH from a Version.h as FEngineVersionSupport reads them, or None when one is missing."""
    found: dict[str, int] = {}
    for line in split_lines(text)[1]:
        match = _VERSION_DEFINE.search(line)
        value = match["value"].strip() if match is not None else ""
        if match is not None and value.isascii() and value.isdigit():  # int() would also take "²" and "٣"
            found.setdefault(match["part"].upper(), int(value))
    if len(found) != 3:
        return None
    return found["MAJOR"], found["MINOR"], found["PATCH"]


def set_informational_version(text: str, version: str, path_for_messages: str) -> str:
    """``text`` with the first AssemblyInformationalVersion holding ``version`` (escaped for C#)."""
    bom, lines, newlines = split_lines(text)
    for index, line in enumerate(lines):
        match = _ATTRIBUTE.search(line)
        if match is not None:
            start, end = match.span("version")
            lines[index] = line[:start] + csharp_string_body(version) + line[end:]
            return join_lines(bom, lines, newlines)
    raise HeaderError(f'{path_for_messages}: no [assembly: AssemblyInformationalVersion("...")] line to update')
