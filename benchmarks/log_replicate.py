"""A large glass ``.eval`` log made from a small real one by copying its samples under new ids (issue 27): the
downstream commands' cost at full GlassMATH size when the eval that would write such a log cannot run in the time
there is (on a loaded 2-core machine the instant-model eval of 133,730 samples takes hours).

Copy ``k`` (``k >= 1``; copy 0 is the original) of every sample gets ``~k`` appended to its id, ``text_id``,
``base_id`` and each ``same_text`` entry, so each copy is another set of bases with their twins and frail, the
report and compare pair them as they pair real ones; scores, transcripts and the rest are the original's. The
header, the per-sample reductions and the sample summaries are copied the same way (totals multiplied). Members are
written deflated (inspect writes zstd), so the log is larger on disk than an eval's own; every reader (inspect's and
the suite's) reads both. Nothing here is a measurement of the eval.

    .venv/bin/python benchmarks/log_replicate.py SMALL.eval OUT.eval --copies 52
"""

from __future__ import annotations

import argparse
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

IDS_IN_METADATA = ("text_id", "base_id")
COPIED_AS_THEY_ARE = ("_journal/start.json",)


def renamed(value: Any, k: int) -> Any:
    return value if k == 0 else f"{value}~{k}"


def copy_metadata(metadata: dict[str, Any] | None, k: int) -> dict[str, Any] | None:
    if not metadata:
        return metadata
    out = dict(metadata)
    for key in IDS_IN_METADATA:
        if key in out:
            out[key] = renamed(out[key], k)
    if isinstance(out.get("same_text"), list):
        out["same_text"] = [renamed(t, k) for t in out["same_text"]]
    return out


def copy_sample(sample: dict[str, Any], k: int) -> dict[str, Any]:
    """A sample (or a sample summary) of copy ``k``: id, uuid and metadata ids renamed."""
    out = dict(sample, id=renamed(sample["id"], k), metadata=copy_metadata(sample.get("metadata"), k))
    if "uuid" in out and out["uuid"]:
        out["uuid"] = renamed(out["uuid"], k)
    return out


def copy_reductions(reductions: list[dict[str, Any]], copies: int) -> list[dict[str, Any]]:
    return [
        dict(r, samples=[dict(s, sample_id=renamed(s["sample_id"], k)) for k in range(copies) for s in r["samples"]])
        for r in reductions
    ]


def copy_header(header: dict[str, Any], copies: int) -> dict[str, Any]:
    results = dict(header["results"])
    for key in ("total_samples", "completed_samples"):
        results[key] = results[key] * copies
    return dict(header, results=results)


def sample_members(archive: zipfile.ZipFile) -> Iterator[dict[str, Any]]:
    for name in archive.namelist():
        if name.startswith("samples/") and name.endswith(".json"):
            yield json.loads(archive.read(name))


def replicate(source: Path, out: Path, copies: int) -> int:
    """Write ``copies`` copies of ``source``'s samples into ``out``; returns the samples written."""
    import inspect_ai._util.zipfile  # noqa: F401  (registers inspect's zstd members with zipfile, to read them)

    written = 0
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as dst:
        for name in COPIED_AS_THEY_ARE:
            dst.writestr(name, src.read(name))
        for k in range(copies):
            for sample in sample_members(src):
                copy = copy_sample(sample, k)
                dst.writestr(f"samples/{copy['id']}_epoch_{copy['epoch']}.json", json.dumps(copy))
                written += 1
        summaries = json.loads(src.read("summaries.json"))
        dst.writestr("summaries.json", json.dumps([copy_sample(s, k) for k in range(copies) for s in summaries]))
        dst.writestr("reductions.json", json.dumps(copy_reductions(json.loads(src.read("reductions.json")), copies)))
        dst.writestr("header.json", json.dumps(copy_header(json.loads(src.read("header.json")), copies)))
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a finished glass .eval log")
    ap.add_argument("out", type=Path, help="the .eval log to write")
    ap.add_argument("--copies", type=int, required=True, help="copies of the source's samples (1: the source)")
    args = ap.parse_args()
    n = replicate(args.source, args.out, args.copies)
    print(f"wrote {args.out}: {n} samples ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
