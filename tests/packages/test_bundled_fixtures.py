"""The subset of real packages kept in tests/data/uasset: complete, licensed, small, and the shared files unchanged."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers import BUNDLED_FIXTURES, SHARED_FIXTURES

from buildver import read_package_summary

LICENCE_FILES = {
    "jorgenpt/uasset-rs": ("uasset-rs/LICENSE-MIT", "uasset-rs/LICENSE-APACHE"),
    "blueprintue/uasset-reader-js": ("uasset-reader-js/LICENSE",),
}


def rows_of(folder: Path) -> list[dict[str, str]]:
    with (folder / "MANIFEST.tsv").open(newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


BUNDLED_ROWS = rows_of(BUNDLED_FIXTURES)


def test_the_subset_is_a_few_dozen_files_under_one_megabyte_covering_every_release() -> None:
    sizes = [(BUNDLED_FIXTURES / row["path"]).stat().st_size for row in BUNDLED_ROWS]
    assert 20 <= len(sizes) <= 40
    assert sum(sizes) < 1_000_000
    releases = {row["SavedByEngineVersion"].split("-")[0].rsplit(".", 1)[0] for row in BUNDLED_ROWS}
    assert {f"4.{minor}" for minor in range(10, 28)} | {f"5.{minor}" for minor in range(7)} <= releases


def test_every_file_in_the_folder_is_listed_or_a_licence_or_the_readme() -> None:
    listed = {row["path"] for row in BUNDLED_ROWS}
    licences = {name for names in LICENCE_FILES.values() for name in names}
    present = {path.relative_to(BUNDLED_FIXTURES).as_posix() for path in BUNDLED_FIXTURES.rglob("*") if path.is_file()}
    assert present == listed | licences | {"MANIFEST.tsv", "README.md"}


@pytest.mark.parametrize("row", BUNDLED_ROWS, ids=[row["path"] for row in BUNDLED_ROWS])
def test_each_listed_package_is_here_licensed_and_reads_as_listed(row: dict[str, str]) -> None:
    path = BUNDLED_FIXTURES / row["path"]
    assert path.stat().st_size == int(row["size"])
    assert row["source"] in LICENCE_FILES, f"{row['path']}: no licence text for {row['source']}"
    assert all((BUNDLED_FIXTURES / name).is_file() for name in LICENCE_FILES[row["source"]])
    assert row["license"].startswith("MIT")
    summary = read_package_summary(path)
    assert str(summary.saved_by_engine_version) == row["SavedByEngineVersion"]
    assert summary.file_version_ue4 == int(row["FileVersionUE4"])
    assert summary.file_version_ue5 == int(row["FileVersionUE5"])


@pytest.mark.skipif(not (SHARED_FIXTURES / "MANIFEST.tsv").is_file(), reason=f"{SHARED_FIXTURES} is not here")
def test_the_subset_is_the_shared_files_and_rows_unchanged() -> None:
    shared = {row["path"]: row for row in rows_of(SHARED_FIXTURES)}
    for row in BUNDLED_ROWS:
        assert shared[row["path"]] == row
        assert (BUNDLED_FIXTURES / row["path"]).read_bytes() == (SHARED_FIXTURES / row["path"]).read_bytes()
    for names in LICENCE_FILES.values():
        for name in names:
            assert (BUNDLED_FIXTURES / name).read_bytes() == (SHARED_FIXTURES / name).read_bytes()
