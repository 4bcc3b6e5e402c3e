"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes, and declares what it
contributes to the suite's commands (``SUITE_BENCHMARK``, read by ``causal_suite.registration``)."""

from causal_suite.inspect_compat import register_bare_scorers
from causal_suite.registration import Benchmark, DemoRun, LogKind
from cobe_inspect.figures import cobe_figures
from cobe_inspect.scorers import cobe_judge, comparison_units
from cobe_inspect.task import cobe

SCORERS = (cobe_judge,)
register_bare_scorers(*SCORERS)  # so that `inspect score LOG` finds it

SUITE_BENCHMARK = Benchmark(
    package="cobe_inspect",
    scorers=SCORERS,
    tasks=(cobe,),
    logs=(LogKind("cobe", ("cobe",), figures=cobe_figures, comparison_units=comparison_units),),
    demo=(
        # the demo's one model also judges: CoBe refuses that unless told (self_judge), and marks the log self-judged
        DemoRun(
            "cobe_inspect/cobe",
            {"self_judge": True},
            roles=("grader",),
            small={"subset": 1},  # one core example with its three phrasings
            max_tokens=128,
            headline=("accuracy", "E0_failure", "E1_failure", "E2_failure", "self_judged"),
        ),
    ),
)
