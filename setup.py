"""The optional compiled cores of ``assets scan`` and of the config-file readers (everything else is in
pyproject.toml).

``optional=True``: where no C compiler works (``CC=false``, no Python headers), the build says so and goes on,
and buildver runs its pure-Python reader with the same results (``buildver assets scan --verbose`` says which).
``BUILDVER_REQUIRE_NATIVE=1`` makes a failed build of the core an error (the package workflow's wheels).
"""

import os

from setuptools import Extension, setup

# The wheels the package workflow builds must hold the core: there a failed build is an error.
REQUIRED = os.environ.get("BUILDVER_REQUIRE_NATIVE", "") not in ("", "0")

setup(
    ext_modules=[
        Extension("buildver.packages._native", ["buildver/packages/_native.c"], optional=not REQUIRED),
        Extension("buildver.projects._ini_native", ["buildver/projects/_ini_native.c"], optional=not REQUIRED),
    ],
)
