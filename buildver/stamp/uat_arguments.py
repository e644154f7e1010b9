"""Unreal's UpdateLocalVersion command line (``-CL=123 -Licensee``) turned into buildver's options.

Sources: UAT's ``CommandUtils.ParseParam``/``ParseParamValue`` and the global switches that AutomationTool
takes before any command (``docs/unreal-rules.md``, "UAT's command line").
"""

from __future__ import annotations

import re

from buildver.errors import UsageError

__all__ = ["ENVIRONMENT_ARGUMENT", "UAT_GLOBAL_SWITCHES", "translate_unreal_arguments"]

ENVIRONMENT_ARGUMENT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)", re.DOTALL)
"""``NAME=VALUE``: AutomationTool sets an argument without a leading ``-`` that holds ``=`` as a variable."""

UAT_GLOBAL_SWITCHES = frozenset(
    name.lower()
    for name in (
        # Registered in AutomationTool's command line from 4.23 to 5.6 (AutomationUtils/Automation.cs, then
        # Program.cs), each accepted in every version here: a build script written for one engine keeps working.
        "CompileOnly",
        "Verbose",
        "VeryVerbose",
        "TimeStamps",
        "Submit",
        "NoSubmit",
        "NoP4",
        "P4",
        "Compile",
        "NoCompile",
        "NoCompileEditor",
        "IgnoreDependencies",
        "Help",
        "List",
        "NoKill",
        "UTF8Output",
        "AllowStdOutLogVerbosity",
        "NoAutoSDK",
        "UseLocalBuildStorage",
        "IgnoreBuildRecords",
        "WaitForDebugger",
        "BuildMachine",
        "WaitForUATMutex",
        "WaitForStdStreams",
        # Taken by the RunUAT scripts and ignored by AutomationTool (5.x).
        "msbuild-verbose",
        "NoCompileUAT",
        # Globals with a value, and P4Environment's own (-p4port=, -p4user=).
        "ScriptsForProject",
        "ScriptDir",
        "profile",
        "Telemetry",
        "p4port",
        "p4user",
        # Documented in 4.25's help though not registered.
        "IgnoreJunk",
    )
)
"""AutomationTool's global switches (with or without ``=value``): accepted, and without effect here."""


# Unreal's UpdateLocalVersion spelling (-CL=123 -SkipHeader ...), matched case-insensitively as UAT does.
_UNREAL_PARAMETERS = {
    "cl": "--cl",
    "compatiblecl": "--compatible-cl",
    "build": "--build",
    "skipheader": "--skip-header",
    "licensee": "--licensee",
    "promoted": "--promoted",
    "branch": "--branch",
}
_UNREAL_FLAGS = {"skipheader", "licensee"}
# buildver's own options that take a value: the argument after one of them is a value, never a UAT switch.
_VALUE_OPTIONS = {
    "-f",
    "--file",
    "--cl",
    "--compatible-cl",
    "--build",
    "--header",
    "--promoted",
    "--branch",
    "--depot-path",
    "--build-id",
    "--rules",
    "--env",
}
# buildver's own short flags, passed through as they are.
_OWN_FLAGS = {"-h"}


def translate_unreal_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """Turn ``update-local -CL=123 -Licensee -Promoted=1`` into buildver's ``--cl 123 --licensee --promoted 1``.

    UAT's own parsing rules apply (ParseParam, ParseParamValue): names match case-insensitively, the first
    ``-Name=value`` wins, ``-CL`` or ``-Branch`` without ``=`` is no value at all (a later ``-CL=5`` still counts),
    ``-Licensee=anything`` counts as ``-Licensee``, and ``-Promoted`` without a value means the default, 1.
    UAT's global switches (``-NoP4``, ``-Verbose`` …) are dropped; the second list names them, for a note.
    ``NAME=VALUE``, which UAT sets as an environment variable for the run, becomes ``--env NAME=VALUE``.
    A UsageError names any other ``-Name``, a value given after a space (``-CL 5``: UAT would read ``5`` as the
    name of another command; ``-CL=5`` is meant), and a UAT parameter and a buildver option that set the same
    value differently (``-CL=5 --cl 6``).
    """
    if "update-local" not in argv:
        return argv, []
    start = argv.index("update-local") + 1
    translated = argv[:start]
    ignored: list[str] = []
    seen: dict[str, tuple[str, str | None]] = {}  # UAT's parameter: as written, and its value (None: a flag)
    given: list[tuple[str, str | None, str]] = []  # buildver's arguments: the option, its value, as written
    takes_value = False
    arguments = argv[start:]
    for index, argument in enumerate(arguments):
        if not takes_value and ENVIRONMENT_ARGUMENT.fullmatch(argument):
            translated += ["--env", argument]
            continue
        if (
            takes_value
            or not argument.startswith("-")
            or argument.startswith("--")
            or argument in _VALUE_OPTIONS
            or argument in _OWN_FLAGS
        ):
            if takes_value:  # the value of the option before it
                option = given[-1][0]
                given[-1] = (option, argument, f"{option} {argument}")
                takes_value = False
            else:
                option, equals, value = argument.partition("=")
                given.append((option, value if equals else None, argument))
                takes_value = argument in _VALUE_OPTIONS
            translated.append(argument)
            continue
        name, equals, value = argument[1:].partition("=")
        key = name.lower()
        if key in UAT_GLOBAL_SWITCHES:
            ignored.append(argument)
            continue
        if key not in _UNREAL_PARAMETERS:
            raise UsageError(
                f"update-local: unknown parameter {argument!r} (neither a buildver option nor one of "
                "UpdateLocalVersion's: -CL= -CompatibleCL= -Build= -SkipHeader -Licensee -Promoted= -Branch=)"
            )
        following = arguments[index + 1] if index + 1 < len(arguments) else None
        if (
            key not in _UNREAL_FLAGS
            and not equals
            and following is not None
            and not following.startswith("-")
            and not ENVIRONMENT_ARGUMENT.fullmatch(following)
        ):
            raise UsageError(
                f"update-local: {argument} {following}: UAT's parameters take their value after '=': "
                f"{argument}={following}"
            )
        if key in seen:
            continue
        if key in _UNREAL_FLAGS:
            seen[key] = (argument, None)
            translated.append(_UNREAL_PARAMETERS[key])
        elif equals:
            # ParseParamValue looks for the first "Name=": a bare "-Name" before it is not a value.
            seen[key] = (argument, value)
            translated += [_UNREAL_PARAMETERS[key], value]
    _refuse_disagreements(seen, given)
    return translated, ignored


def _refuse_disagreements(seen: dict[str, tuple[str, str | None]], given: list[tuple[str, str | None, str]]) -> None:
    """A UsageError when a UAT parameter and a buildver option set one value differently: neither may win silently."""
    for key, (unreal, value) in seen.items():
        option = _UNREAL_PARAMETERS[key]
        for name, own_value, written in given:
            differs = (
                name == "--no-licensee"
                if key == "licensee"
                else name == option and value is not None and own_value is not None and own_value != value
            )
            if differs:
                raise UsageError(f"update-local: {unreal} and {written} disagree; give one of them")
