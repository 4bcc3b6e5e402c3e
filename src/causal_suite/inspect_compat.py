"""The few inspect-ai internals the suite needs, imported in this one place.

inspect-ai has no public API for these (checked against 0.3.285); should a release move one, only this module
changes. Nothing else in ``src/`` imports ``inspect_ai._...``.

- ``PrerequisiteError``: the exception inspect prints as one sentence instead of a traceback (the base of
  ``causal_suite.errors.SuiteInputError``).
- ``active_generate_config()``: the run's resolved ``GenerateConfig`` (seed, cache) inside a solver.
- ``registry_find`` / ``registry_info``: the registered tasks and their parameters (``causal-suite tasks``);
  ``registry_unqualified_name``: a registered object's name without its package (the sandbox type exp_b runs in).
- ``active_model()``: the model under evaluation, None outside an eval (CoBe's judge check at task construction).
- ``register_bare_scorers()``: the registry's own table, to add a package scorer under its bare name (below).
- ``eval_zip_header`` / ``eval_zip_sample_names`` / ``json_log_header`` / ``json_log_samples``: the layout of the two
  log formats, for ``causal_suite.logs`` (why it reads the layout rather than inspect's sample readers: there).
  ``.eval`` is a zip of ``header.json`` (or ``_journal/start.json`` while a run is unfinished), ``reductions.json``
  and one ``samples/<id>_epoch_<n>.json`` per sample; ``.json`` is one document whose ``samples`` array precedes
  ``reductions``.
- ``EvalLogWriter``: an ``.eval`` log written one sample at a time with inspect's own recorder (``EvalRecorder``,
  as ``write_eval_log`` writes one), its buffer emptied into the zip every ``WRITE_BATCH`` samples, for
  ``causal-suite score`` (``write_eval_log`` takes a whole ``EvalLog``); ``init_score_run``: what inspect's
  ``score`` sets up before it runs ``score_async`` (platform init, the display type).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zipfile import ZipFile

import ijson
from inspect_ai._util.error import PrerequisiteError
from inspect_ai._util.json import is_ijson_nan_inf_error
from inspect_ai._util.platform import platform_init
from inspect_ai._util.registry import _registry, registry_find, registry_info, registry_key, registry_unqualified_name
from inspect_ai.log import EvalLog, EvalSample, EvalSampleReductions, read_eval_log
from inspect_ai.log._condense import condense_sample
from inspect_ai.log._recorders.eval import REDUCTIONS_JSON, SAMPLES_DIR, EvalRecorder, _read_header
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.model._model import active_model
from inspect_ai.util._display import init_display_type

__all__ = [
    "EvalLogWriter",
    "PrerequisiteError",
    "init_score_run",
    "register_bare_scorers",
    "active_generate_config",
    "active_model",
    "eval_zip_header",
    "eval_zip_sample_names",
    "json_log_header",
    "json_log_samples",
    "registry_find",
    "registry_info",
    "registry_unqualified_name",
]


def register_bare_scorers(*scorers: object) -> None:
    """Also register each ``@scorer`` function of a package under its bare name (``glass_match`` beside
    ``glass_inspect/glass_match``).

    inspect records a log's scorers by their unqualified names, and ``inspect score LOG`` looks those names up as
    they are, which finds only inspect's own scorers (0.3.285: ``as_scorer_spec`` / ``registry_lookup``); with the
    bare name registered too, ``inspect score LOG`` re-creates the suite's scorers with the arguments the log
    recorded. A bare name inspect or another package already holds is left alone.
    """
    for fn in scorers:
        name = registry_unqualified_name(fn)
        key = registry_key("scorer", name)
        if key not in _registry and registry_key("scorer", f"inspect_ai/{name}") not in _registry:
            _registry[key] = fn


def _reductions(data: Any) -> list[EvalSampleReductions]:
    return [EvalSampleReductions.model_validate(r) for r in data or []]


def eval_zip_header(archive: ZipFile, location: str, reductions: bool = True) -> EvalLog:
    """The header of an open ``.eval`` zip as inspect reads it (``header.json``, or the journal's start of an
    unfinished run), with the per-sample reductions of a finished one (unless ``reductions`` is false); no
    samples."""
    log = _read_header(archive, location)
    if reductions and REDUCTIONS_JSON in archive.NameToInfo and log.results is not None:
        log.reductions = _reductions(json.loads(archive.read(REDUCTIONS_JSON)))
    return log


def eval_zip_sample_names(archive: ZipFile) -> list[str]:
    """The sample members of an open ``.eval`` zip in file order, each once (a re-logged sample's later member is
    the one ``archive.read`` returns, as in inspect)."""
    prefix = f"{SAMPLES_DIR}/"
    return list(dict.fromkeys(n for n in archive.namelist() if n.startswith(prefix) and n.endswith(".json")))


def _json_items(path: Path, key: str, each: bool) -> Iterator[Any]:
    """The value of the top-level ``key`` of a JSON log (``each``: the items of that array), streamed; a log holding
    NaN or Infinity (valid to Python's json and written by inspect, not to the streaming parser) is parsed whole
    instead, from where the stream stopped (bounded by the caller's size cap)."""
    done = 0
    with path.open("rb") as fh:
        try:
            for item in ijson.items(fh, f"{key}.item" if each else key, use_float=True):
                done += 1
                yield item
            return
        except (ValueError, ijson.IncompleteJSONError) as exc:
            if not is_ijson_nan_inf_error(exc):
                raise
    with path.open("rb") as fh:
        doc = json.load(fh)
    value = doc.get(key) if isinstance(doc, dict) else None
    items = (value or []) if each else ([] if value is None else [value])
    yield from items[done:]


def json_log_header(path: Path, reductions: bool = True) -> EvalLog:
    """The header of a ``.json`` log (inspect's streaming header read) with its reductions (unless ``reductions``
    is false), which follow the samples in the file: one more streaming pass that builds only them."""
    log = read_eval_log(str(path), header_only=True)
    if reductions and log.results is not None:
        log.reductions = _reductions(next(_json_items(path, "reductions", each=False), None))
    return log


def json_log_samples(path: Path) -> Iterator[dict[str, Any]]:
    """Each sample of a ``.json`` log as its raw JSON object, one at a time."""
    yield from _json_items(path, "samples", each=True)


WRITE_BATCH = 256  # samples held by the writer before they go into the zip


def init_score_run(display: str = "none") -> None:
    """What inspect's ``score()`` does before it runs ``score_async``: platform init and the display type."""
    platform_init()
    init_display_type(display)


class EvalLogWriter:
    """An ``.eval`` log at ``location`` written as inspect's ``write_eval_log`` writes one (each sample condensed,
    then ``EvalRecorder``'s start / sample / finish), but one sample at a time: every ``WRITE_BATCH`` samples the
    recorder's buffer goes into its temporary zip (a journal entry of their summaries with them), so at most that
    many samples are held. The finished log is the same as ``write_eval_log``'s but for how its summary journal
    is split, which inspect reads back as one list (``summaries.json``)."""

    def __init__(self, header: EvalLog, location: str) -> None:
        self.header, self.location = header, location
        self._recorder = EvalRecorder(str(Path(location).parent))
        self._held = 0

    async def start(self) -> None:
        await self._recorder.log_init(self.header.eval, self.location, clean=True)
        await self._recorder.log_start(self.header.eval, self.header.plan)

    async def add(self, sample: EvalSample) -> None:
        await self._recorder.log_sample(self.header.eval, condense_sample(sample))
        self._held += 1
        if self._held >= WRITE_BATCH:
            zip_log = self._recorder.data[self._recorder._log_file_key(self.header.eval)]
            await zip_log.write_buffered_samples()
            self._held = 0

    async def finish(self, log: EvalLog) -> None:
        """The header, results and reductions of ``log`` (its samples are the ones added)."""
        await self._recorder.log_finish(
            log.eval,
            log.status,
            log.stats,
            log.results,
            log.reductions,
            log.error,
            invalidated=log.invalidated,
            log_updates=log.log_updates,
            config_updates=log.config_updates,
        )
