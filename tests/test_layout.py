"""The package's layout: wings whose imports run down only, no import cycle, and a face per wing.

The order of the wings, bottom first, is the one ``docs/layout.md`` gives; a module imports only from its own wing
and the wings below it (under ``TYPE_CHECKING`` too: a type belongs where it is made), and ``buildver``'s own face
sits above them all.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "buildver"

WINGS = ("plumbing", "versions", "packages", "serialization", "projects", "stamp", "guard", "cli", "face")
"""Bottom first. ``plumbing`` is the modules directly in ``buildver/``; ``face`` is ``buildver`` and ``__main__``."""

FACES = ("buildver", *(f"buildver.{wing}" for wing in WINGS[1:-1]))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def wing_of(module: str) -> str:
    """The wing a module of buildver belongs to."""
    parts = module.split(".")
    if module in ("buildver", "buildver.__main__"):
        return "face"
    if len(parts) > 2 or f"{module}.__init__" in MODULES or (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return "plumbing"


ROOT_NAMES = frozenset({"__version__", "_lazy_face"})
"""What modules may take from ``buildver``'s own face: defined there for start-up's sake, not re-exported."""

_MODULE_STRING = re.compile(r"buildver(?:\.[A-Za-z_]\w*)+")


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``, not ``if not TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, name: str, *, type_checking: bool) -> set[str]:
    """The buildver modules the module ``name`` at ``path`` imports, wherever the import stands: ``import``,
    ``from``, relative ``from``, and a module named in a string (``importlib.import_module("buildver.x")``, the
    command table's ``"buildver.cli.show:show"``); under TYPE_CHECKING only when asked."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for guard in ast.walk(tree)
        if isinstance(guard, ast.If) and _is_type_checking(guard.test)
        for statement in guard.body
        for node in ast.walk(statement)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only and not type_checking:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if not base.startswith("buildver"):
                continue
            names = {alias.name for alias in node.names}
            if base != "buildver" or not names <= ROOT_NAMES:
                found.add(base)
            found.update(f"{base}.{alias}" for alias in names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("buildver"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and not type_checking:
            match = _MODULE_STRING.fullmatch(node.value.split(":", 1)[0])
            if match is not None:
                found.add(match.group())
    return found


def _graph(*, type_checking: bool) -> dict[str, list[str]]:
    graph = {
        name: sorted(_imports(path, name, type_checking=type_checking) & MODULES.keys() - {name})
        for name, path in MODULES.items()
    }
    # Importing a module runs its packages' __init__ first: a module naming its own wing's package is not an
    # edge. buildver's own face is not such a package: what may come from it is ROOT_NAMES.
    return {name: [d for d in deps if d == "buildver" or not name.startswith(d + ".")] for name, deps in graph.items()}


def upward_imports(graph: dict[str, list[str]]) -> list[str]:
    """Every import of a module from a wing above its own, as ``module (wing) -> module (wing)``."""
    return [
        f"{name} ({wing_of(name)}) -> {dependency} ({wing_of(dependency)})"
        for name, dependencies in sorted(graph.items())
        for dependency in dependencies
        if WINGS.index(wing_of(dependency)) > WINGS.index(wing_of(name))
    ]


def cycles(graph: dict[str, list[str]]) -> list[str]:
    """Every import cycle found by a depth-first walk, as ``a -> b -> a``."""
    found = []
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for dependency in graph[name]:
            if state.get(dependency) == "open":
                found.append(" -> ".join([*trail[trail.index(dependency) :], dependency]))
            elif dependency not in state:
                visit(dependency, [*trail, dependency])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def test_every_module_belongs_to_a_known_wing() -> None:
    assert {wing_of(name) for name in MODULES} == set(WINGS)


def test_imports_run_down_the_wings_only() -> None:
    assert upward_imports(_graph(type_checking=True)) == []


def test_the_package_import_graph_has_no_cycle() -> None:
    assert cycles(_graph(type_checking=False)) == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"buildver.versions.config": ["buildver.stamp.rules"], "buildver.stamp.rules": []}, 1),
        ({"buildver.cli.show": ["buildver.versions.report"], "buildver.versions.report": ["buildver.text"]}, 0),
        ({"buildver.errors": ["buildver.versions.engine_version"], "buildver.versions.engine_version": []}, 1),
        ({"buildver.packages.reader": ["buildver.projects.check"], "buildver.projects.check": []}, 1),
    ],
)
def test_the_wing_check_finds_an_upward_import(graph: dict[str, list[str]], expected: int) -> None:
    assert len(upward_imports(graph)) == expected


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert cycles(graph) == ["a -> b -> c -> a"]


def _typed_names(face: str) -> dict[str, str]:
    """What the face imports under TYPE_CHECKING: each public name and the module it is taken from."""
    path = MODULES[face]
    names = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                names.update({alias.name: statement.module or "" for alias in statement.names})
    return names


@pytest.mark.parametrize("face", FACES)
def test_a_face_lists_for_type_checkers_what_it_gives_at_run_time(face: str) -> None:
    module = importlib.import_module(face)
    typed = _typed_names(face)
    lazy = _lazy_names(face)
    eager = {name for name in module.__all__ if name not in typed}
    if typed:  # a lazy face: its type-checking imports, its run-time table and __all__ agree
        assert sorted(module.__all__) == sorted(typed)
        assert lazy == set(typed)
    assert all(name in vars(module) for name in eager)
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_resolves_and_comes_from_its_wing_or_one_below(face: str) -> None:
    module = importlib.import_module(face)
    typed = _typed_names(face)
    for name in module.__all__:
        value = getattr(module, name)
        if name in typed:
            assert value is getattr(importlib.import_module(typed[name]), name), name
        defined_in = getattr(value, "__module__", None)
        if (inspect.isclass(value) or inspect.isfunction(value)) and face != "buildver":
            assert defined_in is not None
            assert WINGS.index(wing_of(defined_in)) <= WINGS.index(wing_of(face)), (name, defined_in)


def _lazy_names(face: str) -> set[str]:
    """The names of the face's run-time table (the dict given to ``_lazy_face``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[face].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_lazy_face":
            table = node.args[1]
            assert isinstance(table, ast.Dict)
            names.update(str(key.value) for key in table.keys if isinstance(key, ast.Constant))
    return names


@pytest.mark.parametrize("face", FACES)
def test_an_unknown_name_is_an_attribute_error(face: str) -> None:
    module = importlib.import_module(face)
    with pytest.raises(AttributeError, match="no attribute 'not_public'"):
        _ = module.not_public


def test_buildver_face_serves_the_docs_python_examples() -> None:
    import buildver

    version = buildver.EngineVersion.parse("5.3.2-29314046+++UE5+Release-5.3")
    assert version.is_compatible_with("5.3.0-27405482+++UE5+Release-5.3")
    assert buildver.check_project.__module__ == "buildver.projects.check"
    assert buildver.read_package_summary.__module__ == "buildver.packages.reader"
    assert buildver.current_engine_version.__module__ == "buildver.projects.place"
