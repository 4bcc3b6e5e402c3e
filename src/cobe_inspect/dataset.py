"""CoBe records (App. B.2) and their inspect samples: one sample per (scenario, phrasing) of the chosen tier.

A record is a JSON object with the dataset's own fields (App. B.2):

- ``Core Set ID`` (int), ``Variation ID`` (int): the scenario id is ``"{core}v{variation}"`` (§3 "Samples").
- ``Domain`` (str), ``Story`` (str), ``Query`` (exactly 3 strings: phrasings A, B, C of §3),
  ``Illustrative answer (not scored)`` (str), ``Evaluation criteria`` (exactly 2 strings: the facts to
  preserve, checked by E1, and the original facts to change, checked by E2; §3.1).

Optional fields (our extension; the tiers of App. E and the breakdowns of Fig. 7 / Fig. 9 use them):

- ``Graph type``: ``chain``, ``collider``, ``fork``, ``diamond``, ``correlated`` or ``hybrid`` (Fig. 4;
  ``Chain-like`` etc. are accepted).
- ``Failure mode``: the App. C pattern the scenario probes, ``i`` ... ``vii``.
- ``Intervention``: the clause that follows "had" in a subjunctive request ("the drain been opened"); Tier 2 D.
- ``Original event``: what happened, worded to follow "instead of" ("the drain staying shut"); Tier 2 E-G.
- ``Intervened event``: the change, as a plain clause ("the drain was opened"); Tier 2 E-G and Tiers 3-4.

A file is a JSON array of records or JSONL (one record per line). Any bad record stops the load with one
sentence naming the file, the record and the field: nothing runs on a half-loaded dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.jsonl import read_records
from cobe_inspect.prompts import PHRASING_FIELDS, TIER_PHRASINGS, tier_request

BUILTIN_DATA = Path(__file__).parent / "data" / "cobe_builtin.json"

REQUIRED_FIELDS = (
    "Core Set ID",
    "Variation ID",
    "Domain",
    "Story",
    "Query",
    "Illustrative answer (not scored)",
    "Evaluation criteria",
)
PIECE_FIELDS = ("Intervention", "Original event", "Intervened event")
GRAPH_TYPES = ("chain", "collider", "fork", "diamond", "correlated", "hybrid")
FAILURE_MODES = ("i", "ii", "iii", "iv", "v", "vi", "vii")


@dataclass(frozen=True)
class CobeRecord:
    """One validated CoBe scenario."""

    core_id: int
    variation_id: int
    domain: str
    story: str
    queries: tuple[str, str, str]
    illustrative_answer: str
    preserve: str
    change: str
    graph_type: str | None = None
    failure_mode: str | None = None
    pieces: dict[str, str] = field(default_factory=dict)

    @property
    def scenario_id(self) -> str:
        return f"{self.core_id}v{self.variation_id}"


class _RecordError:
    """Builds the one-sentence error for one record of one file."""

    def __init__(self, path: Path, where: str) -> None:
        self.path, self.where = path, where

    def __call__(self, field_name: str, problem: str) -> SuiteInputError:
        return SuiteInputError(f"CoBe file '{self.path}', record {self.where}, field '{field_name}': {problem}.")


def _int_field(raw: dict[str, Any], name: str, err: _RecordError) -> int:
    value = raw.get(name)
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isdigit())):
        raise err(name, f"must be a whole number, got {value!r}")
    return int(value)


def _text_field(raw: dict[str, Any], name: str, err: _RecordError) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise err(name, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _text_list(raw: dict[str, Any], name: str, n: int, err: _RecordError) -> list[str]:
    value = raw.get(name)
    if not isinstance(value, list) or len(value) != n or not all(isinstance(v, str) and v.strip() for v in value):
        raise err(name, f"must be a list of exactly {n} non-empty strings, got {value!r}")
    return [v.strip() for v in value]


def _graph_type(value: Any, err: _RecordError) -> str | None:
    if value is None:
        return None
    norm = str(value).strip().lower().removesuffix("-like").removesuffix(" like")
    if norm not in GRAPH_TYPES:
        raise err("Graph type", f"must be one of {', '.join(GRAPH_TYPES)}, got {value!r}")
    return norm


def _failure_mode(value: Any, err: _RecordError) -> str | None:
    if value is None:
        return None
    norm = str(value).strip().strip("()").lower()
    if norm not in FAILURE_MODES:
        raise err("Failure mode", f"must be one of {', '.join(FAILURE_MODES)} (App. C), got {value!r}")
    return norm


def parse_record(raw: Any, path: Path, position: str) -> CobeRecord:
    """Validate one raw record (App. B.2 fields plus our optional ones); ``position`` names it in errors."""
    if not isinstance(raw, dict):
        kind = type(raw).__name__
        raise SuiteInputError(f"CoBe file '{path}', record {position}: must be a JSON object, got {kind}.")
    err = _RecordError(path, position)
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if "Core Set ID" not in missing and "Variation ID" not in missing:
        err = _RecordError(path, f"{raw['Core Set ID']}v{raw['Variation ID']} ({position})")
    if missing:
        raise err(missing[0], "is missing")
    core, variation = _int_field(raw, "Core Set ID", err), _int_field(raw, "Variation ID", err)
    queries = _text_list(raw, "Query", 3, err)
    preserve, change = _text_list(raw, "Evaluation criteria", 2, err)
    pieces = {}
    for name in PIECE_FIELDS:
        if raw.get(name) is not None:
            pieces[name] = _text_field(raw, name, err)
    return CobeRecord(
        core_id=core,
        variation_id=variation,
        domain=_text_field(raw, "Domain", err),
        story=_text_field(raw, "Story", err),
        queries=(queries[0], queries[1], queries[2]),
        illustrative_answer=_text_field(raw, "Illustrative answer (not scored)", err),
        preserve=preserve,
        change=change,
        graph_type=_graph_type(raw.get("Graph type"), err),
        failure_mode=_failure_mode(raw.get("Failure mode"), err),
        pieces=pieces,
    )


def _raw_records(path: Path) -> list[tuple[Any, str]]:
    """(record, position) pairs of a JSON array file or a JSON-lines file."""
    rows = read_records(path, f"CoBe file '{path}'")
    return [(row, f"#{i}" if lineno is None else f"#{i} (line {lineno})") for i, (lineno, row) in enumerate(rows, 1)]


def load_records(path: str | Path | None = None) -> list[CobeRecord]:
    """All records of a CoBe JSON / JSONL file (default: the built-in set), validated, in file order."""
    p = BUILTIN_DATA if path is None else require_file(path, "CoBe data file")
    raws = _raw_records(p)
    if not raws:
        raise SuiteInputError(f"CoBe file '{p}' holds no records.")
    records, seen = [], {}
    for raw, position in raws:
        record = parse_record(raw, p, position)
        if record.scenario_id in seen:
            raise SuiteInputError(
                f"CoBe file '{p}', record {record.scenario_id} ({position}), field 'Variation ID': duplicate id "
                f"{record.scenario_id} (first seen at record {seen[record.scenario_id]})."
            )
        seen[record.scenario_id] = position
        records.append(record)
    return records


def resolve_phrasings(tier: int, phrasings: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The phrasings to run: all of the tier's (App. E) by default, else the requested subset, validated."""
    if tier not in TIER_PHRASINGS:
        raise SuiteInputError(f"Task parameter 'tier' must be 1, 2, 3 or 4, got {tier!r}.")
    allowed = TIER_PHRASINGS[tier]
    if phrasings is None:
        return allowed
    wanted = [p.strip().upper() for p in (phrasings.split(",") if isinstance(phrasings, str) else phrasings)]
    bad = [p for p in wanted if p not in allowed]
    if bad or not wanted:
        raise SuiteInputError(
            f"Task parameter 'phrasings' must name phrasings of tier {tier} ({', '.join(allowed)}), got {phrasings!r}."
        )
    return tuple(dict.fromkeys(wanted))


def check_tier_fields(records: list[CobeRecord], phrasings: tuple[str, ...], path: str | Path | None) -> None:
    """Fail, naming the records, when the chosen phrasings need per-record pieces that some records lack."""
    needed = sorted({f for p in phrasings for f in PHRASING_FIELDS[p]})
    lacking = [r.scenario_id for r in records if any(f not in r.pieces for f in needed)]
    if lacking:
        shown = ", ".join(lacking[:10]) + (f" and {len(lacking) - 10} more" if len(lacking) > 10 else "")
        raise SuiteInputError(
            f"CoBe file '{path or BUILTIN_DATA}': phrasings {', '.join(phrasings)} need the field(s) "
            f"{', '.join(repr(f) for f in needed)}, which record(s) {shown} lack."
        )


def record_to_samples(record: CobeRecord, tier: int, phrasings: tuple[str, ...]) -> list[Sample]:
    """One ``Sample`` per phrasing, id ``"{core}v{variation}-{phrasing}"``; criteria travel in the metadata."""
    samples = []
    for phrasing in phrasings:
        samples.append(
            Sample(
                id=f"{record.scenario_id}-{phrasing}",
                input=tier_request(phrasing, record.pieces, record.queries, record.story),
                target=record.illustrative_answer,
                metadata={
                    "scenario_id": record.scenario_id,
                    "core_id": record.core_id,
                    "variation_id": record.variation_id,
                    "domain": record.domain,
                    "graph_type": record.graph_type,
                    "failure_mode": record.failure_mode,
                    "phrasing": phrasing,
                    "tier": tier,
                    "story": record.story,
                    "preserve": record.preserve,
                    "change": record.change,
                },
            )
        )
    return samples


def cobe_dataset(
    data: str | Path | None = None, tier: int = 1, phrasings: str | list[str] | None = None
) -> MemoryDataset:
    """The eval dataset: every (record, phrasing) pair of the tier, in file order then phrasing order."""
    chosen = resolve_phrasings(tier, phrasings)
    records = load_records(data)
    check_tier_fields(records, chosen, data)
    samples = [s for r in records for s in record_to_samples(r, tier, chosen)]
    name = "cobe_builtin" if data is None else Path(data).stem
    return MemoryDataset(samples, name=name, location=str(BUILTIN_DATA if data is None else data))
