"""``causal-suite plan`` beside the requests a scripted run of the same settings makes (issue 29.3).

For each task family: the plan's requests per role (the number when every reply parses, and the most with every
re-ask or fallback) and its input-token estimate for the model under test, then the requests the scripted run's
log records per role (its ``ModelEvent`` s) and the characters it sent, divided by the same 4 characters a token.
Offline, seeded, scripted models (``scripted/<name>`` with a replies file, every reply distinct: CoBe asks an
identical judge prompt once, so identical rewrites would need fewer judge calls than planned); about a minute on
2 cores.

    python benchmarks/plan_vs_run.py
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.model import get_model

from causal_suite.plan import CHARS_PER_TOKEN, MODEL_ROLE, make_plan

CASES: list[tuple[str, dict[str, Any], dict[str, str], dict[str, Any]]] = [
    ("glass_inspect/glassgsm", {"subset": 2, "doses": "1"}, {}, {"epochs": 2}),
    ("glass_inspect/glassmath", {"subset": 2, "doses": "1", "layout": "sample", "choices": "false"}, {}, {}),
    ("glass_inspect/noop_audit", {}, {"adjudicator": "VERDICT: PRESERVES"}, {"limit": 4}),
    ("cobe_inspect/cobe", {"subset": 2}, {"grader": "T"}, {}),
    ("causalverify_inspect/exp_a", {}, {}, {"limit": 3}),
    ("causalverify_inspect/exp_b", {"subset": 4, "sandbox": "confined"}, {}, {}),
]


DISTINCT = [f"A rewritten story, number {i}. The answer is {i}." for i in range(500)]  # no two judge prompts alike


def _model(name: str, reply: str | list[str], folder: Path) -> Any:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(reply))
    return get_model(f"scripted/{name}", replies=str(path))


def _logged(log: Any) -> tuple[Counter[str], int]:
    """Requests per role in the log, and the characters sent to the model under test: each of its requests sent
    the sample's conversation before the reply (the log condenses the requests' own inputs, so they are rebuilt
    from the sample's messages; messages joined by a newline, as the plan counts them)."""
    calls: Counter[str] = Counter()
    chars = 0
    for sample in log.samples:
        roles = Counter(e.role or MODEL_ROLE for e in sample.events if isinstance(e, ModelEvent))
        calls.update(roles)
        prompt = "\n".join(m.text for m in sample.messages if m.role != "assistant")
        chars += len(prompt) * roles[MODEL_ROLE]
    return calls, chars


def main() -> None:
    print("| task | settings | role | planned (at most) | logged | planned input tokens | sent / 4 |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for task, args, roles, options in CASES:
            model = _model("under_test", DISTINCT, folder)
            bound = {role: _model(role, reply, folder) for role, reply in roles.items()}
            [log] = inspect_eval(
                task, task_args=args, model=model, model_roles=bound or None, display="none", log_dir=tmp, **options
            )
            plan = make_plan(task, args, "scripted", epochs=options.get("epochs"), limit=options.get("limit"))
            calls, chars = _logged(log)
            settings = " ".join(f"{k}={v}" for k, v in {**args, **options}.items())
            for r in plan.roles:
                tokens = f"{r.input_tokens}" if r.role == MODEL_ROLE else "-"
                sent = f"{chars / CHARS_PER_TOKEN:.0f}" if r.role == MODEL_ROLE else "-"
                print(
                    f"| {task} | {settings} | {r.role} | {r.calls} ({r.at_most}) | {calls[r.role]} | {tokens} | {sent} |"
                )


if __name__ == "__main__":
    main()
