"""Faces that import on first use: a wing's ``__init__`` names what scripts may use without loading it all.

Every command starts by importing some module of a wing, which runs the wing's ``__init__`` first; a face that
imported its whole wing would make ``buildver show`` pay for the update-local rules, and so on (start-up is
measured in ``benchmarks/bench_cli.py``). So a face lists its public names and the module each comes from, and
PEP 562's module ``__getattr__`` imports that module the first time a name is asked for. The same names are
imported under ``TYPE_CHECKING`` in the face, for type checkers; ``tests/test_faces.py`` checks that both lists
agree and that every name resolves.
"""

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_face"]


def lazy_face(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the face of ``package``: each name of ``exports`` (name → module
    relative to ``package``) is imported from its module when first asked for, then kept in the face."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
