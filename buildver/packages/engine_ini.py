"""A project's ``Config/DefaultEngine.ini``: whether Unreal warns about packages saved with an empty engine version.

Source: ``docs/unreal-rules.md`` (``ZeroEngineVersionWarning``: LinkerLoad reads ``[Core.System]
ZeroEngineVersionWarning`` from the engine ini; a missing key counts as true). Used by ``assets scan`` (from the
working tree) and by the guard (from the index).
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "decode_ini",
    "find_engine_ini",
    "parse_zero_engine_version_warning",
    "zero_engine_version_warning",
    "zero_engine_version_warning_of",
]


def find_engine_ini(start: Path) -> Path | None:
    """``Config/DefaultEngine.ini`` of the project holding ``start``: in ``start`` or the nearest folder above.

    The search stops at the first folder with a ``.uproject``, so another project's settings are never used.
    """
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        ini = candidate / "Config" / "DefaultEngine.ini"
        if ini.is_file():
            return ini
        if any(candidate.glob("*.uproject")):
            return None
    return None


def zero_engine_version_warning(start: Path) -> bool:
    """Whether Unreal warns about packages saved with an empty engine version, for the project holding ``start``.

    ``[Core.System] ZeroEngineVersionWarning`` in ``Config/DefaultEngine.ini``; true when missing or unreadable.
    """
    ini = find_engine_ini(start)
    if ini is None:
        return True
    from buildver.reading import read_regular_file  # a FIFO or device named DefaultEngine.ini must not hang

    try:
        data = read_regular_file(ini)
    except OSError:
        return True
    if data is None:
        return True
    return zero_engine_version_warning_of(data)


def zero_engine_version_warning_of(data: bytes) -> bool:
    """``zero_engine_version_warning`` for the bytes of one DefaultEngine.ini."""
    return parse_zero_engine_version_warning(decode_ini(data))


def decode_ini(data: bytes) -> str:
    """An ini file's text: Unreal reads config files as UTF-8 or, with a byte-order mark, UTF-16."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def parse_zero_engine_version_warning(text: str) -> bool:
    """``GConfig->GetBool("Core.System", "ZeroEngineVersionWarning", ...)`` over one ini file; true when unset.

    Sections and keys are case-insensitive, the last plain assignment wins, ``+``/``.`` add a value only when
    none is set, ``-`` removes a matching value and ``!`` clears the key (Unreal's array operators).

    >>> parse_zero_engine_version_warning("[Core.System]\\nZeroEngineVersionWarning=False\\n")
    False
    """
    value: str | None = None
    in_section = False
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            in_section = line[1:-1].lower() == "core.system"  # Unreal takes the name between the brackets as is
            continue
        if not in_section:
            continue
        operator = line[0] if line[0] in "+.-!" else ""
        key, _, text_value = line[len(operator) :].partition("=")
        if key.strip().lower() != "zeroengineversionwarning":
            continue
        text_value = text_value.strip()
        if len(text_value) >= 2 and text_value[0] == text_value[-1] == '"':
            text_value = text_value[1:-1]
        if operator == "!":
            value = None
        elif operator == "-":
            value = None if value == text_value else value
        elif operator in ("+", "."):
            value = text_value if value is None else value
        else:
            value = text_value
    return True if value is None else _to_bool(value)


def _to_bool(text: str) -> bool:
    """FCString::ToBool: true/yes/on, false/no/off (any case), otherwise Atoi(text) != 0."""
    folded = text.strip().lower()
    if folded in ("true", "yes", "on"):
        return True
    if folded in ("false", "no", "off"):
        return False
    # C's atoi: one optional sign, then digits.
    digits = folded[1:] if folded[:1] in ("+", "-") else folded
    number = digits[: len(digits) - len(digits.lstrip("0123456789"))]
    return bool(number) and int(number) != 0
