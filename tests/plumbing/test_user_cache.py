"""Where buildver keeps its cache (crash reports, the version tables read from engine trees): each platform's own
cache folder, never a repository. macOS cannot run here: its rule is checked by naming the platform (``sys.platform``);
Windows' cases run on Windows (GitHub's workflow), as Python makes Windows paths only there."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from buildver.user_cache import user_cache_folder

ON_WINDOWS = pytest.mark.skipif(os.name != "nt", reason="Python makes Windows paths on Windows only")
CASES = [
    # (os.name, sys.platform, the environment's variables, the folder: ~ the home the tests give each test)
    pytest.param("posix", "linux", {"XDG_CACHE_HOME": "/srv/cache"}, "/srv/cache/buildver", id="linux-xdg"),
    pytest.param("posix", "linux", {}, "~/.cache/buildver", id="linux-default"),
    # The XDG specification: a relative path in the variable is invalid and ignored.
    pytest.param("posix", "linux", {"XDG_CACHE_HOME": "cache"}, "~/.cache/buildver", id="linux-xdg-relative"),
    pytest.param("posix", "darwin", {"XDG_CACHE_HOME": "/srv/cache"}, "~/Library/Caches/buildver", id="macos"),
    pytest.param(
        "nt",
        "win32",
        {"LOCALAPPDATA": "C:/Users/ada/AppData/Local"},
        "C:/Users/ada/AppData/Local/buildver",
        id="windows",
        marks=ON_WINDOWS,
    ),
    pytest.param("nt", "win32", {}, "~/AppData/Local/buildver", id="windows-without-localappdata", marks=ON_WINDOWS),
]


@pytest.mark.parametrize(("os_name", "platform", "variables", "folder"), CASES)
def test_the_cache_is_the_platform_s_own_user_cache_folder(
    monkeypatch: pytest.MonkeyPatch, os_name: str, platform: str, variables: dict[str, str], folder: str
) -> None:
    for name in ("XDG_CACHE_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    if os.name != os_name:
        pytest.skip(f"a {os_name} case")  # pragma: no cover - the table's platforms are those Python runs on
    monkeypatch.setattr(sys, "platform", platform)
    expected = Path.home() / folder[2:] if folder.startswith("~/") else Path(folder)
    assert user_cache_folder() == expected
