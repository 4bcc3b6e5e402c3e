"""R packages in Exp B runs: which the code loads, and when a failure is the environment's rather than the code's.

The paper's taxonomy (App. C.2) separates environment failures (the scoring environment lacks a package the model
reasonably used) from the model's own execution failures. Here the evidence has two parts that a program cannot
forge together: which packages the sandbox lacks is asked of the sandbox's own R before the program runs (never read
from the program's output), and the program's stderr only ties its failure to one of those packages.
"""

from __future__ import annotations

import re

from causalverify_inspect.sandbox import DOCKER_R_PACKAGES

_NAME = r"[A-Za-z][\w.]*"
_CALL_ARGS = re.compile(r"\b(?:library|require|requireNamespace|loadNamespace|p_load|install\.packages)\s*\(([^)]*)\)")
_NAMESPACE = re.compile(rf"\b({_NAME}):::?(?=[\w.`])")

_LOAD_ERROR = re.compile(
    rf"there is no package called\s*[‘'\"`]?({_NAME})|"
    rf"package\s*[‘'\"`]({_NAME})[’'\"`]?\s*is not available|"
    r"could not find function\s*[“\"'`]([^”\"'`]+)"
)
_INSTALL_CALL = re.compile(r"\binstall\.packages\s*\(([^)]*)\)?")
_INSTALL_FAILED = re.compile(r"unable to install packages|trying to use CRAN without setting a mirror")
KNOWN_EXPORTS = {
    "fixest": ("feols", "feglm", "fepois", "etable", "sunab", "iplot", "coefplot", "fixef", "i"),
    "rdrobust": ("rdrobust", "rdplot", "rdbwselect"),
    "rddensity": ("rddensity", "rdplotdensity"),
    "plm": ("plm", "pdata.frame", "pgmm", "vcovSCC"),
    "estimatr": ("lm_robust", "iv_robust", "difference_in_means"),
    "AER": ("ivreg",),
    "ivreg": ("ivreg",),
    "stargazer": ("stargazer",),
    "rdd": ("RDestimate", "DCdensity"),
    "lmtest": ("coeftest", "coefci"),
    "sandwich": ("vcovHC", "vcovCL", "NeweyWest"),
    "car": ("linearHypothesis",),
    "broom": ("tidy", "glance", "augment"),
    "dplyr": ("mutate", "summarise", "group_by", "%>%", "left_join"),
    "data.table": ("fread", "data.table", "setDT"),
    "readr": ("read_csv",),
    "tibble": ("tibble", "as_tibble"),
    "tidyverse": ("%>%", "mutate", "read_csv", "ggplot", "tibble"),
    "ggplot2": ("ggplot", "aes", "geom_point"),
}
"""Functions of the image's packages whose "could not find function" error means their package failed to load
(upstream's wrapper silences the load warning of ``require``, so only the missing function shows)."""


def loaded_packages(code: str) -> list[str]:
    """Packages the code loads or installs: ``library``/``require``/``requireNamespace``/``loadNamespace``/
    ``pacman::p_load``/``install.packages`` arguments (bare or quoted names, ``c(...)`` lists), ``pkg::`` and
    ``pkg:::`` prefixes, and string literals that are exactly the name of one of the image's packages
    (``pkgs <- c("fixest", ...)`` later loaded with ``character.only = TRUE``). Comments are not read, nor calls
    or names inside strings (``# library(fixest)``, ``cat("library(fixest)")``)."""
    masked, strings = mask_comments_and_strings(code)
    names = _call_arguments(masked, _CALL_ARGS, strings)
    names.update(n for n in _NAMESPACE.findall(masked) if n not in ("base", "stats", "utils", "methods", "pacman"))
    names.update(s for s in strings if s in DOCKER_R_PACKAGES)
    return sorted(names)


def mask_comments_and_strings(code: str) -> tuple[str, list[str]]:
    """``code`` without its comments and with each string literal replaced by ``"<n>"``, and the literals' contents
    (n indexes them). Escapes inside strings are honoured; a string left open runs to the end."""
    out: list[str] = []
    strings: list[str] = []
    i = 0
    while i < len(code):
        char = code[i]
        if char == "#":
            end = code.find("\n", i)
            i = len(code) if end < 0 else end
        elif char in "\"'":
            j, content = i + 1, []
            while j < len(code) and code[j] != char:
                content.append(code[j : j + 2] if code[j] == "\\" else code[j])
                j += 2 if code[j] == "\\" else 1
            out.append(f'"{len(strings)}"')
            strings.append("".join(content))
            i = j + 1
        else:
            out.append(char)
            i += 1
    return "".join(out), strings


def _call_arguments(text: str, calls: re.Pattern, strings: list[str] | None = None) -> set[str]:
    """Package names passed to the ``calls`` in ``text``: bare or quoted, alone or in a ``c(...)`` list;
    ``strings``: the literals that ``"<n>"`` placeholders in ``text`` stand for."""
    names: set[str] = set()
    for args in calls.findall(text):
        for part in re.split(r"[,()]", args):
            part = part.strip()
            if not part or "=" in part or part == "c":  # empty, named options (quietly = TRUE), c( of a list
                continue
            placeholder = re.fullmatch(r'"(\d+)"', part) if strings is not None else None
            name = strings[int(placeholder.group(1))] if placeholder and strings is not None else part.strip("\"'` ")
            if re.fullmatch(_NAME, name) and name not in ("TRUE", "FALSE", "T", "F"):
                names.add(name)
    return names


def missing_query(packages: list[str]) -> str:
    """R code printing, one per line, which of ``packages`` this R cannot find."""
    return f"cat(setdiff(c({', '.join(repr(p) for p in packages)}), rownames(installed.packages())), sep = '\\n')"


def image_packages(packages: list[str]) -> list[str]:
    """Those of ``packages`` that the reference environment (the Docker image) has."""
    return [p for p in packages if p in DOCKER_R_PACKAGES]


def environment_package(stderr: str, missing: list[str]) -> str | None:
    """The image's package whose absence made this run fail, or None (then the failure is the code's own).

    ``missing``: packages the code loads that the sandbox's own check found absent. The program's stderr only
    ties the failure to one of them: R's load error naming it, a failed ``install.packages`` call (no network in
    the sandbox), or "could not find function f" for an f that the package exports. A load error the program
    printed for a package the sandbox has, or a missing function of no missing package, names nothing.
    """
    candidates = image_packages(missing)
    named: set[str] = set()
    for package, not_available, function in _LOAD_ERROR.findall(stderr or ""):
        named.update({package, not_available} - {""})
        named.update(p for p in candidates if function in KNOWN_EXPORTS.get(p, ()))
    named.update(_call_arguments(stderr or "", _INSTALL_CALL))  # R's error names the failed call
    if _INSTALL_FAILED.search(stderr or ""):  # install.packages(some_variable): no network in the sandbox
        named.update(candidates)
    return next((p for p in candidates if p in named), None)
