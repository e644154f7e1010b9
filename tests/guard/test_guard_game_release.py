"""The guard's Android version-code checks follow the project's engine release (``check_game_config``'s
``engine_release``): only the architectures that release's UnrealBuildTool builds are checked, all of them when the
release is not known, and each ini line at fault is one finding that names the architectures it moves. On TankFire's
public DefaultEngine.ini (tests/data/ini/tankfire, MIT: StoreVersion=3 on line 106)."""

from __future__ import annotations

from pathlib import Path

import pytest

from buildver.guard.checks import check_game_config

PATH = "Config/DefaultEngine.ini"
ENGINE_INI = (Path(__file__).parents[1] / "data" / "ini" / "tankfire" / "Config" / "DefaultEngine.ini").read_bytes()
OFFSETS = ENGINE_INI.replace(
    b"StoreVersion=3",
    b"StoreVersion=3\nStoreVersionOffsetArm64=1000\nStoreVersionOffsetArmV7=500\nStoreVersionOffsetX8664=2000",
)  # StoreVersion line 106, Arm64 107, ArmV7 108, X8664 109

RELEASE_NOT_KNOWN = "the engine's release is not known: every architecture is checked"
UBT_4_25 = "UnrealBuildTool 4.25 to 5.0 builds armv7, arm64, x86 and x64"
UBT_5_1 = "UnrealBuildTool 5.1 to 5.3 builds arm64 and x64"
REFUSED = "; stores refuse an upload whose version code does not grow"


def lowered(old: bytes, new: bytes, base: bytes = ENGINE_INI) -> tuple[bytes, bytes]:
    """HEAD's file and the staged one with ``old`` replaced by ``new``."""
    return base, base.replace(old, new)


CASES = [
    # (release, (head, staged), [(check, message)])
    pytest.param(
        (4, 27),
        lowered(b"StoreVersion=3", b"StoreVersion=2"),
        [
            (
                "android-version-code-backwards",
                "line 106: StoreVersion 2 (was 3) lowers the version code of armv7 (3 -> 2), arm64 (3 -> 2), x86 "
                f"(3 -> 2) and x64 (3 -> 2) ({UBT_4_25}){REFUSED}",
            )
        ],
        id="4.27-store-version-lowered-one-error-four-archs",
    ),
    pytest.param(
        (5, 0),
        lowered(b"StoreVersion=3", b"StoreVersion=2"),
        [
            (
                "android-version-code-backwards",
                "line 106: StoreVersion 2 (was 3) lowers the version code of armv7 (3 -> 2), arm64 (3 -> 2), x86 "
                f"(3 -> 2) and x64 (3 -> 2) ({UBT_4_25}){REFUSED}",
            )
        ],
        id="5.0-store-version-lowered-one-error-four-archs",
    ),
    pytest.param(
        (5, 3),
        lowered(b"StoreVersion=3", b"StoreVersion=2"),
        [
            (
                "android-version-code-backwards",
                f"line 106: StoreVersion 2 (was 3) lowers the version code of arm64 (3 -> 2) and x64 (3 -> 2) "
                f"({UBT_5_1}){REFUSED}",
            )
        ],
        id="5.3-store-version-lowered-one-error-arm64-x64",
    ),
    pytest.param(
        None,
        lowered(b"StoreVersion=3", b"StoreVersion=2"),
        [
            (
                "android-version-code-backwards",
                "line 106: StoreVersion 2 (was 3) lowers the version code of armv7 (3 -> 2), arm64 (3 -> 2), x86 "
                f"(3 -> 2) and x64 (3 -> 2) ({RELEASE_NOT_KNOWN}){REFUSED}",
            )
        ],
        id="no-release-store-version-lowered-one-error-every-arch",
    ),
    pytest.param(
        (5, 3),
        lowered(b"StoreVersion=3", b"StoreVersion=2100000001"),
        [
            (
                "android-version-code-too-large",
                "line 106: StoreVersion 2100000001 puts the version code of arm64 (2100000001) and x64 (2100000001) "
                f"above 2100000000, Google Play's limit ({UBT_5_1})",
            )
        ],
        id="5.3-above-google-play-one-error",
    ),
    pytest.param(
        None,
        lowered(b"StoreVersion=3", b"StoreVersion=2100000001"),
        [
            (
                "android-version-code-too-large",
                "line 106: StoreVersion 2100000001 puts the version code of armv7 (2100000001), arm64 (2100000001), "
                f"x86 (2100000001) and x64 (2100000001) above 2100000000, Google Play's limit ({RELEASE_NOT_KNOWN})",
            )
        ],
        id="no-release-above-google-play-one-error",
    ),
    pytest.param(
        (4, 27),
        lowered(b"StoreVersion=3", b"StoreVersion=2099999000", OFFSETS),
        [
            (
                "android-version-code-too-large",
                "line 109: StoreVersionOffsetX8664 2000 puts the version code of x64 (2100001000) above 2100000000, "
                f"Google Play's limit ({UBT_4_25})",
            )
        ],
        id="4.27-offset-above-google-play-names-the-offset-line",
    ),
    pytest.param(
        (5, 3),
        lowered(b"StoreVersionOffsetArmV7=500", b"StoreVersionOffsetArmV7=0", OFFSETS),
        [],
        id="5.3-armv7-offset-lowered-not-built",
    ),
    pytest.param(
        (5, 0),
        lowered(b"StoreVersionOffsetArmV7=500", b"StoreVersionOffsetArmV7=0", OFFSETS),
        [
            (
                "android-version-code-backwards",
                f"line 108: StoreVersionOffsetArmV7 0 (was 500) lowers the version code of armv7 (503 -> 3) "
                f"({UBT_4_25}){REFUSED}",
            )
        ],
        id="5.0-armv7-offset-lowered",
    ),
    pytest.param(
        (5, 3),
        lowered(b"StoreVersion=3\nStoreVersionOffsetArm64=1000", b"StoreVersion=4\nStoreVersionOffsetArm64=0", OFFSETS),
        [
            (
                "android-version-code-backwards",
                f"line 107: StoreVersionOffsetArm64 0 (was 1000) lowers the version code of arm64 (1003 -> 4) "
                f"({UBT_5_1}){REFUSED}",
            )
        ],
        id="5.3-store-version-raised-arm64-offset-lowered-names-the-offset",
    ),
    pytest.param(
        (5, 3),
        lowered(b"StoreVersion=3", b"StoreVersion=4", OFFSETS),
        [],
        id="5.3-store-version-raised",
    ),
]


@pytest.mark.parametrize(("release", "files", "expected"), CASES)
def test_version_codes_are_checked_for_the_release_s_architectures_one_finding_per_line(
    release: tuple[int, int] | None, files: tuple[bytes, bytes], expected: list[tuple[str, str]]
) -> None:
    head, staged = files
    findings = check_game_config(PATH, staged, head, engine_release=release)
    assert [(finding.check, finding.message) for finding in findings] == expected
    assert all(finding.path == PATH and finding.severity == "error" for finding in findings)
