"""The generated header checked by an oracle that does not use buildver's header code.

``buildver header`` (the real command) writes BuildVersion.h for a Build.version written here; the machine's C
compiler then compiles a program that prints every macro the header defines: numbers as numbers, strings as
their bytes (narrow) or code units (wide), with ``sizeof`` so that nothing is cut at a NUL. The expected values
are computed from the Build.version's members alone, by the rules of ``docs/unreal-rules.md`` (section 3.9) and
UnrealBuildTool: the compatible changelist is CompatibleChangelist when both changelists are set, else Changelist;
BUILD_VERSION is BuildVersion, else ``{BranchName}-CL-{Changelist}``; VERSION_STRING is ``M.m.p-{BUILD_VERSION}``;
a narrow string is UTF-8, a wide one UTF-32 (wchar_t on Linux and macOS). Outside an engine tree and without a
``.uproject`` the names start with ``PROJECT_`` (``docs/configuration.md``, ``header-prefix``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import BUILDVER

CC = shutil.which("cc")
pytestmark = [
    pytest.mark.skipif(CC is None, reason="no C compiler 'cc' on PATH"),
    pytest.mark.skipif(sys.platform == "win32", reason="wchar_t is 16 bits on Windows; the oracle counts 32"),
]

NUMBERS = {
    "PROJECT_MAJOR_VERSION": "MajorVersion",
    "PROJECT_MINOR_VERSION": "MinorVersion",
    "PROJECT_PATCH_VERSION": "PatchVersion",
    "PROJECT_CHANGELIST": "Changelist",
    "PROJECT_COMPATIBLE_CHANGELIST": None,
    "PROJECT_IS_LICENSEE_VERSION": "IsLicenseeVersion",
    "PROJECT_IS_PROMOTED_BUILD": "IsPromotedBuild",
}

PROGRAM = r"""
#include <stdio.h>
#include <wchar.h>
#include "BuildVersion.h"

static void narrow(const char *name, const char *text, size_t size) {
    printf("%s=", name);
    for (size_t i = 0; i + 1 < size; i++) printf("%02x", (unsigned char)text[i]);
    printf("\n");
}

static void wide(const char *name, const wchar_t *text, size_t size) {
    printf("%s=", name);
    for (size_t i = 0; i + 1 < size; i++) printf("%lx,", (unsigned long)text[i]);
    printf("\n");
}

int main(void) {
    printf("PROJECT_MAJOR_VERSION=%lld\n", (long long)(PROJECT_MAJOR_VERSION));
    printf("PROJECT_MINOR_VERSION=%lld\n", (long long)(PROJECT_MINOR_VERSION));
    printf("PROJECT_PATCH_VERSION=%lld\n", (long long)(PROJECT_PATCH_VERSION));
    printf("PROJECT_CHANGELIST=%lld\n", (long long)(PROJECT_CHANGELIST));
    printf("PROJECT_COMPATIBLE_CHANGELIST=%lld\n", (long long)(PROJECT_COMPATIBLE_CHANGELIST));
    printf("PROJECT_IS_LICENSEE_VERSION=%lld\n", (long long)(PROJECT_IS_LICENSEE_VERSION));
    printf("PROJECT_IS_PROMOTED_BUILD=%lld\n", (long long)(PROJECT_IS_PROMOTED_BUILD));
    narrow("PROJECT_BRANCH_NAME", PROJECT_BRANCH_NAME, sizeof(PROJECT_BRANCH_NAME));
    wide("PROJECT_BUILD_VERSION", PROJECT_BUILD_VERSION, sizeof(PROJECT_BUILD_VERSION) / sizeof(wchar_t));
    narrow("PROJECT_VERSION_STRING", PROJECT_VERSION_STRING, sizeof(PROJECT_VERSION_STRING));
    return 0;
}
"""


def expected_values(members: dict[str, Any]) -> dict[str, str]:
    """What each macro must compile to, from the Build.version's members by Unreal's rules."""
    changelist = members.get("Changelist", 0)
    compatible = members.get("CompatibleChangelist", 0)
    branch = members.get("BranchName", "")
    build = members.get("BuildVersion") or f"{branch}-CL-{changelist}"
    values = {name: str(members.get(key, 0) if key else 0) for name, key in NUMBERS.items()}
    values["PROJECT_COMPATIBLE_CHANGELIST"] = str(compatible if changelist and compatible else changelist)
    for flag in ("PROJECT_IS_LICENSEE_VERSION", "PROJECT_IS_PROMOTED_BUILD"):
        values[flag] = "1" if int(values[flag]) else "0"
    values["PROJECT_BRANCH_NAME"] = branch.encode("utf-8").hex()
    values["PROJECT_BUILD_VERSION"] = "".join(f"{ord(char):x}," for char in build)
    version_string = f"{members['MajorVersion']}.{members['MinorVersion']}.{members['PatchVersion']}-{build}"
    values["PROJECT_VERSION_STRING"] = version_string.encode("utf-8").hex()
    return values


CASES = [
    ("plain", {"Changelist": 29314046, "CompatibleChangelist": 27405482, "BranchName": "++UE5+Release-5.3"}),
    ("no compatible changelist", {"Changelist": 7, "CompatibleChangelist": 0, "BranchName": "++UE5+Main"}),
    ("no changelist", {"Changelist": 0, "CompatibleChangelist": 12, "BranchName": ""}),
    ("largest values", {"MajorVersion": 65535, "Changelist": 2**31 - 1, "CompatibleChangelist": 2**31 - 1}),
    ("flags any non-zero", {"IsLicenseeVersion": 7, "IsPromotedBuild": 2**31 - 1, "Changelist": 1}),
    ("quotes and backslashes", {"BranchName": 'a"b\\c\\', "BuildVersion": '\\"\\\\"'}),
    ("trigraphs", {"BranchName": "??/ ??= ??' ??( ??) ??! ??< ??> ??-", "BuildVersion": "a??/\n??=b ???"}),
    ("octal-looking digits after escapes", {"BranchName": "\n1\t7\x7f8", "BuildVersion": "\x0112\x1b[0m9"}),
    (
        "comments and macros",
        {"BranchName": "/* x */ // y #define Z", "BuildVersion": "*/ #undef PROJECT_BUILD_VERSION"},
    ),
    ("non-ASCII", {"BranchName": "++Ünïcode+Ветка+分支", "BuildVersion": "Büild 😀 \u00a0\u0085\u2028 \U0010fffd"}),
    ("control characters", {"BranchName": "\x01\x02\x1f\x7f\x80\x9f", "BuildVersion": "\r\n\x0b\x0c\a\b"}),
    ("empty build uses the branch", {"BranchName": "++UE4+Release-4.27", "Changelist": 18319896}),
]


def compile_and_run(folder: Path) -> dict[str, str]:
    (folder / "main.c").write_text(PROGRAM)
    assert CC is not None
    executable = folder / "probe"
    subprocess.run(
        [CC, "-std=c99", "-Wall", "-Werror", "-Wno-trigraphs", "-trigraphs", "main.c", "-o", str(executable)],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    output = subprocess.run([str(executable)], check=True, capture_output=True, text=True).stdout
    return dict(line.split("=", 1) for line in output.splitlines())


def defined_macros(folder: Path, header: Path) -> set[str]:
    """The names the header defines, from the preprocessor (``cc -E -dM``), less those the compiler defines."""
    assert CC is not None

    def names(source: str) -> set[str]:
        (folder / "only.c").write_text(source)
        listed = subprocess.run([CC, "-E", "-dM", "only.c"], cwd=folder, check=True, capture_output=True, text=True)
        return {line.split()[1].split("(")[0] for line in listed.stdout.splitlines() if line.startswith("#define ")}

    return names(f'#include "{header.name}"\n') - names("\n")


@pytest.mark.parametrize(("name", "members"), CASES, ids=[case[0] for case in CASES])
def test_the_generated_header_compiles_to_the_values_unreals_rules_give(
    tmp_path: Path, name: str, members: dict[str, Any]
) -> None:
    members = {"MajorVersion": 5, "MinorVersion": 3, "PatchVersion": 2, **members}
    (tmp_path / "Build").mkdir()
    (tmp_path / "Build" / "Build.version").write_text(json.dumps(members, indent="\t", ensure_ascii=False))

    result = subprocess.run([BUILDVER, "header"], cwd=tmp_path, capture_output=True, text=True, check=False)

    assert result.returncode == 0, result.stderr
    header = tmp_path / "Build" / "BuildVersion.h"
    assert defined_macros(tmp_path / "Build", header) == set(expected_values(members))
    assert compile_and_run(tmp_path / "Build") == expected_values(members)
