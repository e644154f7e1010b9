"""The config-file readers run two ways: with the compiled core (``buildver/projects/_ini_native.c``) where this
install has it, and in pure Python (what an install without a compiler runs, and ``BUILDVER_PURE_PYTHON=1``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from buildver.projects import unreal_ini


@pytest.fixture(scope="module", params=["compiled core", "pure Python"])
def ini_readers(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test of a module that uses it runs once with the compiled core and once without it."""
    unreal_ini.ini_core()  # loaded (or found absent) once, so that what is put back is what the process uses
    saved = unreal_ini._CORE[:]
    if request.param == "pure Python":
        unreal_ini._CORE[:] = [None]
    elif saved[0] is None:
        pytest.skip("this install has no compiled core of the config-file readers")
    try:
        yield request.param
    finally:
        unreal_ini._CORE[:] = saved
