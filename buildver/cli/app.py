"""The ``buildver`` command line: thin typer commands over the library; the only module that prints or exits.

Start-up time matters (build machines and pre-commit run this on every build and commit), so library modules
other than the small core are imported inside the commands that use them.

No ``from __future__ import annotations`` here: typer would then evaluate every option's annotation from its
text at each start (about 5 ms for update-local); real annotation objects are read directly.
"""

import sys
import warnings
from typing import Annotated, TextIO

import typer

from buildver.cli.common import (
    new_app,
    print_error,
    print_warning,
)
from buildver.errors import BuildverError

# Each command's module is imported only when that command runs: typer builds every option of a module's
# commands when it is imported, and build machines and pre-commit start buildver on every build and commit.
_COMMANDS = {
    "show": "buildver.cli.show:show",
    "compare": "buildver.cli.compare:compare",
    "compatible": "buildver.cli.compare:compatible",
    "update-local": "buildver.cli.update:update_local",
    "header": "buildver.cli.update:header_command",
    "init": "buildver.cli.init:init",
    "bump": "buildver.cli.bump:bump",
    "engine": "buildver.cli.engine:engine",
    "engines": "buildver.cli.engine:engines",
    "guard": "buildver.cli.guard:guard",
}
_ENGINE_ACTIONS = ("register", "switch")
"""Sub-commands of ``engine`` beside its positional PROJECT: ``engine register``, ``engine switch``."""
_ENGINE_ACTIONS_APP = "buildver.cli.engine:engine_actions_app"
_SUB_APPS = {
    "assets": "buildver.cli.assets:assets_app",
    "data": "buildver.cli.data:data_app",
    "project": "buildver.cli.project:project_app",
}


COMPLETION_VARIABLE = "_BUILDVER_COMPLETE"
"""Set by the completion script that ``--show-completion`` prints, when the shell asks for completions."""

_COMPLETION_OPTIONS = ("--show-completion", "--install-completion")
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
"""The shells typer writes completion scripts for."""


def names_a_shell(arguments: list[str]) -> bool:
    """Whether a completion option is given a shell (``--show-completion zsh``, ``--install-completion=fish``).

    typer's own options detect the running shell and take no value, so that ``zsh`` after them was never read
    and bash's script came out of bash; a run that names a shell gets options that take it (``build_app``).
    """
    for index, argument in enumerate(arguments):
        if argument.startswith(tuple(f"{option}=" for option in _COMPLETION_OPTIONS)):
            return True
        if argument in _COMPLETION_OPTIONS:
            return index + 1 < len(arguments) and not arguments[index + 1].startswith("-")
    return False


def build_app(arguments: list[str]) -> typer.Typer:
    """The typer app with the command that ``arguments`` ask for, or with every command for help or a typo.

    typer builds the options of every registered command at each start (about 1 ms each, 15 ms in all on the
    benchmark machine), so a run registers only the command it runs. The completion options come with the whole
    app: only when no known command is asked for (``buildver --show-completion``, the main help) or while the
    shell asks for completions, so that a command run pays nothing for them.
    """
    import os

    wanted = next((argument for argument in arguments if not argument.startswith("-")), None)
    known = wanted in _COMMANDS or wanted in _SUB_APPS
    completing = COMPLETION_VARIABLE in os.environ
    shell_named = not completing and not known and names_a_shell(arguments)
    app = new_app(
        "Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules.",
        "buildver",
        completion=(completing or not known) and not shell_named,
    )
    # A callback keeps the app a group even with a single command registered; it holds --version (and, when a
    # shell is named, the completion options that take it).
    app.callback()(_group_for_a_named_shell if shell_named else _group)
    if arguments == ["--version"] and not completing:
        names: list[str] = []
    else:
        names = [wanted] if wanted is not None and known and not completing else [*_COMMANDS, *_SUB_APPS]
    import importlib

    for name in names:
        module, attribute = (_COMMANDS.get(name) or _SUB_APPS[name]).split(":")
        if name == "engine" and _engine_action(arguments):
            module, attribute = _ENGINE_ACTIONS_APP.split(":")
        command = getattr(importlib.import_module(module), attribute)
        if name in _COMMANDS and not isinstance(command, typer.Typer):
            app.command(name)(command)
        else:
            app.add_typer(command, name=name)
    return app


def _engine_action(arguments: list[str]) -> bool:
    """Whether ``arguments`` run ``engine register`` or ``engine switch`` rather than ``engine [PROJECT]``: the word
    right after ``engine`` names the action (``buildver engine ./switch`` is a project folder named ``switch``)."""
    words = [argument for argument in arguments if not argument.startswith("-")]
    return len(words) > 1 and words[0] == "engine" and words[1] in _ENGINE_ACTIONS


def _print_version(value: bool) -> None:
    """``--version``: ``buildver.__version__``, from which the package's metadata takes its version (pyproject.toml)
    (reading the metadata instead costs about 10 ms, importlib.metadata)."""
    if not value:
        return
    from buildver import __version__

    print(f"buildver {__version__}")
    raise typer.Exit()


def _group(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print buildver's version and exit."),
    ] = False,
) -> None:
    """Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules."""


def _complete_for(ctx: typer.Context, param: typer.CallbackParam, shell: str | None) -> None:
    """``--show-completion SHELL`` and ``--install-completion SHELL``: typer's own actions, for the shell named."""
    if shell is None or ctx.resilient_parsing:
        return
    if shell not in SHELLS:
        raise typer.BadParameter(f"{shell!r} is not one of {', '.join(SHELLS)}")
    from typer.completion import install_callback, show_callback

    (show_callback if param.name == "show_completion" else install_callback)(ctx, param, shell)  # they exit


def _group_for_a_named_shell(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print buildver's version and exit."),
    ] = False,
    show_completion: Annotated[
        str | None,
        typer.Option(
            "--show-completion",
            callback=_complete_for,
            is_eager=True,
            metavar="SHELL",
            help="Show completion for SHELL, to copy it or customize the installation.",
            show_default=False,
        ),
    ] = None,
    install_completion: Annotated[
        str | None,
        typer.Option(
            "--install-completion",
            callback=_complete_for,
            is_eager=True,
            metavar="SHELL",
            help="Install completion for SHELL.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Unreal-style build versions: Build.version, UpdateLocalVersion, FEngineVersion rules."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every BuildverError and usage error becomes one ``buildver: error:`` line and an exit code,
    every BuildverWarning one ``buildver: warning:`` line; Ctrl-C one line and exit 130; any other exception one
    line, a crash report and exit 70 (``buildver.cli.failure``)."""
    from buildver.cli.failure import INTERRUPTED_EXIT_CODE, Interrupted, handle_interrupts, interrupted_message

    previous = warnings.showwarning
    warnings.showwarning = _show_warning
    restore = handle_interrupts()
    try:
        return _main(argv)
    except (Interrupted, KeyboardInterrupt):
        print_error(interrupted_message())
        return INTERRUPTED_EXIT_CODE
    finally:
        restore()
        warnings.showwarning = previous


def _main(argv: list[str] | None) -> int:
    import os

    try:
        os.getcwd()
    except FileNotFoundError:  # every command looks for files from here
        print_error("the current folder no longer exists; change to a folder that does")
        return 1
    try:
        arguments = sys.argv[1:] if argv is None else argv
        ignored: list[str] = []
        if "update-local" in arguments:  # only update-local takes UAT's spelling: other commands skip the import
            from buildver.stamp.uat_arguments import translate_unreal_arguments

            arguments, ignored = translate_unreal_arguments(arguments)
        if ignored:
            from buildver.cli.common import echo

            echo(f"buildver: note: UAT's {' '.join(ignored)} has no effect here", err=True)
        if not arguments or (len(arguments) == 1 and arguments[0] in _SUB_APPS):
            arguments = [*arguments, "--help"]
        result = build_app(arguments)(args=arguments, prog_name="buildver", standalone_mode=False)
    except BuildverError as exc:
        print_error(str(exc) + _command_line_hint(exc))
        return exc.exit_code
    except typer.Abort:
        print_error("aborted")
        return 1
    except typer.TyperException as exc:
        # typer's vendored click raises UsageError/BadParameter (exit 2) and ClickException (exit 1).
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        print_error(message)
        return int(getattr(exc, "exit_code", 2))
    except SystemExit as exc:
        # typer's completion options and the shell's completion requests end with sys.exit.
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except OSError as exc:
        if exc.filename is not None:
            # A file or folder the library did not expect to lose (the current folder removed, say).
            print_error(f"{exc.filename}: {exc.strerror or exc}")
            return 1
        # Otherwise the output failed (a full disk, a closed pipe): every file is written through buildver.changes,
        # which reports its own errors. Later writes to stdout go nowhere instead of failing again.
        _silence_stdout()
        if not isinstance(exc, BrokenPipeError):
            print_error(f"cannot write the output ({exc.strerror or exc})")
        return 1
    except Exception as exc:
        # A bug: one line naming the crash report, which holds what a maintainer needs (versions, command, traceback).
        from buildver.cli.failure import CRASH_EXIT_CODE, crash_message, write_crash_report

        print_error(crash_message(exc, write_crash_report(exc, sys.argv[1:] if argv is None else argv)))
        return CRASH_EXIT_CODE
    return result if isinstance(result, int) else 0


_SHOW_PYTHON_WARNING = warnings.showwarning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """buildver's own warnings as one ``buildver: warning:`` line; any other as Python shows it."""
    from buildver.errors import BuildverWarning

    if issubclass(category, BuildverWarning):
        print_warning(str(message))
    else:
        _SHOW_PYTHON_WARNING(message, category, filename, lineno, file, line)


def _command_line_hint(exc: BuildverError) -> str:
    """What the command line adds to the library's message: the flags and commands that help."""
    from buildver.errors import NoVersionFileError

    if isinstance(exc, NoVersionFileError):
        return "; pass --file PATH, or create one with: buildver init --version MAJOR.MINOR.PATCH"
    return ""


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
