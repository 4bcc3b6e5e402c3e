"""``cobe-data``: CoBe's published layouts to App. B.2 records (``convert``), and the authoring checks (``check``).

Usage::

    cobe-data convert cobe_site_examples.jsonl --query-slot '*=A' -o site_records.jsonl   # or python -m ...convert
    cobe-data convert kaggle_sample.json more.csv -o records.json
    cobe-data check site_records.jsonl                                    # loads, then runs the authoring checks
    cobe-data stats site_records.jsonl                                    # the paper's Tables 2-4 for a file
    cobe-data rater-sheet logs/LOG.eval --n 250 --seed 0 -o sheet.csv     # App. D.4's human-agreement sheet

Layouts read (``--layout auto`` tells them apart by file and item shape):

- ``site``: the extract of the project website's examples, one JSON object per line or a JSON array, with
  ``example_id`` ("317v3"), ``original``, ``query`` (a string or a list), ``gold_answer``, ``should_not_change`` /
  ``should_change`` (lists of sentences), and optionally ``domain`` / ``domain_legacy``, ``failure_pattern``,
  ``model_output``, ``model``, ``verdict``, ``failing_check``, ``legacy_verdicts``, ``query_idx``, ``source``.
  A lone query is never placed by its wording: by the user's ``--query-slot ID=SLOT``, else by ``query_idx``
  (a 0-based position), else at the position of the same text in another view of the scenario, else by
  ``--query-slot '*=SLOT'``; otherwise the item is refused (``QuerySlots``). ``Query placement`` records how.
- ``records``: App. B.2 records (the layout of App. B.2's sample entry, which the paper's Kaggle sample follows)
  as a JSON array or JSONL.
- ``keyed``: a JSON object keyed by scenario id, ``{"317v3": {B.2 fields}, ...}`` (id fields may be omitted).
- ``csv``: App. B.2 records as CSV (e.g. a Kaggle table export): one column per field, list fields (``Query``,
  ``Evaluation criteria``, ...) as JSON arrays in their cell or spread over numbered columns ``Query 1``,
  ``Query 2``, ..., ``Evaluation criteria 1``, ``Evaluation criteria 2``.

Items with the same scenario id are merged: two partial views of one item (the site shows ``317v3`` once as a
failure example with one query and once as the schema example with three) become one record, noted with the
fields the merge added; a copy that adds nothing is dropped with a warning; views that disagree on a field, or
give contradictory verdicts on one published response, stop the conversion with an error naming the id, the
field and both sources. Query lists merge position by position. Ids are read as written (whole numbers, digits
in a CSV cell; ``true`` or ``317.9`` are refused), and a text field over ``schema.TEXT_LIMIT`` characters is refused. Every field the breakdowns use (Domain,
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
from cobe_inspect.records.queries import slot_name, slot_position
from cobe_inspect.records.schema import SCENARIO_ID, is_keyed, keyed_records, load_records, parse_record

LAYOUTS = ("auto", "site", "records", "keyed", "csv")
LIST_FIELDS = ("Query", "Evaluation criteria", "Numeric criteria", "Latent criteria")
# Fields that collect values from every view instead of having to agree.
COLLECTED = ("Sources", "Published responses", "Published verdicts", "Query placement")
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


RawItem = tuple[dict[str, Any], str, str, str]  # item, its layout, where (for errors), position (for notes)


def _raw_items(path: str | Path, layout: str) -> list[RawItem]:
    """The objects of one file with their layout (``site`` or ``records``) and where each stands."""
    if layout not in LAYOUTS:
        raise SuiteInputError(f"Layout must be one of {', '.join(LAYOUTS)}, got {layout!r}.")
    p = require_file(path, "CoBe input file")
    where = f"CoBe input '{p}'"
    text = read_text(p, where)
    if layout == "csv" or (layout == "auto" and p.suffix.lower() == ".csv"):
        raw = _csv_items(text, where)
    else:
        raw = _json_items(text, where)
    items: list[RawItem] = []
    for item, position in raw:
        if not isinstance(item, dict):
            raise SuiteInputError(f"{where}, {position}: must be a JSON object, got {type(item).__name__}.")
        kind = layout if layout in ("site", "records", "keyed") else ("site" if _is_site(item) else "records")
        items.append((item, kind, f"{where}, {position}", f"{p.name} {position}"))
    return items


def _known_queries(raw: list[RawItem]) -> dict[str, list[Any]]:
    """Scenario id -> the query list of a view that publishes its queries as a list (to place a lone copy)."""
    known: dict[str, list[Any]] = {}
    for item, kind, _, _ in raw:
        sid = item.get("example_id") if kind == "site" else _written_id(item)
        queries = item.get("query") if kind == "site" else item.get("Query")
        if isinstance(sid, str) and isinstance(queries, list):
            known.setdefault(sid, queries)
    return known


def _shaped(raw: list[RawItem], slots: QuerySlots) -> list[tuple[dict[str, Any], str]]:
    """Each raw item in the B.2 record shape (site items converted), with its position."""
    return [(site_record(i, where, slots) if kind == "site" else dict(i), pos) for i, kind, where, pos in raw]


def _is_site(item: dict[str, Any]) -> bool:
    return "example_id" in item or ("original" in item and "Story" not in item)


def _joined(value: Any, where: str, name: str) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(v.strip() for v in value if v.strip())
    raise SuiteInputError(f"{where}, field '{name}': must be a string or a list of strings, got {value!r}.")


class QuerySlots:
    """Where a lone published query goes, never read from its wording: the user's map (``--query-slot ID=SLOT``),
    else the source's query index (``query_idx``, read as a 0-based position), else the position of the same text
    in another view of that scenario, else the user's default (``--query-slot '*=SLOT'``); otherwise it is refused.
    """

    def __init__(self, mapped: dict[str, str] | None = None, known: dict[str, list[Any]] | None = None) -> None:
        self.mapped = mapped or {}
        self.positions = {sid: _slot_position(sid, slot, f"{sid}={slot}") for sid, slot in self.mapped.items()}
        self.known = known or {}

    def position(self, sid: str, item: dict[str, Any], where: str) -> tuple[int, str]:
        """The query position of the item's lone query and how it was chosen."""
        query, index = item["query"], item.get("query_idx")
        if sid in self.mapped:
            return self._mapped(sid)
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise SuiteInputError(f"{where}, field 'query_idx': must be a whole number >= 0, got {index!r}.")
            return index, f"query_idx {index} (0-based)"
        same = [i for i, q in enumerate(self.known.get(sid, [])) if isinstance(q, str) and q.strip() == query.strip()]
        if same:
            return same[0], f"the same query at {slot_name(same[0])} in another view"
        if "*" in self.mapped:
            return self._mapped("*")
        raise SuiteInputError(
            f"{where}: scenario {sid} has a lone query and no query index ('query_idx'), so its phrasing slot is "
            f"unknown; map it with --query-slot {sid}=A (a slot A, B, C, Q4, ...) or --query-slot '*=A' if you "
            f"know its phrasing."
        )

    def _mapped(self, key: str) -> tuple[int, str]:
        return self.positions[key], f"--query-slot {key}={self.mapped[key]}"


def _slot_position(sid: str, slot: str, given: str) -> int:
    """The 0-based query position of one ``--query-slot`` entry; a bad id or slot is refused naming ``given``."""
    position = slot_position(slot)
    if not (sid == "*" or SCENARIO_ID.match(sid)) or position is None:
        raise SuiteInputError(
            f"--query-slot must be ID=SLOT with a scenario id like 317v3 (or *) and a slot A, B, C, Q4, ..., "
            f"got {given!r}."
        )
    return position


def parse_query_slots(pairs: Iterable[str]) -> dict[str, str]:
    """``ID=SLOT`` pairs of ``--query-slot`` (``*`` for every lone query nothing else places), validated."""
    mapped: dict[str, str] = {}
    for pair in pairs:
        sid, _, slot = pair.partition("=")
        sid, slot = sid.strip(), slot.strip().upper()
        _slot_position(sid, slot, pair)
        mapped[sid] = slot
    return mapped


def _site_queries(
    item: dict[str, Any], where: str, slots: QuerySlots
) -> tuple[list[str | None], tuple[int, str] | None]:
    """The item's query list and, for a lone query, the position it was placed at (never from its wording)."""
    query = item["query"]
    if isinstance(query, list):
        return list(query), None
    if not isinstance(query, str):
        raise SuiteInputError(f"{where}, field 'query': must be a string or a list of strings, got {query!r}.")
    position, how = slots.position(str(item["example_id"]), item, where)
    return [None] * position + [query], (position, how)


def site_record(item: dict[str, Any], where: str, slots: QuerySlots | None = None) -> dict[str, Any]:
    """One site-extract item as an App. B.2 record (see the module docstring for the fields read)."""
    for name in ("example_id", "original", "query", "gold_answer", "should_not_change", "should_change"):
        if item.get(name) in (None, "", []):
            raise SuiteInputError(f"{where}, field '{name}': is missing.")
    slots = slots or QuerySlots()
    match = SCENARIO_ID.match(item["example_id"]) if isinstance(item["example_id"], str) else None
    if match is None:
        raise SuiteInputError(
            f"{where}, field 'example_id': not a scenario id like '317v3', got {item['example_id']!r}."
        )
    queries, placed = _site_queries(item, where, slots)
    position = None if placed is None else placed[0]
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
    if placed is not None:
        record["Query placement"] = [{"slot": slot_name(placed[0]), "by": placed[1]}]
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


def _merge(base: dict[str, Any], other: dict[str, Any], sid: str, wa: str, wb: str) -> tuple[dict[str, Any], list[str]]:
    """``base`` with ``other``'s view merged in, and the fields the merge added to or filled in."""
    merged, added = dict(base), []
    for name, value in other.items():
        if name in COLLECTED:
            seen = merged.get(name, [])
            new = [v for v in value if v not in seen]
            _check_verdicts(name, seen, new, sid, wa, wb)
            merged[name] = seen + new
            added += [f"{name} (+{len(new)})"] if new else []
        elif name == "Query" and isinstance(value, list) and isinstance(merged.get(name), list):
            merged[name] = _merge_queries(merged[name], value, sid, wa, wb)
            filled = [slot_name(i) for i, q in enumerate(merged[name]) if q is not None and i >= len(base[name])]
            filled += [slot_name(i) for i, q in enumerate(base[name]) if q is None and merged[name][i] is not None]
            added += [f"Query {', '.join(sorted(filled))}"] if filled else []
        elif name not in merged or merged[name] is None:
            merged[name] = value
            added.append(name)
        elif value is not None and _norm(merged[name]) != _norm(value):
            raise Conflict(
                f"CoBe convert: scenario {sid}: {wa} and {wb} disagree on '{name}' "
                f"({_short(merged[name])} vs {_short(value)}); fix or drop one of them."
            )
    return merged, added


# What one published verdict is about, per collected field: the same key with another verdict is a contradiction.
VERDICT_KEYS = {"Published responses": ("model", "query", "response"), "Published verdicts": ("run", "query_idx")}
VERDICT_FIELDS = {"Published responses": ("verdict", "failing_check"), "Published verdicts": ("verdicts",)}


def _check_verdicts(name: str, seen: list[Any], new: list[Any], sid: str, wa: str, wb: str) -> None:
    """Refuse a view whose verdict on a response (or run) contradicts the one already kept."""
    if name not in VERDICT_KEYS:
        return

    def key_of(entry: dict[str, Any]) -> str:  # JSON text: a response may be a list of versions
        return json.dumps([entry.get(k) for k in VERDICT_KEYS[name]], sort_keys=True)

    kept = {key_of(e): e for e in seen if isinstance(e, dict)}
    for entry in new:
        old = kept.get(key_of(entry)) if isinstance(entry, dict) else None
        if old is None:
            continue
        fields = [f for f in VERDICT_FIELDS[name] if old.get(f) != entry.get(f)]
        if fields:
            raise Conflict(
                f"CoBe convert: scenario {sid}: {wa} and {wb} give contradictory '{name}' for the same "
                f"{'response' if name == 'Published responses' else 'run'} ({fields[0]} {_short(old.get(fields[0]))} "
                f"vs {_short(entry.get(fields[0]))}); keep the one that is right."
            )


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _written_id(record: dict[str, Any]) -> str | None:
    """``"{core}v{variation}"`` when both ids are written as whole numbers (digits in a CSV cell), else None."""
    ids = [record.get(k) for k in ID_FIELDS]
    ok = all((isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and v.isdigit()) for v in ids)
    return f"{int(ids[0])}v{int(ids[1])}" if ok else None  # type: ignore[arg-type]


def _scenario_id(record: dict[str, Any], position: str) -> str:
    sid = _written_id(record)
    if sid is None:
        shown = ", ".join(f"{k} {_short(record.get(k))}" for k in ID_FIELDS)  # as JSON: true, 317.9, "317a"
        raise SuiteInputError(
            f"CoBe convert: {position}: 'Core Set ID' and 'Variation ID' must be written as whole numbers "
            f"(no coercion), got {shown}."
        )
    return sid


def _check_collected(record: dict[str, Any], position: str) -> None:
    """The fields views add to (``COLLECTED``) hold lists; a string or an object there is refused, not merged."""
    for name in COLLECTED:
        if name in record and not isinstance(record[name], list):
            raise SuiteInputError(
                f"CoBe convert: {position}, field '{name}': must be a list (one entry per source, response or run), "
                f"got {_short(record[name])}."
            )


def merge_items(items: Iterable[tuple[dict[str, Any], str]], warn: Warnings) -> list[tuple[dict[str, Any], str]]:
    """One record per scenario id with its first view's position, in first-seen order: views merged (each merge
    noted with the fields it added), exact copies dropped (warned), contradictions refused."""
    merged: dict[str, dict[str, Any]] = {}
    first: dict[str, str] = {}
    for record, position in items:
        sid = _scenario_id(record, position)
        record = {k: v for k, v in record.items() if v is not None} | {k: int(record[k]) for k in ID_FIELDS}
        _check_collected(record, position)
        if sid not in merged:
            merged[sid], first[sid] = record, position
            continue
        merged[sid], added = _merge(merged[sid], record, sid, first[sid], position)
        if added:
            warn(f"note: merged {position} into scenario {sid} ({first[sid]}), adding {'; '.join(added)}.")
        else:
            warn(f"warning: dropped {position}: an exact duplicate of scenario {sid} ({first[sid]}).")
    return [(record, first[sid]) for sid, record in merged.items()]


def convert(
    paths: list[str | Path],
    layout: str = "auto",
    warn: Warnings | None = None,
    query_slots: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The merged, validated records of every input file, in input order; ``query_slots`` maps scenario ids (or
    ``*``) to the slot of their lone query (``--query-slot``)."""
    warn = warn or Warnings()
    raw = [entry for path in paths for entry in _raw_items(path, layout)]
    slots = QuerySlots(query_slots, _known_queries(raw))
    items = _shaped(raw, slots)
    if not items:
        raise SuiteInputError(f"CoBe convert: {', '.join(map(str, paths))} hold no items.")
    merged = merge_items(items, warn)
    for record, position in merged:
        parse_record(record, "converted output", position)
    return [record for record, _ in merged]


def write_records(records: list[dict[str, Any]], out: str | Path) -> Path:
    """JSON array when ``out`` ends in ``.json``, else JSON lines."""
    out = Path(out)
    if out.suffix.lower() == ".json":
        return write_text_atomic(out, json.dumps(records, ensure_ascii=False, indent=2) + "\n")
    return write_text_atomic(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


# --- command line -------------------------------------------------------------------------------------------------


def _cmd_convert(args: argparse.Namespace) -> int:
    warn = Warnings()
    records = convert(args.inputs, args.layout, warn, parse_query_slots(args.query_slot))
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


def _cmd_stats(args: argparse.Namespace) -> int:
    from cobe_inspect.records.stats import stats_text

    print("\n\n".join(stats_text(path) for path in args.files or [None]))
    return 0


def _cmd_rater_sheet(args: argparse.Namespace) -> int:
    from cobe_inspect.records.raters import write_rater_sheet

    path, n, model = write_rater_sheet(args.log, args.output, args.n, args.seed)
    print(f"wrote {n} responses of {model} (seed {args.seed}) to {path}, rubric {path.with_suffix('.rubric.txt')}")
    return 0


@reports_input_errors("cobe-data")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cobe-data", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="published CoBe layouts to App. B.2 records (JSONL or JSON)")
    conv.add_argument("inputs", nargs="+", help="input files (site extract, B.2 records, keyed JSON, CSV)")
    conv.add_argument("-o", "--output", required=True, help="output file: .jsonl (default) or .json")
    conv.add_argument("--layout", choices=LAYOUTS, default="auto", help="input layout (default: auto)")
    conv.add_argument(
        "--query-slot",
        action="append",
        default=[],
        metavar="ID=SLOT",
        help="the phrasing slot (A, B, C, Q4, ...) of scenario ID's lone query; ID * for every lone query that has "
        "no query_idx and no other view (repeatable)",
    )
    check = sub.add_parser("check", help="load CoBe files and run the authoring checks (exit 1 on findings)")
    check.add_argument("files", nargs="+", help="CoBe record files")
    sheet = sub.add_parser("rater-sheet", help="draw one model's responses from a CoBe log into a rater sheet")
    sheet.add_argument("log", help="a CoBe eval log (one model's responses)")
    sheet.add_argument("--n", type=int, default=250, help="responses to draw (default 250, as the paper)")
    sheet.add_argument("--seed", type=int, default=0, help="seed of the draw (default 0)")
    sheet.add_argument("-o", "--output", required=True, help="the CSV sheet (its rubric goes beside it)")
    stats = sub.add_parser("stats", help="the paper's Tables 2-4 (words, sentences, domains, graph types) for a file")
    stats.add_argument("files", nargs="*", help="CoBe record files (default: the built-in set)")
    args = parser.parse_args(argv)
    commands = {"convert": _cmd_convert, "check": _cmd_check, "stats": _cmd_stats, "rater-sheet": _cmd_rater_sheet}
    return commands[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
