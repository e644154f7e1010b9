"""The optional compiled core of ``assets scan`` (everything else is in pyproject.toml).

``optional=True``: where no C compiler works (``CC=false``, no Python headers), the build says so and goes on,
and buildver runs its pure-Python reader with the same results (``buildver assets scan --verbose`` says which).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("buildver.packages._native", ["buildver/packages/_native.c"], optional=True),
    ],
)
