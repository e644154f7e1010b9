"""Issue 6 benchmark: load and upgrade 10,000 small documents with the README's example schema.

Run from the repository root: ``python benchmarks/bench_serialization.py``. The documents are a mix of the three
Prop versions (a third each), with a material, a deprecated collider to replace and a note to drop; the figure is
the median of 7 runs over all 10,000, the cases run in turn so that machine noise hits them alike.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _timing import interleaved_rates

from buildver.serialization import dumps, import_schema, load, save

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = 10_000
RUNS = 7
MATERIALS = "6f1c2f1e-5a0b-4a8e-9c1d-0d2b8a3e4f10"


def make_document(index: int) -> dict[str, Any]:
    """A small asset document saved by one of the three Prop versions."""
    version = index % 3
    prop: dict[str, Any] = {"$type": "Prop", "$version": version}
    prop["mesh" if version == 0 else "mesh_path"] = f"props/prop_{index}.fbx"
    prop["scale"] = [1.5, 1.5, 1.5] if version == 2 else 1.0 + index % 4
    prop["material"] = {"$type": "Material", "color": [index % 256, 128, 0] if version < 2 else [0.5, 0.25, 0.0]}
    prop["components"] = [
        {"$type": "LegacyCollider", "radius": 0.5} if version < 2 else {"$type": "Collider", "shape": "box"},
        {"$type": "EditorNote", "text": "check the pivot"} if version == 0 else {"$type": "Collider", "shape": "box"},
    ]
    custom = {MATERIALS: 1} if version == 2 else {}
    return {"$buildver": {"format": 2, "engine": min(version, 1), "licensee": 0, "custom": custom}, "root": prop}


def main() -> None:
    schema = import_schema(f"{ROOT / 'examples' / 'asset_schema.py'}:SCHEMA")
    documents = [make_document(index) for index in range(DOCUMENTS)]
    texts = [json.dumps(document) for document in documents]

    def load_only() -> None:
        for document in documents:
            load(schema, document)

    def load_and_save() -> None:
        for document in documents:
            save(schema, load(schema, document).data)

    def text_to_text() -> None:
        for text in texts:
            dumps(save(schema, load(schema, json.loads(text)).data))

    def deepcopy_baseline() -> None:
        for document in documents:
            copy.deepcopy(document)

    cases: dict[str, Callable[[], object]] = {
        "load + upgrade (dict -> LoadResult)": load_only,
        "load + upgrade + save (dict -> dict)": load_and_save,
        "json text -> upgrade -> json text": text_to_text,
        "copy.deepcopy of the same dicts (scale)": deepcopy_baseline,
    }
    print(f"{DOCUMENTS:,} documents, median of {RUNS} interleaved runs")
    for name, rate in interleaved_rates(cases, DOCUMENTS, repeat=RUNS).items():
        print(f"{name:<42} {DOCUMENTS / rate * 1000:8.1f} ms  {rate:10,.0f} documents/s")


if __name__ == "__main__":
    main()
