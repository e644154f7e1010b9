"""Where update-local's changelist and branch come from: flags, Unreal's environment variables, CI, git.

Unreal's rules (``docs/unreal-rules.md`` §4): the changelist is ``-CL`` or ``uebp_CL``; the branch is
``-Branch`` or ``EscapePath(uebp_BuildRoot_P4)`` (before 4.18, ``uebp_BuildRoot_Escaped``). buildver adds the
Perforce changelist of Jenkins and TeamCity builds, then git, for studios without Perforce.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from buildver.errors import SourceError, UsageError
from buildver.versions.engine_version import MAX_CHANGELIST

if TYPE_CHECKING:
    from buildver.code_filter import CodeFilter
    from buildver.vcs import RepositoryState

T = TypeVar("T")

__all__ = [
    "CI_CHANGELIST_VARIABLES",
    "SOURCE_VARIABLES",
    "Sourced",
    "changelist_problem",
    "ci_branch",
    "ci_changelist",
    "escape_path",
    "find_last_code_change",
    "parse_changelist",
    "resolve_branch",
    "resolve_changelist",
    "resolve_compatible_changelist",
]


class Sourced(NamedTuple, Generic[T]):
    """A value and where it came from (for ``--dry-run`` and error messages)."""

    value: T
    source: str


def escape_path(depot_path: str) -> str:
    """Unreal's CommandUtils.EscapePath of a depot path, after P4Environment trims every trailing ``/``.

    >>> escape_path("//UE4/Release-4.19/")
    '++UE4+Release-4.19'
    >>> escape_path("//")
    ''
    """
    trimmed = depot_path.rstrip("/")
    return trimmed.replace(":", "").replace("/", "+").replace("\\", "+").replace(" ", "+")


def changelist_problem(text: str) -> str | None:
    """Why ``text`` is not a changelist from 0 to 2^31-1 (bit 31 is Unreal's licensee flag), or None.

    Only ASCII decimal digits count: no sign, no white space, no ``_``, no other script's digits (all of which
    Python's ``int`` would take).
    """
    if not (text.isascii() and text.isdigit()):
        return f"{text!r} is not a whole number from 0 to {MAX_CHANGELIST} (ASCII decimal digits only)"
    if int(text) > MAX_CHANGELIST:
        return f"{int(text)} is above {MAX_CHANGELIST} (bit 31 is Unreal's licensee flag)"
    return None


def parse_changelist(text: str, what: str) -> int:
    """A changelist from an environment variable named by ``what``; the white space a script may leave around
    the value is ignored, and anything else ``changelist_problem`` refuses is a SourceError."""
    stripped = text.strip()
    problem = changelist_problem(stripped)
    if problem:
        raise SourceError(f"{what}: {problem if stripped == text else f'{text!r}: {problem}'}")
    return int(stripped)


class Repository:
    """The git repository around a folder, read once and only when a value is actually needed."""

    def __init__(self, start: Path) -> None:
        self.start = start
        """The folder the repository is looked for from (the version file's)."""

    @functools.cached_property
    def state(self) -> RepositoryState | None:
        """The repository's state, or None outside a repository."""
        from buildver.vcs import read_repository  # only when a value comes from git: 1.7 ms otherwise spent

        return read_repository(self.start)


# CI systems that build from Perforce and name the synced changelist: (system, variable, the variable that says
# the CI runs). TeamCity's variable also holds a git commit's hash for a git root, which is not a changelist:
# only digits count there.
_CI_CHANGELIST_VARIABLES: tuple[tuple[str, str, str], ...] = (
    ("Jenkins Perforce plugin", "P4_CHANGELIST", "JENKINS_URL"),
    ("TeamCity Perforce root", "BUILD_VCS_NUMBER", "TEAMCITY_VERSION"),
)
CI_CHANGELIST_VARIABLES = tuple(variable for _, variable, _ in _CI_CHANGELIST_VARIABLES)
"""The CI variables update-local reads a Perforce changelist from, in order (after uebp_CL, before git)."""


def ci_changelist(environment: Mapping[str, str]) -> Sourced[int] | None:
    """The Perforce changelist a CI system says it synced, or None (no such CI, or not a Perforce build)."""
    for system, variable, marker in _CI_CHANGELIST_VARIABLES:
        value = environment.get(variable, "").strip()
        if not value or marker not in environment:
            continue
        if variable == "BUILD_VCS_NUMBER" and not (value.isascii() and value.isdigit()):
            continue  # a git or Mercurial root: its revision is a hash
        return Sourced(parse_changelist(value, f"environment variable {variable}"), f"{system}: {variable}")
    return None


def resolve_changelist(flag: int | None, environment: Mapping[str, str], repository: Repository) -> Sourced[int]:
    """``--cl``, else ``uebp_CL``, else a Perforce CI variable, else the number of commits reachable from HEAD."""
    if flag is not None:
        return Sourced(flag, "--cl")
    if environment.get("uebp_CL", "").strip():
        return Sourced(parse_changelist(environment["uebp_CL"], "environment variable uebp_CL"), "uebp_CL")
    from_ci = ci_changelist(environment)
    if from_ci is not None:
        return from_ci
    state = repository.state
    if state is not None:
        return Sourced(state.commit_count, f"git: commits reachable from HEAD in {state.root}")
    raise SourceError(
        "no changelist: pass --cl N (or -CL=N), set the environment variable uebp_CL, or run inside a git "
        "repository (or a Jenkins or TeamCity Perforce build)"
    )


def resolve_compatible_changelist(
    flag: int | str | None,
    environment: Mapping[str, str],
    *,
    code_changelist: bool = True,
    setting: int | str | None = None,
    last_code_change: Callable[[str], Sourced[int]] | None = None,
) -> Sourced[int] | None:
    """``--compatible-cl``, else ``uebp_CodeCL`` when ``code_changelist`` (the engines whose UAT reads it), else
    the ``compatible-changelist`` setting, else None: the rules' default applies.

    As in Unreal (``if (CompatibleChangelist > 0)``), 0 from either source means "not given". The flag or the
    setting may be ``code_filter.LAST_CODE_CHANGE``, which ``last_code_change`` computes (told where it was asked for).
    """
    if flag is not None:
        # Given, even as 0: 5.8's UpdateLocalVersion reads uebp_CodeCL only when -CompatibleCL is absent.
        return _given(flag, "--compatible-cl", last_code_change) if flag else None
    if code_changelist and environment.get("uebp_CodeCL", "").strip():
        value = parse_changelist(environment["uebp_CodeCL"], "environment variable uebp_CodeCL")
        if value:
            return Sourced(value, "uebp_CodeCL")
    if setting is not None:
        return _given(setting, "the compatible-changelist setting", last_code_change)
    return None


def _given(value: int | str, source: str, last_code_change: Callable[[str], Sourced[int]] | None) -> Sourced[int]:
    if isinstance(value, int):
        return Sourced(value, source)
    from buildver.code_filter import LAST_CODE_CHANGE  # only here: most runs give a number or nothing

    if value != LAST_CODE_CHANGE or last_code_change is None:
        raise UsageError(f"{source}: {value!r} is neither a changelist nor {LAST_CODE_CHANGE}")
    return last_code_change(source)


def find_last_code_change(
    repository: Repository,
    changelist: Sourced[int],
    code_filter: CodeFilter,
    asked_by: str,
    stamped: Iterable[Path] = (),
) -> Sourced[int]:
    """CompatibleChangelist as Unreal Game Sync computes it (``VersionToLastCodeChange``), from git: the changelist
    of the newest commit on HEAD's first-parent line that changed a code file (``code_filter``).

    The changelist must be git's own count, or the two numbers would not be in one numbering (a Perforce
    changelist beside a commit count); a repository where no commit ever changed a code file has no last code
    change, and is an error, as in UGS ("Could not find any code changes") and UAT 5.8. ``asked_by`` says where
    last-code-change was given (``--compatible-cl``, or the setting), for the value's source and for errors.

    The ``stamped`` files (Build.version, the header, MetaData.cs: what update-local writes) are never a code
    change, whatever their names: every run rewrites them from the stamp, so what a commit holds in them does not
    reach the build, and a generated header stamped and committed back would otherwise move the last code change
    at every commit.
    """
    from buildver.code_filter import LAST_CODE_CHANGE

    what = f"{LAST_CODE_CHANGE} ({asked_by})"
    state = repository.state
    if state is None:
        raise SourceError(
            f"{repository.start}: {what}: not inside a git repository; pass --compatible-cl N or set uebp_CodeCL"
        )
    advice = "pass --compatible-cl N"
    ignored = {name.casefold() for name in _repository_paths(state.root, stamped)}  # Unreal's paths ignore case
    found = state.last_change(
        lambda path: path.casefold() not in ignored and code_filter.matches(path), shallow_advice=advice
    )
    if changelist.value != state.commit_count:
        raise SourceError(
            f"{state.root}: {what}: the changelist {changelist.value} ({changelist.source}) is not the number "
            f"of commits reachable from HEAD ({state.commit_count}), so the last code change would be counted in "
            "another numbering; leave the changelist to git, or pass --compatible-cl N (or set uebp_CodeCL)"
        )
    if found is None:
        raise SourceError(
            f"{state.root}: {what}: no commit reachable from HEAD changed a code file "
            f"({code_filter.describe()}), so there is no last code change; {advice}"
        )
    return Sourced(
        found.changelist, f"last code change, by {asked_by}: commit {found.commit[:12]} changed {found.path}"
    )


def _repository_paths(root: Path, paths: Iterable[Path]) -> Iterator[str]:
    """Each of ``paths`` that lies in the repository at ``root``, as git names it (``/``-separated, from the root)."""
    top = root.resolve()
    for path in paths:
        try:
            relative = Path(os.path.relpath(path.resolve(), top))
        except ValueError:  # Windows: another drive
            continue
        if relative.parts[:1] != (os.pardir,):
            yield relative.as_posix()


def resolve_branch(
    flag: str | None,
    depot_path: str | None,
    environment: Mapping[str, str],
    repository: Repository,
    repository_name: str | None,
) -> Sourced[str]:
    """``--branch`` as given; else the escaped depot path; else ``uebp_BuildRoot_Escaped``; else git. A branch holding
    a control character (a line break from a folder's or a branch's name) is refused: it would be written into
    Build.version and the header, and every line that shows it after."""
    found = _resolve_branch(flag, depot_path, environment, repository, repository_name)
    bad = next((char for char in found.value if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0), None)
    if bad is not None:
        raise SourceError(
            f"the branch {found.value!r} ({found.source}) holds the control character {bad!r}, which Build.version "
            "and the header cannot carry on one line; pass --branch TEXT, or set repository-name"
        )
    return found


def _resolve_branch(
    flag: str | None,
    depot_path: str | None,
    environment: Mapping[str, str],
    repository: Repository,
    repository_name: str | None,
) -> Sourced[str]:
    if flag:
        return Sourced(flag, "--branch")
    if depot_path:
        return Sourced(escape_path(depot_path), "--depot-path")
    if environment.get("uebp_BuildRoot_P4"):
        return Sourced(escape_path(environment["uebp_BuildRoot_P4"]), "uebp_BuildRoot_P4")
    if environment.get("uebp_BuildRoot_Escaped"):
        return Sourced(environment["uebp_BuildRoot_Escaped"], "uebp_BuildRoot_Escaped")
    state = repository.state
    if state is None:
        raise SourceError(
            "no branch: pass --branch TEXT or --depot-path PATH, set uebp_BuildRoot_P4, or run inside a git repository"
        )
    name = repository_name or state.remote_name or state.root.name
    branch, source = (state.branch, "git: checked-out branch") if state.branch else (None, "")
    if branch is None:
        found = ci_branch(environment)
        if found is None:
            raise SourceError(
                f"{state.root}: HEAD is detached and no CI branch variable is set "
                "(GITHUB_HEAD_REF/GITHUB_REF_NAME, CI_COMMIT_REF_NAME, BRANCH_NAME/GIT_BRANCH, "
                "BUILD_SOURCEBRANCH, TeamCity's teamcity.build.branch); pass --branch TEXT"
            )
        branch, source = found
    return Sourced(escape_path(f"//{name}/{branch}"), f"{source} in repository {name!r}")


def _strip_prefix(value: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        if value.startswith(prefix):
            return value[len(prefix) :]
    return value


# Each CI's variables, in the order that names the branch being built (the pull request's source first):
# (system, variable, prefixes to strip, the variable that says the CI runs, and the value it must have or None).
_CI_BRANCH_VARIABLES: tuple[tuple[str, str, tuple[str, ...], str, str | None], ...] = (
    ("GitHub Actions", "GITHUB_HEAD_REF", (), "GITHUB_ACTIONS", "true"),
    ("GitHub Actions", "GITHUB_REF_NAME", (), "GITHUB_ACTIONS", "true"),
    ("GitLab CI", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", (), "GITLAB_CI", None),
    ("GitLab CI", "CI_COMMIT_REF_NAME", (), "GITLAB_CI", None),
    ("Azure Pipelines", "SYSTEM_PULLREQUEST_SOURCEBRANCH", ("refs/heads/",), "TF_BUILD", None),
    ("Azure Pipelines", "BUILD_SOURCEBRANCH", ("refs/heads/",), "TF_BUILD", None),
    ("Jenkins", "CHANGE_BRANCH", (), "JENKINS_URL", None),
    ("Jenkins", "BRANCH_NAME", (), "JENKINS_URL", None),
    ("Jenkins", "GIT_BRANCH", ("origin/", "refs/heads/"), "JENKINS_URL", None),
)
_UNREAL_VARIABLES = ("uebp_CL", "uebp_CodeCL", "uebp_BuildRoot_P4", "uebp_BuildRoot_Escaped")
_TEAMCITY_VARIABLES = ("TEAMCITY_VERSION", "TEAMCITY_BUILD_PROPERTIES_FILE")


def _running(environment: Mapping[str, str], marker: str, value: str | None) -> bool:
    return marker in environment if value is None else environment.get(marker) == value


def ci_branch(environment: Mapping[str, str]) -> tuple[str, str] | None:
    """The branch a CI system says it is building, with the variable it came from, or None."""
    for system, variable, prefixes, marker, marker_value in _CI_BRANCH_VARIABLES:
        value = environment.get(variable, "").strip()
        if value and _running(environment, marker, marker_value):
            return _strip_prefix(value, prefixes), f"{system}: {variable}"
    if "TEAMCITY_VERSION" in environment:
        branch = _teamcity_branch(environment)
        if branch:
            return _strip_prefix(branch, ("refs/heads/",)), "TeamCity: teamcity.build.branch"
    return None


def _teamcity_branch(environment: Mapping[str, str]) -> str | None:
    """TeamCity keeps the branch in the build's configuration properties file, not in the environment."""
    build_properties = environment.get("TEAMCITY_BUILD_PROPERTIES_FILE")
    if not build_properties:
        return None
    configuration = _read_java_properties(Path(build_properties)).get("teamcity.configuration.properties.file")
    if not configuration:
        return None
    return _read_java_properties(Path(configuration)).get("teamcity.build.branch")


def _read_java_properties(path: Path) -> dict[str, str]:
    from buildver.reading import read_regular_file  # a FIFO or device named by the environment must not hang

    try:
        lines = (read_regular_file(path) or b"").decode("utf-8", errors="replace").splitlines()
    except OSError:
        return {}
    properties: dict[str, str] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith(("#", "!")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        # Java properties escape ':', '=', '\\' and spaces with a backslash.
        properties[key.strip()] = value.strip().replace("\\:", ":").replace("\\=", "=").replace("\\\\", "\\")
    return properties


SOURCE_VARIABLES = tuple(
    dict.fromkeys(
        [
            *_UNREAL_VARIABLES,
            *(name for _, variable, marker in _CI_CHANGELIST_VARIABLES for name in (variable, marker)),
            *(name for _, variable, _, marker, _ in _CI_BRANCH_VARIABLES for name in (variable, marker)),
            *_TEAMCITY_VARIABLES,
        ]
    )
)
"""Every environment variable that changes where update-local takes its changelist and branch from."""
