"""The adjudicated reorder route end to end (issue 31.2): ``glass-build --reorder adjudicated`` -> ``noop_audit``
-> ``glass-build audit`` -> an evaluable corpus, on the built-in GSM and MATH corpora, with a scripted adjudicator.

The scripted adjudicator stands in for a capable model: it calls a reorder twin answer-changing when the
constraint graph of ``operators.reorder`` would not admit its order (so its verdicts are the safe graph's), and
every other twin answer-preserving. Printed per suite: bases, reorder candidates (twins flagged
``needs_adjudication``), how many the adjudicator dropped and kept, reorder coverage (share of bases with a
reorder twin) of the graph build, the adjudicated build and the audited copy, and the adjudicator calls the audit
made (one per distinct twin prompt of the pool, every family) per base.

    .venv/bin/python benchmarks/glass_adjudicated_route.py
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from glass_inspect.corpus.audit import apply_audit
from glass_inspect.corpus.builtin import build_builtin
from glass_inspect.corpus.contract import TextRecord, read_corpus_info, read_pool
from glass_inspect.corpus.operators import back_references, glued, repairable_people, segment
from glass_inspect.task import glassgsm, glassmath, noop_audit


def graph_admits(base: str, order: list[int], tex: bool) -> bool:
    """Whether the safe graph (``back_references`` and ``glued``) admits ``order`` of the base's setup."""
    seg = segment(base, tex)
    deps = back_references(
        seg.setup, tex, people=repairable_people(base, tex), query=" ".join(seg.sentences[seg.query :])
    )
    where = {sentence: k for k, sentence in enumerate(order)}
    ordered = all(where[d] < where[j] for j, before in deps.items() for d in before)
    return ordered and all(where[j] == where[j - 1] + 1 for j in glued(seg.setup, tex))


def graph_adjudicator(pool: list[TextRecord], tex: bool) -> tuple[Model, list[str]]:
    """A mockllm adjudicator answering CHANGES for the reorder twins the graph forbids; its prompts are recorded."""
    bases = {r.text_id: r.text for r in pool if r.role == "base"}
    forbidden = {
        r.text
        for r in pool
        if r.operator == "sentence_reorder" and not graph_admits(bases[r.base_id], r.changes["order"], tex)
    }
    prompts: list[str] = []

    def reply(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        prompts.append(prompt)
        twin = re.search(r"REWRITTEN PROBLEM:\n(.*?)\n\nCORRECT FINAL ANSWER", prompt, re.S)
        verdict = "CHANGES" if twin and twin.group(1) in forbidden else "PRESERVES"
        out = ModelOutput.from_content(model="mockllm/adjudicator", content=f"VERDICT: {verdict}")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/adjudicator", custom_outputs=reply, memoize=False), prompts


def reorder_coverage(corpus: Path) -> float:
    counts = read_corpus_info(corpus)["counts"]
    bases = counts["bases"]
    with_reorder = {r.base_id for r in read_pool(corpus) if r.operator == "sentence_reorder"}
    return len(with_reorder) / bases


def route(suite: str, work: Path) -> None:
    tex = suite == "math"
    graph = build_builtin(suite, work / f"{suite}-graph")
    raw = build_builtin(suite, work / f"{suite}-raw", reorder="adjudicated")
    pool = read_pool(raw)
    adjudicator, prompts = graph_adjudicator(pool, tex)
    [log] = eval(
        noop_audit(corpus=str(raw)),
        model=adjudicator,
        model_roles={"adjudicator": adjudicator},
        display="none",
        log_dir=str(work / "logs"),
    )
    audited = work / f"{suite}-audited"
    drops = apply_audit(log.location, raw, audited)
    candidates = sum(r.operator == "sentence_reorder" for r in pool)
    kept = sum(r.operator == "sentence_reorder" for r in read_pool(audited))
    task = (glassmath if tex else glassgsm)(corpus=str(audited))  # evaluable: no refusal after the audit
    bases = read_corpus_info(raw)["counts"]["bases"]
    print(
        f"{suite}: {bases} bases; reorder candidates {candidates}, dropped {candidates - kept}, kept {kept} "
        f"(audit drops {drops}); reorder coverage graph {reorder_coverage(graph):.3f}, adjudicated "
        f"{reorder_coverage(raw):.3f}, audited {reorder_coverage(audited):.3f}; adjudicator calls "
        f"{len(prompts)} = {len(prompts) / bases:.1f} per base; eval samples after audit {len(task.dataset)}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for suite in ("gsm", "math"):
            route(suite, Path(tmp))


if __name__ == "__main__":
    main()
