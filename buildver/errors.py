"""The one error hierarchy of buildver: each class carries the exit code the CLI uses for it.

Exit codes (documented in docs/command-line.md):

- 0: success
- 1: a domain failure (an invalid file, versions not compatible, a check that found an error)
- 2: bad usage (an unknown option, a value that does not parse)
- 3: a file could not be written (read-only target, full disk, lock timeout); nothing was changed

Warnings (``BuildverWarning``) do not change the exit code: the CLI shows each as one ``buildver: warning:`` line.
"""

from __future__ import annotations

from typing import ClassVar


class BuildverError(Exception):
    """Base class of every error buildver raises on purpose; ``str(error)`` is the one-line message."""

    exit_code: ClassVar[int] = 1


class UsageError(BuildverError):
    """A command-line value that cannot be used (exit code 2)."""

    exit_code: ClassVar[int] = 2


class InvalidVersionError(BuildverError, ValueError):
    """A text that is not an Unreal engine version, or components out of Unreal's ranges."""


class VersionFileError(BuildverError):
    """A Build.version file that is missing, unreadable or invalid; the message names the file and the place."""


class NoVersionFileError(VersionFileError):
    """No file given, none configured, and no Build.version found from the folder up to the repository root."""


class VersionBackwardsError(BuildverError):
    """A version that would go backwards (``bump --set`` to an older release); nothing was written (exit 1)."""


class ConfigError(BuildverError):
    """A ``[tool.buildver]`` setting that is invalid; the message names the file and the key."""


class HeaderError(BuildverError):
    """A version header that cannot be generated or patched."""


class SourceError(BuildverError):
    """A changelist or branch that could not be found in flags, the environment or the repository."""


class WriteError(BuildverError):
    """A file that could not be written; every file was left exactly as it was."""

    exit_code: ClassVar[int] = 3


class LockTimeoutError(WriteError):
    """Another buildver run held the lock on a version file for too long."""


class PackageFormatError(BuildverError):
    """A file that is not a readable Unreal package header; the message names the file, the byte offset and why.

    ``not_a_package`` tells a file that is something else (a Zen/IoStore package, an encrypted or UE3 package,
    a text file) from a package that is truncated, corrupt or unreadable. ``lfs_pointer`` (with ``not_a_package``)
    marks a Git LFS pointer: the package is in LFS, and this checkout has not fetched it.
    """

    def __init__(
        self, path: str, offset: int, reason: str, *, not_a_package: bool = False, lfs_pointer: bool = False
    ) -> None:
        super().__init__(f"{path}: byte {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason
        self.not_a_package = not_a_package or lfs_pointer
        self.lfs_pointer = lfs_pointer


class DataVersionError(BuildverError):
    """A versioned data document (``buildver.serialization``) that cannot be loaded, saved or declared."""


class DocumentError(DataVersionError):
    """A document or version header that is malformed; the message names the document and the place."""


class NewerDataError(DataVersionError):
    """Data saved by newer code (header format, engine, licensee, custom or class version); nothing was loaded."""


class OlderDataError(DataVersionError):
    """Data older than the oldest version the code can still load."""


class UnknownCustomVersionError(DataVersionError):
    """A document that uses a custom version this code never registered, or one its validator rejects."""


class UnknownTypeError(DataVersionError):
    """An object whose ``$type`` is neither declared nor deprecated."""


class ConverterError(DataVersionError):
    """A version converter, field upgrade or serializer hook that failed; the message names the element's path."""


class SchemaError(DataVersionError, ValueError):
    """A wrong declaration: conflicting custom version, bad version enum, duplicate upgrade, undeclared use."""


class ModulesManifestError(BuildverError):
    """A ``.modules`` manifest that Unreal could not read; the message names the file and why."""


class DescriptorError(BuildverError):
    """A ``.uproject`` or ``.uplugin`` that Unreal could not read; the message names the file and the place."""


class BuildverWarning(UserWarning):
    """Base class of the warnings buildver gives: the command did what was asked, but something needs a look."""


class CleanupWarning(BuildverWarning):
    """Every file was written, but a journal, backup or temporary file could not be removed afterwards."""


class EngineLookupError(BuildverError):
    """A project's engine that cannot be found, or a list of installed engines that cannot be read."""


class FieldNotFoundError(BuildverError):
    """A field ``show --field`` names that the place does not have (a game without a Build.version of its own
    has no MajorVersion; a project on an unknown engine has no Android version code): exit 1, not a usage error."""


class ProjectSearchError(BuildverError):
    """A folder that cannot be listed while looking for the project's ``.uproject`` (or a plugin's ``.uplugin``):
    guessing "no project here" would change the engine judged against and a generated header's names."""
