"""``buildver compare`` and ``buildver compatible``: GetNewest and IsCompatibleWith on two versions; thin.

Registered by ``buildver.cli.app`` and imported only when this command runs. No ``from __future__ import
annotations``: typer reads the real annotation objects, instead of evaluating their text at each start.
"""

from typing import Annotated

import typer

from buildver.cli.common import (
    JsonFlag,
    echo,
    parse_version,
    print_json,
)
from buildver.versions.engine_version import EngineVersion, VersionComparison

FirstVersion = Annotated[
    EngineVersion,
    typer.Argument(
        parser=parse_version, metavar="FIRST", help="The first version: MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"
    ),
]
SecondVersion = Annotated[
    EngineVersion,
    typer.Argument(
        parser=parse_version, metavar="SECOND", help="The second version: MAJOR.MINOR.PATCH[-CHANGELIST][+BRANCH]"
    ),
]


COMPARE_EXIT_CODES = {VersionComparison.NEITHER: 0, VersionComparison.FIRST: 11, VersionComparison.SECOND: 12}


def compare(first: FirstVersion, second: SecondVersion, json_output: JsonFlag = False) -> None:
    """Tell which of two engine versions is newer, by which component and rule (Unreal's GetNewest).

    Exit 0 when neither is newer, 11 when the first is, 12 when the second is.
    """
    from buildver.versions.comparison import compare_versions

    comparison = compare_versions(first, second)
    if json_output:
        print_json(comparison.to_json(), "compare")
    else:
        echo(comparison.sentence())
    raise typer.Exit(COMPARE_EXIT_CODES[comparison.newer])


def compatible(first: FirstVersion, second: SecondVersion, json_output: JsonFlag = False) -> None:
    """Exit 1 when the first version refuses data saved by the second for its engine version (IsCompatibleWith), else
    0; say why, and, between different releases, that each package's object and custom versions still decide."""
    from buildver.versions.comparison import check_compatibility

    compatibility = check_compatibility(first, second)
    if json_output:
        print_json(compatibility.to_json(), "compatible")
    else:
        echo(compatibility.sentence())  # a result either way: stdout; the exit code tells the two apart
    if not compatibility.compatible:
        raise typer.Exit(1)
