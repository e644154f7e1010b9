"""Version enums, the custom-version registry, the archive and the document header (Unreal's rules)."""

from __future__ import annotations

import uuid
from enum import IntEnum, auto
from typing import Any

import pytest

from buildver.errors import (
    DocumentError,
    NewerDataError,
    OlderDataError,
    SchemaError,
    UnknownCustomVersionError,
)
from buildver.serialization import (
    Archive,
    CustomVersion,
    CustomVersionRegistry,
    DocumentVersions,
    LoadOptions,
    Schema,
    StoredCustomVersion,
    VersionEnum,
    inspect,
    latest_version,
    load,
    save,
)

INVENTORY_GUID = "6f1c2f1e-5a0b-4a8e-9c1d-0d2b8a3e4f10"
PHYSICS_GUID = "2eb5fdbd-01ac-4d10-8136-f38f3393a5da"


class EngineVersion(VersionEnum):
    INITIAL = 0
    SPLIT_COLOR = auto()
    RENAMED_HEALTH = auto()


class LicenseeVersion(VersionEnum):
    NONE = 0
    STUDIO_FIX = auto()


class InventoryVersion(VersionEnum):
    BEFORE_CUSTOM_VERSION_WAS_ADDED = 0
    ADDED_STACKS = 1
    STACK_LIMIT_PER_ITEM = 2


INVENTORY = CustomVersion.from_enum(INVENTORY_GUID, InventoryVersion, "Inventory")
PHYSICS = CustomVersion(PHYSICS_GUID, 5, "Physics")


def make_schema(**options: Any) -> Schema:
    schema = Schema(engine=EngineVersion, licensee=LicenseeVersion, custom_versions=[INVENTORY, PHYSICS], **options)
    schema.class_("Item")
    return schema


def document(
    *, engine: int = 2, licensee: int = 1, custom: dict[str, int] | None = None, fmt: int = 2, root: Any = None
) -> dict[str, Any]:
    header = {"format": fmt, "engine": engine, "licensee": licensee, "custom": custom or {}}
    return {"$buildver": header, "root": {"$type": "Item"} if root is None else root}


class TestVersionEnums:
    """The latest version is derived from the last member and checked, never written by hand."""

    def test_latest_is_the_last_member(self) -> None:
        assert EngineVersion.latest() == EngineVersion.RENAMED_HEALTH
        assert EngineVersion.latest() == 2

    def test_adding_a_member_raises_latest(self) -> None:
        class Grown(VersionEnum):
            INITIAL = 0
            SPLIT_COLOR = auto()
            RENAMED_HEALTH = auto()
            ADDED_SHIELD = auto()

        assert Grown.latest() == EngineVersion.latest() + 1

    def test_plain_int_enums_work_too(self) -> None:
        class Plain(IntEnum):
            A = 3
            B = 7

        assert latest_version(Plain) == 7

    @pytest.mark.parametrize(
        ("members", "message"),
        [
            (
                {"A": 0, "B": 2, "C": 1},
                "version enum Bad: C = 1 does not increase on B = 2; add new versions at the end",
            ),
            ({"A": 0, "B": 0}, "version enum Bad: B = 0 does not increase on A = 0; add new versions at the end"),
            ({"A": -1}, "version enum Bad: A is -1, versions are never negative"),
        ],
    )
    def test_non_increasing_enums_are_rejected(self, members: dict[str, int], message: str) -> None:
        bad = IntEnum("Bad", members)  # type: ignore[misc]
        with pytest.raises(SchemaError) as caught:
            latest_version(bad)
        assert str(caught.value) == message

    def test_an_enum_without_members_is_rejected(self) -> None:
        class Empty(VersionEnum):
            pass

        with pytest.raises(SchemaError, match="has no members"):
            Empty.latest()


class TestCustomVersionRegistry:
    """Registration is keyed by GUID and reference-counted; changing a registration is an error."""

    def test_identical_registration_is_counted_and_needs_two_unregisters(self) -> None:
        registry = CustomVersionRegistry([INVENTORY])
        registry.register(CustomVersion(INVENTORY_GUID.upper(), 2, "Inventory"))
        registry.unregister(INVENTORY)
        assert INVENTORY_GUID in registry
        registry.unregister(INVENTORY_GUID)
        assert INVENTORY_GUID not in registry
        assert len(registry) == 0

    @pytest.mark.parametrize(
        ("again", "message"),
        [
            (
                CustomVersion(INVENTORY_GUID, 3, "Inventory"),
                f"custom version {INVENTORY_GUID}: registered again as 'Inventory' latest 3, "
                "already registered as 'Inventory' latest 2",
            ),
            (
                CustomVersion(INVENTORY_GUID, 2, "Items"),
                f"custom version {INVENTORY_GUID}: registered again as 'Items' latest 2, "
                "already registered as 'Inventory' latest 2",
            ),
        ],
    )
    def test_registering_a_guid_again_with_other_values_is_an_error(self, again: CustomVersion, message: str) -> None:
        registry = CustomVersionRegistry([INVENTORY])
        with pytest.raises(SchemaError) as caught:
            registry.register(again)
        assert str(caught.value) == message

    @pytest.mark.parametrize(
        "spelling",
        [
            INVENTORY_GUID.upper(),
            "{" + INVENTORY_GUID + "}",
            INVENTORY_GUID.replace("-", ""),
            uuid.UUID(INVENTORY_GUID),
        ],
    )
    def test_guid_spellings_find_the_same_version(self, spelling: str | uuid.UUID) -> None:
        assert CustomVersionRegistry([INVENTORY]).get(spelling) is INVENTORY

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            (("not-a-guid", 1, "X"), "custom version key 'not-a-guid': not a GUID"),
            ((INVENTORY_GUID, -1, "X"), f"custom version {INVENTORY_GUID}: latest version -1 is not an integer >= 0"),
            ((INVENTORY_GUID, 1, " "), f"custom version {INVENTORY_GUID}: friendly name ' ' is empty"),
        ],
    )
    def test_malformed_custom_versions_are_rejected(self, arguments: tuple[Any, ...], message: str) -> None:
        with pytest.raises(SchemaError) as caught:
            CustomVersion(*arguments)
        assert str(caught.value) == message

    def test_unregistering_an_unknown_guid_is_an_error(self) -> None:
        with pytest.raises(SchemaError, match="not registered"):
            CustomVersionRegistry().unregister(INVENTORY)


class TestArchive:
    """CustomVer/UsingCustomVersion: stored versions when loading, declared ones when saving."""

    def loading(self, custom: dict[str, int]) -> Archive:
        return Archive(
            loading=True, engine_ver=1, licensee_ver=0, custom=custom, registry=make_schema().custom_versions
        )

    @pytest.mark.parametrize(
        ("stored", "expected"),
        [({}, -1), ({INVENTORY_GUID: 1}, 1), ({INVENTORY_GUID: 0}, 0)],
    )
    def test_custom_ver_when_loading_is_the_stored_version_or_minus_one(
        self, stored: dict[str, int], expected: int
    ) -> None:
        assert self.loading(stored).custom_ver(INVENTORY) == expected

    def test_using_custom_version_while_loading_changes_nothing(self) -> None:
        archive = self.loading({})
        archive.using_custom_version(INVENTORY)
        assert archive.custom_ver(INVENTORY) == -1

    def test_custom_ver_while_saving_needs_a_declaration_first(self) -> None:
        archive = Archive(
            loading=False, engine_ver=2, licensee_ver=1, custom={}, registry=make_schema().custom_versions
        )
        with pytest.raises(SchemaError) as caught:
            archive.custom_ver(INVENTORY)
        assert str(caught.value) == (
            f"custom version {INVENTORY_GUID}: custom_ver() while saving without using_custom_version() first"
        )
        archive.using_custom_version(INVENTORY)
        assert archive.custom_ver(INVENTORY) == 2
        assert dict(archive.custom_versions) == {INVENTORY_GUID: 2}

    def test_declaring_an_unregistered_custom_version_is_an_error(self) -> None:
        archive = Archive(loading=False, engine_ver=0, licensee_ver=0, custom={}, registry=CustomVersionRegistry())
        with pytest.raises(SchemaError, match="not registered"):
            archive.using_custom_version(INVENTORY)


# (engine, licensee, error class or None, message)
GLOBAL_VERSION_CASES: list[tuple[int, int, type[Exception] | None, str]] = [
    (2, 1, None, ""),
    (1, 1, None, ""),
    (0, 0, None, ""),
    (
        3,
        1,
        NewerDataError,
        "a.json: contains a newer version than this code supports: engine version 3, newest supported 2; "
        "licensee version 1, newest supported 1",
    ),
    (
        1,
        2,
        NewerDataError,
        "a.json: contains a newer version than this code supports: engine version 1, newest supported 2; "
        "licensee version 2, newest supported 1",
    ),
]


@pytest.mark.parametrize(("engine", "licensee", "error", "message"), GLOBAL_VERSION_CASES)
def test_engine_and_licensee_versions_newer_than_the_code_are_refused(
    engine: int, licensee: int, error: type[Exception] | None, message: str
) -> None:
    data = document(engine=engine, licensee=licensee)
    if error is None:
        assert load(make_schema(), data, source="a.json").versions.engine == engine
    else:
        with pytest.raises(error) as caught:
            load(make_schema(), data, source="a.json")
        assert str(caught.value) == message


def test_data_below_the_oldest_loadable_engine_version_is_refused() -> None:
    with pytest.raises(OlderDataError) as caught:
        load(make_schema(oldest_loadable_engine=1), document(engine=0), source="a.json")
    assert str(caught.value) == "a.json: saved with engine version 0, older than the oldest loadable version 1"


# (stored custom versions, options, error or None, message)
CUSTOM_VERSION_CASES: list[tuple[dict[str, int], LoadOptions, type[Exception] | None, str]] = [
    ({INVENTORY_GUID: 1}, LoadOptions(), None, ""),
    (
        {INVENTORY_GUID: 3},
        LoadOptions(),
        NewerDataError,
        f"a.json: saved with a newer custom version than this code supports: key {INVENTORY_GUID}, "
        "name 'Inventory', stored version 3, newest supported 2",
    ),
    (
        {"00000000-0000-0000-0000-0000f99d40c2": 4},
        LoadOptions(),
        UnknownCustomVersionError,
        "a.json: saved with a custom version this code does not register: "
        "key 00000000-0000-0000-0000-0000f99d40c2, stored version 4",
    ),
    ({"00000000-0000-0000-0000-0000f99d40c2": 4}, LoadOptions(on_missing_custom="warn"), None, ""),
]


@pytest.mark.parametrize(("custom", "options", "error", "message"), CUSTOM_VERSION_CASES)
def test_custom_versions_newer_or_unknown_are_refused(
    custom: dict[str, int], options: LoadOptions, error: type[Exception] | None, message: str
) -> None:
    data = document(custom=custom)
    if error is None:
        result = load(make_schema(), data, source="a.json", options=options)
        assert result.versions.custom == tuple(StoredCustomVersion(guid, version) for guid, version in custom.items())
    else:
        with pytest.raises(error) as caught:
            load(make_schema(), data, source="a.json", options=options)
        assert str(caught.value) == message


def test_a_missing_custom_version_in_warn_mode_is_reported_as_a_warning() -> None:
    options = LoadOptions(on_missing_custom="warn")
    result = load(make_schema(), document(custom={"00000000-0000-0000-0000-000000000001": 1}), options=options)
    assert len(result.warnings) == 1
    assert "does not register" in result.warnings[0]


def test_a_custom_version_rejected_by_its_validator_is_refused() -> None:
    picky = CustomVersion(PHYSICS_GUID, 5, "Physics", validator=lambda version: version != 3)
    schema = Schema(custom_versions=[picky])
    with pytest.raises(UnknownCustomVersionError) as caught:
        load(schema, document(engine=0, licensee=0, custom={PHYSICS_GUID: 3}, root=[]), source="a.json")
    assert str(caught.value) == (
        f"a.json: custom version key {PHYSICS_GUID}, name 'Physics': stored version 3 is rejected by its validator"
    )


def test_a_newer_header_format_is_refused_before_the_rest_is_read() -> None:
    garbled = {"$buildver": {"format": 3, "engine": "seven", "custom": 12, "later": True}, "next": []}
    with pytest.raises(NewerDataError) as caught:
        load(make_schema(), garbled, source="a.json")
    assert str(caught.value) == "a.json: header format 3 is newer than this code supports (newest supported 2)"


def test_header_formats_one_and_two_load_to_the_same_versions_and_saving_writes_two() -> None:
    old = {
        "$buildver": {
            "format": 1,
            "engine": 1,
            "licensee": 0,
            "custom": [{"key": INVENTORY_GUID.upper(), "version": 1, "name": "Inventory"}],
        },
        "root": {"$type": "Item"},
    }
    new = document(engine=1, licensee=0, custom={INVENTORY_GUID: 1})
    first, second = load(make_schema(), old), load(make_schema(), new)
    assert first.versions.custom_version(INVENTORY) == second.versions.custom_version(INVENTORY) == 1
    assert (first.versions.engine, first.versions.licensee) == (second.versions.engine, second.versions.licensee)
    assert save(make_schema(), first.data)["$buildver"]["format"] == 2


MALFORMED_HEADERS: list[tuple[Any, str]] = [
    ({"$buildver": [], "root": 1}, "a.json: $buildver: expected an object, got []"),
    ({"$buildver": {"format": True}, "root": 1}, "a.json: $buildver.format: expected an integer >= 0, got True"),
    ({"$buildver": {"format": 0}, "root": 1}, "a.json: $buildver.format: expected 1 to 2, got 0"),
    (
        {"$buildver": {"format": 2, "engine": 1, "licensee": 0, "custom": {}, "x": 1}, "root": 1},
        "a.json: $buildver: unexpected member 'x'",
    ),
    (
        {"$buildver": {"format": 2, "engine": 1, "licensee": 0, "custom": {}}},
        "a.json: no 'root' member beside the '$buildver' header",
    ),
    (
        {"$buildver": {"format": 2, "engine": 1, "licensee": 0, "custom": {}}, "root": 1, "extra": 2},
        "a.json: unexpected member 'extra' beside '$buildver' and 'root'",
    ),
    (
        {"$buildver": {"format": 2, "engine": -1}, "root": 1},
        "a.json: $buildver.engine: expected an integer >= 0, got -1",
    ),
    (
        {"$buildver": {"format": 2, "engine": 1, "licensee": 0, "custom": {"nope": 1}}, "root": 1},
        "a.json: $buildver.custom.nope: 'nope' is not a GUID",
    ),
    (
        {
            "$buildver": {
                "format": 2,
                "engine": 1,
                "licensee": 0,
                "custom": {INVENTORY_GUID: 1, INVENTORY_GUID.upper(): 1},
            },
            "root": 1,
        },
        f"a.json: $buildver.custom: custom version {INVENTORY_GUID} is listed twice",
    ),
    (
        {"$buildver": {"format": 1, "engine": 1, "licensee": 0, "custom": [{"key": INVENTORY_GUID}]}, "root": 1},
        "a.json: $buildver.custom[0].version: expected an integer >= 0, got None",
    ),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED_HEADERS)
def test_malformed_headers_are_refused_with_the_place(data: Any, message: str) -> None:
    with pytest.raises(DocumentError) as caught:
        load(make_schema(), data, source="a.json")
    assert str(caught.value) == message


# (options, engine read, custom_ver of Inventory)
UNVERSIONED_CASES: list[tuple[LoadOptions, int, int]] = [
    (LoadOptions(unversioned="oldest"), 0, -1),
    (LoadOptions(unversioned="latest"), 2, 2),
]


@pytest.mark.parametrize(("options", "engine", "inventory"), UNVERSIONED_CASES)
def test_unversioned_data_is_read_as_oldest_or_latest_when_asked(
    options: LoadOptions, engine: int, inventory: int
) -> None:
    result = load(make_schema(), {"$type": "Item"}, options=options)
    assert result.versions.unversioned
    assert result.versions.engine == engine
    assert result.versions.custom_version(INVENTORY) == inventory


def test_unversioned_data_is_refused_by_default() -> None:
    with pytest.raises(DocumentError) as caught:
        load(make_schema(), {"$type": "Item"}, source="a.json")
    assert str(caught.value) == (
        "a.json: no '$buildver' version header; load it with unversioned='oldest' to adopt old data"
    )


# (document, expected DocumentVersions) — inspect never raises on newer or broken headers.
INSPECT_CASES: list[tuple[Any, DocumentVersions]] = [
    (
        document(engine=9, licensee=4, custom={INVENTORY_GUID: 99}),
        DocumentVersions(2, 9, 4, (StoredCustomVersion(INVENTORY_GUID, 99),)),
    ),
    (
        {"$buildver": {"format": 7, "whatever": 1}},
        DocumentVersions(
            7, None, None, problem="x.json: header format 7 is newer than this code supports (newest supported 2)"
        ),
    ),
    ([1, 2], DocumentVersions(None, None, None, unversioned=True)),
    (
        {"$buildver": {"format": 2, "engine": "x"}, "root": 1},
        DocumentVersions(2, None, None, problem="x.json: $buildver.engine: expected an integer >= 0, got 'x'"),
    ),
]


@pytest.mark.parametrize(("data", "expected"), INSPECT_CASES)
def test_inspect_reads_versions_without_raising(data: Any, expected: DocumentVersions) -> None:
    assert inspect(data, source="x.json") == expected


def test_large_version_numbers_load() -> None:
    schema = Schema(engine=100_000, custom_versions=[CustomVersion(PHYSICS_GUID, 70_000, "Physics")])
    result = load(schema, document(engine=99_999, licensee=0, custom={PHYSICS_GUID: 300}, root=[]))
    assert result.versions.custom_version(PHYSICS_GUID) == 300


# (stored versions, the schema's differences as text)
DIFFERENCE_CASES: list[tuple[DocumentVersions, list[str]]] = [
    (DocumentVersions(2, 2, 1, (StoredCustomVersion(INVENTORY_GUID, 2),)), []),
    (DocumentVersions(2, 0, 0), ["engine 0 is older than the oldest loadable 1", "licensee 0 is older than 1"]),
    (
        DocumentVersions(2, 2, 1, (StoredCustomVersion(INVENTORY_GUID, 1), StoredCustomVersion(PHYSICS_GUID, 9))),
        [
            f"custom version 'Inventory' ({INVENTORY_GUID}) 1 is older than 2",
            f"custom version 'Physics' ({PHYSICS_GUID}) 9 is newer than 5",
        ],
    ),
    (
        DocumentVersions(1, 2, 1, (StoredCustomVersion("00000000-0000-0000-0000-000000000007", 1, "Gone"),)),
        ["custom version 'Gone' (00000000-0000-0000-0000-000000000007) 1 is not registered in this code"],
    ),
    (DocumentVersions(None, None, None, unversioned=True), []),
]


@pytest.mark.parametrize(("versions", "expected"), DIFFERENCE_CASES)
def test_compare_versions_lists_every_difference_like_unreal_compare(
    versions: DocumentVersions, expected: list[str]
) -> None:
    from buildver.serialization import compare_versions

    assert [str(difference) for difference in compare_versions(make_schema(oldest_loadable_engine=1), versions)] == (
        expected
    )


def test_a_validator_that_raises_rejects_the_version() -> None:
    from buildver.serialization import compare_versions

    def explode(version: int) -> bool:
        raise RuntimeError(version)

    schema = Schema(custom_versions=[CustomVersion(PHYSICS_GUID, 5, "Physics", validator=explode)])
    stored = DocumentVersions(2, 0, 0, (StoredCustomVersion(PHYSICS_GUID, 5),))
    assert [difference.kind for difference in compare_versions(schema, stored)] == ["invalid"]


def test_a_second_name_change_of_the_same_field_and_versions_is_refused_whatever_its_target() -> None:
    schema = Schema()
    declaration = schema.class_("P", 2).name_change(0, 1, "a", "b")
    with pytest.raises(SchemaError, match="declared twice"):
        declaration.name_change(0, 1, "a", "c")
