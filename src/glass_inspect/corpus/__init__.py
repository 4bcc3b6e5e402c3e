"""Data tooling of GlassGSM / GlassMATH: everything that builds or checks a corpus before any model is called.

Modules (each imports only modules listed above it, ``glass_inspect.answers`` / ``glass_inspect.prompts`` and
``causal_suite``; nothing here imports the eval layer of ``glass_inspect``):

- ``contract``: the on-disk corpus layout (``TextRecord``, ``PairRecord``, readers and writers, family names,
  doses) and the sample-metadata contract Frail reads; re-exported here as the package's public API;
- ``operators``: the seeded meaning-preserving operators (entity_rename, sentence_reorder, irrelevant_context,
  identity);
- ``complexity``: the declared complexity C of a base problem;
- ``audit``: the structural No-Op checks and ``apply_audit`` (a filtered copy from a finished noop_audit log);
- ``sources``: GSM8K / MATH records -> base problems;
- ``build``: candidate twins, the multi-operator dose mix, corpus assembly (``build_corpus``);
- ``builtin``: the built-in corpora (``data/``), built on first use and cached;
- ``labeled_pairs``: the upstream LabeledPair JSONL, export and import;
- ``cli``: the ``glass-build`` command.
"""

from glass_inspect.corpus.contract import (
    CORPUS_SCHEMA,
    DEFAULT_DOSES,
    FAMILIES,
    IDENTITY,
    METADATA_VERSION,
    TWIN_FAMILIES,
    PairRecord,
    TextRecord,
    manifest_path,
    parse_doses,
    read_corpus_info,
    read_manifest,
    read_pool,
    write_corpus_dir,
    write_jsonl,
)

__all__ = [
    "CORPUS_SCHEMA",
    "DEFAULT_DOSES",
    "FAMILIES",
    "IDENTITY",
    "METADATA_VERSION",
    "TWIN_FAMILIES",
    "PairRecord",
    "TextRecord",
    "manifest_path",
    "parse_doses",
    "read_corpus_info",
    "read_manifest",
    "read_pool",
    "write_corpus_dir",
    "write_jsonl",
]
