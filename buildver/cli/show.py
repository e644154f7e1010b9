"""``buildver show``: the Build.version's fields, as text, JSON or NAME=value lines; thin, printing only.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

import enum
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from buildver.cli.common import (
    FileOption,
    print_json,
)
from buildver.text import printable

if TYPE_CHECKING:
    from buildver.projects.game import GameProject
    from buildver.projects.plugin_version import PluginVersion
    from buildver.versions.build_version import VersionFile


class OutputFormat(enum.Enum):
    """How ``show`` prints: a summary for people, one JSON document, or NAME=value lines."""

    TEXT = "text"
    JSON = "json"
    ENV = "env"


def _complete_field(incomplete: str) -> list[str]:
    from buildver.projects.game import GAME_FIELD_NAMES
    from buildver.projects.plugin_version import PLUGIN_FIELD_NAMES
    from buildver.versions.report import FIELD_NAMES

    known = (*FIELD_NAMES, *GAME_FIELD_NAMES, *PLUGIN_FIELD_NAMES)
    return [name for name in known if name.lower().startswith(incomplete.lower())]


def show(
    file: FileOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document (as --format json).")] = False,
    output_format: Annotated[
        OutputFormat | None,
        typer.Option(
            "--format",
            help="text: a summary; json: one document; env: NAME=value lines for eval or $GITHUB_ENV.",
            show_default=False,
        ),
    ] = None,
    fields: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            metavar="NAME",
            help="Only this field (a JSON key, any case; repeatable): in text, its bare value on a line.",
            autocompletion=_complete_field,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show the Build.version: its fields and the engine versions Unreal derives from them; in a game project, the
    engine the project uses and the game's own versions (ProjectVersion, Android's version codes and name, iOS's
    VersionInfo), with or without a Build.version of the game's own; in a plugin's own repository, the .uplugin's
    Version and VersionName."""
    from buildver.errors import FieldNotFoundError
    from buildver.versions.report import FIELD_NAMES, describe_version_file, environment_lines, value_lines
    from buildver.versions.report import show_fields as all_fields

    if json_output and output_format not in (None, OutputFormat.JSON):
        raise typer.BadParameter(f"--json and --format {output_format.value} disagree", param_hint="'--format'")
    chosen = OutputFormat.JSON if json_output else output_format or OutputFormat.TEXT
    names = _field_names(fields or [], FIELD_NAMES)
    version_file, game, plugin = _what_to_show(file)
    game_fields = {} if game is None else game.fields()
    plugin_fields = {} if plugin is None else plugin.to_json()
    folded = {name.lower(): name for name in (*game_fields, *plugin_fields)}
    names = [folded.get(name.lower(), name) for name in names]
    for name in names:
        if name in game_fields and game_fields[name].value is None:
            assert game is not None
            raise FieldNotFoundError(f"{game.project}: no {name} here: {game_fields[name].rule}")
        if name in game_fields or name in plugin_fields or (name in FIELD_NAMES and version_file is not None):
            continue
        if plugin is not None:
            why = "the repository keeps no Build.version" if name in FIELD_NAMES else "a plugin's own repository"
            raise FieldNotFoundError(f"{plugin.path}: no {name} here ({why}; the plugin's own: Version, VersionName)")
        if game is None:
            where = "no .uproject here, at or above the folder, or below it"
            raise FieldNotFoundError(f"{version_file.path if version_file else Path.cwd()}: no {name} here ({where})")
        if name in FIELD_NAMES:
            raise FieldNotFoundError(
                f"{game.project}: no {name} here: the game keeps no Build.version of its own (buildver init --version "
                "creates one; buildver engine shows the engine's)"
            )
        raise FieldNotFoundError(f"{game.project}: no {name} here ({game.describe()})")
    if names:
        shown = {name: _value(name, game_fields, plugin_fields, version_file) for name in names}
    else:
        shown = {
            **(all_fields(version_file) if version_file is not None else {}),
            **{name: sourced.value for name, sourced in game_fields.items()},
            **plugin_fields,
        }
    source = _source(version_file, game, plugin)
    if chosen is OutputFormat.JSON:
        if game is not None and not names:
            shown["Project"] = str(game.project)
            shown["Engine"] = game.engine.to_json()
            shown["GameVersionSources"] = {name: f"{item.source}: {item.rule}" for name, item in game_fields.items()}
        if plugin is not None and not names:
            shown["Plugin"] = str(plugin.path)
        print_json(shown, "show")
    elif chosen is OutputFormat.ENV:  # a value that is not there (IOSBundleVersion off a build machine) has no line
        present = {name: value for name, value in shown.items() if value is not None}
        sys.stdout.write(environment_lines(source, present))
    elif names:
        sys.stdout.write(value_lines(source, [(name, shown[name]) for name in names]))
    else:
        if game is not None:
            sys.stdout.write(printable(f"engine: {game.engine.describe()}") + "\n")
        if version_file is not None:
            sys.stdout.write(describe_version_file(version_file))
        if game is not None:
            sys.stdout.write("".join(printable(line) + "\n" for line in game.lines()))
        if plugin is not None:
            sys.stdout.write("".join(printable(line) + "\n" for line in plugin.lines()))


def _value(
    name: str, game_fields: "dict[str, Any]", plugin_fields: dict[str, object], version_file: "VersionFile | None"
) -> object:
    """The value of one field asked for: the game's, the plugin's, else the Build.version's."""
    from buildver.versions.report import field_value

    if name in game_fields:
        return game_fields[name].value
    if name in plugin_fields:
        return plugin_fields[name]
    return field_value(_present(version_file), name)


def _what_to_show(file: Path | None) -> "tuple[VersionFile | None, GameProject | None, PluginVersion | None]":
    """The Build.version to show (``--file``, else the place's own); in a game, the game with its engine; in a
    plugin's own repository, the plugin's Version and VersionName (and a Build.version only when it keeps one).

    A game's engine is the one ``buildver.projects.place`` finds; a ``--file`` that is an engine tree's
    Build.version names the engine too. An engine that cannot be read is shown as missing, with the reason: the
    game's own versions are still worth showing.
    """
    from buildver.errors import BuildverError, ConfigError
    from buildver.projects.place import PlaceEngine, PlaceKind, find_place, place_engine
    from buildver.versions.build_version import load_build_version
    from buildver.versions.current import load_version_file

    place = find_place()
    if place.kind is PlaceKind.PLUGIN and place.plugin is not None:
        from buildver.projects.plugin_version import read_plugin_version

        plugin = read_plugin_version(place.plugin)
        if file is None and place.own_version_file is None:
            return None, None, plugin
        return load_version_file(file, config=place.config), None, plugin
    if place.kind is not PlaceKind.GAME or place.project is None:
        return load_version_file(file, config=place.config), None, None
    from buildver.projects.game import read_game_project
    from buildver.versions.engine_tree import engine_root

    version_file = None
    if file is not None:
        version_file = load_version_file(file)
    elif place.own_version_file is not None:
        version_file = load_build_version(place.own_version_file)
    names_engine = version_file is not None and engine_root(Path(version_file.path)) is not None
    try:
        engine = place_engine(place, file=version_file.path if names_engine and version_file else None)
    except ConfigError:
        raise  # a bad setting is an error in every command
    except BuildverError as exc:
        engine = PlaceEngine(None, "", missing=str(exc))
    return version_file, read_game_project(place.project, engine), None


def _present(version_file: "VersionFile | None") -> "VersionFile":
    assert version_file is not None  # checked above: a Build.version field is asked only where there is a file
    return version_file


def _source(version_file: "VersionFile | None", game: "GameProject | None", plugin: "PluginVersion | None") -> Path:
    """The file a refused value is reported against: the Build.version shown, else the game's ``.uproject``, else
    the plugin's ``.uplugin``."""
    if version_file is not None:
        return version_file.path
    if game is not None:
        return game.project
    assert plugin is not None  # a value is shown only from one of them
    return plugin.path


def _field_names(asked: list[str], build_version_names: tuple[str, ...]) -> list[str]:
    """The fields asked for, in their own spelling; a game's and a plugin's names are looked up only when one is
    asked for."""
    by_folded_name = {name.lower(): name for name in build_version_names}
    names = []
    for name in asked:
        if name.lower() not in by_folded_name:
            from buildver.projects.game import GAME_FIELD_NAMES
            from buildver.projects.plugin_version import PLUGIN_FIELD_NAMES

            by_folded_name.update({other.lower(): other for other in (*GAME_FIELD_NAMES, *PLUGIN_FIELD_NAMES)})
            if name.lower().startswith("projectversion") and name[len("projectversion") :].isalnum():
                names.append(name)  # ProjectVersion<Platform>: matched against the game's platform files
                continue
            if name.lower() not in by_folded_name:
                known = ", ".join(
                    (*build_version_names, *GAME_FIELD_NAMES, "ProjectVersion<Platform>", *PLUGIN_FIELD_NAMES)
                )
                raise typer.BadParameter(f"no field {name!r} (known: {known})", param_hint="'--field'")
        names.append(by_folded_name[name.lower()])
    return names
