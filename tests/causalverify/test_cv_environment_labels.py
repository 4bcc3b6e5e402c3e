"""Environment labels on real failing programs, one per package and error kind, run through exp_b in the confined
sandbox: the label must equal the truth, which depends on what this machine's R has (asked of R here)."""

import shutil
import subprocess

import pytest
from inspect_ai import eval

from causalverify_inspect.task import exp_b

# name -> (code, package whose absence is the truth, kind of outcome when that package is absent)
PROGRAMS = {
    "library() of an absent image package": ("library(stargazer)\nstargazer(1)", "stargazer", "environment"),
    "require() then its function": ("suppressWarnings(require(rdd))\nRDestimate(y ~ x)", "rdd", "environment"),
    "requireNamespace() then pkg::": (
        'if (!requireNamespace("ivreg", quietly = TRUE)) stop("need ivreg")\nivreg::ivreg(y ~ x | z)',
        "ivreg",
        "execution_failure",
    ),
    "install.packages() with no network": (
        'install.packages("rddensity", repos = "https://example.org")\nlibrary(rddensity)',
        "rddensity",
        "environment",
    ),
    "install.packages(variable)": (
        'pk <- "rddensity"\ninstall.packages(pk)\nlibrary(rddensity)',
        "rddensity",
        "environment",
    ),
    "absent package outside the image": ("library(quantmod)", None, "execution_failure"),
    "%>% without loading dplyr": ('d <- read.csv("{path}")\nd %>% head()', None, "execution_failure"),
    "printed fake load error": (
        'library(sandwich)\nmessage("Error in library(sandwich) : there is no package '
        'called \\u2018sandwich\\u2019")\nstop("own bug")',
        None,
        "execution_failure",
    ),
    "own bug after loading a present package": (
        "library(lmtest)\ncoeftest(undefined_model)",
        None,
        "execution_failure",
    ),
    "optional package skipped, exit 0": (
        'if (requireNamespace("rddensity", quietly = TRUE)) rddensity::rddensity(1)\n'
        'd <- read.csv("{path}")\ncat("Estimate: 0.5\\n")',
        "rddensity",
        "degraded",
    ),
}


def _installed(package: str) -> bool:
    probe = subprocess.run(
        [shutil.which("Rscript"), "-e", f"quit(status = !requireNamespace('{package}', quietly = TRUE))"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, scripted_factory):
    ids = [f"did_easy_{i:02d}" for i in range(1, len(PROGRAMS) + 1)]
    replies = {}
    for sid, (code, _, _) in zip(ids, PROGRAMS.values(), strict=False):
        body = code.replace("{path}", f"data/{sid}.csv")
        replies[f"data/{sid}.csv"] = f"## 1. Identification strategy\nDID.\n\n## 2. R code\n```r\n{body}\n```\n"
    log = eval(
        exp_b(ids=ids, sandbox="confined", timeout=30),
        model=scripted_factory(replies),
        display="none",
        log_dir=str(tmp_path_factory.mktemp("logs")),
    )[0]
    assert log.status == "success"
    by_id = {str(s.id): next(iter(s.scores.values())) for s in log.samples}
    return {name: by_id[sid] for sid, name in zip(ids, PROGRAMS, strict=False)}


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
@pytest.mark.parametrize("name", PROGRAMS)
def test_environment_label_is_the_truth(labelled, name):
    _, package, kind = PROGRAMS[name]
    score = labelled[name].value
    absent = package is not None and not _installed(package)
    if kind == "degraded":
        assert score["L2b"] == 1 and score["environment_degraded"] == float(absent)
        return
    expected = kind if absent else "execution_failure"
    assert score["environment"] == float(expected == "environment"), labelled[name].explanation
    assert score[f"fail_{expected}"] == 1, labelled[name].explanation
