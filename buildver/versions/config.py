"""``[tool.buildver]`` in ``pyproject.toml``, or a ``buildver.toml``: where the version file and header are.

Reading uses the standard library's ``tomllib`` (fast, and enough to read), imported only when a configuration
file is found: most Unreal projects have none, and every command looks. ``buildver init`` writes the section
(``buildver.stamp.init``, with tomlkit, so that the rest of the file keeps its exact layout).
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile each field's annotation text into
# a ForwardRef at import, which every command pays (benchmarks/bench_core.py, import time).

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from buildver.errors import BuildverError, ConfigError
from buildver.reading import read_regular_file

__all__ = [
    "CONFIG_FILES",
    "Config",
    "buildver_table",
    "find_config",
    "load_config",
]

CONFIG_FILES = ("buildver.toml", "pyproject.toml")

_KEYS = {
    "version-file": "the Build.version to use",
    "header": "the C header that update-local regenerates or patches",
    "header-prefix": "the prefix of a generated header's macros outside an engine tree (default: the project's name)",
    "header-macros": "prefixed (default) or unreal: a generated header outside an engine tree with Version.h's names",
    "repository-name": "the repository name in git branches (//<name>/<branch>)",
    "rules": "the update-local rules: an engine version X.Y, or buildver (default: from the engine tree)",
    "skip-header": "true: update-local and header leave every header alone",
    "guard": "the pre-commit guard's settings",
    "engine": "where the project's engine is not installed: its release (5.3), version or Build.version's path",
    "project-version": "update-local in a game: ProjectVersion's template, e.g. {Major}.{Minor}.{Patch}.{Changelist}",
    "android-store-version": "update-local in a game: Android's StoreVersion template, e.g. {Changelist}",
    "compatible-changelist": 'update-local\'s CompatibleChangelist: "last-code-change" (from git, as UGS), or a number',
    "code-filter": "what counts as code for last-code-change: UnrealGameSync.ini's CodeFilter lines, after UGS's",
}


# A NamedTuple rather than a dataclass: as immutable, and every command builds one at start-up, where creating a
# dataclass (and importing dataclasses) costs about a millisecond (benchmarks/bench_core.py).
class Config(NamedTuple):
    """buildver's settings; paths are absolute, resolved against the configuration file's folder."""

    source: Path | None = None
    version_file: Path | None = None
    header: Path | None = None
    header_prefix: str | None = None
    header_macros: str = "prefixed"
    repository_name: str | None = None
    rules: str | None = None
    skip_header: bool = False
    project_version: str | None = None
    android_store_version: str | None = None
    guard: Mapping[str, Any] = MappingProxyType({})
    engine: str | Path | None = None
    """The engine to judge against where the project's engine is not on the machine: a release or version
    (text), or the absolute path of a Build.version."""
    compatible_changelist: int | str | None = None
    """update-local's CompatibleChangelist when no flag or ``uebp_CodeCL`` gives one: a changelist above 0, or
    ``"last-code-change"``."""
    code_filter: tuple[str, ...] = ()
    """The project's code-filter rules, which follow Unreal Game Sync's code extensions (``buildver.code_filter``)."""


def find_config(start: Path) -> Path | None:
    """The nearest ``buildver.toml``, or ``pyproject.toml`` with a ``[tool.buildver]`` table, up to the repo root.

    A ``buildver.toml`` that is anything but a readable file (a folder, a FIFO, a dangling or looping symbolic link)
    is still the settings file, so that reading it fails in one line: skipping it would run with the defaults and
    write the default header while the configured one goes stale. A ``pyproject.toml`` that cannot be read is an
    error for the same reason (it may hold the table).
    """
    for folder in (start, *start.parents):
        if _exists(folder / "buildver.toml"):
            return folder / "buildver.toml"
        pyproject = folder / "pyproject.toml"
        if _exists(pyproject) and _has_buildver_table(pyproject):
            return pyproject
        if (folder / ".git").exists():
            return None
    return None


def _exists(path: Path) -> bool:
    """Whether anything is at ``path``: a file, a folder, a FIFO, a symbolic link even to nothing."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # a folder on the way this user cannot search: reading the file says so
    return True


def _has_buildver_table(pyproject: Path) -> bool:
    data = _read(pyproject)
    # A cheap test first: most pyproject.toml files have no buildver table and need not be parsed.
    return b"buildver" in data and buildver_table(_parse(pyproject, data)) is not None


def _read(path: Path) -> bytes:
    try:
        data = read_regular_file(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the settings ({exc.strerror or exc})") from exc
    if data is None:
        why = "a symbolic link to nothing" if path.is_symlink() else "the file was removed while buildver was working"
        raise ConfigError(f"{path}: cannot read the settings ({why})")
    return data


def buildver_table(document: dict[str, Any]) -> object | None:
    """``document["tool"]["buildver"]``, or None when there is none (``tool`` may be anything in TOML)."""
    tool = document.get("tool")
    return tool.get("buildver") if isinstance(tool, dict) else None


def _parse(path: Path, data: bytes) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: byte {exc.start}: the file is not UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: a few hundred levels exhaust Python's stack.
        raise ConfigError(f"{path}: arrays or inline tables nested too deeply to read") from None


def load_config(start: Path | None = None) -> Config:
    """The settings found from ``start`` (default: the current folder), or defaults when there are none."""
    path = find_config((start or Path.cwd()).resolve())
    if path is None:
        return Config()
    document = _parse(path, _read(path))
    nested = buildver_table(document)
    # buildver.toml holds the settings at its top level, or under [tool.buildver] like pyproject.toml.
    table = document if path.name == "buildver.toml" and nested is None else nested
    where = "" if path.name == "buildver.toml" else "[tool.buildver] "
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where}must be a table")
    for key in table:
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: {where}unknown setting {key!r} (known: {known})")
    guard = table.get("guard", {})
    if not isinstance(guard, dict):
        raise ConfigError(f"{path}: {where}guard must be a table, not {guard!r}")
    return Config(
        source=path,
        version_file=_path_setting(path, table, "version-file", where),
        header=_path_setting(path, table, "header", where),
        header_prefix=_prefix_setting(path, table, where),
        header_macros=_choice_setting(path, table, "header-macros", ("prefixed", "unreal"), where),
        repository_name=_string_setting(path, table, "repository-name", where),
        rules=_rules_setting(path, table, where),
        skip_header=_bool_setting(path, table, "skip-header", where),
        project_version=_template_setting(path, table, "project-version", where),
        android_store_version=_template_setting(path, table, "android-store-version", where),
        guard=guard,
        engine=_engine_setting(path, table, where),
        compatible_changelist=_compatible_setting(path, table, where),
        code_filter=_code_filter_setting(path, table, where),
    )


def _compatible_setting(path: Path, table: Mapping[str, Any], where: str) -> int | str | None:
    """``compatible-changelist``: ``"last-code-change"``, or a changelist from 1 to 2^31-1 (a hotfix branch's
    pinned value; 0 would mean "not given", so it is refused rather than silently ignored)."""
    value = table.get("compatible-changelist")
    if value is None:
        return None
    from buildver.code_filter import LAST_CODE_CHANGE
    from buildver.versions.engine_version import MAX_CHANGELIST

    if value == LAST_CODE_CHANGE:
        return LAST_CODE_CHANGE
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_CHANGELIST:
        raise ConfigError(
            f"{path}: {where}compatible-changelist must be {LAST_CODE_CHANGE!r} or a changelist from 1 to "
            f"{MAX_CHANGELIST}, not {value!r}"
        )
    return value


def _code_filter_setting(path: Path, table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """``code-filter``: a list of UnrealGameSync.ini ``CodeFilter`` lines, each checked here."""
    value = table.get("code-filter")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ConfigError(f"{path}: {where}code-filter must be a list of rules (strings), not {value!r}")
    from buildver.code_filter import code_filter_problem

    for rule in value:
        problem = code_filter_problem(rule)
        if problem:
            raise ConfigError(f"{path}: {where}code-filter: {problem}")
    return tuple(rule.strip() for rule in value)


def _engine_setting(path: Path, table: Mapping[str, Any], where: str) -> str | Path | None:
    """``engine``: a release (``5.3``), an engine version (``5.3.2-29314046+++UE5+Release-5.3``), or the path of
    a Build.version (relative to the settings file; it is only read, so it may lie outside the repository)."""
    value = _string_setting(path, table, "engine", where)
    if value is None:
        return None
    if "/" in value or "\\" in value or value.lower().endswith(".version"):
        _refuse_backslashes(path, "engine", value, where)
        if "\0" in value:
            raise ConfigError(f"{path}: {where}engine {value!r} contains a NUL character, which no path can hold")
        return Path(os.path.abspath(path.parent / value))
    parts = value.split(".")
    if len(parts) == 2 and all(part.isascii() and part.isdigit() for part in parts):
        return value
    from buildver.versions.engine_version import EngineVersion

    try:
        EngineVersion.parse(value)
    except ValueError as exc:
        raise ConfigError(
            f"{path}: {where}engine {value!r} is neither a release (5.3), an engine version (5.3.2) nor the path "
            f"of a Build.version ({exc})"
        ) from None
    return value


def _refuse_backslashes(path: Path, key: str, value: str, where: str) -> None:
    """A path written with backslashes (a settings file made on Windows) names one file on Linux and macOS: say
    so, with the path written with /, which Windows reads too."""
    if "\\" in value and os.sep != "\\":
        forward = value.replace("\\", "/")
        raise ConfigError(
            f"{path}: {where}{key} {value!r}: a backslash is not a path separator on this system; write {forward!r} "
            "(Windows reads / too)"
        )


TEMPLATE_FIELDS = ("Major", "Minor", "Patch", "Changelist", "CompatibleChangelist")
"""What a game version's template may name: the new Build.version's numbers (``{Changelist}``, ...)."""


def _template_setting(path: Path, table: Mapping[str, Any], key: str, where: str) -> str | None:
    import string

    value = _string_setting(path, table, key, where)
    if value is None:
        return None
    try:
        parts = list(string.Formatter().parse(value))
    except ValueError as exc:
        raise ConfigError(f"{path}: {where}{key} {value!r} is not a template ({exc})") from None
    for _, name, spec, conversion in parts:
        if name is not None and (name not in TEMPLATE_FIELDS or spec or conversion):
            known = ", ".join("{" + field + "}" for field in TEMPLATE_FIELDS)
            raise ConfigError(f"{path}: {where}{key} {value!r}: {{{name}}} is not one of {known}")
    return value


def _prefix_setting(path: Path, table: Mapping[str, Any], where: str) -> str | None:
    value = _string_setting(path, table, "header-prefix", where)
    # A C identifier that the C standard does not reserve (no leading "__" or "_" and a capital letter).
    if value is not None and (
        not value.isascii()
        or not (value[0].isalpha() or value[0] == "_")
        or not value.replace("_", "a").isalnum()
        or value.startswith("__")
        or (value.startswith("_") and value[1:2].isupper())
    ):
        raise ConfigError(
            f"{path}: {where}header-prefix {value!r} is not the start of a C identifier (letters, digits and _, "
            "not starting with a digit, __ or _ and a capital)"
        )
    return value


def _choice_setting(path: Path, table: Mapping[str, Any], key: str, choices: tuple[str, ...], where: str) -> str:
    value = table.get(key, choices[0])
    if value not in choices:
        shown = " or ".join(repr(choice) for choice in choices)
        raise ConfigError(f"{path}: {where}{key} must be {shown}, not {value!r}")
    return str(value)


def _bool_setting(path: Path, table: Mapping[str, Any], key: str, where: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: {where}{key} must be true or false, not {value!r}")
    return value


def _rules_setting(path: Path, table: Mapping[str, Any], where: str) -> str | None:
    from buildver.versions.generations import rule_set_named

    value = _string_setting(path, table, "rules", where)
    if value is not None:
        try:
            rule_set_named(value, "rules")
        except BuildverError as exc:
            raise ConfigError(f"{path}: {where}{exc}") from None
    return value


def _string_setting(path: Path, table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: {where}{key} must be a non-empty string, not {value!r}")
    return value


def _path_setting(path: Path, table: Mapping[str, Any], key: str, where: str) -> Path | None:
    value = _string_setting(path, table, key, where)
    if value is None:
        return None
    _refuse_backslashes(path, key, value, where)
    if "\0" in value:
        # No file system allows NUL in a name; Python's path functions would raise ValueError on it.
        raise ConfigError(f"{path}: {where}{key} {value!r} contains a NUL character, which no path can hold")
    root = path.parent.resolve()
    try:
        resolved = (root / value).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symbolic link loop, before Python 3.13
        raise ConfigError(f"{path}: {where}{key} {value!r} cannot be resolved ({exc})") from exc
    # A configuration file travels with the repository; it must not make buildver write elsewhere.
    if not resolved.is_relative_to(root):
        raise ConfigError(
            f"{path}: {where}{key} {value!r} points outside the repository ({root}); "
            "give such a path on the command line instead"
        )
    return resolved
