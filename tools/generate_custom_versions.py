"""Generate buildver's table of the custom versions an Unreal Engine release registers.

Unreal's linker refuses a package that carries a custom version newer than the one the running engine registers
("Package was saved with a newer custom version than the current", ``LinkerLoad.cpp``). buildver checks that from
``buildver/packages/custom_version_tables.py``; this script makes that module's table for one release from the
engine's own source code, so that adding the next release is one command.

It reads an engine source tree (a folder holding ``Engine/Source``: a clone, a ``git worktree``, or an extracted
``git archive``) and finds every ``FCustomVersionRegistration`` and ``FDevVersionRegistration`` the engine's modules
make (``Engine/Source``, without ``ThirdParty`` and ``Programs``: plugins register their own, and buildver leaves a
custom version that the engine itself does not register undecided). For each one it resolves the GUID (a
``const FGuid X::GUID(0x..., 0x..., 0x..., 0x...)`` definition, a braced or string initializer, a local constant)
and the version (an enum's ``LatestVersion = VersionPlusOne - 1`` or any enum member or integer constant, the
enum's entries counted as the compiler does, ``.inl`` X-macro lists included) and prints the table::

    python tools/generate_custom_versions.py ENGINE_ROOT                     # print the release's table
    python tools/generate_custom_versions.py ENGINE_ROOT --update \\
        --source "owner/repository@commit (5.5.1)"                           # write it into the module

The reader is buildver's own (:mod:`buildver.packages.tree_tables` over :mod:`buildver.packages.cpp_source`), the
one that reads a studio's engine, plugins and game at run time: only the files holding ``VersionRegistration`` are
parsed, with the headers they include that name what they use.

The release is read from ``ENGINE_ROOT/Engine/Build/Build.version`` (``--release 5.5`` when the tree lacks it).
Only the C++ headers and sources are needed; from a fetched mirror::

    git -C MIRROR archive COMMIT -- Engine/Build/Build.version ':(glob)Engine/Source/**/*.h' \\
        ':(glob)Engine/Source/**/*.cpp' ':(glob)Engine/Source/**/*.inl' | tar -x -C /tmp/engine-5.5

A registration the script cannot resolve, or a GUID registered twice with different versions, is reported on
stderr and makes it exit 1 without printing or writing a table: a release's table holds every registration of its
engine, or the release is not in the module at all. A registration whose version is computed when the engine runs
(4.19-4.21's ``ShaderCacheGameVersion``, the engine's changelist) is left out, and said so: buildver leaves it
undecided. ``docs/package-rules.md`` §4 lists the releases, their sources and the ones not confirmed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from buildver.packages.cpp_source import Registration
from buildver.packages.tree_tables import SourceRoot, list_tree, read_tables

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_MODULE = REPOSITORY / "buildver" / "packages" / "custom_version_tables.py"
MAX_SOURCE = 90
"""Longest ``--source``: the module's lines stay within the project's 120 columns, as ruff formats them."""


def scan_engine(root: Path) -> Report:
    """Every custom version the engine's own modules register (buildver's reader), and what could not be resolved."""
    if not (root / "Engine" / "Source").is_dir():
        raise SystemExit(f"{root}: no Engine/Source folder (give the engine's root folder)")
    roots = [SourceRoot(root, "engine")]
    tables = read_tables(roots, listing=list_tree(roots, plugins=False))
    registrations = [
        Registration(entry.guid, entry.name, entry.version, entry.where) for entry in tables.custom_versions.values()
    ]
    return Report(registrations, [*tables.problems, *tables.undecided.values()], list(tables.notes))


@dataclass
class Report:
    registrations: list[Registration]
    problems: list[str]
    """Registrations that could not be resolved, GUIDs registered twice differently: the table would be wrong."""
    notes: list[str] = field(default_factory=list)
    """Registrations left out on purpose (a version only known at run time): buildver leaves them undecided."""

    def table(self) -> dict[str, tuple[str, int]]:
        return {r.guid: (r.friendly_name, r.version) for r in sorted(self.registrations, key=lambda r: r.guid)}


def read_release(root: Path) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` from ``Engine/Build/Build.version``, or None when the tree lacks it."""
    try:
        data = json.loads((root / "Engine" / "Build" / "Build.version").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    return int(data["MajorVersion"]), int(data["MinorVersion"]), int(data.get("PatchVersion", 0))


# -- the module ------------------------------------------------------------------------------------------------

Release = tuple[int, int]
Table = dict[str, tuple[str, int]]


def load_module(path: Path) -> tuple[dict[Release, Table], dict[Release, str]]:
    """The tables and sources already in the generated module (empty when it does not exist yet)."""
    if not path.exists():
        return {}, {}
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # our own generated module
    tables = namespace["CUSTOM_VERSION_TABLES"]
    sources = namespace["SOURCES"]
    if not isinstance(tables, dict) or not isinstance(sources, dict):
        raise SystemExit(f"{path}: no CUSTOM_VERSION_TABLES and SOURCES dictionaries")
    return dict(tables), dict(sources)


MODULE_HEADER = '''\
"""The custom versions each Unreal Engine release registers: GUID -> (friendly name, latest version).

Generated by ``tools/generate_custom_versions.py`` from the engine's own sources (``Engine/Source``, without
``ThirdParty`` and ``Programs``), one release at a time; do not edit by hand. ``SOURCES`` names the mirror and commit
each release was read from, and ``docs/package-rules.md`` §4 lists the releases that could not be confirmed. A
release missing here gets no custom-version check (``buildver.packages.engine_custom_versions``).
"""

from __future__ import annotations

__all__ = ["CONFIRMED_RELEASES", "CUSTOM_VERSION_TABLES", "SOURCES"]

'''


def render_module(tables: dict[Release, Table], sources: dict[Release, str]) -> str:
    """The whole module, laid out as ruff formats it."""
    lines = [MODULE_HEADER.rstrip("\n"), "", "SOURCES: dict[tuple[int, int], str] = {"]
    lines += [f"    {release!r}: {json.dumps(sources[release])}," for release in sorted(sources)]
    lines += ["}", '"""Where each release\'s table was read: repository@commit (the release it is)."""', ""]
    lines.append("CUSTOM_VERSION_TABLES: dict[tuple[int, int], dict[str, tuple[str, int]]] = {")
    lines += [render_release(release, tables[release]) for release in sorted(tables)]
    lines += [
        "}",
        "",
        "CONFIRMED_RELEASES: tuple[tuple[int, int], ...] = tuple(sorted(CUSTOM_VERSION_TABLES))",
        '"""The releases whose table was read from a whole engine tree."""',
        "",
    ]
    return "\n".join(lines)


def render_release(release: Release, table: Table) -> str:
    """One release's entry of ``CUSTOM_VERSION_TABLES``, GUIDs sorted."""
    lines = [f"    {release!r}: {{"]
    lines += [
        f"        {json.dumps(guid)}: ({json.dumps(name)}, {version}),"
        for guid, (name, version) in sorted(table.items())
    ]
    lines.append("    },")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; exit 1 when a registration could not be resolved (nothing is written then)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("root", type=Path, help="the engine's root folder (holding Engine/Source)")
    parser.add_argument("--release", help="MAJOR.MINOR, when the tree has no Engine/Build/Build.version")
    parser.add_argument("--source", help='where the tree came from, for the module: "owner/repository@commit (5.5.1)"')
    parser.add_argument(
        "--update",
        nargs="?",
        const=DEFAULT_MODULE,
        type=Path,
        metavar="MODULE",
        help=f"write the table into MODULE (default {DEFAULT_MODULE.relative_to(REPOSITORY)})",
    )
    arguments = parser.parse_args(argv)

    found = read_release(arguments.root)
    if arguments.release:
        major, _, minor = arguments.release.partition(".")
        if not (major.isdigit() and minor.isdigit()):
            parser.error(f"--release {arguments.release!r}: expected MAJOR.MINOR")
        release: Release = (int(major), int(minor))
    elif found is not None:
        release = found[:2]
    else:
        parser.error("no Engine/Build/Build.version in the tree: give --release MAJOR.MINOR")
    source = None
    if arguments.update is not None:
        if not arguments.source:
            parser.error("--update needs --source (the repository@commit the tree came from)")
        patch = f"{found[0]}.{found[1]}.{found[2]}" if found is not None and found[:2] == release else None
        source = arguments.source if patch is None or patch in arguments.source else f"{arguments.source} ({patch})"
        if len(source) > MAX_SOURCE:
            parser.error(f"the source {source!r} is longer than {MAX_SOURCE} characters: notes go to the docs")

    report = scan_engine(arguments.root)
    for message in [*report.notes, *report.problems]:
        print(f"generate_custom_versions: {message}", file=sys.stderr)
    table = report.table()
    print(f"# {release[0]}.{release[1]}: {len(table)} custom versions registered", file=sys.stderr)
    if report.problems:
        print("generate_custom_versions: not written: teach this script the forms above", file=sys.stderr)
        return 1
    if arguments.update is None or source is None:
        print(render_release(release, table))
        return 0
    tables, sources = load_module(arguments.update)
    tables[release] = table
    sources[release] = source
    arguments.update.write_text(render_module(tables, sources), encoding="utf-8")
    print(f"generate_custom_versions: wrote {release[0]}.{release[1]} into {arguments.update}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
