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
    Any other ``-Name`` is a UsageError naming it.
    """
    if "update-local" not in argv:
        return argv, []
    start = argv.index("update-local") + 1
    translated = argv[:start]
    ignored: list[str] = []
    seen: set[str] = set()
    takes_value = False
    for argument in argv[start:]:
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
            takes_value = argument in _VALUE_OPTIONS and not takes_value
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
        if key in seen:
            continue
        if key in _UNREAL_FLAGS:
            seen.add(key)
            translated.append(_UNREAL_PARAMETERS[key])
        elif equals:
            # ParseParamValue looks for the first "Name=": a bare "-Name" before it is not a value.
            seen.add(key)
            translated += [_UNREAL_PARAMETERS[key], value]
    return translated, ignored
