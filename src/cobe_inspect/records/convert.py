"""``cobe-data``: CoBe's published layouts to App. B.2 records (``convert``), and the authoring checks (``check``).

Usage::

    cobe-data convert cobe_site_examples.jsonl -o site_records.jsonl       # or: python -m cobe_inspect.records.convert
    cobe-data convert kaggle_sample.json more.csv -o records.json
    cobe-data check site_records.jsonl                                    # loads, then runs the authoring checks

Layouts read (``--layout auto`` tells them apart by file and item shape):

- ``site``: the extract of the project website's examples, one JSON object per line or a JSON array, with
  ``example_id`` ("317v3"), ``original``, ``query`` (a string or a list), ``gold_answer``, ``should_not_change`` /
  ``should_change`` (lists of sentences), and optionally ``domain`` / ``domain_legacy``, ``failure_pattern``,
  ``model_output``, ``model``, ``verdict``, ``failing_check``, ``legacy_verdicts``, ``query_idx``, ``source``.
  A lone query is placed by its wording (the paper's A, B and C templates start "Rewrite the original text",
  "Based on the preceding text", "Rewrite the above passage"); ``query_idx`` is kept as provenance.
- ``records``: App. B.2 records (the layout of App. B.2's sample entry, which the paper's Kaggle sample follows)
  as a JSON array or JSONL.
- ``keyed``: a JSON object keyed by scenario id, ``{"317v3": {B.2 fields}, ...}`` (id fields may be omitted).
- ``csv``: App. B.2 records as CSV (e.g. a Kaggle table export): one column per field, list fields (``Query``,
  ``Evaluation criteria``, ...) as JSON arrays in their cell or spread over numbered columns ``Query 1``,
  ``Query 2``, ..., ``Evaluation criteria 1``, ``Evaluation criteria 2``.

Items with the same scenario id are merged: two partial views of one item (the site shows ``317v3`` once as a
failure example with one query and once as the schema example with three) become one record; a copy that adds
nothing is dropped with a warning; views that disagree on a field stop the conversion with an error naming the
id, the field and both sources. Query lists merge position by position. Every field the breakdowns use (Domain,
Graph type, Failure mode, Numeric / Latent criteria, Causal graph) is kept, as are the published responses and
verdicts (``Published responses``, ``Published verdicts``) and the sources. The output (JSONL, or a JSON array
when it ends in ``.json``) is validated with the loader before it is written.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, reports_input_errors, require_file
from causal_suite.files import write_text_atomic
from causal_suite.jsonl import decode_json, json_lines, read_text
from cobe_inspect.records.queries import paper_query_position, slot_name
from cobe_inspect.records.schema import SCENARIO_ID, is_keyed, keyed_records, load_records, parse_record

LAYOUTS = ("auto", "site", "records", "keyed", "csv")
LIST_FIELDS = ("Query", "Evaluation criteria", "Numeric criteria", "Latent criteria")
# Fields that collect values from every view instead of having to agree.
COLLECTED = ("Sources", "Published responses", "Published verdicts")
ID_FIELDS = ("Core Set ID", "Variation ID")


class Warnings:
    """Collects the converter's warnings (dropped duplicates) and notes (merged views), printed by the CLI."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


# --- reading ----------------------------------------------------------------------------------------------------


def _json_items(text: str, where: str) -> list[tuple[Any, str]]:
    """Items of a JSON array, a keyed object, or JSON lines, with a position string each."""
    stripped = text.lstrip()
    if stripped.startswith("[") or stripped.startswith("{"):
        try:
            doc = decode_json(text, where)
        except json.JSONDecodeError as exc:
            if stripped.startswith("["):
                raise SuiteInputError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
            doc = None  # JSON lines
        if isinstance(doc, list):
            return [(item, f"#{i}") for i, item in enumerate(doc, 1)]
        if is_keyed(doc):
            return keyed_records(doc, where)
    return [(row, f"line {lineno}") for lineno, row in json_lines(text, where)]


def _csv_items(text: str, where: str) -> list[tuple[Any, str]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        raise SuiteInputError(f"{where} has no header row.")
    items = []
    for row_no, row in enumerate(reader, start=2):
        record: dict[str, Any] = {}
        numbered: dict[str, dict[int, str]] = {}
        for column, cell in row.items():
            if column is None:
                raise SuiteInputError(f"{where}, row {row_no}: more cells than header columns.")
            name, cell = column.strip(), (cell or "").strip()
            match = re.match(r"^(.*\S)\s+(\d+)$", name)
            if match and match.group(1) in LIST_FIELDS:
                if cell:
                    numbered.setdefault(match.group(1), {})[int(match.group(2))] = cell
                continue
            if not cell:
                continue
            if name in LIST_FIELDS or name == "Causal graph" or cell[:1] in "[{":
                try:
                    record[name] = decode_json(cell, f"{where}, row {row_no}, column '{name}'", count_lines=False)
                    continue
                except json.JSONDecodeError as exc:
                    if name in LIST_FIELDS or name == "Causal graph":
                        raise SuiteInputError(
                            f"{where}, row {row_no}, column '{name}': not a JSON value ({exc.msg})."
                        ) from None
            record[name] = cell
        for name, cells in numbered.items():
            size = max(cells)
            record[name] = [cells.get(i) for i in range(1, size + 1)]
        items.append((record, f"row {row_no}"))
    return items


def read_items(path: str | Path, layout: str = "auto") -> list[tuple[dict[str, Any], str]]:
    """``(item, position)`` pairs of one file, each item already in the B.2 record shape."""
    if layout not in LAYOUTS:
        raise SuiteInputError(f"Layout must be one of {', '.join(LAYOUTS)}, got {layout!r}.")
    p = require_file(path, "CoBe input file")
    where = f"CoBe input '{p}'"
    text = read_text(p, where)
    if layout == "csv" or (layout == "auto" and p.suffix.lower() == ".csv"):
        raw = _csv_items(text, where)
    else:
        raw = _json_items(text, where)
    items = []
    for item, position in raw:
        if not isinstance(item, dict):
            raise SuiteInputError(f"{where}, {position}: must be a JSON object, got {type(item).__name__}.")
        kind = layout if layout in ("site", "records", "keyed") else ("site" if _is_site(item) else "records")
        record = site_record(item, f"{where}, {position}") if kind == "site" else dict(item)
        items.append((record, f"{p.name} {position}"))
    return items


def _is_site(item: dict[str, Any]) -> bool:
    return "example_id" in item or ("original" in item and "Story" not in item)


def _joined(value: Any, where: str, name: str) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(v.strip() for v in value if v.strip())
    raise SuiteInputError(f"{where}, field '{name}': must be a string or a list of strings, got {value!r}.")


def site_record(item: dict[str, Any], where: str) -> dict[str, Any]:
    """One site-extract item as an App. B.2 record (see the module docstring for the fields read)."""
    for name in ("example_id", "original", "query", "gold_answer", "should_not_change", "should_change"):
        if item.get(name) in (None, "", []):
            raise SuiteInputError(f"{where}, field '{name}': is missing.")
    match = SCENARIO_ID.match(str(item["example_id"]))
    if match is None:
        raise SuiteInputError(
            f"{where}, field 'example_id': not a scenario id like '317v3', got {item['example_id']!r}."
        )
    query = item["query"]
    if isinstance(query, list):
        queries: list[str | None] = list(query)
        position = None
    elif isinstance(query, str):
        position = paper_query_position(query)
        if position is None:
            raise SuiteInputError(
                f"{where}, field 'query': a lone query must open like one of the paper's templates "
                f"('Rewrite the original text', 'Based on the preceding text', 'Rewrite the above passage') "
                f"so its phrasing is known, got {query[:60]!r}."
            )
        queries = [None] * position + [query]
    else:
        raise SuiteInputError(f"{where}, field 'query': must be a string or a list of strings, got {query!r}.")
    record: dict[str, Any] = {
        "Core Set ID": int(match.group(1)),
        "Variation ID": int(match.group(2)),
        "Story": item["original"],
        "Query": queries,
        "Illustrative answer (not scored)": item["gold_answer"],
        "Evaluation criteria": [
            _joined(item["should_not_change"], where, "should_not_change"),
            _joined(item["should_change"], where, "should_change"),
        ],
    }
    if item.get("domain"):
        record["Domain"] = item["domain"]
    if item.get("domain_legacy"):
        record["Domain (legacy run)"] = item["domain_legacy"]  # another taxonomy: kept apart from Domain
    if item.get("failure_pattern"):
        record["Failure mode"] = item["failure_pattern"]
    if item.get("failure_title"):
        record["Failure title"] = item["failure_title"]
    if item.get("model_output") is not None:
        slot = slot_name(position) if position is not None else None
        response = {"model": item.get("model"), "query": slot, "response": item["model_output"]}
        response |= {k: item[k] for k in ("verdict", "failing_check") if item.get(k) is not None}
        record["Published responses"] = [response]
    if item.get("legacy_verdicts"):
        record["Published verdicts"] = [
            {"run": "legacy", "query_idx": item.get("query_idx"), "verdicts": item["legacy_verdicts"]}
        ]
    sources = [s for s in (item.get("source"), item.get("note")) if s]
    if sources:
        record["Sources"] = sources
    return record


# --- merging ----------------------------------------------------------------------------------------------------


class Conflict(SuiteInputError):
    """Two views of one scenario disagree on a field."""


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def _content(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in COLLECTED}


def _merge_queries(a: list, b: list, sid: str, wa: str, wb: str) -> list:
    size = max(len(a), len(b))
    a, b = a + [None] * (size - len(a)), b + [None] * (size - len(b))
    merged = []
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x is not None and y is not None and x.strip() != y.strip():
            raise Conflict(
                f"CoBe convert: scenario {sid}: {wa} and {wb} disagree on 'Query' {slot_name(i)} "
                f"({_short(x)} vs {_short(y)}); fix or drop one of them."
            )
        merged.append(x if x is not None else y)
    return merged


def _merge(base: dict[str, Any], other: dict[str, Any], sid: str, wa: str, wb: str) -> dict[str, Any]:
    merged = dict(base)
    for name, value in other.items():
        if name in COLLECTED:
            seen = merged.setdefault(name, [])
            merged[name] = seen + [v for v in value if v not in seen]
        elif name == "Query" and isinstance(value, list) and isinstance(merged.get(name), list):
            merged[name] = _merge_queries(merged[name], value, sid, wa, wb)
        elif name not in merged or merged[name] is None:
            merged[name] = value
        elif value is not None and _norm(merged[name]) != _norm(value):
            raise Conflict(
                f"CoBe convert: scenario {sid}: {wa} and {wb} disagree on '{name}' "
                f"({_short(merged[name])} vs {_short(value)}); fix or drop one of them."
            )
    return merged


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _scenario_id(record: dict[str, Any], position: str) -> str:
    try:
        return f"{int(record['Core Set ID'])}v{int(record['Variation ID'])}"
    except (KeyError, TypeError, ValueError):
        raise SuiteInputError(
            f"CoBe convert: {position}: needs whole-number 'Core Set ID' and 'Variation ID'."
        ) from None


def merge_items(items: Iterable[tuple[dict[str, Any], str]], warn: Warnings) -> list[dict[str, Any]]:
    """One record per scenario id, in first-seen order: partial views merged, exact copies dropped (warned)."""
    merged: dict[str, dict[str, Any]] = {}
    first: dict[str, str] = {}
    for record, position in items:
        sid = _scenario_id(record, position)
        record = {k: v for k, v in record.items() if v is not None} | {k: int(record[k]) for k in ID_FIELDS}
        if sid not in merged:
            merged[sid], first[sid] = record, position
            continue
        before = _content(merged[sid])
        combined = _merge(merged[sid], record, sid, first[sid], position)
        if _content(combined) == before:
            warn(f"warning: dropped {position}: an exact duplicate of scenario {sid} ({first[sid]}).")
        else:
            warn(f"note: merged {position} into scenario {sid} ({first[sid]}): two partial views of one item.")
        merged[sid] = combined
    return list(merged.values())


def convert(paths: list[str | Path], layout: str = "auto", warn: Warnings | None = None) -> list[dict[str, Any]]:
    """The merged, validated records of every input file, in input order."""
    warn = warn or Warnings()
    items = [item for path in paths for item in read_items(path, layout)]
    if not items:
        raise SuiteInputError(f"CoBe convert: {', '.join(map(str, paths))} hold no items.")
    records = merge_items(items, warn)
    for record in records:
        parse_record(record, "converted output", _scenario_id(record, ""))
    return records


def write_records(records: list[dict[str, Any]], out: str | Path) -> Path:
    """JSON array when ``out`` ends in ``.json``, else JSON lines."""
    out = Path(out)
    if out.suffix.lower() == ".json":
        return write_text_atomic(out, json.dumps(records, ensure_ascii=False, indent=2) + "\n")
    return write_text_atomic(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


# --- command line -------------------------------------------------------------------------------------------------


def _cmd_convert(args: argparse.Namespace) -> int:
    warn = Warnings()
    records = convert(args.inputs, args.layout, warn)
    for line in warn.lines:
        print(line, file=sys.stderr)
    path = write_records(records, args.output)
    queries = sum(1 for r in records for q in r["Query"] if q is not None)
    print(f"wrote {len(records)} records ({queries} queries) to {path}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from cobe_inspect.records.checks import check_records

    total = 0
    for path in args.files:
        records = load_records(path)
        findings = check_records(records)
        total += len(findings)
        for finding in findings:
            print(f"{path}: {finding}")
        print(f"{path}: {len(records)} records, {len(findings)} finding(s)")
    return 1 if total else 0


@reports_input_errors("cobe-data")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cobe-data", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="published CoBe layouts to App. B.2 records (JSONL or JSON)")
    conv.add_argument("inputs", nargs="+", help="input files (site extract, B.2 records, keyed JSON, CSV)")
    conv.add_argument("-o", "--output", required=True, help="output file: .jsonl (default) or .json")
    conv.add_argument("--layout", choices=LAYOUTS, default="auto", help="input layout (default: auto)")
    check = sub.add_parser("check", help="load CoBe files and run the authoring checks (exit 1 on findings)")
    check.add_argument("files", nargs="+", help="CoBe record files")
    args = parser.parse_args(argv)
    return _cmd_convert(args) if args.command == "convert" else _cmd_check(args)


if __name__ == "__main__":
    raise SystemExit(main())
