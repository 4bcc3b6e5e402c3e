"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes, and declares what it
contributes to the suite's commands (``SUITE_BENCHMARK``, read by ``causal_suite.registration``)."""

from causal_suite.inspect_compat import register_bare_scorers
from causal_suite.registration import Benchmark, DemoRun, LogKind
from causalverify_inspect.exp_a_scorer import exp_a_scorer
from causalverify_inspect.figures import exp_b_figures
from causalverify_inspect.sandbox import ConfinedSandboxEnvironment  # noqa: F401
from causalverify_inspect.scorers import comparison_units, exp_b_scorer
from causalverify_inspect.task import exp_a, exp_b

SCORERS = (
    exp_a_scorer,
    exp_b_scorer,
)
register_bare_scorers(*SCORERS)  # so that `inspect score LOG` finds them

SUITE_BENCHMARK = Benchmark(
    package="causalverify_inspect",
    scorers=SCORERS,
    tasks=(exp_b, exp_a),
    logs=(LogKind("exp_b", ("exp_b",), figures=exp_b_figures, comparison_units=comparison_units),),
    demo=(
        DemoRun(
            "causalverify_inspect/exp_b",
            {"sandbox": "confined"},
            roles=("extractor",),
            small={"subset": 4},  # one scenario of each method family
            max_tokens=256,
            headline=(
                "L2b_plus",
                "L2b_plus_unscored_as_0",
                "L2b_plus_unscored_as_1",
                "unscored_share",
                "L2b",
                "L2a",
                "L1",
            ),
            requires=("Rscript", "bwrap", "prlimit"),
        ),
    ),
)
