"""Registrations written in the idioms Unreal's own modules and plugins use, each resolved as the compiler resolves
it: preprocessor branches, a registration made in a constructor's initializer list, attributes and deprecation
macros before a declaration, nested and inline namespaces. Each source is a module's file in a tree of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from tree_builder import write

from buildver.packages.tree_tables import SourceRoot, read_tables

GUID = "0000000A-0000000B-0000000C-0000000D"
GUID_TEXT = "0000000A-0000-000B-0000-000C0000000D"

IDIOMS = [
    pytest.param(
        """
namespace { const FGuid LocalGuid(0xA, 0xB, 0xC, 0xD); }
struct FIdiomVersion
{
    enum Type
    {
        Initial = 0,
#if 0
        NeverCompiled,
#elif 0
        NotThisEither,
#else
        Second,
#endif
#define IDIOM_LONG_MACRO(X) \\
        X
        Third,
        VersionPlusOne,
        LatestVersion = VersionPlusOne - 1
    };
};
FCustomVersionRegistration GRegisterIdiom(LocalGuid, FIdiomVersion::LatestVersion, TEXT("IdiomVer"));
""",
        2,
        id="preprocessor-branches-and-a-continued-directive",
    ),
    pytest.param(
        """
namespace UE { inline namespace Versions {
struct FIdiomVersion
{
    enum Type { Initial, Second, Third, Fourth, VersionPlusOne, LatestVersion = VersionPlusOne - 1 };
    static const FGuid GUID;
};
const FGuid FIdiomVersion::GUID(0xA, 0xB, 0xC, 0xD);
} }
class FIdiomModule
{
    FCustomVersionRegistration Registration;
public:
    [[nodiscard]] UE_DEPRECATED(5.0, "old") FIdiomModule()
        : Registration(UE::Versions::FIdiomVersion::GUID, UE::Versions::FIdiomVersion::LatestVersion, TEXT("IdiomVer"))
    {
    }
};
""",
        3,
        id="a-member-registered-in-a-constructor-s-initializer-list",
    ),
    pytest.param(
        """
namespace
{
    constexpr int32 IdiomLatest = 7;
    const FGuid IdiomGuid = FGuid(0xA, 0xB, 0xC, 0xD);
}
FDevVersionRegistration GRegisterIdiom(IdiomGuid, IdiomLatest, TEXT("IdiomVer"));
""",
        7,
        id="a-dev-registration-of-integer-constants",
    ),
    pytest.param(
        """
#define IDIOM_LATEST_VERSION 4
static const FGuid IdiomGuid(TEXT("0000000A-0000-000B-0000-000C0000000D"));
FCustomVersionRegistration GRegisterIdiom(IdiomGuid, IDIOM_LATEST_VERSION, TEXT("IdiomVer"));
""",
        4,
        id="a-guid-spelled-as-a-string-and-a-defined-version",
    ),
    pytest.param(
        """
namespace { const FGuid LocalGuid{0xA, 0xB, 0xC, 0xD}; }
int32 IdiomLatest = -(-(1 << 3)) + ~0 + 1 - 2;
FCustomVersionRegistration GRegisterIdiom(LocalGuid, ::IdiomLatest, FName("Idiom" "Ver"));
""",
        6,
        id="arithmetic-a-global-name-and-a-name-in-pieces",
    ),
    pytest.param(
        """
template <class T> struct TIdiomBase {};
struct FIdiomVersion final : public TIdiomBase<int>
{
    enum Type { Initial, Second, VersionPlusOne, LatestVersion = VersionPlusOne - 1 };
    static const FGuid GUID;
};
{ int32 Scratch = 0; }
const FGuid FIdiomVersion::GUID(0xA, 0xB, 0xC, 0xD);
const int32 IdiomUnused(3);
FCustomVersionRegistration GRegisterIdiom(FIdiomVersion::GUID, FIdiomVersion::LatestVersion, TEXT("IdiomVer"));
int32 TrailingWithoutSemicolon = 1
""",
        1,
        id="a-type-with-a-template-base-a-bare-block-and-a-last-statement-without-semicolon",
    ),
]

UNRESOLVED = [
    # (a registration the compiler would resolve only at run time, or that buildver cannot read: named, never guessed)
    pytest.param(
        'FCustomVersionRegistration GRegisterIdiom(MakeGuid() + 1, 3, TEXT("IdiomVer"));\n',
        "GUID expression",
        id="a-guid-computed-by-an-expression",
    ),
    pytest.param(
        "namespace { const FGuid LocalGuid(0xA, 0xB, 0xC, 0xD); }\n"
        "FCustomVersionRegistration GRegisterIdiom(LocalGuid, 3, IdiomNameVariable);\n",
        "friendly name",
        id="a-friendly-name-that-is-no-string",
    ),
    pytest.param(
        "namespace { const FGuid LocalGuid(0xA, 0xB, 0xC, 0xD); }\n"
        "enum EIdiom { First = Second, Second = First };\n"
        'FCustomVersionRegistration GRegisterIdiom(LocalGuid, Second, TEXT("IdiomVer"));\n',
        "refers to itself",
        id="an-enum-entry-that-refers-to-itself",
    ),
    pytest.param(
        "namespace { const FGuid LocalGuid(0xA, 0xB, 0xC, 0xD); }\n"
        'FCustomVersionRegistration GRegisterIdiom(LocalGuid, "3", TEXT("IdiomVer"));\n',
        "expression",
        id="a-version-that-is-a-string",
    ),
]


@pytest.mark.parametrize(("source", "latest"), IDIOMS)
def test_a_registration_in_each_idiom_resolves_to_its_latest_version(tmp_path: Path, source: str, latest: int) -> None:
    write(tmp_path, {"Engine/Source/Runtime/Idiom/Private/IdiomVersion.cpp": source})
    tables = read_tables([SourceRoot(tmp_path, "engine")])
    assert tables.problems == ()
    assert tables.undecided == {}
    [entry] = tables.custom_versions.values()
    assert (entry.guid, entry.name, entry.version, entry.module) == (GUID_TEXT, "IdiomVer", latest, "Idiom")


@pytest.mark.parametrize(("source", "named"), UNRESOLVED)
def test_a_registration_buildver_cannot_resolve_is_named_and_nothing_is_guessed(
    tmp_path: Path, source: str, named: str
) -> None:
    write(tmp_path, {"Engine/Source/Runtime/Idiom/Private/IdiomVersion.cpp": source})
    tables = read_tables([SourceRoot(tmp_path, "engine")])
    said = [*tables.problems, *tables.undecided.values()]
    assert any(named in line for line in said), said
    assert all(entry.name != "IdiomVer" for entry in tables.custom_versions.values())
