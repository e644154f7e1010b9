"""``buildver init``: the configuration for a project's Build.version, and the Build.version when there is none."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

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
from buildver.errors import BuildverError, ConfigError, UsageError, VersionFileError, WriteError
from buildver.file_names import find_project
from buildver.versions.build_version import BuildVersion, render_new_file
from buildver.versions.config import CONFIG_FILES, buildver_table, find_config, load_config
from buildver.versions.current import backslash_advice

if TYPE_CHECKING:
    from buildver.vcs import IgnoreRule

__all__ = ["InitResult", "game_header", "init_config", "init_project", "plan_init_config", "render_init_section"]

_HEADER_NAME = "BuildVersion.h"


class InitResult(NamedTuple):
    """What ``buildver init`` wrote."""

    created: Path | None
    """The Build.version it created (``--version``), else None."""
    settings: Path
    """The file that holds the new ``[tool.buildver]`` section."""
    header: Path | None
    """The header it named in the ``header`` setting (a game's module folder), else None (the default)."""
    notes: tuple[str, ...] = ()
    """Why a file is not where a reader expects it (the one it would have been is ignored by git)."""


def init_project(folder: Path, *, file: Path | None = None, release: tuple[int, int, int] | None = None) -> InitResult:
    """``buildver init``: write the configuration for the project's Build.version; return what was written.

    Where the command stands is :func:`buildver.projects.place.find_place`'s answer: in a game, the files are the
    game's own (in the game's folder, never an engine's around it). With ``release`` (``--version``) in a place
    without a Build.version of its own, ``file`` is created first in Unreal's writer layout (default:
    ``Build/Build.version``, in a game ``Config/Build.version`` when git ignores ``Build/``): both files are
    written, or neither (folders made for it are removed again). ``release`` where a Build.version exists is a
    UsageError. Every file init creates or names (the Build.version, the settings, the header update-local will
    write) must be one git keeps: one that a ``.gitignore`` ignores is refused with the rule and the fix.
    """
    # A killed init is finished (or undone) first, as every writing command does: otherwise its Build.version, already
    # renamed into place, would make this run refuse, with the configuration still missing.
    finished = _finish_killed_runs(folder, _recovery_candidates(folder, file, find_project(folder)))
    config = load_config(folder)  # a bad configuration is an error before anything else
    advice = None if file is None else backslash_advice(file)
    if advice is not None:  # Build\Build.version on Linux would be one file of that name in this folder
        raise UsageError(f"{file}: {advice}")
    from buildver.projects.place import PlaceKind, find_place

    place = find_place(folder, config=config)
    game = place.kind is PlaceKind.GAME and place.project is not None
    if game:  # a project below the folder (CARLA's Unreal/CarlaUE4): its folders too
        finished = _finish_killed_runs(place.root, _recovery_candidates(place.root, None, place.project)) or finished
    settings_folder = _settings_folder(folder, place.root if game else None)
    existing = (file if file.exists() else None) if file is not None else place.own_version_file
    if existing is not None:
        if release is not None:
            settings = find_config(folder.resolve())
            if finished and settings is not None and read_existing(existing) == _new_version_file(release):
                return InitResult(existing, settings, None)  # this very command, killed before, is now complete
            raise UsageError(
                f"{existing}: already exists; --version only creates a missing Build.version "
                "(buildver update-local stamps an existing one)"
            )
        header = _header_for(place.project if game else None, existing, engine=place.kind is PlaceKind.ENGINE)
        _require_kept([existing, plan_init_config(settings_folder, existing).path, *_optional(header)], given=file)
        return InitResult(None, init_config(settings_folder, existing, header=_named(header)), _named(header))
    if release is None:
        where = file if file is not None else Path("Build", "Build.version")
        if game:
            raise VersionFileError(
                f"{place.project}: the game keeps no Build.version of its own; "
                "create one with: buildver init --version MAJOR.MINOR.PATCH"
            )
        raise VersionFileError(
            f"{where}: no Build.version here (nor above, up to the repository root); "
            "create one with: buildver init --version MAJOR.MINOR.PATCH"
        )
    target, notes = _new_version_path(folder, place.root if game else None, file)
    header = _header_for(place.project if game else None, target, engine=False)
    version_change = FileChange(target, None, _new_version_file(release))
    config_change = plan_init_config(settings_folder, target, header=_named(header))  # refuses before any write
    _require_kept([target, config_change.path, *_optional(header)], given=file)
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
        from buildver.stamp.update import journal_project

        project = journal_project(target)
        with (
            transaction(target.parent, project=project) as journal,
            _config_folder_locked(settings_folder, target.parent),
        ):
            apply_changes([version_change, config_change], journal=journal, project=project)
    except BaseException:
        for created in reversed(created_folders):  # a failed command leaves no trace
            with contextlib.suppress(OSError):
                created.rmdir()
        raise
    return InitResult(target, config_change.path, _named(header), notes)


class _Header(NamedTuple):
    path: Path
    named: bool
    """Written into the ``header`` setting (a game's module folder), rather than left to the default."""


def _optional(header: _Header | None) -> list[Path]:
    return [] if header is None else [header.path]


def _named(header: _Header | None) -> Path | None:
    return header.path if header is not None and header.named else None


def game_header(project: Path) -> Path | None:
    """Where a game's generated header goes: ``Source/<Module>/BuildVersion.h``, in the folder of the first module
    the ``.uproject`` lists (the game's primary module, whose source files include it), else of the module named
    after the project; None when neither folder exists (a game without C++: its header stays beside its
    Build.version)."""
    from buildver.projects.descriptors import parse_project_descriptor
    from buildver.reading import read_regular_file

    source = project.parent / "Source"
    names: list[str] = []
    with contextlib.suppress(OSError, BuildverError):
        data = read_regular_file(project)
        if data is not None:
            names += parse_project_descriptor(data, str(project)).modules[:1]
    names.append(project.stem)
    for name in names:
        # Unreal's module names are C identifiers: anything else is never taken for a path.
        if _MODULE_NAME.fullmatch(name) and (source / name).is_dir():
            return source / name / _HEADER_NAME
    return None


_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _header_for(project: Path | None, version_path: Path, *, engine: bool) -> _Header | None:
    """The header update-local will write for a new configuration: a game's module folder (named in the settings),
    else beside the version file outside an engine tree (the default); an engine's is its own Version.h."""
    if project is not None:
        module = game_header(project)
        if module is not None:
            return _Header(module, True)
    if engine:
        return None
    return _Header(version_path.parent / _HEADER_NAME, False)


def _settings_folder(folder: Path, game_root: Path | None) -> Path:
    """Where the settings go: the folder init runs in, or the game's folder when init runs below it (its
    ``Source/``), so that the game's files are inside the folder the settings name paths from."""
    if game_root is None:
        return folder
    here, root = Path(os.path.abspath(folder)), Path(os.path.abspath(game_root))
    return game_root if root in here.parents else folder


def _new_version_path(folder: Path, game_root: Path | None, file: Path | None) -> tuple[Path, tuple[str, ...]]:
    """The Build.version ``--version`` creates: ``file``; else ``Build/Build.version`` (in a game, the game's);
    in a game whose ``Build/`` git ignores (GitHub's UnrealEngine.gitignore has ``Build/*``),
    ``Config/Build.version``. Refuses, naming the rule, when git ignores every candidate."""
    if file is not None:
        return file, ()
    base = folder if game_root is None else game_root
    candidates = [base / "Build" / "Build.version"]
    if game_root is not None:
        candidates.append(base / "Config" / "Build.version")
    from buildver.vcs import ignore_rules

    rules = ignore_rules(candidates)
    for candidate in candidates:
        if candidate not in rules:
            shown = Path(os.path.relpath(candidate))
            notes = tuple(
                f"git ignores {os.path.relpath(skipped)}: {rules[skipped]}"
                for skipped in candidates
                if skipped in rules
            )
            return shown, notes
    first = candidates[0]
    raise UsageError(_ignored(first, rules[first], "give a path git keeps with --file PATH", exception_first=False))


def _require_kept(paths: list[Path], *, given: Path | None) -> None:
    """Refuse, naming the ``.gitignore`` rule and the fix, when git ignores one of ``paths`` (outside git: none)."""
    from buildver.vcs import ignore_rules

    rules = ignore_rules(paths)
    for path in paths:
        if path in rules:
            other = "choose another --file PATH" if given is not None and path == given else "choose a path git keeps"
            raise UsageError(_ignored(path, rules[path], other, exception_first=True))


def _ignored(path: Path, rule: IgnoreRule, other: str, *, exception_first: bool) -> str:
    """One line: ``path`` is ignored by ``rule`` (``file:line: pattern``), and the fixes: ``other``, and a ``!``
    exception in the rule's own file unless the rule ignores a whole folder (git never re-includes a file of an
    ignored folder)."""
    problem = f"{os.path.relpath(path)}: git ignores it ({rule}), so it would never be committed"
    if rule.pattern.endswith("/"):
        return f"{problem}; git cannot keep a file of an ignored folder: {other}"
    exception = f"add '{rule.exception}' below that rule in {rule.source}"
    return f"{problem}; {exception}, or {other}" if exception_first else f"{problem}; {other}, or {exception}"


def _recovery_candidates(folder: Path, file: Path | None, project: Path | None) -> list[Path]:
    """The folders a killed init may have written its Build.version into."""
    if file is not None:
        return [file.parent]
    candidates = [folder / "Build", folder / "Engine" / "Build"]
    if project is not None:
        candidates += [project.parent / "Build", project.parent / "Config"]
    return candidates


def _new_version_file(release: tuple[int, int, int]) -> bytes:
    return render_new_file(BuildVersion(*release)).encode("utf-8")


def _finish_killed_runs(folder: Path, candidates: list[Path]) -> bool:
    """Finish or undo what a killed init left in ``candidates`` (the folders it writes) and ``folder`` (the
    settings), and remove its temporary and backup files; whether a killed run left anything there."""
    found = False
    for candidate in (candidate for candidate in candidates if candidate.is_dir()):
        with locked(candidate):
            journal = candidate / JOURNAL_NAME
            found = found or os.path.lexists(journal) or bool(find_leftovers(candidate))
            from buildver.stamp.update import journal_project

            recover(journal, journal_project(journal))  # with or without a journal, it removes the leftovers
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


def _setting_path(folder: Path, path: Path) -> str:
    """``path`` as a setting names it: relative to the settings' folder, which it must be inside."""
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        raise ConfigError(f"{path}: is outside {folder}; run buildver init from the repository root") from None


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
        setting = tomlkit.item(header)
        setting.comment("in the game's primary module, where its source files include it")
        table.add("header", setting)
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


def init_config(folder: Path, version_path: Path, *, header: Path | None = None) -> Path:
    """Append a commented ``[tool.buildver]`` section to ``folder``'s pyproject.toml, else create buildver.toml.

    The rest of pyproject.toml is kept byte for byte: the section is appended, and the result is checked to
    parse before it is written (atomically).
    """
    with locked(folder):  # planned under the lock too, with killed runs' leftovers removed
        remove_leftovers(folder, CONFIG_FILES)
        change = plan_init_config(folder, version_path, header=header)
        apply_changes([change])
    return change.path


def plan_init_config(folder: Path, version_path: Path, *, header: Path | None = None) -> FileChange:
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
    relative = _setting_path(folder, version_path)
    section = render_init_section(relative, None if header is None else _setting_path(folder, header))
    separator = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
    new_text = text + separator + section
    try:
        tomlkit.parse(new_text)  # the result must stay valid TOML
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(
            f"{target}: a [tool.buildver] section cannot be added ({exc}); add the settings to its tool table by hand"
        ) from exc
    return FileChange(target, old, new_text.encode("utf-8"))
