"""FEngineVersion::Parse and TryParseStockEngineVersion as lenient as Unreal's C code: the versions a descriptor's
``EngineVersion`` or a project's ``EngineAssociation`` really names (``docs/project-rules.md``)."""

from __future__ import annotations

from buildver.versions.engine_version import EngineVersion

__all__ = ["parse_stock_engine_version", "parse_unreal_engine_version"]

_C_SPACE = " \t\n\v\f\r"
_UINT64_MAX = 2**64 - 1


def _strtoull(text: str, start: int) -> tuple[int, int]:
    """C's ``strtoull(text + start, &end, 10)``: the value and where it stopped.

    Leading white space and one sign are skipped; no digits gives 0 and leaves the end at ``start``; a negative
    number wraps modulo 2^64 and an overflow gives 2^64-1, as the C library does.
    """
    index = start
    while index < len(text) and text[index] in _C_SPACE:
        index += 1
    negative = index < len(text) and text[index] == "-"
    if index < len(text) and text[index] in "+-":
        index += 1
    digits_start = index
    while index < len(text) and "0" <= text[index] <= "9":
        index += 1
    if index == digits_start:
        return 0, start
    digits = text[digits_start:index].lstrip("0")
    if len(digits) > 20 or (value := int(digits or "0")) > _UINT64_MAX:  # 20 digits: past int()'s own limits
        return _UINT64_MAX, index
    return (-value) % 2**64 if negative else value, index


def parse_unreal_engine_version(text: str) -> EngineVersion | None:
    """``FEngineVersion::Parse`` with its C rules: the version Unreal reads from ``text``, or None when it fails.

    Unlike :meth:`EngineVersion.parse`, this is as lenient as Unreal: white space and a sign before a number, an
    empty number (0), and anything after the patch or the changelist that is not ``-`` or ``+`` are accepted,
    because the engine accepts them. ``"5.3"`` fails (a second dot is required).

    >>> str(parse_unreal_engine_version("5.3.0abc"))
    '5.3.0-0'
    >>> parse_unreal_engine_version("5.3") is None
    True
    """
    text = text.split("\0", 1)[0]  # Unreal reads a C string: it ends at the first NUL
    major, end = _strtoull(text, 0)
    if major > 0xFFFF or text[end : end + 1] != ".":
        return None
    minor, end = _strtoull(text, end + 1)
    if minor > 0xFFFF or text[end : end + 1] != ".":
        return None
    patch, end = _strtoull(text, end + 1)
    if patch > 0xFFFF:
        return None
    changelist = 0
    if text[end : end + 1] == "-":
        changelist, end = _strtoull(text, end + 1)
        if changelist > 0xFFFFFFFF:
            return None
    branch = text[end + 1 :] if text[end : end + 1] == "+" else ""
    return EngineVersion.from_raw_changelist(major, minor, patch, changelist, branch)


def parse_stock_engine_version(identifier: str) -> EngineVersion | None:
    """FDesktopPlatformBase::TryParseStockEngineVersion: ``MAJOR.MINOR`` and nothing after it, as MAJOR.MINOR.0-0."""
    text = identifier.split("\0", 1)[0]
    major, end = _strtoull(text, 0)
    if major > 0xFFFF or text[end : end + 1] != ".":
        return None
    minor, end = _strtoull(text, end + 1)
    if minor > 0xFFFF or end != len(text):
        return None
    return EngineVersion(major, minor, 0)
