"""CoBe samples: one inspect ``Sample`` per (scenario, phrasing) of the chosen tier (§3, App. E).

The record format and file reading live in ``cobe_inspect.records.schema`` (re-exported here). Tier 1 runs every
published query of a record (A, B, C and any further ``Q4``, ...); Tiers 2-4 fill the respondent templates of
``cobe_inspect.prompts`` from the record: D from its ``Intervention`` or, failing that, the clause its own query
states; E-G from its ``Original event`` and ``Intervened event``; H1/H2's rewrite request from ``Intervened event``
or, failing that, its intervention clause (as D). Each sample's ``request`` metadata is the rewrite request alone
(no story), which the judge's ``$query`` shows. A phrasing that needs a piece some records lack fails, naming the records and fields.
"""

from __future__ import annotations

import logging
from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample

from causal_suite.errors import SuiteInputError
from causal_suite.params import comma_list
from cobe_inspect.prompts import (
    PLACEHOLDER_FIELDS,
    REQUEST_FROM_CLAUSE,
    REQUEST_FROM_EVENT,
    TIER_PHRASINGS,
    PromptSet,
    load_tier_templates,
    rewrite_request,
    template_fields,
    template_key,
    template_placeholders,
    tier_request,
)
from cobe_inspect.records.graphs import GRAPH_TYPES
from cobe_inspect.records.queries import derive_intervention, slot_position
from cobe_inspect.records.schema import (
    BUILTIN_DATA,
    FAILURE_MODES,
    PIECE_FIELDS,
    REQUIRED_FIELDS,
    CobeRecord,
    load_records,
    parse_record,
)

__all__ = [
    "BUILTIN_DATA",
    "FAILURE_MODES",
    "GRAPH_TYPES",
    "PIECE_FIELDS",
    "REQUIRED_FIELDS",
    "CobeRecord",
    "check_tier_fields",
    "cobe_dataset",
    "load_records",
    "parse_record",
    "record_to_samples",
    "resolve_phrasings",
]

logger = logging.getLogger(__name__)


def resolve_phrasings(tier: int, phrasings: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The phrasings to run, validated: all of the tier's by default (App. E), else the requested subset.

    Tier 1 returns None by default, meaning every query each record has (A, B, C, and Q4, ... where published);
    its explicit phrasings are slots ``A``, ``B``, ``C`` or ``Q<n>`` (n >= 4).
    """
    if tier not in TIER_PHRASINGS:
        raise SuiteInputError(f"Task parameter 'tier' must be 1, 2, 3 or 4, got {tier!r}.")
    allowed = TIER_PHRASINGS[tier]
    if phrasings is None:
        return None if tier == 1 else allowed
    wanted = [p.upper() for p in comma_list(phrasings)]
    ok = (lambda p: slot_position(p) is not None) if tier == 1 else (lambda p: p in allowed)
    bad = [p for p in wanted if not ok(p)]
    if bad or not wanted:
        extra = " or Q4, Q5, ... for further queries" if tier == 1 else ""
        raise SuiteInputError(
            f"Task parameter 'phrasings' must name phrasings of tier {tier} ({', '.join(allowed)}{extra}), "
            f"got {phrasings!r}."
        )
    return tuple(dict.fromkeys(wanted))


def _fill(record: CobeRecord, phrasing: str, template: str) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The template's fill for one record: values, where each optional piece came from, and missing fields."""
    fill = {"story": record.story, "query": record.query(phrasing) or record.query_slots[0][1]}
    sources: dict[str, str] = {}
    missing: list[str] = []
    for name in template_fields(template):
        field_name = PLACEHOLDER_FIELDS[name]
        if field_name in record.pieces:
            fill[name], sources[name] = record.pieces[field_name], field_name
        elif name == "intervention" and (derived := derive_intervention(record.queries)):
            fill[name], sources[name] = derived[0], f"query {derived[1]}"
        else:
            missing.append(field_name)
    request = _request(record)
    if request is not None:
        fill["request"] = request[0]
        if "request" in template_placeholders(template):
            sources["request"] = request[1]
    elif "request" in template_placeholders(template):
        missing.append("Intervention")
    return fill, sources, missing


def _request(record: CobeRecord) -> tuple[str, str] | None:
    """H1/H2's rewrite request and its source: from ``Intervened event``, else from the intervention clause (the
    ``Intervention`` field, else the clause a query states); None when the record has neither."""
    if "Intervened event" in record.pieces:
        return REQUEST_FROM_EVENT.format(intervened=record.pieces["Intervened event"]), "Intervened event"
    if "Intervention" in record.pieces:
        return REQUEST_FROM_CLAUSE.format(intervention=record.pieces["Intervention"]), "Intervention"
    derived = derive_intervention(record.queries)
    if derived is None:
        return None
    return REQUEST_FROM_CLAUSE.format(intervention=derived[0]), f"query {derived[1]}"


def check_tier_fields(
    records: list[CobeRecord],
    phrasings: tuple[str, ...] | None,
    path: str | Path | None,
    prompts: PromptSet | None = None,
) -> None:
    """Fail, naming the records and fields, when the chosen phrasings need pieces that some records lack."""
    templates = (prompts or load_tier_templates(None)).templates
    lacking: dict[str, set[str]] = {}
    failing: list[str] = []
    for phrasing in phrasings or ():
        template = templates[template_key(phrasing)]
        for record in records:
            missing = _fill(record, phrasing, template)[2]
            if missing:
                lacking.setdefault(record.scenario_id, set()).update(missing)
                failing += [phrasing] if phrasing not in failing else []
    if lacking:
        needed = sorted({f for fs in lacking.values() for f in fs})
        ids = list(lacking)
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        hint = " (or a query stating 'what would have happened ... had <clause>')" if "Intervention" in needed else ""
        fine = [p for p in phrasings or () if p not in failing]
        rest = f"; phrasing(s) {', '.join(fine)} can run on them (-T phrasings={','.join(fine)})" if fine else ""
        raise SuiteInputError(
            f"CoBe file '{path or BUILTIN_DATA}': phrasing(s) {', '.join(failing)} need the field(s) "
            f"{', '.join(repr(f) for f in needed)}{hint}, which record(s) {shown} lack{rest}."
        )


def record_to_samples(
    record: CobeRecord, tier: int, phrasings: tuple[str, ...] | None, prompts: PromptSet | None = None
) -> list[Sample]:
    """One ``Sample`` per phrasing the record can serve, id ``"{core}v{variation}-{phrasing}"``.

    ``phrasings`` None (Tier 1 only) means every published query of the record; a Tier-1 slot the record has no
    query for is skipped. The criteria, tags and the provenance of every template piece travel in the metadata.
    """
    templates = (prompts or load_tier_templates(None)).templates
    if phrasings is None:
        phrasings = tuple(slot for slot, _ in record.query_slots)
    samples = []
    for phrasing in phrasings:
        if tier == 1 and record.query(phrasing) is None:
            continue
        template = templates[template_key(phrasing)]
        fill, sources, missing = _fill(record, phrasing, template)
        if missing:
            raise SuiteInputError(
                f"CoBe record {record.scenario_id}: phrasing {phrasing} needs {', '.join(map(repr, missing))}."
            )
        samples.append(
            Sample(
                id=f"{record.scenario_id}-{phrasing}",
                input=tier_request(template, fill),
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
                    "request": rewrite_request(template_key(phrasing), template, fill),
                    "preserve": record.preserve,
                    "change": record.change,
                    "numeric_checks": list(record.numeric_checks),
                    "latent_checks": list(record.latent_checks),
                    "built_from": sources,
                },
            )
        )
    return samples


def cobe_dataset(
    data: str | Path | None = None,
    tier: int = 1,
    phrasings: str | list[str] | None = None,
    prompts: PromptSet | None = None,
) -> MemoryDataset:
    """The eval dataset: every (record, phrasing) pair of the tier, in file order then phrasing order."""
    chosen = resolve_phrasings(tier, phrasings)
    records = load_records(data)
    prompts = prompts or load_tier_templates(None)
    if tier != 1:
        check_tier_fields(records, chosen, data, prompts)
    samples = [s for r in records for s in record_to_samples(r, tier, chosen, prompts)]
    where = data or BUILTIN_DATA
    if not samples:
        raise SuiteInputError(f"CoBe file '{where}' has no query for phrasing(s) {', '.join(chosen or ())}.")
    if tier == 1 and chosen is not None:
        served = {str(s.metadata["scenario_id"]) for s in samples if s.metadata}
        skipped = [r.scenario_id for r in records if r.scenario_id not in served]
        if skipped:
            logger.warning(
                "CoBe: %d record(s) have no query for phrasing(s) %s and are left out: %s",
                len(skipped),
                ", ".join(chosen),
                ", ".join(skipped[:10]),
            )
    name = "cobe_builtin" if data is None else Path(data).stem
    return MemoryDataset(samples, name=name, location=str(where))
