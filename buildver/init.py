"""``buildver init``: the configuration for a project's Build.version, and the Build.version when there is none."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from buildver.build_version import BuildVersion, render_new_file
from buildver.changes import FileChange, apply_changes, transaction
from buildver.config import init_config, load_config, plan_init_config
from buildver.current import version_file_path
from buildver.errors import UsageError, VersionFileError, WriteError

__all__ = ["init_project"]


def init_project(
    folder: Path, *, file: Path | None = None, release: tuple[int, int, int] | None = None
) -> tuple[Path | None, Path]:
    """``buildver init``: write the configuration for the project's Build.version; return what was created.

    With ``release`` (``--version``) in a project without a Build.version, ``file`` (default
    ``Build/Build.version``) is created first in Unreal's writer layout: both files are written, or neither
    (folders made for it are removed again). ``release`` where a Build.version exists is a UsageError.
    """
    config = load_config(folder)  # a bad configuration is an error before anything else
    existing = file if file is not None and file.exists() else None
    if file is None:
        try:
            existing = version_file_path(config=config, start=folder)
        except VersionFileError:
            existing = None
    if existing is not None:
        if release is not None:
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
    version_change = FileChange(target, None, render_new_file(BuildVersion(*release)).encode("utf-8"))
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
        # Two files, in two folders maybe: under the version folder's lock and journal, as every planned write.
        with transaction(target.parent) as journal:
            apply_changes([version_change, config_change], journal=journal)
    except BaseException:
        for created in reversed(created_folders):  # a failed command leaves no trace
            with contextlib.suppress(OSError):
                created.rmdir()
        raise
    return target, config_change.path
