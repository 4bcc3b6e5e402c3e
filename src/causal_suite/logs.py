"""Reading eval logs at scale: the header once, then each sample's scores and metadata, one sample at a time.

A full GlassGSM log holds 30,946 samples (92 MB); a full GlassMATH one 133,730. Every reader of the suite (Frail's
pairs and probes, ``causal-suite report`` / ``check`` / ``score``, CoBe's compare and agreement, the glass No-Op
audit) reads logs through :class:`LogReader`, which opens an ``.eval`` zip once (its central directory parsed
once), yields :class:`LogSample` records (id, epoch, input, target, metadata, scores; no messages, events,
attachments or store) and keeps nothing of a sample once the caller moves on: time linear in the log's size, memory
one sample at a time. ``.json`` logs stream the same way (``ijson``).

inspect's public readers, evaluated for a full GlassGSM log (inspect-ai 0.3.285; figures of issue 27's scale run):

- ``read_eval_log_samples``: reads each sample with ``read_eval_log_sample``, which parses the zip's central
  directory (one entry per sample) again for each one: quadratic in the samples (over 8 minutes on that log);
- ``read_eval_log_samples_by_id``: one directory parse, but it returns a list of every requested ``EvalSample``
  (memory grows with the log), and batches of ids re-parse the directory per batch;
- ``read_eval_log(path)`` (with or without ``exclude_fields``): the whole log in memory (2.85 GB for that log);
- ``read_eval_log_sample_summaries`` / ``samples_df``: one read of ``summaries.json``, linear, but lossy by design
  (metadata and score-metadata fields of 1 kB or more dropped, strings cut to 1 kB), so a glass score's draw lists
  or a long metadata field may be missing: not usable as the suite's input.

So the reader reads the documented layout directly, through ``causal_suite.inspect_compat`` (the one module that
knows it): inspect's own header parse (``EvalLog`` with its reductions), then each sample member with
``json.loads``, its scores validated as inspect ``Score`` objects. On a 13,352-sample GlassMATH log (42 MB) that
is 2.2 s of CPU, against 1.6 s for bare decompression and ``json.loads`` of every sample and 2.7 s for the lossy
summaries. :meth:`LogReader.full_sample` gives one whole ``EvalSample`` by its place in the file, for the one
command that needs transcripts (``causal-suite score``, which reads them in order, a window at a time).

Bad input fails before anything is read, in one sentence naming the file: not a regular file, over
``MAX_LOG_BYTES``, not a zip or truncated (``.eval``), a zip that is not an inspect log, a truncated or non-log
``.json``; a damaged sample names its member too (:class:`causal_suite.errors.SuiteInputError`).
"""

from __future__ import annotations

import json
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Score
from pydantic import TypeAdapter

from causal_suite.errors import SuiteInputError
from causal_suite.inspect_compat import eval_zip_header, eval_zip_sample_names, json_log_header, json_log_samples
from causal_suite.jsonl import require_regular_file

MAX_LOG_BYTES = 16 << 30  # a log over 16 GiB is refused before it is opened
MAX_SAMPLE_BYTES = 1 << 30  # one sample's uncompressed JSON (a zip member claiming more is a damaged or hostile log)
LOG_SUFFIXES = (".eval", ".json")
INTERNED_CHARS = 64  # metadata strings up to this long are interned (ids, roles, families, categories)
_MESSAGE: TypeAdapter[ChatMessage] = TypeAdapter(ChatMessage)
_UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError, TypeError, AssertionError)


@dataclass(frozen=True)
class LogSample:
    """One sample (one id and epoch) of an eval log without its transcript: what scorers and reports read."""

    id: int | str
    epoch: int
    input: Any  # the JSON of the sample's input: a string, or a list of chat-message objects (None: not read)
    target: str | list[str] | None
    metadata: dict[str, Any]
    scores: dict[str, Score]
    error: str | None  # the error message of a sample that raised, else None

    def input_text(self) -> str:
        """The input's text: the string, or the text of its first message."""
        if isinstance(self.input, str):
            return self.input
        return _MESSAGE.validate_python(self.input[0]).text if self.input else ""


def log_sample(data: dict[str, Any], inputs: bool = True, scores: bool = True) -> LogSample:
    """A :class:`LogSample` from a sample's JSON object (as the log stores it); input and target left None unless
    ``inputs``, scores left empty unless ``scores``. The metadata's keys and short strings are interned: a report
    holds every sample's metadata, and a full GlassMATH log repeats the same dozen keys 133,730 times."""
    error = data.get("error")
    return LogSample(
        id=data["id"],
        epoch=int(data.get("epoch", 1)),
        input=data.get("input", "") if inputs else None,
        target=data.get("target", "") if inputs else None,
        metadata=_interned(data.get("metadata") or {}),
        scores={name: Score.model_validate(s) for name, s in (data.get("scores") or {}).items()} if scores else {},
        error=error.get("message") if isinstance(error, dict) else None,
    )


def _interned(metadata: dict[str, Any]) -> dict[str, Any]:
    return {
        sys.intern(k): sys.intern(v) if isinstance(v, str) and len(v) <= INTERNED_CHARS else v
        for k, v in metadata.items()
    }


class LogReader:
    """An eval log (``.eval`` or ``.json``) opened once: ``header`` (an inspect ``EvalLog`` without samples, with
    its reductions unless ``reductions`` is false: they hold a score per sample), then :meth:`samples` streamed.
    Use as a context manager (the zip is closed on exit)."""

    def __init__(self, path: str | Path, what: str = "eval log", reductions: bool = True) -> None:
        self.path = Path(path)
        self.where = f"{what} '{self.path}'"
        require_regular_file(self.path, self.where, MAX_LOG_BYTES)
        self._zip: zipfile.ZipFile | None = None
        self._members: list[str] | None = None
        self._stream: Iterator[dict[str, Any]] | None = None  # a .json log read by index: where it got to
        self._position = 0
        try:
            if self.path.suffix == ".json":
                self.header = json_log_header(self.path, reductions)
            else:
                self._zip = zipfile.ZipFile(self.path)
                self.header = eval_zip_header(self._zip, str(self.path), reductions)
        except _UNREADABLE as exc:
            self.close()
            raise SuiteInputError(f"{self.where} is not a readable inspect eval log ({_reason(exc)}).") from None

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None

    def _names(self) -> list[str]:
        """The sample members of the open zip, in file order (listed once per reader)."""
        assert self._zip is not None
        if self._members is None:
            self._members = eval_zip_sample_names(self._zip)
        return self._members

    def _member(self, name: str) -> dict[str, Any]:
        """One sample member of the open zip as its JSON object, size-capped."""
        assert self._zip is not None
        info = self._zip.getinfo(name)
        if info.file_size > MAX_SAMPLE_BYTES:
            raise SuiteInputError(
                f"{self.where}, member '{name}': {info.file_size:,} bytes uncompressed, over the "
                f"{MAX_SAMPLE_BYTES:,}-byte limit for one sample."
            )
        try:
            data = json.loads(self._zip.read(info))
        except _UNREADABLE as exc:
            raise SuiteInputError(f"{self.where}, member '{name}': cannot be read ({_reason(exc)}).") from None
        if not isinstance(data, dict):
            raise SuiteInputError(f"{self.where}, member '{name}': not a sample object.")
        return data

    def _json_samples(self) -> Iterator[dict[str, Any]]:
        try:
            yield from json_log_samples(self.path)
        except _UNREADABLE as exc:
            raise SuiteInputError(f"{self.where}: its samples cannot be read ({_reason(exc)}).") from None

    def _raw_samples(self) -> Iterator[dict[str, Any]]:
        if self._zip is None:
            yield from self._json_samples()
            return
        for name in self._names():
            yield self._member(name)

    def sample_count(self) -> int:
        """How many samples (id and epoch) the log holds (a ``.json`` log: one streaming pass)."""
        if self._zip is None:
            return sum(1 for _ in self._json_samples())
        return len(self._names())

    def full_sample(self, index: int) -> EvalSample:
        """The whole ``EvalSample`` at ``index`` in file order. An ``.eval`` log reads that one member; a ``.json``
        log goes on from the last sample read (from its start when ``index`` lies behind), so reading in order
        is one pass."""
        if self._zip is not None:
            return self._parse(self._member(self._names()[index]), EvalSample.model_validate)
        if self._stream is None or index < self._position:
            self._stream, self._position = self._json_samples(), 0
        for data in self._stream:
            self._position += 1
            if self._position == index + 1:
                return self._parse(data, EvalSample.model_validate)
        raise IndexError(f"{self.where} holds no sample {index}")

    def samples(self, inputs: bool = True, scores: bool = True) -> Iterator[LogSample]:
        """Each sample without its transcript, in file order, one at a time (without input and target unless
        ``inputs``, without scores unless ``scores``)."""
        for data in self._raw_samples():
            yield self._parse(data, lambda d: log_sample(d, inputs, scores))

    def _parse(self, data: dict[str, Any], parse: Any) -> Any:
        try:
            return parse(data)
        except (ValueError, KeyError, TypeError) as exc:
            sample = f"sample {data.get('id')!r} (epoch {data.get('epoch')})"
            raise SuiteInputError(f"{self.where}, {sample}: not an inspect sample ({_reason(exc)}).") from None


def _reason(exc: BaseException) -> str:
    """The first line of an exception, with its type."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


def read_log_header(path: str | Path, what: str = "eval log", reductions: bool = True) -> EvalLog:
    """The header of one log (no samples), with its reductions unless ``reductions`` is false."""
    with LogReader(path, what, reductions) as reader:
        return reader.header


@dataclass
class LogDigest:
    """A whole log without transcripts: the header and every :class:`LogSample` (for reports over all samples)."""

    header: EvalLog
    samples: list[LogSample]

    @property
    def eval(self) -> Any:
        return self.header.eval

    @property
    def status(self) -> str:
        return self.header.status

    @property
    def reductions(self) -> Any:
        return self.header.reductions

    @property
    def results(self) -> Any:
        return self.header.results

    @property
    def location(self) -> str:
        return self.header.location


def read_log_digest(
    path: str | Path, what: str = "eval log", scores: Callable[[EvalLog], bool] | None = None
) -> LogDigest:
    """The header and every sample of one log, without transcripts, inputs and targets; without the samples'
    scores when ``scores`` (asked with the header) says so."""
    with LogReader(path, what) as reader:
        keep = scores is None or scores(reader.header)
        return LogDigest(reader.header, list(reader.samples(inputs=False, scores=keep)))
