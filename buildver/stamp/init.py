"""``buildver init``: the configuration for a project's Build.version, and the Build.version when there is none."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from buildver.changes import (
    JOURNAL_NAME,
    FileChange,
    apply_changes,
    find_leftovers,
    locked,
    read_existing,
    recover,
    remove_leftovers,
    transaction,
)
from buildver.errors import ConfigError, UsageError, VersionFileError, WriteError
from buildver.versions.build_version import BuildVersion, render_new_file
from buildver.versions.config import CONFIG_FILES, buildver_table, find_config, load_config
from buildver.versions.current import backslash_advice, version_file_path

__all__ = ["init_config", "init_project", "plan_init_config", "render_init_section"]


def init_project(
    folder: Path, *, file: Path | None = None, release: tuple[int, int, int] | None = None
) -> tuple[Path | None, Path]:
    """``buildver init``: write the configuration for the project's Build.version; return what was created.

    With ``release`` (``--version``) in a project without a Build.version, ``file`` (default
    ``Build/Build.version``) is created first in Unreal's writer layout: both files are written, or neither
    (folders made for it are removed again). ``release`` where a Build.version exists is a UsageError.
    """
    # A killed init is finished (or undone) first, as every writing command does: otherwise its Build.version, already
    # renamed into place, would make this run refuse, with the configuration still missing.
    finished = _finish_killed_runs(folder, file)
    config = load_config(folder)  # a bad configuration is an error before anything else
    advice = None if file is None else backslash_advice(file)
    if advice is not None:  # Build\Build.version on Linux would be one file of that name in this folder
        raise UsageError(f"{file}: {advice}")
    existing = file if file is not None and file.exists() else None
    if file is None:
        try:
            existing = version_file_path(config=config, start=folder)
        except VersionFileError:
            existing = None
    if existing is not None:
        if release is not None:
            settings = find_config(folder.resolve())
            if finished and settings is not None and read_existing(existing) == _new_version_file(release):
                return existing, settings  # this very command, killed before, is now complete
            raise UsageError(
                f"{existing}: already exists; --version only creates a missing Build.version "
                "(buildver update-local stamps an existing one)"
            )
        return None, init_config(folder, existing)
    if release is None:
        where = file if file is not None else Path("Build", "Build.version")
        raise VersionFileError(
            f"{where}: no Build.version here (nor above, up to the repository root); "
            "create one with: buildver init --version MAJOR.MINOR.PATCH"
        )
    target = file if file is not None else Path(os.path.relpath(folder / "Build" / "Build.version"))
    version_change = FileChange(target, None, _new_version_file(release))
    config_change = plan_init_config(folder, target)  # refuses before anything is written
    created_folders = [parent for parent in reversed(target.parent.absolute().parents) if not parent.exists()]
    if not target.parent.exists():
        created_folders.append(target.parent.absolute())
    try:
        for created in created_folders:
            try:
                created.mkdir()
            except OSError as exc:
                raise WriteError(f"{created}: cannot create the folder ({exc.strerror}); nothing was written") from exc
        # Two files, in two folders maybe: under the version folder's lock and journal, as every planned write, and
        # under the configuration folder's lock, where the leftovers of killed runs are removed.
        with transaction(target.parent) as journal, _config_folder_locked(folder, target.parent):
            apply_changes([version_change, config_change], journal=journal)
    except BaseException:
        for created in reversed(created_folders):  # a failed command leaves no trace
            with contextlib.suppress(OSError):
                created.rmdir()
        raise
    return target, config_change.path


def _new_version_file(release: tuple[int, int, int]) -> bytes:
    return render_new_file(BuildVersion(*release)).encode("utf-8")


def _finish_killed_runs(folder: Path, file: Path | None) -> bool:
    """Finish or undo what a killed init left in the folders it writes, and remove its temporary and backup files;
    whether a killed run left anything there."""
    candidates = [file.parent] if file is not None else [folder / "Build", folder / "Engine" / "Build"]
    found = False
    for candidate in (candidate for candidate in candidates if candidate.is_dir()):
        with locked(candidate):
            journal = candidate / JOURNAL_NAME
            found = found or os.path.lexists(journal) or bool(find_leftovers(candidate))
            recover(journal)  # with or without a journal, it removes the folder's leftovers
    with locked(folder):
        return bool(remove_leftovers(folder, CONFIG_FILES)) or found


@contextlib.contextmanager
def _config_folder_locked(folder: Path, held: Path) -> Iterator[None]:
    """Hold the configuration folder's lock, unless ``held``, already locked, is the same folder (a second lock
    from this process would wait for the first). Its leftovers were removed by :func:`_finish_killed_runs`."""
    if folder.resolve() == held.resolve():
        yield
        return
    with locked(folder):
        yield


def render_init_section(version_file: str, header: str | None) -> str:
    """A commented ``[tool.buildver]`` section, written with tomlkit."""
    import tomlkit

    table = tomlkit.table()
    table.add(tomlkit.comment("buildver settings; see the README's Configuration section."))
    table.add(tomlkit.comment("Flags beat environment variables, which beat these settings."))
    table.add(tomlkit.comment("Paths are relative to this file and must stay inside the repository."))
    table.add("version-file", version_file)
    if header is None:
        table.add(tomlkit.comment('header = "Source/MyGame/BuildVersion.h"  # default: Version.h or BuildVersion.h'))
    else:
        table.add("header", header)
    # Every optional setting the README shows, commented out with its default.
    table.add(tomlkit.comment("skip-header = true  # default: false; true leaves every header alone"))
    table.add(tomlkit.comment('repository-name = "MyGame"  # default: the origin remote\'s name, else the folder'))
    table.add(
        tomlkit.comment('rules = "5.3"  # default: the engine\'s own UAT rules on an engine tree, else "buildver"')
    )
    document = tomlkit.document()
    tool = tomlkit.table(is_super_table=True)
    tool.add("buildver", table)
    document.add("tool", tool)
    text = tomlkit.dumps(document)
    return text if text.endswith("\n") else text + "\n"


def init_config(folder: Path, version_path: Path) -> Path:
    """Append a commented ``[tool.buildver]`` section to ``folder``'s pyproject.toml, else create buildver.toml.

    The rest of pyproject.toml is kept byte for byte: the section is appended, and the result is checked to
    parse before it is written (atomically).
    """
    with locked(folder):  # planned under the lock too, with killed runs' leftovers removed
        remove_leftovers(folder, CONFIG_FILES)
        change = plan_init_config(folder, version_path)
        apply_changes([change])
    return change.path


def plan_init_config(folder: Path, version_path: Path) -> FileChange:
    """The change :func:`init_config` writes, planned without writing (to apply with other changes)."""
    import tomlkit
    import tomlkit.exceptions

    pyproject = folder / "pyproject.toml"
    target = pyproject if pyproject.is_file() else folder / "buildver.toml"
    try:
        old = read_existing(target)
        text = "" if old is None else old.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{target}: cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{target}: byte {exc.start}: the file is not UTF-8") from exc
    try:
        existing = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(f"{target}: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{target}: arrays or inline tables nested too deeply to read") from None
    if target.name == "pyproject.toml" and buildver_table(existing) is not None:
        raise ConfigError(f"{target}: [tool.buildver] is already there; edit it instead")
    if target.name == "buildver.toml" and old is not None:
        raise ConfigError(f"{target}: already exists; edit it instead")
    try:
        relative = version_path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        raise ConfigError(f"{version_path}: is outside {folder}; run buildver init from the repository root") from None
    section = render_init_section(relative, None)
    separator = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
    new_text = text + separator + section
    try:
        tomlkit.parse(new_text)  # the result must stay valid TOML
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(
            f"{target}: a [tool.buildver] section cannot be added ({exc}); add the settings to its tool table by hand"
        ) from exc
    return FileChange(target, old, new_text.encode("utf-8"))
