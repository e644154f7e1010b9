"""Which files are code: Unreal Game Sync's code extensions and its FileFilter rules (``docs/unreal-rules.md`` §4.4).

The expected answers come from UGS's own words and lists, never from the code under test: the extensions of
EpicGames.Perforce's ``PerforceUtils.CodeExtensions`` (5.8.0), matched with ``EndsWith(..., OrdinalIgnoreCase)``;
the sync filter's documented syntax (``*.pdb`` any file fragment, ``/Engine/Binaries/.../*.pdb`` rooted,
``-/Engine/Documentation/...`` excluded; ``?`` one character, ``*`` anything but a separator, ``...`` anything);
and FileFilter's comments (a rule without ``/`` applies in any folder, a rule ending with ``/`` is the folder's
whole tree, the last matching rule wins).
"""

from __future__ import annotations

import pytest

from buildver.code_filter import UGS_CODE_EXTENSIONS, CodeFilter, code_filter_problem

UGS_5_8_EXTENSIONS = [
    *(".c", ".cc", ".cpp", ".inl", ".m", ".mm", ".rc", ".cs", ".csproj", ".h", ".hpp"),
    *(".inl", ".usf", ".ush", ".uproject", ".uplugin", ".sln", ".native.verse"),
]
"""PerforceUtils.CodeExtensions in UE 5.8.0, as written there (``.inl`` twice)."""


def test_the_default_extensions_are_ugs_5_8s() -> None:
    assert sorted(UGS_CODE_EXTENSIONS) == sorted(set(UGS_5_8_EXTENSIONS))


@pytest.mark.parametrize("extension", sorted(set(UGS_5_8_EXTENSIONS)))
def test_a_path_ending_with_a_ugs_code_extension_is_code_in_any_case(extension: str) -> None:
    code = CodeFilter()
    for path in (f"Source/Game/Thing{extension}", f"Thing{extension.upper()}", f"A/B/C/x{extension.title()}"):
        assert code.matches(path), path


NOT_CODE = [
    "Content/Maps/Level.umap",
    "Content/Characters/Hero.uasset",
    "Config/DefaultGame.ini",
    "Config/DefaultEngine.ini",
    "README.md",
    "Build/Build.version",
    "Source/Game/Thing.cpp.orig",  # EndsWith: the name must end with the extension
    "Source/Game/Thing.c.txt",
    "Source/Game.h/notes.txt",  # a folder named like code is not a code file
    "Content/Thing.verse",  # only .native.verse is code
    "Source/Game/Thingcpp",
]


@pytest.mark.parametrize("path", NOT_CODE)
def test_content_and_settings_are_not_code_by_default(path: str) -> None:
    assert not CodeFilter().matches(path)


# (the project's rules, the path, whether UGS calls it code): each rule's meaning is UGS's documented one.
RULE_CASES = [
    # "Patterns may match any file fragment (eg. *.pdb)": in every folder.
    (["*.pdb"], "Binaries/Win64/Game.pdb", True),
    (["*.pdb"], "Game.pdb", True),
    (["*.ini"], "Config/DefaultEngine.ini", True),
    (["*.ini"], "Config/DefaultEngine.ini.bak", False),
    # "...or may be rooted to the branch (eg. /Engine/Binaries/.../*.pdb)": from the root only.
    (["/Engine/Binaries/.../*.pdb"], "Engine/Binaries/Win64/UnrealEditor.pdb", True),
    (["/Engine/Binaries/.../*.pdb"], "Engine/Binaries/UnrealEditor.pdb", True),  # "..." may be no folder at all
    (["/Engine/Binaries/.../*.pdb"], "Game/Engine/Binaries/Win64/UnrealEditor.pdb", False),
    # "To exclude files which match a pattern, prefix the rule with the '-' character (eg. -/Engine/Documentation/...)"
    (["-/Engine/Documentation/..."], "Engine/Documentation/Source/Sample.cpp", False),
    (["-/Engine/Documentation/..."], "Engine/Source/Runtime/Core.cpp", True),
    (["-/Engine/Documentation/..."], "Game/Engine/Documentation/Sample.cpp", True),
    # "...  Matches any sequence of characters, including directory separators."
    (["-.../ThirdParty/..."], "Source/ThirdParty/zlib/zlib.h", False),
    (["-.../ThirdParty/..."], "ThirdParty/zlib.h", False),
    (["-.../ThirdParty/..."], "Source/Game/ThirdPartyThing.cpp", True),
    # "*    Matches any sequence of characters, except for a directory separator."
    (["-/Plugins/*/Source/..."], "Plugins/Editor/Source/Editor.cpp", False),
    (["-/Plugins/*/Source/..."], "Plugins/Group/Editor/Source/Editor.cpp", True),
    # "?    Matches one character."
    (["Data/Level?.json"], "Data/Level1.json", True),
    (["Data/Level?.json"], "Data/Level12.json", False),
    # FileFilter: a rule ending with "/" is the folder's whole tree; a rule without "/" applies in every folder.
    (["/Tools/"], "Tools/Bake/bake.py", True),
    (["-/Tools/"], "Tools/Bake/Bake.cs", False),
    (["-/Tools/"], "Source/Tools/Bake.cs", True),
    (["-Bake.cs"], "Source/Tools/Bake.cs", False),
    # The last rule that matches decides.
    (["-.../ThirdParty/...", ".../ThirdParty/Ours/..."], "Source/ThirdParty/Ours/ours.cpp", True),
    (["-.../ThirdParty/...", ".../ThirdParty/Ours/..."], "Source/ThirdParty/Theirs/theirs.cpp", False),
    ([".../ThirdParty/Ours/...", "-.../ThirdParty/..."], "Source/ThirdParty/Ours/ours.cpp", False),
    (["-*.cpp"], "Source/Game/Game.cpp", False),
    (["-*.cpp"], "Source/Game/Game.h", True),
    (["-...", "*.cpp"], "Source/Game/Game.h", False),  # a project's own list instead of UGS's
    (["-...", "*.cpp"], "Source/Game/Game.cpp", True),
    # Letters match in any case (FileFilterNode compares them lowered).
    (["-/ENGINE/documentation/..."], "Engine/Documentation/Sample.cpp", False),
    # A name pattern ending in "." matches names without a dot.
    (["/Scripts/*."], "Scripts/build", True),
    (["/Scripts/*."], "Scripts/build.sh", False),
    # FileFilter turns "\\" into "/", in rules and paths alike.
    (["-\\Engine\\Documentation\\..."], "Engine/Documentation/Sample.cpp", False),
    # A rule ending with "/..." needs a name below the folder: the folder's own name is not in it.
    (["/Tools/..."], "Tools", False),
]


@pytest.mark.parametrize(("rules", "path", "code"), RULE_CASES)
def test_project_rules_follow_ugs_file_filter_syntax_after_its_extensions(
    rules: list[str], path: str, code: bool
) -> None:
    assert CodeFilter(rules).matches(path) is code


def test_a_dots_glued_to_a_name_are_rewritten_as_ugs_rewrites_them() -> None:
    """FileFilter.AddRule inserts "*/" before a "..." that follows a name, then moves on one character only, and
    splits what is left: "Editor..." matches nothing below Editor, in UGS and here alike."""
    assert not CodeFilter(["/Editor..."]).matches("EditorTools/Thing.txt")
    assert CodeFilter(["/Editor*/..."]).matches("EditorTools/Thing.txt")


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("", "names no path"),
        ("   ", "names no path"),
        ("-", "names no path"),
        ("- ", "names no path"),
        ("+*.ini", "UGS has no '+': a rule without '-' includes (write '*.ini')"),
        ("*.ini\n-*.cpp", "holds a line break or a NUL"),
        (5, "5 is not a string"),
    ],
)
def test_a_rule_ugs_could_not_mean_is_refused_with_the_reason(rule: object, problem: str) -> None:
    found = code_filter_problem(rule)
    assert found is not None
    assert problem in found
    if isinstance(rule, str):
        with pytest.raises(ValueError, match=r"names no path|UGS has no|line break"):
            CodeFilter([rule])


def test_a_filter_is_a_value_compared_by_its_rules() -> None:
    assert CodeFilter([" *.ini "]) == CodeFilter(["*.ini"])
    assert hash(CodeFilter(["*.ini"])) == hash(CodeFilter(["*.ini"]))
    assert CodeFilter() != CodeFilter(["*.ini"])
    assert repr(CodeFilter(["*.ini"])) == "CodeFilter(['*.ini'])"
    assert CodeFilter().describe() == "UGS's code extensions"
    assert CodeFilter(["*.ini", "-/Tools/"]).describe() == "UGS's code extensions and 2 code-filter rules"


@pytest.mark.parametrize(
    "path",
    sorted(
        {path for _, path, _ in RULE_CASES}
        | set(NOT_CODE)
        | {f"Source/Game/Thing{extension.upper()}" for extension in UGS_CODE_EXTENSIONS}
        | {".h", "A.CPP/readme.txt", "x.native.VERSE", "weird\\Folder\\x.cpp", "Thing.cppx"}
    ),
)
def test_the_extensions_alone_answer_as_the_file_filter_of_ugs_extensions(path: str) -> None:
    """Without project rules UGS tests the extensions with EndsWith; with rules, its FileFilter starts from
    ``*<extension>``: the two agree on every path, so a rule that matches nothing changes no answer."""
    assert CodeFilter().matches(path) is CodeFilter(["-/Never/Anything/Here"]).matches(path)
