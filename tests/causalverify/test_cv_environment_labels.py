"""Environment labels on real failing programs, one per package and error kind, run through exp_b in the confined
sandbox: the label must equal the truth, which depends on what this machine's R has (asked of R here)."""

import shutil
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval

from causalverify_inspect.packages import environment_package, loaded_packages
from causalverify_inspect.task import exp_b

# name -> (code, package whose absence is the truth, kind of outcome when that package is absent)
PROGRAMS = {
    "library() of an absent image package": ("library(stargazer)\nstargazer(1)", "stargazer", "environment"),
    "require() then its function": ("suppressWarnings(require(rdd))\nRDestimate(y ~ x)", "rdd", "environment"),
    "requireNamespace() then pkg::": (  # the branch taken because ivreg is absent fails: the environment's
        'if (!requireNamespace("ivreg", quietly = TRUE)) stop("need ivreg")\nivreg::ivreg(y ~ x | z)',
        "ivreg",
        "environment",
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


# ------------------------------------------------------------------------------------------------- R programs
R_PROGRAMS = Path(__file__).parent / "fixtures" / "environment"
INSTALL_FAILED = (
    "Error in read.dcf(file = tmpf) : cannot open the connection\n"
    "Calls: install.packages -> available.packages -> read.dcf\n"
)
FALLBACK_FAILED = 'Error in coef(summary(m))["treat_x_post", 1] : subscript out of bounds\n'


@pytest.mark.needs_r
@pytest.mark.parametrize(
    ("program", "stderr"), [("install_loop", INSTALL_FAILED), ("fallback_branch", FALLBACK_FAILED)]
)
def test_the_stderr_is_what_r_prints(program, stderr):
    run = subprocess.run(
        ["Rscript", "--vanilla", str(R_PROGRAMS / f"{program}.R")], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1 and stderr in run.stderr


def test_a_failed_install_names_the_package_whose_install_failed():
    code = (R_PROGRAMS / "install_loop.R").read_text()
    missing = ["fixest", "rdrobust"]  # the sandbox's own check; data.table is there
    assert environment_package(INSTALL_FAILED, missing, code) == "rdrobust"  # the loop's first, not the alphabet's


def test_a_failure_in_the_fallback_branch_of_an_absent_package_is_the_environment():
    code = (R_PROGRAMS / "fallback_branch.R").read_text()
    assert environment_package(FALLBACK_FAILED, ["fixest"], code) == "fixest"
    assert environment_package(FALLBACK_FAILED, [], code) is None  # fixest present: the branch's bug is the code's
    plain = "m <- lm(y ~ x, data = d)\nlibrary(fixest)\n"  # loaded unconditionally: no fallback branch
    assert environment_package(FALLBACK_FAILED, ["fixest"], plain) is None


def test_a_package_the_profile_lacks_by_design_is_an_ordinary_failure():
    stderr = "Error in library(stargazer) : there is no package called \u2018stargazer\u2019\n"
    assert environment_package(stderr, ["stargazer"], "library(stargazer)", "full") == "stargazer"
    assert environment_package(stderr, ["stargazer"], "library(stargazer)", "upstream") is None


@pytest.mark.parametrize(
    "code",
    [
        'for (p in c("fixest", "rdrobust")) if (!requireNamespace(p, quietly = TRUE)) install.packages(p)',
        'to_install <- setdiff(c("fixest"), rownames(installed.packages())); install.packages(to_install)',
        'for (inst in c("fixest")) library(inst, character.only = TRUE)',
    ],
)
def test_loop_variables_are_not_packages(code):
    assert loaded_packages(code) == ["fixest"] + (["rdrobust"] if "rdrobust" in code else [])


def test_a_load_error_outside_the_reference_set_is_not_blamed_on_another_missing_package():
    code = 'if (!require(rdrobust)) stop("no rdrobust")\nlibrary(rdd)\n'
    stderr = "Error in library(rdd) : there is no package called \u2018rdd\u2019\n"
    assert environment_package(stderr, ["rdd", "rdrobust"], code, "upstream") is None  # rdd: absent by design
    assert environment_package(stderr, ["rdd", "rdrobust"], code, "full") == "rdd"
