"""CoBe records (App. B.2): the fields, their validation, and reading a file of them.

A record is a JSON object with the dataset's own fields (App. B.2):

- ``Core Set ID`` (int), ``Variation ID`` (int): the scenario id is ``"{core}v{variation}"`` (§3 "Samples").
- ``Story`` (str); ``Query``: the rewrite requests, a list whose positions 0, 1, 2 are phrasings A, B, C (§3)
  and whose further positions (``Q4``, ...) hold extra published queries; ``null`` marks a position whose query
  was not published; at least one query.
- ``Illustrative answer (not scored)`` (str); ``Evaluation criteria``: exactly 2 strings, the facts to preserve
  (checked by E1) and the original facts to change (checked by E2; §3.1).
- ``Domain`` (str; App. B.2 has it, the site's failure examples do not).

Optional fields (ours; the tiers of App. E and the breakdowns of Figs. 6, 7 and 9 use them):

- ``Graph type``: ``chain``, ``collider``, ``fork``, ``diamond``, ``correlated`` or ``hybrid`` (Fig. 4;
  ``Chain-like`` etc. are accepted).
- ``Failure mode``: the App. C pattern the scenario probes, ``i`` ... ``vii``.
- ``Intervention``: the clause that follows "had" in a subjunctive request ("the drain been opened"); Tier 2 D.
  Without it, D uses the clause the record's own query states (``records.queries.intervention_clause``).
- ``Original event``: the intervened variable's value in the story, worded to follow "instead of" ("the drain
  staying shut"); Tier 2 E-G. Never a downstream fact the rewrite must change (that would hand over the answer).
- ``Intervened event``: the change, as a plain clause ("the drain was opened"); Tier 2 E-G, Tiers 3-4.
- ``Original fact``: the sentence of the change criterion that states the intervened variable's own value in
  the story ("The city closed the bridge."), when it lists one: the one must-change fact the ``Original event``
  may restate (the authoring checks flag any other).
- ``Numeric criteria`` / ``Latent criteria``: which checks (``E1`` preserve, ``E2`` change) test a numeric
  quantity / a latent factor implicit in the story; the Fig. 6 E4 / E5 breakdowns use them.
- ``Causal graph``: ``{"edges": ["a -> b", ...], "latent": [...], "intervened": "a"}`` (see ``records.graphs``).

Other fields (e.g. the converter's ``Published responses``) are carried in files and ignored here.

A file is a JSON array of records, JSONL (one record per line), or a JSON object keyed by scenario id
(``{"317v3": {...}}``). Any bad record stops the load with one sentence naming the file, the record and the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.jsonl import decode_json, read_records, read_text
from cobe_inspect.records.graphs import GRAPH_TYPES, parse_edge
from cobe_inspect.records.queries import slot_name

BUILTIN_DATA = Path(__file__).resolve().parent.parent / "data" / "cobe_builtin.json"

REQUIRED_FIELDS = (
    "Core Set ID",
    "Variation ID",
    "Story",
    "Query",
    "Illustrative answer (not scored)",
    "Evaluation criteria",
)
PIECE_FIELDS = ("Intervention", "Original event", "Intervened event")
NOTE_FIELDS = ("Original fact",)
FAILURE_MODES = ("i", "ii", "iii", "iv", "v", "vi", "vii")
CRITERION_CHECKS = {"E1": "E1", "E2": "E2", "preserve": "E1", "change": "E2"}
SCENARIO_ID = re.compile(r"^\s*(\d+)\s*v\s*(\d+)\s*$")
SITE_EXTRACT_FIELDS = ("example_id", "original", "should_change")


@dataclass(frozen=True)
class CausalGraph:
    """A record's recorded causal edges, its latent common causes and the intervened variable."""

    edges: tuple[tuple[str, str], ...]
    latent: tuple[str, ...] = ()
    intervened: str | None = None


@dataclass(frozen=True)
class CobeRecord:
    """One validated CoBe scenario."""

    core_id: int
    variation_id: int
    domain: str | None
    story: str
    queries: tuple[str | None, ...]
    illustrative_answer: str
    preserve: str
    change: str
    graph_type: str | None = None
    failure_mode: str | None = None
    pieces: dict[str, str] = field(default_factory=dict)
    original_fact: str | None = None
    numeric_checks: tuple[str, ...] = ()
    latent_checks: tuple[str, ...] = ()
    graph: CausalGraph | None = None

    @property
    def scenario_id(self) -> str:
        return f"{self.core_id}v{self.variation_id}"

    @property
    def query_slots(self) -> list[tuple[str, str]]:
        """``(slot, query)`` for every published query, in position order (A, B, C, Q4, ...)."""
        return [(slot_name(i), q) for i, q in enumerate(self.queries) if q is not None]

    def query(self, slot: str) -> str | None:
        return dict(self.query_slots).get(slot)


class RecordError:
    """Builds the one-sentence error for one record of one file."""

    def __init__(self, path: Path | str, where: str) -> None:
        self.path, self.where = path, where

    def __call__(self, field_name: str, problem: str) -> SuiteInputError:
        return SuiteInputError(f"CoBe file '{self.path}', record {self.where}, field '{field_name}': {problem}.")


# The longest text one field may hold: the paper's stories are a few sentences (Table 2), so a field of this size
# is a pasted file, not a scenario.
TEXT_LIMIT = 20_000


def _bounded(value: str, name: str, err: RecordError) -> str:
    if len(value) > TEXT_LIMIT:
        raise err(name, f"is {len(value):,} characters long; a CoBe text field holds at most {TEXT_LIMIT:,}")
    return value


def _int_field(raw: dict[str, Any], name: str, err: RecordError) -> int:
    value = raw.get(name)
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
        raise err(name, f"must be a whole number, got {value!r}")
    return int(value)


def _text_field(raw: dict[str, Any], name: str, err: RecordError) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise err(name, f"must be a non-empty string, got {value!r}")
    return _bounded(value.strip(), name, err)


def _criteria(raw: dict[str, Any], err: RecordError) -> tuple[str, str]:
    value = raw.get("Evaluation criteria")
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, str) and v.strip() for v in value):
        raise err("Evaluation criteria", f"must be a list of exactly 2 non-empty strings, got {value!r}")
    return _bounded(value[0].strip(), "Evaluation criteria", err), _bounded(
        value[1].strip(), "Evaluation criteria", err
    )


def _queries(raw: dict[str, Any], err: RecordError) -> tuple[str | None, ...]:
    value: Any = raw.get("Query")  # raw JSON, checked below
    ok = isinstance(value, list) and all(v is None or (isinstance(v, str) and v.strip()) for v in value)
    if not ok or not any(v is not None for v in value):
        raise err(
            "Query",
            f"must be a list of non-empty strings (null for a query that was not published) holding at least one "
            f"query, got {value!r}",
        )
    queries = [None if v is None else _bounded(v.strip(), "Query", err) for v in value]
    while queries and queries[-1] is None:
        queries.pop()
    return tuple(queries)


def _graph_type(value: Any, err: RecordError) -> str | None:
    if value is None:
        return None
    norm = str(value).strip().lower().removesuffix("-like").removesuffix(" like")
    norm = {"hydrid": "hybrid"}.get(norm, norm)  # Fig. 7's legend spells it "Hydrid"
    if norm not in GRAPH_TYPES:
        raise err("Graph type", f"must be one of {', '.join(GRAPH_TYPES)}, got {value!r}")
    return norm


def _failure_mode(value: Any, err: RecordError) -> str | None:
    if value is None:
        return None
    norm = str(value).strip().strip("()").lower()
    if norm not in FAILURE_MODES:
        raise err("Failure mode", f"must be one of {', '.join(FAILURE_MODES)} (App. C), got {value!r}")
    return norm


def _checks(raw: dict[str, Any], name: str, err: RecordError) -> tuple[str, ...]:
    value = raw.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v in CRITERION_CHECKS for v in value):
        raise err(name, f"must be a non-empty list naming E1 (preserve) and/or E2 (change), got {value!r}")
    return tuple(sorted({CRITERION_CHECKS[v] for v in value}))


def _causal_graph(value: Any, err: RecordError) -> CausalGraph | None:
    if value is None:
        return None
    name = "Causal graph"
    if not isinstance(value, dict) or set(value) - {"edges", "latent", "intervened"}:
        raise err(name, f"must be an object with keys edges, latent, intervened, got {value!r}")
    raw_edges = value.get("edges")
    edges = [parse_edge(e) for e in raw_edges] if isinstance(raw_edges, list) and raw_edges else [None]
    if any(e is None for e in edges):
        raise err(name, f"'edges' must be a non-empty list of \"cause -> effect\" strings, got {raw_edges!r}")
    nodes = {n for e in edges for n in e}  # type: ignore[union-attr]
    latent = value.get("latent", [])
    if not isinstance(latent, list) or not all(isinstance(n, str) and n in nodes for n in latent):
        raise err(name, f"'latent' must list nodes of the edges, got {latent!r}")
    intervened = value.get("intervened")
    if intervened is not None and (intervened not in nodes or intervened in latent):
        raise err(name, f"'intervened' must name an observed node of the edges, got {intervened!r}")
    return CausalGraph(tuple(edges), tuple(latent), intervened)  # type: ignore[arg-type]


def parse_record(raw: Any, path: Path | str, position: str) -> CobeRecord:
    """Validate one raw record (App. B.2 fields plus our optional ones); ``position`` names it in errors."""
    if not isinstance(raw, dict):
        kind = type(raw).__name__
        raise SuiteInputError(f"CoBe file '{path}', record {position}: must be a JSON object, got {kind}.")
    err = RecordError(path, position)
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if "Core Set ID" not in missing and "Variation ID" not in missing:
        err = RecordError(path, f"{raw['Core Set ID']}v{raw['Variation ID']} ({position})")
    if missing and any(f in raw for f in SITE_EXTRACT_FIELDS):
        raise SuiteInputError(
            f"CoBe file '{path}', record {position}: is an item of the CoBe site extract, not an App. B.2 record; "
            f"convert the file first (cobe-data convert {path} -o records.jsonl)."
        )
    if missing:
        raise err(missing[0], "is missing")
    core, variation = _int_field(raw, "Core Set ID", err), _int_field(raw, "Variation ID", err)
    preserve, change = _criteria(raw, err)
    pieces = {name: _text_field(raw, name, err) for name in PIECE_FIELDS if raw.get(name) is not None}
    return CobeRecord(
        core_id=core,
        variation_id=variation,
        domain=None if raw.get("Domain") is None else _text_field(raw, "Domain", err),
        story=_text_field(raw, "Story", err),
        queries=_queries(raw, err),
        illustrative_answer=_text_field(raw, "Illustrative answer (not scored)", err),
        preserve=preserve,
        change=change,
        graph_type=_graph_type(raw.get("Graph type"), err),
        failure_mode=_failure_mode(raw.get("Failure mode"), err),
        pieces=pieces,
        original_fact=None if raw.get("Original fact") is None else _text_field(raw, "Original fact", err),
        numeric_checks=_checks(raw, "Numeric criteria", err),
        latent_checks=_checks(raw, "Latent criteria", err),
        graph=_causal_graph(raw.get("Causal graph"), err),
    )


def keyed_records(doc: dict[str, Any], where: str) -> list[tuple[Any, str]]:
    """``(record, position)`` pairs of a JSON object keyed by scenario id; the id fills absent id fields."""
    rows = []
    for key, raw in doc.items():
        match = SCENARIO_ID.match(key)
        if match is None:
            raise SuiteInputError(f"{where}, key {key!r}: not a scenario id like '317v3'.")
        if not isinstance(raw, dict):
            raise SuiteInputError(f"{where}, record {key}: must be a JSON object, got {type(raw).__name__}.")
        ids = {"Core Set ID": int(match.group(1)), "Variation ID": int(match.group(2))}
        for name, value in ids.items():
            if name in raw and str(raw[name]).strip() != str(value):
                raise SuiteInputError(
                    f"{where}, record {key}, field '{name}': {raw[name]!r} disagrees with the key {key!r}."
                )
        rows.append((ids | raw, key))
    return rows


def is_keyed(doc: Any) -> bool:
    """Whether a parsed JSON document is an object keyed by scenario id (not a single record)."""
    return (
        isinstance(doc, dict)
        and bool(doc)
        and "Story" not in doc
        and all(isinstance(k, str) and SCENARIO_ID.match(k) for k in doc)
    )


def raw_records(path: Path) -> list[tuple[Any, str]]:
    """``(record, position)`` pairs of a JSON array, JSON-lines or keyed-object file, in file order."""
    where = f"CoBe file '{path}'"
    text = read_text(path, where)
    if text.lstrip().startswith("{"):
        try:
            doc = decode_json(text, where)
        except json.JSONDecodeError:
            doc = None  # JSON lines: read below, with the line of any bad one
        if is_keyed(doc):
            return keyed_records(doc, where)
    rows = read_records(path, where)
    return [(row, f"#{i}" if lineno is None else f"#{i} (line {lineno})") for i, (lineno, row) in enumerate(rows, 1)]


def load_records(path: str | Path | None = None) -> list[CobeRecord]:
    """All records of a CoBe file (default: the built-in set), validated, in file order."""
    p = BUILTIN_DATA if path is None else require_file(path, "CoBe data file")
    raws = raw_records(p)
    if not raws:
        raise SuiteInputError(f"CoBe file '{p}' holds no records.")
    records: list[CobeRecord] = []
    seen: dict[str, str] = {}
    for raw, position in raws:
        record = parse_record(raw, p, position)
        if record.scenario_id in seen:
            raise SuiteInputError(
                f"CoBe file '{p}', record {record.scenario_id} ({position}), field 'Variation ID': duplicate id "
                f"{record.scenario_id} (first seen at record {seen[record.scenario_id]}); merge or drop duplicates "
                f"with cobe-data convert."
            )
        seen[record.scenario_id] = position
        records.append(record)
    return records
