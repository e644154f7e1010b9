"""Class versions, converters, NameChange/TypeChange, deprecation, patches and saving (O3DE's rules)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildver.errors import ConverterError, DocumentError, NewerDataError, SchemaError, UnknownTypeError
from buildver.serialization import (
    Archive,
    CustomVersion,
    DataNode,
    Dropped,
    LoadOptions,
    Replaced,
    Schema,
    Upgraded,
    load,
    save,
    upgrade_patch,
)

HEADER = {"format": 2, "engine": 0, "licensee": 0, "custom": {}}
DROP = LoadOptions(on_converter_failure="drop")


def doc(root: Any) -> dict[str, Any]:
    return {"$buildver": dict(HEADER), "root": root}


def field_schema(version: int, *upgrades: tuple[Any, ...]) -> Schema:
    """One class "C" with upgrades given as ("name", from, to, old, new) or ("type", field, from, to, fn)."""
    schema = Schema()
    decl = schema.class_("C", version)
    for upgrade in upgrades:
        if upgrade[0] == "name":
            decl.name_change(*upgrade[1:])
        else:
            decl.type_change(*upgrade[1:])
    return schema


def times(factor: float) -> Any:
    return lambda value: value * factor


# (description, class version, upgrades, stored version, stored members, loaded members)
FIELD_UPGRADE_CASES: list[tuple[str, int, list[tuple[Any, ...]], int, dict[str, Any], dict[str, Any]]] = [
    ("a lone NameChange is applied", 5, [("name", 4, 5, "MyData", "Data")], 4, {"MyData": 1}, {"Data": 1}),
    (
        "a TypeChange keyed by the old name runs before the NameChange of the same step",
        5,
        [("name", 4, 5, "FloatData", "IntData"), ("type", "FloatData", 4, 5, int)],
        4,
        {"FloatData": 2.75},
        {"IntData": 2},
    ),
    (
        "registration order does not matter",
        5,
        [("type", "FloatData", 4, 5, int), ("name", 4, 5, "FloatData", "IntData")],
        4,
        {"FloatData": 2.75},
        {"IntData": 2},
    ),
    (
        "version skipping: the jump that reaches highest wins",
        6,
        [("type", "D", 4, 5, times(10)), ("type", "D", 5, 6, times(100)), ("type", "D", 4, 6, times(2))],
        4,
        {"D": 1},
        {"D": 2},
    ),
    (
        "version skipping: data in between takes the next step",
        6,
        [("type", "D", 4, 5, times(10)), ("type", "D", 5, 6, times(100)), ("type", "D", 4, 6, times(2))],
        5,
        {"D": 1},
        {"D": 100},
    ),
    (
        "chains follow a rename into the next version",
        6,
        [("name", 4, 5, "a", "b"), ("type", "b", 5, 6, str)],
        4,
        {"a": 7},
        {"b": "7"},
    ),
    (
        "O3DE's E_V6_2: TYPE 4->6 skips, then NAME 4->5 and 5->6",
        6,
        [
            ("type", "FloatData", 4, 5, int),
            ("name", 4, 5, "FloatData", "IntData"),
            ("type", "IntData", 5, 6, float),
            ("name", 5, 6, "IntData", "DoubleData"),
            ("type", "FloatData", 4, 6, times(2.0)),
        ],
        4,
        {"FloatData": 3.5},
        {"DoubleData": 7.0},
    ),
    (
        "an upgrade from a later version still applies to older data",
        2,
        [("name", 1, 2, "a", "b")],
        0,
        {"a": 1},
        {"b": 1},
    ),
    ("data at an upgrade's target version never runs it", 1, [("type", "v", 0, 1, times(2))], 1, {"v": 3}, {"v": 3}),
    (
        "fields without upgrades are kept in place",
        1,
        [("name", 0, 1, "b", "B")],
        0,
        {"a": 1, "b": 2, "c": 3},
        {"a": 1, "B": 2, "c": 3},
    ),
]


@pytest.mark.parametrize(
    ("version", "upgrades", "stored", "members", "expected"),
    [case[1:] for case in FIELD_UPGRADE_CASES],
    ids=[case[0] for case in FIELD_UPGRADE_CASES],
)
def test_field_upgrades_rename_and_convert_fields(
    version: int, upgrades: list[tuple[Any, ...]], stored: int, members: dict[str, Any], expected: dict[str, Any]
) -> None:
    root = {"$type": "C", "$version": stored, **members}
    result = load(field_schema(version, *upgrades), doc(root))
    assert result.data == {"$type": "C", "$version": version, **expected}
    assert list(result.data) == ["$type", "$version", *expected]


# (upgrades, error message) — mistakes found when the class is declared
REGISTRATION_ERRORS: list[tuple[list[tuple[Any, ...]], str]] = [
    ([("name", 1, 2, "a", "b"), ("name", 1, 2, "a", "b")], "C: NameChange 1->2 'a'->'b': declared twice"),
    ([("type", "a", 2, 2, int)], "C: TypeChange 2->2 'a': goes from version 2 to 2"),
    ([("type", "a", 1, 4, int)], "C: TypeChange 1->4 'a': goes beyond the class version 3"),
    ([("name", -1, 2, "a", "b")], "C: NameChange -1->2 'a'->'b': version -1 is not an integer >= 0"),
    ([("name", 1, 2, "a", "a")], "C: NameChange 'a'->'a': not a new field name"),
    ([("name", 1, 2, "$type", "b")], "C: NameChange 1->2 '$type'->'b': field name '$type' is not a member name"),
]


@pytest.mark.parametrize(("upgrades", "message"), REGISTRATION_ERRORS)
def test_wrong_field_upgrades_are_refused_when_declared(upgrades: list[tuple[Any, ...]], message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        field_schema(3, *upgrades)
    assert str(caught.value) == message


def test_a_type_change_given_the_wrong_input_type_names_field_and_class() -> None:
    schema = Schema()
    schema.class_("C", 1).type_change("hp", 0, 1, float, from_type=int, to_type=float)
    with pytest.raises(ConverterError) as caught:
        load(schema, doc({"$type": "C", "hp": "full"}), source="a.json")
    assert str(caught.value) == "a.json: root ('C'): TypeChange 0->1 'hp': expects int, got 'full'"


def test_a_rename_onto_an_existing_field_is_a_failure() -> None:
    schema = field_schema(1, ("name", 0, 1, "old", "new"))
    with pytest.raises(ConverterError) as caught:
        load(schema, doc({"$type": "C", "old": 1, "new": 2}), source="a.json")
    assert str(caught.value) == "a.json: root ('C'): cannot rename field 'old' to 'new': 'new' exists already"


def convert_player(node: DataNode) -> bool:
    """One converter for every older version, as O3DE expects."""
    if node.version < 1:
        node.set("hp", float(node.get("hitpoints", 100)))
        node.remove("hitpoints")
    if node.version < 2:
        node.set("name", str(node.get("name", "")).title())
    if node.version < 3:
        node.add_element("armor", 0)
    return True


def player_schema() -> Schema:
    schema = Schema()
    schema.class_("Player", 3, convert_player)
    return schema


# (stored members with version, loaded members)
CONVERTER_CASES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"name": "ann", "hitpoints": 40}, {"name": "Ann", "hp": 40.0, "armor": 0}),
    ({"$version": 1, "name": "bob", "hp": 12.5}, {"name": "Bob", "hp": 12.5, "armor": 0}),
    ({"$version": 2, "name": "Cy", "hp": 1.0}, {"name": "Cy", "hp": 1.0, "armor": 0}),
    ({"$version": 3, "name": "Di", "hp": 2.0, "armor": 5}, {"name": "Di", "hp": 2.0, "armor": 5}),
]


@pytest.mark.parametrize(("stored", "expected"), CONVERTER_CASES)
def test_one_converter_upgrades_every_older_version(stored: dict[str, Any], expected: dict[str, Any]) -> None:
    result = load(player_schema(), doc({"$type": "Player", **stored}))
    assert {key: value for key, value in result.data.items() if not key.startswith("$")} == expected
    assert result.data["$version"] == 3
    from_version = stored.get("$version", 0)
    assert result.upgraded == ((Upgraded("root", "Player", from_version, 3),) if from_version < 3 else ())


def test_nested_objects_are_upgraded_before_their_parents() -> None:
    seen: list[tuple[str, int]] = []

    def child(node: DataNode) -> None:
        seen.append(("child", node.version))
        node.set("upgraded", True)

    def parent(node: DataNode) -> None:
        kids = node.find_descendants("kids", "element")
        seen.append(("parent", node.version))
        assert [kid.version for kid in kids] == [1, 1]
        assert all(kid.get("upgraded") for kid in kids)
        node.set("count", len(kids))

    schema = Schema()
    schema.class_("Kid", 1, child)
    schema.class_("Parent", 1, parent)
    root = {"$type": "Parent", "kids": [{"$type": "Kid"}, {"$type": "Kid"}]}
    result = load(schema, doc(root))
    assert seen == [("child", 0), ("child", 0), ("parent", 0)]
    assert result.data["count"] == 2
    assert [record.path for record in result.upgraded] == ["root.kids[0]", "root.kids[1]", "root"]


def test_field_upgrades_run_before_the_converter() -> None:
    seen: list[Any] = []
    schema = Schema()
    schema.class_("C", 1, lambda node: seen.append(node.get("b"))).name_change(0, 1, "a", "b")
    load(schema, doc({"$type": "C", "a": 5}))
    assert seen == [5]


# (class version, field upgrades as in field_schema, stored members, what the converter saw: (version, a, b) per call)
CONVERTER_ORDER_CASES: list[tuple[str, int, list[tuple[Any, ...]], dict[str, Any], list[tuple[int, Any, Any]]]] = [
    ("a NameChange is applied before the converter", 1, [("name", 0, 1, "a", "b")], {"a": 5}, [(0, None, 5)]),
    ("a TypeChange is applied before the converter", 1, [("type", "b", 0, 1, int)], {"b": 2.75}, [(0, None, 2)]),
    (
        "a TypeChange by the old name, then the NameChange, then the converter",
        1,
        [("name", 0, 1, "a", "b"), ("type", "a", 0, 1, int)],
        {"a": 2.75},
        [(0, None, 2)],
    ),
    (
        "every step of a chain before the converter, which still sees the stored version",
        2,
        [("name", 0, 1, "a", "b"), ("type", "b", 1, 2, str)],
        {"a": 7},
        [(0, None, "7")],
    ),
    (
        "data in between: only the later steps, then the converter",
        2,
        [("name", 0, 1, "a", "b"), ("type", "b", 1, 2, str)],
        {"$version": 1, "b": 7},
        [(1, None, "7")],
    ),
    ("data at the class version: no converter", 2, [("name", 0, 1, "a", "b")], {"$version": 2, "b": 1}, []),
]


@pytest.mark.parametrize(
    ("version", "upgrades", "stored", "seen_by_converter"),
    [case[1:] for case in CONVERTER_ORDER_CASES],
    ids=[case[0] for case in CONVERTER_ORDER_CASES],
)
def test_field_upgrades_run_before_the_converter_in_every_case(
    version: int, upgrades: list[tuple[Any, ...]], stored: dict[str, Any], seen_by_converter: list[Any]
) -> None:
    seen: list[tuple[int, Any, Any]] = []
    schema = field_schema(version, *upgrades)
    schema.classes["C"].converter = lambda node: seen.append((node.version, node.get("a"), node.get("b")))
    load(schema, doc({"$type": "C", **stored}))
    assert seen == seen_by_converter


def fails(node: DataNode) -> bool:
    return False


def raises(node: DataNode) -> None:
    raise KeyError("colour")


def retypes(node: DataNode) -> None:
    node.value = {"$type": "Other"}


def converts(node: DataNode) -> None:
    node.convert("Other")


# (converter, error message with the path)
CONVERTER_FAILURES: list[tuple[Any, str]] = [
    (fails, "a.json: root.items[1] ('C'): converter for version 0 returned False"),
    (raises, "a.json: root.items[1] ('C'): converter for version 0 failed: KeyError: 'colour'"),
    (
        retypes,
        "a.json: root.items[1] ('C'): converters cannot change the type; "
        "deprecate the old type with a converter instead",
    ),
    (
        converts,
        "a.json: root.items[1] ('C'): converter for version 0 failed: ValueError: version converters cannot "
        "change the type; deprecate the old type with a converter instead",
    ),
]

FAILING_ROOT = {"items": [{"$type": "C", "$version": 1}, {"$type": "C", "n": 1}, {"$type": "C", "$version": 1}]}


@pytest.mark.parametrize(("converter", "message"), CONVERTER_FAILURES)
def test_converter_failures_are_errors_with_the_path_by_default(converter: Any, message: str) -> None:
    schema = Schema()
    schema.class_("C", 1, converter)
    with pytest.raises(ConverterError) as caught:
        load(schema, doc(FAILING_ROOT), source="a.json")
    assert str(caught.value) == message


@pytest.mark.parametrize(("converter", "message"), CONVERTER_FAILURES)
def test_converter_failures_drop_the_element_when_asked(converter: Any, message: str) -> None:
    schema = Schema()
    schema.class_("C", 1, converter)
    result = load(schema, doc(FAILING_ROOT), source="a.json", options=DROP)
    assert result.data == {"items": [{"$type": "C", "$version": 1}, {"$type": "C", "$version": 1}]}
    reason = message.split("('C'): ", 1)[1]
    assert result.dropped == (Dropped("root.items[1]", "C", reason),)


def test_without_converter_members_that_are_not_fields_are_dropped() -> None:
    schema = Schema()
    schema.class_("C", 2, fields=["hp", "name"])
    result = load(schema, doc({"$type": "C", "$version": 1, "hp": 3, "legacy": True, "name": "x"}))
    assert result.data == {"$type": "C", "$version": 2, "hp": 3, "name": "x"}
    assert result.dropped == (Dropped("root.legacy", None, "not a field of 'C'"),)


def test_without_converter_or_fields_old_data_is_kept_and_marked_current() -> None:
    schema = Schema()
    schema.class_("C", 2)
    assert load(schema, doc({"$type": "C", "extra": 1})).data == {"$type": "C", "extra": 1, "$version": 2}


# (options, outcome) for an object whose version is newer than its class
NEWER_CLASS_CASES: list[tuple[LoadOptions, str]] = [
    (LoadOptions(), "error"),
    (LoadOptions(on_newer_class="warn"), "kept"),
]


@pytest.mark.parametrize(("options", "outcome"), NEWER_CLASS_CASES)
def test_objects_newer_than_their_class_are_refused_or_kept_with_a_warning(options: LoadOptions, outcome: str) -> None:
    schema = Schema()
    schema.class_("C", 2)
    root = {"list": [{"$type": "C", "$version": 3, "x": 1}]}
    message = "a.json: root.list[0]: 'C' version 3 is newer than this code supports (newest supported 2)"
    if outcome == "error":
        with pytest.raises(NewerDataError) as caught:
            load(schema, doc(root), source="a.json", options=options)
        assert str(caught.value) == message
    else:
        result = load(schema, doc(root), source="a.json", options=options)
        assert result.data == root
        assert result.warnings == (message,)


def replace_with_new(node: DataNode) -> None:
    value = node.get("v")
    node.convert("New")
    node.set("value", value)


def deprecation_schema() -> Schema:
    schema = Schema()
    schema.class_("Keep")
    schema.class_("New", 1)
    schema.deprecate("Gone")
    schema.deprecate("Old", replace_with_new)
    return schema


# (root, loaded data, replaced, dropped)
DEPRECATION_CASES: list[tuple[Any, Any, tuple[Replaced, ...], tuple[Dropped, ...]]] = [
    ({"$type": "Gone"}, None, (), (Dropped("root", "Gone", "deprecated"),)),
    (
        {"member": {"$type": "Gone"}, "other": 1},
        {"other": 1},
        (),
        (Dropped("root.member", "Gone", "deprecated"),),
    ),
    (
        [{"$type": "Keep", "n": 1}, {"$type": "Gone"}, {"$type": "Keep", "n": 2}, {"$type": "Gone"}],
        [{"$type": "Keep", "n": 1}, {"$type": "Keep", "n": 2}],
        (),
        (Dropped("root[1]", "Gone", "deprecated"), Dropped("root[3]", "Gone", "deprecated")),
    ),
    ({"$type": "Old", "v": 4}, {"$type": "New", "$version": 1, "value": 4}, (Replaced("root", "Old", "New"),), ()),
    (
        [{"$type": "Keep", "n": 1}, {"$type": "Old", "v": 5}, {"$type": "Gone"}, {"$type": "Keep", "n": 2}],
        [{"$type": "Keep", "n": 1}, {"$type": "New", "$version": 1, "value": 5}, {"$type": "Keep", "n": 2}],
        (Replaced("root[1]", "Old", "New"),),
        (Dropped("root[2]", "Gone", "deprecated"),),
    ),
]


@pytest.mark.parametrize(("root", "expected", "replaced", "dropped"), DEPRECATION_CASES)
def test_deprecated_classes_are_dropped_without_holes_or_replaced_in_place(
    root: Any, expected: Any, replaced: tuple[Replaced, ...], dropped: tuple[Dropped, ...]
) -> None:
    result = load(deprecation_schema(), doc(root))
    assert result.data == expected
    assert result.replaced == replaced
    assert result.dropped == dropped


def test_a_replacement_at_an_older_version_is_upgraded_too() -> None:
    schema = Schema()
    schema.class_("New", 2, lambda node: node.set("upgraded", True))
    schema.deprecate("Old", lambda node: node.convert("New", 1))
    result = load(schema, doc({"$type": "Old"}))
    assert result.data == {"$type": "New", "$version": 2, "upgraded": True}


def test_a_failing_deprecation_converter_is_an_error_or_a_drop() -> None:
    schema = Schema()
    schema.deprecate("Old", fails)
    with pytest.raises(ConverterError) as caught:
        load(schema, doc([{"$type": "Old"}]), source="a.json")
    assert str(caught.value) == "a.json: root[0] ('Old'): deprecation converter for version 0 returned False"
    assert load(schema, doc([{"$type": "Old"}]), options=DROP).data == []


def test_deprecation_converters_that_replace_each_other_forever_fail() -> None:
    schema = Schema()
    schema.deprecate("A", lambda node: node.convert("B"))
    schema.deprecate("B", lambda node: node.convert("A"))
    with pytest.raises(ConverterError, match="replace each other in a loop"):
        load(schema, doc({"$type": "A"}))


def test_unknown_types_are_refused_with_a_hint_or_dropped() -> None:
    schema = Schema()
    with pytest.raises(UnknownTypeError) as caught:
        load(schema, doc([{"$type": "Mystery"}]), source="a.json")
    assert str(caught.value) == (
        "a.json: root[0]: unknown type 'Mystery'; declare it, or deprecate it with "
        "schema.deprecate('Mystery') if it was removed"
    )
    result = load(schema, doc([{"$type": "Mystery"}, 1]), options=LoadOptions(on_unknown_type="drop"))
    assert result.data == [1]
    assert result.dropped == (Dropped("root[0]", "Mystery", "unknown type"),)


@pytest.mark.parametrize(
    ("declare", "message"),
    [
        (lambda schema: (schema.class_("A"), schema.deprecate("A")), "class 'A': declared and deprecated"),
        (lambda schema: (schema.deprecate("A"), schema.class_("A")), "class 'A': declared and deprecated"),
        (lambda schema: (schema.class_("A"), schema.class_("A")), "class 'A': declared twice"),
        (lambda schema: schema.class_("A", -1), "class version -1: not an integer >= 0 or a version enum"),
    ],
)
def test_conflicting_class_declarations_are_refused(declare: Any, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        declare(Schema())
    assert str(caught.value) == message


def upgrade_schema() -> Schema:
    schema = Schema()
    schema.class_("Inner", 2).name_change(0, 1, "x", "pos_x").type_change("pos_x", 1, 2, float)
    schema.class_("Outer", 3, fails).name_change(1, 2, "child", "inner").type_change("size", 2, 3, lambda s: [s, s])
    return schema


# (patch, upgraded patch) — partial documents: field upgrades only, never the converter
PATCH_CASES: list[tuple[Any, Any]] = [
    ({"$type": "Inner", "x": 3}, {"$type": "Inner", "x": 3}),  # no version: O3DE's "do not convert" address
    ({"$type": "Inner", "$version": 0, "x": 3}, {"$type": "Inner", "$version": 2, "pos_x": 3.0}),
    (
        {"$type": "Outer", "$version": 1, "child": {"$type": "Inner", "$version": 1, "pos_x": 2}, "size": 4},
        {"$type": "Outer", "$version": 3, "inner": {"$type": "Inner", "$version": 2, "pos_x": 2.0}, "size": [4, 4]},
    ),
    (
        {"$type": "Outer", "$version": 2, "size": {"partial": 1}},
        {"$type": "Outer", "$version": 3, "size": {"partial": 1}},
    ),
    ({"$type": "Outer", "$version": 3, "size": [1, 1]}, {"$type": "Outer", "$version": 3, "size": [1, 1]}),
]


@pytest.mark.parametrize(("patch", "expected"), PATCH_CASES)
def test_patches_get_field_upgrades_but_never_converters(patch: Any, expected: Any) -> None:
    result = upgrade_patch(upgrade_schema(), patch)
    assert result.data == expected


def test_loading_never_changes_the_callers_data() -> None:
    root = {"$type": "Outer", "$version": 1, "child": {"$type": "Inner", "x": 1}, "size": 2, "list": [[1], {"a": 1}]}
    data = doc(root)
    before = copy.deepcopy(data)
    schema = upgrade_schema()
    schema.classes["Outer"].converter = lambda node: node.set("touched", True)
    load(schema, data)
    upgrade_patch(schema, root)
    assert data == before


SAVE_ERRORS: list[tuple[Any, type[Exception], str]] = [
    ({"$type": "Nope"}, UnknownTypeError, "a.json: root: cannot save unknown type 'Nope'"),
    ({"$type": "Gone"}, DocumentError, "a.json: root: cannot save an object of deprecated type 'Gone'"),
    (
        {"$type": "Keep", "$version": 1},
        DocumentError,
        "a.json: root: 'Keep' is marked version 1 but the class is version 0; save only data loaded with this schema",
    ),
    ({"x": {1: 2}}, DocumentError, "a.json: root.x: member name 1 is not a string"),
    ({"x": [float("nan")]}, DocumentError, "a.json: root.x[0]: nan is not JSON data"),
    ({"x": {1, 2}}, DocumentError, "a.json: root.x: {1, 2} is not JSON data"),
]


@pytest.mark.parametrize(("root", "error", "message"), SAVE_ERRORS)
def test_saving_refuses_data_it_cannot_write_at_the_latest_versions(
    root: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        save(deprecation_schema(), root, source="a.json")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("root", "message"),
    [
        ({"x": {1, 2}}, "a.json: root.x: {1, 2} is not JSON data"),
        ({"$type": 3}, "a.json: root.$type: expected a type name, got 3"),
        ({"$type": "Keep", "$version": "1"}, "a.json: root.$version: expected an integer >= 0, got '1'"),
    ],
)
def test_loading_refuses_data_that_is_not_json(root: Any, message: str) -> None:
    with pytest.raises(DocumentError) as caught:
        load(deprecation_schema(), doc(root), source="a.json")
    assert str(caught.value) == message


SHOP = CustomVersion("7d1e7c8a-1111-4a4a-9b9b-000000000001", 4, "Shop")
UNUSED = CustomVersion("7d1e7c8a-1111-4a4a-9b9b-000000000002", 9, "Unused")


def price_hook(ar: Archive, node: DataNode) -> None:
    """Prices were in cents before Shop version 3 (the Unreal CustomVer idiom)."""
    ar.using_custom_version(SHOP)
    if ar.is_loading and ar.custom_ver(SHOP) < 3:
        node.set("price", node.get("price", 0) / 100)


def shop_schema() -> Schema:
    schema = Schema(engine=5, custom_versions=[SHOP, UNUSED])
    schema.class_("Item", serializer=price_hook)
    schema.class_("Box")
    return schema


def test_a_document_records_only_the_custom_versions_used_while_saving() -> None:
    assert save(shop_schema(), [{"$type": "Box"}])["$buildver"]["custom"] == {}
    saved = save(shop_schema(), [{"$type": "Box"}, {"$type": "Item", "price": 1.5}])
    assert saved["$buildver"] == {"format": 2, "engine": 5, "licensee": 0, "custom": {SHOP.guid: 4}}


# (stored Shop version, price stored, price loaded)
CUSTOM_VER_CASES: list[tuple[int | None, float, float]] = [
    (None, 150, 1.5),
    (2, 250, 2.5),
    (3, 3.5, 3.5),
    (4, 4.5, 4.5),
]


@pytest.mark.parametrize(("stored", "price", "loaded"), CUSTOM_VER_CASES)
def test_serializer_hooks_branch_on_the_stored_custom_version(stored: int | None, price: float, loaded: float) -> None:
    custom = {} if stored is None else {SHOP.guid: stored}
    data = {
        "$buildver": {"format": 2, "engine": 5, "licensee": 0, "custom": custom},
        "root": {"$type": "Item", "price": price},
    }
    assert load(shop_schema(), data).data["price"] == loaded


def test_a_saved_document_loads_back_unchanged() -> None:
    data = {"$type": "Item", "$version": 0, "price": 9.5}
    result = load(shop_schema(), save(shop_schema(), data))
    assert result.data == data
    assert not result.changed_objects


class TestDataNode:
    """The converter's tree: finding, adding, removing and renaming members."""

    def node(self) -> DataNode:
        holder = [{"$type": "C", "a": 1, "list": [{"id": 1}, {"id": 2}, {"other": 3}], "map": {"k": {"id": 9}}}]
        archive = Archive(loading=True, engine_ver=0, licensee_ver=0, custom={}, registry=Schema().custom_versions)
        return DataNode(holder, 0, "root", archive)

    @pytest.mark.parametrize(
        ("names", "paths"),
        [
            (("list", "element", "id"), ["root.list[0].id", "root.list[1].id"]),
            (("list", 1, "id"), ["root.list[1].id"]),
            (("map", "*", "id"), ["root.map.k.id"]),
            (("missing", "element"), []),
        ],
    )
    def test_find_descendants_returns_every_match_through_lists(self, names: tuple[Any, ...], paths: list[str]) -> None:
        assert [found.path for found in self.node().find_descendants(*names)] == paths

    def test_remove_reports_whether_there_was_a_member(self) -> None:
        node = self.node()
        assert node.remove("a") is True
        assert node.remove("a") is False

    def test_add_element_refuses_an_existing_name(self) -> None:
        with pytest.raises(ValueError, match="member 'a' exists already"):
            self.node().add_element("a", 2)

    def test_values_written_through_nodes_are_copied_as_json(self) -> None:
        node = self.node()
        for found in node.find_descendants("list", "element", "id"):
            found.value = (found.value, "x")
        assert node.get("list")[:2] == [{"id": [1, "x"]}, {"id": [2, "x"]}]
        with pytest.raises(ValueError, match="is not JSON data"):
            node.set("bad", object())

    def test_reserved_names_cannot_be_edited(self) -> None:
        with pytest.raises(ValueError, match="reserved"):
            self.node().set("$type", "D")

    def test_rename_keeps_the_member_order(self) -> None:
        node = self.node()
        assert node.rename("a", "b")
        assert node.keys() == ["b", "list", "map"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text().filter(lambda k: k != "$type"), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(json_values)
def test_any_untyped_json_data_survives_save_and_load(data: Any) -> None:
    schema = Schema(engine=1)
    assert load(schema, save(schema, data)).data == data


def test_serializer_hook_failures_name_the_element_on_load_and_save() -> None:
    def broken(ar: Archive, node: DataNode) -> None:
        raise RuntimeError("no colour")

    schema = Schema()
    schema.class_("C", serializer=broken)
    with pytest.raises(ConverterError) as loading:
        load(schema, doc([{"$type": "C"}]), source="a.json")
    assert str(loading.value) == "a.json: root[0] ('C'): serializer failed: RuntimeError: no colour"
    assert load(schema, doc([{"$type": "C"}]), options=DROP).data == []
    with pytest.raises(ConverterError) as saving:
        save(schema, [{"$type": "C"}], source="a.json")
    assert str(saving.value) == "a.json: root[0] ('C'): serializer failed: RuntimeError: no colour"


def test_serializer_hooks_cannot_change_the_type() -> None:
    def retype(ar: Archive, node: DataNode) -> None:
        node.value = {"$type": "D"}

    schema = Schema()
    schema.class_("C", serializer=retype)
    with pytest.raises(ConverterError, match="serializer hooks cannot change the type"):
        load(schema, doc({"$type": "C"}))
    with pytest.raises(ConverterError, match="serializer hooks cannot change the type"):
        save(schema, {"$type": "C"})


def test_a_deprecation_converter_may_only_convert_to_a_type_name() -> None:
    schema = Schema()
    schema.deprecate("Old", lambda node: node.convert(""))
    with pytest.raises(ConverterError, match="type '' is not a non-empty string"):
        load(schema, doc({"$type": "Old"}))


def test_a_deprecation_converter_that_keeps_the_type_drops_the_element() -> None:
    schema = Schema()
    schema.deprecate("Old", lambda node: node.set("seen", True))
    result = load(schema, doc([{"$type": "Old"}]))
    assert (result.data, result.dropped) == ([], (Dropped("root[0]", "Old", "deprecated"),))
