"""buildver._records: records built without the dataclass ``__init__`` equal those built with it."""

from __future__ import annotations

import dataclasses

import pytest

from buildver._records import trusted_builder
from buildver.packages.summary import PackageSummary
from buildver.packages.verdicts import ScanResult, ScanStatus
from buildver.versions.custom_versions import StoredCustomVersion
from buildver.versions.engine_version import EngineVersion

ENGINE = EngineVersion.parse("5.5.4-40574608+++UE5+Release-5.5")

RECORDS = [
    ScanResult("a.uasset", ScanStatus.OK, -8, 522, 1013, 0, ENGINE, ENGINE, None),
    ScanResult("b.uasset", ScanStatus.CORRUPT, error="b.uasset: byte 4: why"),
    PackageSummary(-8, 522, 1013, 0),
    PackageSummary(
        -9,
        522,
        1017,
        3,
        (StoredCustomVersion("00000000-0000-0000-0000-000000000001", 2),),
        package_name="/Game/A",
        package_flags=0x40000,
        total_header_size=900,
        saved_hash=bytes(20),
        saved_by_engine_version=ENGINE,
        compatible_with_engine_version=ENGINE,
        byte_swapped=True,
        newer_format="why",
    ),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: type(record).__name__)
def test_a_built_record_equals_the_constructed_one_field_for_field(record: object) -> None:
    values = {field.name: getattr(record, field.name) for field in dataclasses.fields(record)}  # type: ignore[arg-type]
    build = trusted_builder(type(record))
    by_position = build(*values.values())
    by_name = build(**values)
    for built in (by_position, by_name):
        assert built == record
        assert hash(built) == hash(record)
        assert repr(built) == repr(record)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_position, next(iter(values)), "other")


def test_defaults_are_the_classes_own() -> None:
    assert trusted_builder(ScanResult)("c.uasset", ScanStatus.OK) == ScanResult("c.uasset", ScanStatus.OK)
    with pytest.raises(TypeError):
        trusted_builder(ScanResult)()


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError(self.value)


@dataclasses.dataclass(frozen=True)
class WithoutSlots:
    value: int


@dataclasses.dataclass(frozen=True, slots=True)
class WithFactory:
    values: list[int] = dataclasses.field(default_factory=list)


@pytest.mark.parametrize("cls", [Checked, WithoutSlots, WithFactory, int])
def test_a_class_whose_init_does_more_than_set_fields_is_refused(cls: type) -> None:
    with pytest.raises(TypeError):
        trusted_builder(cls)
