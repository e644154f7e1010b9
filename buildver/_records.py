"""Builders of frozen, slotted dataclass records from values already checked, without the generated ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; setting the slot through its own
descriptor takes half the time. ``assets scan`` builds two such records per package (a PackageSummary and a
ScanResult), about a tenth of its time per file (benchmarks/bench_assets.py), so the package reader and the scan
build them here; every other caller uses the classes themselves. Nothing is checked either way: these classes
have no ``__post_init__``, which is what makes skipping ``__init__`` safe (:func:`trusted_builder` refuses a
class that has one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["trusted_builder"]

Record = TypeVar("Record")


def trusted_builder(cls: type[Record]) -> Callable[..., Record]:
    """A function taking ``cls``'s fields (positional or by name, with their defaults) that returns a new record.

    The function is generated, as dataclasses generates ``__init__``: one descriptor call per field, unrolled.
    """
    if not dataclasses.is_dataclass(cls) or not hasattr(cls, "__slots__") or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} must be a slotted dataclass without __post_init__")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    parameters, assignments = [], []
    for field in dataclasses.fields(cls):
        if field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{field.name} has a default factory")
        if field.default is dataclasses.MISSING:
            parameters.append(field.name)
        else:
            namespace[f"default_{field.name}"] = field.default
            parameters.append(f"{field.name}=default_{field.name}")
        namespace[f"set_{field.name}"] = getattr(cls, field.name).__set__
        assignments.append(f"    set_{field.name}(record, {field.name})\n")
    source = f"def build({', '.join(parameters)}):\n    record = new(cls)\n{''.join(assignments)}    return record\n"
    exec(source, namespace)  # the source holds only this class's own field names
    builder: Callable[..., Record] = namespace["build"]
    builder.__qualname__ = f"trusted_builder({cls.__name__})"
    return builder
