"""Exp B samples (paper §3, App. C): one Sample per scenario, its CSV placed in the sandbox at ``data_file``.

The prompt shows the data path inside the sandbox (relative to the working directory, as upstream gave it), the
first five rows in pandas' ``to_string(index=False)`` layout and one ``name: dtype`` line per column. Cached responses
in upstream's output format (``{sid}_{slug}.json``, ``llm_response.content``) are read here for replay.

Exp A (§3-4): one Sample per real-paper context from a JSON list or JSONL file (``paper_id``, ``research_question``,
``data_description``, ``institutional_context``, optionally the consensus labels ``method`` and ``direction``); a
labels file in upstream's format (``{paper_id, new_method, new_direction}``) overrides them; without a file, our own
authored contexts (``data/exp_a_contexts.json``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import check_type
from causal_suite.files import sha256_file
from causal_suite.jsonl import read_json, read_records
from causalverify_inspect.prompts import EXP_A_USER, exp_b_prompt
from causalverify_inspect.scenarios import DIRECTIONS, FAMILIES, Scenario, load_scenarios


def scenario_to_sample(scenario: Scenario) -> Sample:
    """A Sample whose sandbox holds only the scenario's CSV at ``data_file``; references go to metadata."""
    canonical = scenario.canonical
    return Sample(
        id=scenario.scenario_id,
        input=exp_b_prompt(scenario),
        target="" if canonical is None else repr(canonical.estimate),
        files={scenario.data_file: str(Path(scenario.data_path).resolve())},
        metadata={
            "family": scenario.family,
            "difficulty": scenario.difficulty,
            "title": scenario.title,
            "research_question": scenario.research_question,
            "data_description": scenario.data_description,
            "data_file": scenario.data_file,
            "data_path": str(scenario.data_path),
            "canonical": None if canonical is None else canonical.estimate,
            "canonical_spec": None if canonical is None else canonical.spec,
            "true_effect": scenario.true_effect,
            "direction": scenario.direction,
        },
    )


def scenarios_digest(samples: Sequence[Sample]) -> str:
    """The sha256 of what an Exp B run is measured on: each sample's id, canonical estimate and data file bytes, in
    id order (two logs with the same digest scored the same scenarios against the same references)."""
    h = hashlib.sha256()
    for sample in sorted(samples, key=lambda s: str(s.id)):
        meta = sample.metadata or {}
        h.update(f"{sample.id}\t{meta.get('canonical')!r}\t{sha256_file(meta['data_path'])}\n".encode())
    return h.hexdigest()


def select_scenarios(scenarios: list[Scenario], ids: Sequence[str] | str | None) -> list[Scenario]:
    """The scenarios named in ``ids`` (a list or a comma-separated string), in the source's order; all if None."""
    if ids is None:
        return scenarios
    wanted = [i.strip() for i in ids.split(",")] if isinstance(ids, str) else list(ids)
    known = {s.scenario_id for s in scenarios}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        raise SuiteInputError(
            f"Scenario id(s) {unknown} are not in the scenario source; known ids start {sorted(known)[:5]}."
        )
    return [s for s in scenarios if s.scenario_id in set(wanted)]


def exp_b_dataset(source: str | Path | None = None, ids: Sequence[str] | str | None = None) -> MemoryDataset:
    """Exp B dataset from the built-in set (None), a ``causalverify-data`` folder or upstream's layout."""
    scenarios = select_scenarios(load_scenarios(source), ids)
    return MemoryDataset([scenario_to_sample(s) for s in scenarios], name="causalverify_exp_b")


def model_slug(model: str) -> str:
    """Upstream's file slug of a model string: '/' and ':' become '-'."""
    return model.replace("/", "-").replace(":", "-")


def cached_response_path(responses: str | Path, scenario_id: str, slug: str) -> Path:
    """``{responses}/{sid}_{slug}.json``; an id or slug that would name a file outside the folder is refused."""
    name = f"{scenario_id}_{model_slug(slug)}.json"
    if "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise SuiteInputError(
            f"Cached responses: scenario id {scenario_id!r} with model slug {slug!r} does not name "
            "a plain file inside the responses folder."
        )
    return Path(responses) / name


def read_cached_response(path: Path) -> str:
    """``llm_response.content`` of one cached upstream response file."""
    path = require_file(path, "Cached response")
    where = f"Cached response '{path}'"
    doc = read_json(path, where)
    response = doc.get("llm_response") if isinstance(doc, dict) else None
    content = response.get("content") if isinstance(response, dict) else None
    return check_type(content, "llm_response.content", where, str)


def check_cached_responses(responses: str | Path, slug: str, scenario_ids: Sequence[str]) -> None:
    """Fail before the eval starts if any scenario lacks its cached response file or the file is unreadable
    (every file is parsed here, so one bad file never stops the other samples mid-run)."""
    folder = require_file(responses, "Cached responses folder")
    if not folder.is_dir():
        raise SuiteInputError(f"Cached responses folder '{folder}' is a file; pass the folder holding the responses.")
    missing = [sid for sid in scenario_ids if not cached_response_path(responses, sid, slug).exists()]
    if missing:
        raise SuiteInputError(
            f"Cached responses folder '{responses}' lacks {len(missing)} file(s) for model slug '{slug}', "
            f"e.g. '{cached_response_path(responses, missing[0], slug).name}'."
        )
    for sid in scenario_ids:
        read_cached_response(cached_response_path(responses, sid, slug))


# ------------------------------------------------------------------------------------------------------ Exp A
BUILTIN_CONTEXTS = Path(__file__).parent / "data" / "exp_a_contexts.json"
CONTEXT_FIELDS = ("paper_id", "research_question", "data_description", "institutional_context")


def _read_records(path: Path) -> list[dict]:
    """The records of a JSON-array or JSON-lines file."""
    return [row for _, row in read_records(require_file(path, "Exp A file"), f"Exp A file '{path}'")]


def _labels(path: str | Path | None) -> dict[str, dict]:
    if path is None:
        return {}
    out = {}
    for i, rec in enumerate(_read_records(Path(path))):
        if not isinstance(rec, dict) or "paper_id" not in rec:
            raise SuiteInputError(f"Exp A labels file '{path}', record {i}: field 'paper_id' is missing.")
        out[str(rec["paper_id"])] = {"method": rec.get("new_method"), "direction": rec.get("new_direction")}
    return out


def exp_a_dataset(contexts: str | Path | None = None, labels: str | Path | None = None) -> MemoryDataset:
    """One Sample per context record; labels (method, direction) from the record or the labels file."""
    path = Path(contexts) if contexts is not None else BUILTIN_CONTEXTS
    overrides = _labels(labels)
    samples, seen = [], set()
    for i, rec in enumerate(_read_records(path)):
        where = f"Exp A file '{path}', record {rec.get('paper_id', i) if isinstance(rec, dict) else i}"
        if not isinstance(rec, dict):
            raise SuiteInputError(f"{where}: a record should be an object.")
        for key in CONTEXT_FIELDS:
            if not isinstance(rec.get(key), (str, int)) or isinstance(rec[key], bool) or str(rec[key]).strip() == "":
                raise SuiteInputError(f"{where}: field '{key}' should be a non-empty string, got {rec.get(key)!r}.")
        pid = str(rec["paper_id"])
        if pid in seen:
            raise SuiteInputError(f"{where}: paper_id {pid!r} occurs twice.")
        seen.add(pid)
        label = {"method": rec.get("method"), "direction": rec.get("direction"), **overrides.get(pid, {})}
        samples.append(
            Sample(
                id=pid,
                input=EXP_A_USER.format(**{k: rec[k] for k in CONTEXT_FIELDS[1:]}),
                metadata={
                    "method": label["method"] if label["method"] in FAMILIES else None,
                    "direction": label["direction"] if label["direction"] in DIRECTIONS else None,
                },
            )
        )
    if not samples:
        raise SuiteInputError(f"Exp A file '{path}' holds no records.")
    return MemoryDataset(samples, name="causalverify_exp_a")
