"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes, and declares what it
contributes to the suite's commands (``SUITE_BENCHMARK``, read by ``causal_suite.registration``)."""

from causal_suite.inspect_compat import register_bare_scorers
from causal_suite.registration import Benchmark, DemoRun, LogKind
from glass_inspect.figures import glass_figures
from glass_inspect.metrics import comparison_units
from glass_inspect.scorers import glass_match, modal_answer, noop_verdict
from glass_inspect.task import glassgsm, glassmath, noop_audit

SCORERS = (
    glass_match,
    noop_verdict,
)
register_bare_scorers(*SCORERS)  # so that `inspect score LOG` finds them

HEADLINE = ("break_rate", "base_accuracy", "identity_floor")
DEMO_SLICE = {"subset": 3, "doses": "1"}  # three bases with all their dose-1 twins

SUITE_BENCHMARK = Benchmark(
    package="glass_inspect",
    scorers=SCORERS,
    tasks=(glassgsm, glassmath, noop_audit),
    logs=(
        LogKind(
            "glass",
            ("glassgsm", "glassmath"),
            figures=glass_figures,
            comparison_units=comparison_units,
            reducer=modal_answer,
            sample_scores=False,  # the figures read the header's reductions and the samples' metadata
        ),
    ),
    demo=tuple(
        DemoRun(f"glass_inspect/{name}", small=DEMO_SLICE, epochs=2, max_tokens=128, headline=HEADLINE)
        for name in ("glassgsm", "glassmath")
    ),
)
