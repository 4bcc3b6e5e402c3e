"""Deterministic extraction for Exp B (paper §4, App. C.2-C.3): the R block (L2a) and the printed estimate (L2b+).

``extract_r_code`` takes the first fenced block tagged ``r``/``R`` (``{r}`` and trailing spaces allowed); an untagged
block counts only if it looks like R (an assignment arrow or a call to ``library``/``read.csv``/``lm``...). Blocks
tagged with another language never count.

``extract(stdout, family)`` reads the printed estimate **only when exactly one candidate can be the treatment
effect**, and otherwise abstains (the scorer then asks the ``extractor`` role, showing it the candidate lines).

1. *Candidates* are collected by rules that read the structure of well-known printers first, then free text:

   - ``coef_table``: coefficient tables (``summary`` of ``lm``/``ivreg``/``plm``/``lm_robust``/``iv_robust``,
     ``lmtest::coeftest``, fixest ``summary``/``print``/``coeftable``, ``coef(summary(m))``, broom ``tidy`` tibbles
     and their data.frame prints): the row of the family's treatment term, value from the estimate column (found
     by the header, so N, SE, t, p and CI columns are never read as the estimate);
   - ``results_table``: a table of results keyed by specification, method, window or bandwidth (a data.frame or
     data.table print, rdrobust's summary table): every row is a candidate, rdrobust's ``Conventional`` /
     ``RD Effect`` row only (bias-corrected and robust rows are not point estimates); rows keyed by a single event
     day are not;
   - ``etable``: fixest ``etable`` columns, with the IV stage of each column;
   - ``named_vector``: ``print(coef(m))``, ``print(lm)``, a named result vector, a ``$name`` list element;
   - ``t_test``: event studies only, the mean printed by a one-sample ``t.test``;
   - ``labelled``: free-text lines (``cat``/``sprintf``/``print``): each number is attributed to its own label
     within the line (``N=``, ``SE``, ``t``, ``p``, CI brackets, a parenthesised number after the estimate,
     bandwidths, cutoffs, counts), and only numbers whose label names the effect (``Estimate``, ``ATT``, ``DID``,
     ``2SLS``, ``CAR[a,b]``, ``RD estimate``, the treatment term...) are candidates; a neutral label (``Spec B``)
     in a run of such lines is a candidate too; an event-study window in the label is kept;
   - ``answer_line``: the line the prompt asks for, ``Estimate: <number>`` alone on its line, not indented.

   Known printer headers and footers (fixest's ``Fixed-effects: unit_id: 200``, ``Observations``, R-squared, F
   and Wu-Hausman lines, rdrobust's bandwidth block, ``str()`` lines, echoed calls, headings) are never
   candidates. A candidate is set aside by its own label or its context: first stage, reduced form or naive OLS
   in IV designs (from the printed call, fixest's header, an etable's IV-stage row, a heading such as ``OLS:``,
   unless its own label names the IV estimate), placebo, pre-trend, pre-event windows, per-day rows, a
   difference between estimates, variants without controls, and anything under a robustness, sensitivity,
   placebo, heterogeneity or day-by-day heading. Candidates under a "main/primary/key results" heading, or whose
   label or row says preferred/main/headline, are marked preferred.
2. *Decision*: candidates that print the same value to their printed precision count as one. The answer line(s)
   designate the estimate when they agree with each other and with any candidate marked preferred; otherwise
   the candidates marked preferred; otherwise all candidates. Exactly one value left: the answer (with its
   rule, line and line number); none or several: abstain with the reason and the candidate lines. A percentage
   counts as a fraction in event studies (returns are decimals) but is never the only evidence: an output that
   prints the effect only as a percentage goes to the extractor, as does any percentage or rescaled effect in
   the other designs (its scale depends on the outcome's units) and an estimate printed as ``NA``.

Output cannot hide the estimate by its size: lines over ``MAX_LINE_CHARS`` are left unread (the reason says how
many) and the rest is read; an output too large to read whole (over ``MAX_STDOUT_CHARS`` or ``MAX_LINES``) is read
for its answer lines only. NUL and other control bytes and ANSI colour codes are dropped before reading.
``Extraction.numbers`` says whether what was read prints any number (numbers only on unread lines do not count).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace

NUM = r"[-+\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUM_RE = re.compile(rf"(?<![\w.])({NUM})(%?)")
_TOKEN_RE = re.compile(rf"(?<![\w.]){NUM}(?!\w|\.\d|-[A-Za-z])")  # not "30-day" or "2SLS"
MAX_STDOUT_CHARS = 500_000
MAX_LINE_CHARS = 4000
MAX_LINES = 60_000
MAX_LINE_NUMBERS = 40

_FENCE_RE = re.compile(r"^[ \t]*```[ \t]*(\{?[A-Za-z0-9_+-]*\}?)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)
_R_HINT_RE = re.compile(r"<-|\blibrary\(|\brequire\(|\bread\.csv\(|\bfread\(|\blm\(|\bfeols\(|\bivreg\(")


@dataclass(frozen=True)
class CodeBlocks:
    """What the response's fenced blocks hold: the R code taken (or None) and counts for the log."""

    code: str | None
    n_r_blocks: int
    n_other_blocks: int


def extract_r_code(response: str) -> CodeBlocks:
    """The R code of a response (L2a): first ``r``-tagged fenced block, else an untagged block that looks like R."""
    tagged, untagged, other = [], [], 0
    for match in _FENCE_RE.finditer(response):
        tag, body = match.group(1).strip("{}").lower(), match.group(2).strip()
        if tag == "r":
            tagged.append(body)
        elif tag == "" and _R_HINT_RE.search(body):
            untagged.append(body)
        else:
            other += 1
    blocks = tagged or untagged
    return CodeBlocks(code=blocks[0] if blocks and blocks[0] else None, n_r_blocks=len(blocks), n_other_blocks=other)


# ------------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Extracted:
    """An estimate: value, the rule that read it (``source``), its line, an event-study window if labelled, the
    line number (1-based, in stdout) and the value of its last printed digit."""

    value: float
    source: str
    line: str
    window: tuple[int, int] | None = None
    lineno: int | None = None
    unit: float | None = None


@dataclass(frozen=True)
class Candidate:
    """A number that can be the treatment effect. ``value`` is None when its scale is unknown (a percentage outside
    event studies)."""

    value: float | None
    unit: float
    rule: str
    line: str
    lineno: int
    window: tuple[int, int] | None = None
    preferred: bool = False
    answer_line: bool = False
    text: str = ""
    column: int | None = None  # an etable column (1-based)
    explicit: bool = False  # its own label, call or term names it the IV (second-stage) estimate
    percent: bool = False  # printed as a percentage (value already divided by 100)


@dataclass(frozen=True)
class Extraction:
    """What the deterministic reader decided: the estimate (or None), why, and the candidates it weighed."""

    estimate: Extracted | None
    reason: str
    candidates: tuple[Candidate, ...] = field(default_factory=tuple)
    numbers: bool = True
    """Whether the lines read print any number at all (False: nothing there for an extractor to find)."""

    def answers_disagree(self) -> bool:
        """Whether the answer lines (``Estimate: <number>``) print more than one value."""
        answers = [c for c in self.candidates if c.answer_line and c.value is not None]
        return len(answers) > 1 and not _all_agree(answers)

    def candidate_lines(self, limit: int = 40) -> list[str]:
        """``"<line number>: <line>"`` of each distinct candidate line, in output order (at most ``limit``)."""
        seen: dict[int, str] = {}
        for c in sorted(self.candidates, key=lambda c: c.lineno):
            seen.setdefault(c.lineno, f"{c.lineno}: {c.line[:300]}")
        return list(seen.values())[:limit]

    def provenance(self) -> dict:
        """Score metadata: the rule, line and reason of the answer, or the reason and candidate lines of an
        abstention."""
        if self.estimate is not None:
            return {
                "rule": self.estimate.source,
                "line": self.estimate.line[:300],
                "lineno": self.estimate.lineno,
                "reason": self.reason,
                "n_candidates": len(self.candidates),
            }
        return {"rule": None, "reason": self.reason, "candidate_lines": self.candidate_lines()}


# ------------------------------------------------------------------------------------------------- numbers
def _to_float(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def _unit(text: str) -> float:
    """The value of the last printed digit of a number token (``2.94`` -> 0.01, ``1.2e-03`` -> 1e-5)."""
    mantissa, _, exponent = text.lstrip("+-\u2212").lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    try:
        shift = int(exponent) if exponent else 0
    except ValueError:
        shift = 0
    return 10.0 ** (shift - decimals)


def _agree(a: Candidate, b: Candidate) -> bool:
    """Same value to the printed precision of the less precise of the two."""
    if a.value is None or b.value is None:
        return False
    tolerance = 0.5 * max(a.unit, b.unit) * (1 + 1e-6) + 1e-12
    return abs(a.value - b.value) <= tolerance


def _all_agree(candidates: list[Candidate]) -> bool:
    """Whether every pair agrees; each printed value is compared once (10,000 copies of one line cost one)."""
    distinct = list({(c.value, c.unit): c for c in candidates}.values())
    return all(_agree(a, b) for a in distinct for b in distinct)


@dataclass(frozen=True)
class _Tok:
    start: int
    end: int
    text: str
    value: float
    percent: bool


def _tokens(line: str) -> list[_Tok]:
    out = []
    for m in _TOKEN_RE.finditer(line):
        rest = line[m.end() : m.end() + 3]
        percent = bool(re.match(r"\s?%", rest))
        try:
            value = _to_float(m.group(0))
        except ValueError:
            continue
        if math.isfinite(value):
            out.append(_Tok(m.start(), m.end(), m.group(0), value, percent))
    return out


def _clean(stdout: str) -> str:
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stdout)
    text = text.replace("\r\n", "\n")
    text = "\n".join(part.rsplit("\r", 1)[-1] for part in text.split("\n"))  # progress bars: the last redraw
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)


# ------------------------------------------------------------------------------------------------- vocabulary
_TERMS = {
    "DID": re.compile(
        r"^(?:treat\w*(?::|_?x_?|\*|_|\.)post\w*|post\w*(?::|_?x_?|\*|_|\.)treat\w*|did\w*|d_?i_?d|dd|"
        r"i\(treat\w*\*post\w*\)|i\(post\w*\*treat\w*\)|treat\w*xpost\w*|treat\w*_post\w*|treatment:post\w*|"
        r"treated\s*x\s*post\w*|post\w*\s*x\s*treat\w*)$",
        re.I,
    ),
    "EVENT_STUDY": re.compile(
        r"^(?!\w*(?:event_?day|event_?time|rel_?day)$)(?:\w*post\w*|\w*event\w*|after\w*|\w*window\w*|"
        r"i\(event_day>=?0\)\w*|\(?event_day>=?0\)?\w*)$",
        re.I,
    ),
    "IV": re.compile(r"^(?:fit_x|x_?hat|xhat|x\(fit\)|x_?fitted|fitted_?x|x|xtrue|x1|fit_x1)$", re.I),
    "RDD": re.compile(
        r"^(?:treated\w*|treat|d|d1|dtrue|above\w*|treatment\w*|conventional|rdeffect|cutoff_?dummy|"
        r"i\(running_var>=?[\d.]+\)\w*|\(?running_var>=?[\d.]+\)?\w*)$",
        re.I,
    ),
}
_IV_FITTED_TERM = re.compile(r"^(?:fit_x|x_?hat|xhat|x\(fit\)|x_?fitted|fitted_?x)$", re.I)
_EXCLUDE_TERM = re.compile(
    r"lead|lag|\brel|period_?-?\d|day_?-?\d|::|:.*:|mkt|market|pre_|^pre|intercept|"
    r"(?:factor|day|time|dummy|_t)-?\d+$|estimation",
    re.I,
)


def _norm_term(term: str) -> str:
    return re.sub(r"[`'\"\s]", "", term).strip()


def _is_term(term: str, family: str) -> bool:
    t = _norm_term(term)
    if not t or _EXCLUDE_TERM.search(t):
        return False
    if family != "DID" and ":" in t:
        return False
    if family == "RDD" and re.search(r"(?i)_x_|\*|run|dist|score|_r$|_c$|centr|slope", t):
        return False  # the treatment-by-running-variable interaction (a slope change), not the jump
    return bool(_TERMS[family].match(t))


_EFFECT_WORDS = {
    "common": r"\bestimate\b|\bestimates\b(?!\s*:?\s*$)|(?<!fixed[- ])(?<!fixed )(?<!random[- ])(?<!random )"
    r"(?<!unit )(?<!time )(?<!period )(?<!individual )\beffect\b|\batt\b|\bate\b|\batet\b|\blate\b|"
    r"\bcoef(?:ficient)?\b|\bimpact\b|\bresult\b|\bpoint estimate\b|\best\b",
    "DID": r"\bdid\b|\bdid_|\bdd\b|diff(?:erence)?s?[- ]in[- ]diff|\bdiff-in-diff|\btwfe\b|"
    r"treat\w*(?:_?x_?|:|\*| x )post|interaction",
    "EVENT_STUDY": r"\bc?a?ar\b|\bcaar\b|cumulative abnormal|abnormal return|\bpost[- _]?event\b|\bevent effect\b",
    "IV": r"2sls|\btsls\b|\biv\b|second[- ]stage|instrumented|\bwald\b|instrumental",
    "RDD": r"\brdd?\b|discontinuity|\bjump\b|cutoff effect|\blocal linear\b|\brd effect\b|\bthreshold effect\b",
}
_STRONG_STAT = re.compile(
    r"\bn\b|\bn_\w+|\bnobs\b|\bobs\b|observations?|sample size|number of|\bcount\b|\bse\b|s\.e\.|\bstd\b|"
    r"std\.?\s*(?:err|dev)|standard[- ](?:error|deviation)|stderr|std_error|std\.error|\bsd\b|\bt\b|"
    r"t[- ]?stat\w*|t[- ]?val\w*|\bz\b|z[- ]?val\w*|z[- ]?stat\w*|\bp\b|p[- ]?val\w*|\bpval\b|\bci\b|c\.i\.|"
    r"conf\w*|interval|\blower\b|\bupper\b|\blo\b|\bhi\b|\bdf\b|\bdof\b|\bf\b|f[- ]?stat\w*|f[- ]?test|"
    r"\br2\b|r-?squared|\brmse\b|\bsigma\b|variance|\bvar\b|bandwidth|\bbw\b|\bh\b|\bcut-?off\b|threshold|"
    r"\bc\b|kernel|clusters?|\bmedian\b|\bmin\b|minimum|\bmax\b|maximum|quantile|percentile|\biqr\b|"
    r"\bshare\b|fraction|proportion|%\s*(?:positive|negative|significant)|\bskew\w*|\bkurt\w*|correlation|"
    r"\bcorr?\b|cor\(|\btest\b|t-?test|wilcoxon|\bh[01]\b|\bnull\b|\bbeta\b|\balpha\b|intercept|\bslope\b|"
    r"\bweights?\b|\bseed\b|\brows?\b|\bcolumns?\b|dimensions?|\blog-?lik\w*|\baic\b|\bbic\b|\bresidual|"
    r"\bwu-hausman\b|\bsargan\b|\bweak\b|statistic|\biter\w*|\belapsed\b|\bseconds?\b|\bdegree\b|\border\b|"
    r"\bpoly\w*|\bspec(?:ification)?\s*#?\s*$|\bmodel\s*#?\s*$|\bcolumn\s*#?\s*$|\bstep\s*$|"
    r"\b(?:se|std|standard error|t[- ]?stat|p[- ]?val\w*|ci|conf\w*|n)\b\s*(?:of|for)\b|[<>\u2260\u2264\u2265]=?\s*$|"
    r"!=\s*$|\+/-|\u00b1|(?:pct|percent|%|share|fraction)\s*(?:of\s*)?(?:positive|negative)|"
    r"^\W*(?:positive|negative|significant)\s+\w+\s*[:=]?\s*$|\bday\s*$|\bt\s*=\s*$|\blag\s*$|"
    r"\bno (?:controls|covariates)\b|\bwithout (?:controls|covariates)\b",
    re.I,
)
_WEAK_STAT = re.compile(
    r"\bmean\b|\baverage\b|\bavg\b|\btotal\b|\bsum\b|baseline|\bcontrol\b|\btreated\b|\btreatment group\b|"
    r"\btrend\b|\bchange\b|\bgrowth\b|\blevel\b|\boutcome\b|\bunits\b|\bfirms\b|\bstocks\b|\bperiods\b|"
    r"\bdays?\b|\bpre\b|\bpost\b|\bbefore\b|\bafter\b|\bvalue\b|\bdata\b|\bsample\b|"
    r"^\W*(?:treated |control |total |number of )?(?:unit|firm|stock|period|county|state|cluster|group)\W*$",
    re.I,
)
_MEAN_EFFECT = re.compile(r"\b(?:ar|aar|car|caar|abnormal|effect|estimate|did|att|ate|late|coef\w*|diff\w*-in)\b", re.I)
_EXCLUDED_ROLE = re.compile(
    r"placebo|pre[- ]?trend|pre[- ]?event|pre[- ]?period|pre[- ]?treatment|falsification|\bleads?\b|anticipation|"
    r"\bnaive\b|\btrue\b|\bexpected\b|\bprior\b|\bcanonical\b|\bdgp\b|simulated|\bdays? -\d+\b|"
    r"bias[- ]corrected|\brobust\s*[:=]|\bdifference\b(?![- ]in[- ]|s?[- ]in[- ])|\bdiff\b(?![- ]in)|"
    r"\bwithout\b|\bexcluding\b|\btrimmed\b|\bwinsori[sz]ed\b|\bsubsample\b|\bsubgroup\b|\bheterogene\w*|"
    r"\bmanual\b|\b(?:no|without) (?:controls|covariates)\b",
    re.I,
)
_IV_NOT_EFFECT = re.compile(r"first[-_ ]?stage|1st[-_ ]stage|reduced[-_ ]?form|(?<![a-z])ols\b|naive", re.I)
_IV_EFFECT = re.compile(
    r"2sls|\btsls\b|\biv\b|second[- ]stage|instrumented|\bwald\b|instrumental|\bivreg\b|"
    r"iv_robust",
    re.I,
)
_PREFERRED_COLUMN = re.compile(
    r"(?i)\b(?:preferred|main|headline|chosen|primary)\b[^\d\n]{0,40}?\b(?:column|model)"
    r"\s*[#(]?\s*(\d+)\)?\s*\.?\s*$"
)
_PREFERRED = re.compile(r"\bpreferred\b|\bmain\b|\bheadline\b|\bfinal\b|\bchosen\b|\bprimary\b|\bfavou?red\b", re.I)
_SCALE_WORDS = re.compile(
    r"percent|\bpp\b|percentage|relative|\bof (?:the )?(?:baseline|control|mean|pre)|"
    r"elasticity|log[- ]points?|\bfold\b|\bsd units\b|standardi[sz]ed",
    re.I,
)
_COUNT_AFTER = re.compile(
    r"^\s*(?:level|significance|percentile|quantile|trim|rows?|obs\w*|units?|firms?|stocks?|"
    r"days?|periods?|columns?|counties|individuals?|people|clusters?|schools?|students?|states?|workers?|households?|"
    r"respondents?|cases?|records?|treated|controls?|groups?|variables?|x\s+\d)\b",
    re.I,
)
_SECTION_EXCLUDED = re.compile(
    r"robustness|sensitivity|placebo|pre[- ]?trend|parallel[- ]trends?|falsification|alternative spec|heterogene|"
    r"subgroup|balance|hausman|endogeneity test|\bleads?\b|anticipation|event[- ]time|dynamic|by[- ]day|"
    r"day[- ]by[- ]day|daily|per[- ]day|trimmed|winsori|outlier|excluding|donut|mccrary|density test|"
    r"first[- ]stage residual|pre[- ]?event|pre[- ]?period",
    re.I,
)
_SECTION_MAIN = re.compile(
    r"(?i)\bmain\b|\bprimary\b|\bheadline\b|\bkey (?:result|estimate|finding)|"
    r"\bpreferred\b|\bfinal (?:result|estimate|answer)"
)
_SECTION_IV = {
    "first": re.compile(r"first[- _]?stage|reduced[- _]?form", re.I),
    "ols": re.compile(r"(?<![a-z])ols\b|naive|benchmark", re.I),
}

_PRINTER_NOISE = re.compile(
    r"^\s*(?:OLS estimation|TSLS estimation|GLM estimation|ML estimation|Dep\. Var\.|Endo\.|Instr\.|"
    r"(?:First|Second) stage: Dep\. Var|IV: (?:First|Second) stage|Observations\b|Fixed-effects:|"
    r"Standard-errors:|RMSE:|Adj\. R2|Within R2|R2\b|F-test|Wu-Hausman|Sargan|Log-Likelihood|BIC|AIC|"
    r"Residual standard error|Multiple R-squared|Multiple R-Squared|Adjusted R-squared|F-statistic|Wald test|"
    r"Signif\. codes|Residuals:|Min\b.*\bMax\b|Number of Obs\.|Eff\. Number of Obs\.|BW type|Kernel|VCE method|"
    r"Order est\.|Order bias|BW est\.|BW bias|rho \(h/b\)|Unique Obs\.|Clusters \(g\)|Balanced Panel|"
    r"Unbalanced Panel|Total Sum of Squares|Residual Sum of Squares|R-Squared|Adj\. R-Squared|"
    r"Standard error type|Diagnostic tests|Weak instruments|Wu-Hausman|Number of (?:obs|groups|clusters)|"
    r"Degrees of freedom|DF\b|Call:|attr\(|Model Formula|Twoways effects|Oneway|Within Model|Coefficients?:\s*$|"
    r"t test of coefficients|z test of coefficients|sample estimates|alternative hypothesis|data:\s|"
    r"\d+ percent confidence interval|One Sample t-test|Welch|t = .*df = |Sharp RD|Fuzzy RD|# A tibble|"
    r"# \u2026|# \.\.\.|# i |Signif|---|\s*Point\s+Robust Inference|[\w.]+\((?:formula|data|x|y)\s*=|"
    r"(?:lm|glm|ivreg|feols|plm|lm_robust|iv_robust|felm|t\.test|rdrobust|coeftest)\()",
)


def _effect_re(family: str) -> re.Pattern:
    return re.compile(f"{_EFFECT_WORDS['common']}|{_EFFECT_WORDS[family]}", re.I)


_DAY = r"[-+\u2212]?\d{1,3}(?!\d|\.\d)"
_WINDOW_PATTERNS = [  # event days are integers: "[0.43, 0.59]" is a confidence interval, not a window
    re.compile(rf"[\[(]\s*({_DAY})\s*[,;:]\s*({_DAY})\s*[\])]"),
    re.compile(rf"\bdays?\s+({_DAY})\s*(?:to|\.\.|\u2013|through|-)\s*({_DAY})", re.I),
    re.compile(rf"\bwindow\s+({_DAY})\s*(?:to|\.\.|\u2013|through)\s*({_DAY})", re.I),
    re.compile(rf"\bt\s*=\s*({_DAY})\s*(?:to|\.\.)\s*({_DAY})", re.I),
]


def _window(label: str) -> tuple[tuple[int, int] | None, str]:
    """An event-study window stated in a label and the label with the window's numbers blanked out."""
    for pattern in _WINDOW_PATTERNS:
        m = pattern.search(label)
        if m:
            try:
                span = (int(_to_float(m.group(1))), int(_to_float(m.group(2))))
            except ValueError:
                continue
            return span, label[: m.start()] + " window " + label[m.end() :]
    return None, label


# ------------------------------------------------------------------------------------------------- context roles
_CALL_IV = re.compile(
    r"\b(?:ivreg|iv_robust|tsls|ivlm|felm)\s*\(|feols\s*\(.*\|.*~|TSLS estimation|"
    r"Second stage|IV: Second|\b2SLS\b|\bIV\b|instrumental",
    re.I,
)
_CALL_OLS = re.compile(r"\blm\s*\(|lm_robust\s*\(|OLS estimation|\bOLS\b|\bnaive\b|glm\s*\(", re.I)
_CALL_FIRST = re.compile(r"first[-_ ]?stage|1st[-_ ]stage|reduced[-_ ]?form|Dep\. Var\.: x\b", re.I)
_CALL_EXCLUDED = re.compile(
    r"placebo|pre[- ]?trend|pre[- ]?event|pre[- ]?period|falsification|\bleads?\b|"
    r"anticipation|naive",
    re.I,
)


def _context_role(context: list[str], family: str) -> str:
    """Role of a block from the lines printed above it (nearest first): 'effect!' (an IV call or header), 'effect'
    (nothing said), 'ols', 'first' or 'excluded'."""
    for line in reversed(context):
        text = line.strip()
        if not text:
            continue
        if _CALL_EXCLUDED.search(text) and not (
            family == "IV" and _CALL_IV.search(text) and "naive" not in text.lower()
        ):
            return "excluded"
        if family != "IV":
            continue
        if _CALL_FIRST.search(text) and not re.search(r"Second stage|IV: Second", text):
            return "first"
        if _CALL_IV.search(text):
            return "effect!"
        if _CALL_OLS.search(text):
            return "ols"
    return "effect"


# ------------------------------------------------------------------------------------------------- tables
_EST_COLS = re.compile(
    r"^(?:estimates?|coef\.?|coeff?|coefficients?|effect|att|ate|atet|late|est|b|beta|car|aar|"
    r"caar|point_?estimate|did|rd_?estimate|tau|estimate_?\w*|coef_?\w*|effect_?\w*)$",
    re.I,
)
_KEY_COLS = re.compile(
    r"^(?:spec\w*|model\w*|method|window\w*|estimator|approach|bandwidth|bw|h|sample|design|"
    r"name|label|type|variant|version|outcome|check|robustness|column|specif\w*|kernel)$",
    re.I,
)
_DAY_COLS = re.compile(r"^(?:event_?day|day|rel_?day|relative_?day|t|tau|event_?time|time|period|lag|lead)$", re.I)
_TERM_COLS = re.compile(r"^(?:term|terms|variable|var|coefficient_?name|parameter|regressor)$", re.I)
_PREF_COLS = re.compile(r"^(?:preferred|main|headline|chosen|primary|selected|final)$", re.I)
_HEADER_MERGES = [
    (re.compile(r"\[\s*\d+\s*%\s*C\.I\.\s*\]"), "CI_range"),
    (re.compile(r"Std\.\s+Error"), "Std.Error"),
    (re.compile(r"Std\.\s+Err\."), "Std.Err."),
    (re.compile(r"\b([tz])\s+value\b"), r"\1_value"),
    (re.compile(r"CI\s+(Lower|Upper)"), r"CI_\1"),
    (re.compile(r"Point\s+Estimate"), "Point_Estimate"),
    (re.compile(r"Conf\.\s+(Low|High)", re.I), r"Conf_\1"),
    (re.compile(r"\b\d{1,2}(?:\.\d)?\s?%"), "PCT"),
    (re.compile(r"\[\s*\d+%?\s*Conf\.\s*Interval\s*\]", re.I), "CI_range"),
]
_STAT_COLS = re.compile(
    r"^(?:std\.?error|std\.?err\.?|std_?err\w*|se|t_value|z_value|pr\(>\|[tz]\|\)|p>\|[tz]\||"
    r"ci_(?:lower|upper|low|high)|conf[._](?:low|high)|df|p\.?value|p_value|pval|statistic|"
    r"outcome|pct|lwr|upr|lower|upper|t|z|p|n|nobs|ci_range|t_stat|z_stat|sd|term)$",
    re.I,
)


@dataclass
class _Header:
    names: list[str]
    spans: list[tuple[int, int]]
    est: int
    key_kind: str  # 'term' (coefficient table) or 'key' (results table) or 'day'
    key_col: int | None
    pref_col: int | None


def _header(line: str) -> _Header | None:
    text = line
    for pattern, repl in _HEADER_MERGES:
        # mypy infers no type for a lambda with a default (the loop variable bound for B023)
        text = pattern.sub(lambda m, r=repl: m.expand(r).ljust(len(m.group(0))), text)  # type: ignore[misc]
    if _TOKEN_RE.search(text) or len(text) > 400:
        return None
    words = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words or len(words) > 30:
        return None
    names = [w for w, _, _ in words]
    est = next((i for i, n in enumerate(names) if _EST_COLS.match(n.strip("`"))), None)
    if est is None:
        if all(_STAT_COLS.match(n) for n in names):  # the rest of a wrapped table, a confint() print: no estimate
            return _Header(names, [(s, e) for _, s, e in words], -1, "claim", None, None)
        return None
    others = [n for i, n in enumerate(names) if i != est]
    stat_like = [
        n
        for n in others
        if re.match(
            r"(?i)^(std|se\b|s\.e|t_value|z_value|pr\(|p\.?val|p$|statistic|"
            r"conf|ci_|ci$|lower|upper|df$|n$|nobs|t$|z$|std_?err|"
            r"std\.err|ci_range|p>|p_value|ci_low|ci_high|\d+%)",
            n,
        )
    ]
    before = names[:est]
    key_col = next((i for i, n in enumerate(before) if _KEY_COLS.match(n)), None)
    day_col = next((i for i, n in enumerate(before) if _DAY_COLS.match(n)), None)
    term_col = next((i for i, n in enumerate(before) if _TERM_COLS.match(n)), None)
    if not stat_like and len(names) > 1 and key_col is None and day_col is None and term_col is None:
        return None  # a data print whose column happens to be called 'estimate' or 'b': not a result table
    if term_col is not None:
        kind, key = "term", term_col
    elif day_col is not None:
        kind, key = "day", day_col
    elif key_col is not None or (before and re.match(r"(?i)^method$", before[0])):
        kind, key = "key", key_col if key_col is not None else 0
    elif before:
        kind, key = "key", 0
    else:
        kind, key = "term", None
    pref = next((i for i, n in enumerate(names) if _PREF_COLS.match(n)), None)
    return _Header(names, [(s, e) for _, s, e in words], est, kind, key, pref)


def _column_of(header: _Header, start: int, end: int) -> int:
    best, best_overlap = None, 0
    for i, (s, e) in enumerate(header.spans):
        overlap = min(end, e) - max(start, s)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    if best is not None:
        return best
    centre = (start + end) / 2
    return min(range(len(header.spans)), key=lambda i: abs((header.spans[i][0] + header.spans[i][1]) / 2 - centre))


_LABELLED_LINE = re.compile(rf"^\s*[A-Za-z](?:[^:]{{0,80}}:\s+|[^:=]{{0,80}}(?:\s=\s*|=\s+)){NUM}(?![\w)\]])")
_SEPARATOR_LINE = re.compile(r"^\s*[=\-_\u2500\u2550]{5,}\s*$")
_TYPE_LINE = re.compile(r"^\s*(?:<[a-z]+>\s*)+$")
_ROW_INDEX = re.compile(r"^\s*\d+:?\s+(?=\S)")


@dataclass
class _Found:
    candidates: list[Candidate]
    claimed: set[int]
    excluded: list[str]


def _candidate(
    tok: _Tok, rule: str, line: str, lineno: int, family: str, window=None, preferred=False, answer_line=False
) -> Candidate:
    unit = _unit(tok.text)
    value: float | None = tok.value
    if tok.percent:
        if family == "EVENT_STUDY":
            value, unit = tok.value / 100.0, unit / 100.0
        else:
            value = None
    return Candidate(
        value, unit, rule, line.strip(), lineno, window, preferred, answer_line, tok.text, percent=tok.percent
    )


def _tables(lines: list[str], family: str, claimed: set[int]) -> _Found:
    found = _Found([], set(), [])
    last_end = -1
    i = 0
    while i < len(lines):
        header = _header(lines[i]) if i not in claimed else None
        if header is None:
            i += 1
            continue
        rows: list[int] = []
        j = i + 1
        while j < len(lines):
            text = lines[j]
            if _SEPARATOR_LINE.match(text) or _TYPE_LINE.match(text):
                j += 1
                continue
            if not text.strip() or not _TOKEN_RE.search(text) and not re.search(r"\s-\s|\bNA\b", text):
                break
            if _header(text) is not None or _LABELLED_LINE.match(text):
                break
            rows.append(j)
            j += 1
        if not rows:
            i += 1
            continue
        if (
            header.est >= 0
            and not header.names[: header.est]
            and all(not lines[r][: min((t.start for t in _tokens(lines[r])), default=0)].strip() for r in rows)
        ):
            i += 1  # no row names: a named vector ("estimate se n" over three numbers), read as one
            continue
        if header.est < 0:
            found.claimed.update(rows)
            last_end, i = rows[-1], rows[-1] + 1
            continue
        context = lines[max(last_end + 1, i - 15) : i]
        role = _context_role(context, family)
        explicit = role == "effect!"
        role = role.rstrip("!")
        for r in rows:
            found.claimed.add(r)
            line = lines[r]
            toks = _tokens(line)
            est_tok = next((t for t in toks if _column_of(header, t.start, t.end) == header.est), None)
            if est_tok is None:
                continue
            key = line[: est_tok.start]
            if header.key_kind != "term" or header.key_col is not None:
                key = _ROW_INDEX.sub("", key) if re.match(r"^\s*\d+:?\s", key) else key
            key = key.strip()
            cand_role, window, preferred = role, None, False
            if header.key_kind == "term" or header.key_col is None and header.key_kind != "key":
                if header.key_col is None:
                    key = (
                        _ROW_INDEX.sub("", line[: est_tok.start]).strip()
                        if header.names
                        and re.match(r"^\s*\d+\s+\S", line)
                        and _TYPE_LINE.match(lines[i + 1] if i + 1 < len(lines) else "")
                        else key
                    )
                if not _is_term(key, family):
                    continue
                if family == "IV" and _IV_FITTED_TERM.match(_norm_term(key)):
                    cand_role = "effect" if role != "excluded" else role
                    explicit = True
                rule = "coef_table"
            elif header.key_kind == "day":
                found.excluded.append(f"{r + 1}: per-day row")
                continue
            else:
                rule = "results_table"
                low = key.lower()
                if re.search(r"bias[- ]?corrected|^robust\b", low):
                    continue  # rdrobust: not a point estimate
                if _EXCLUDED_ROLE.search(low) or (
                    family == "IV" and _IV_NOT_EFFECT.search(low) and not _IV_EFFECT.search(low)
                ):
                    found.excluded.append(f"{r + 1}: {line.strip()}")
                    continue
                if re.fullmatch(r"[-+]?\d+", key) and header.names[header.key_col or 0].lower() in ("window",):
                    continue
                window, _ = _window(key)
                if header.pref_col is not None:
                    flag = [
                        t
                        for t in re.finditer(r"\S+", line)
                        if _column_of(header, t.start(), t.end()) == header.pref_col
                    ]
                    preferred = bool(flag) and flag[-1].group(0).upper() in ("TRUE", "YES", "*", "1", "X")
                preferred = preferred or bool(_PREFERRED.search(low))
            if cand_role != "effect":
                found.excluded.append(f"{r + 1}: {cand_role}: {line.strip()}")
                continue
            explicit_row = explicit or (rule == "results_table" and bool(_IV_EFFECT.search(key)))
            found.candidates.append(
                replace(_candidate(est_tok, rule, line, r + 1, family, window, preferred), explicit=explicit_row)
            )
        last_end = rows[-1]
        i = rows[-1] + 1
    return found


# ------------------------------------------------------------------------------------------------- etable
_ETABLE_CELL = re.compile(rf"({NUM})(\*{{0,3}}|\.)?(?:\s*\(({NUM})\))?")


def _etable(lines: list[str], family: str) -> _Found:
    found = _Found([], set(), [])
    for i, line in enumerate(lines):
        if not line.startswith("Dependent Var.:"):
            continue
        top = i - 1
        stages_line = None
        if top >= 0 and lines[top].startswith("IV stages"):
            stages_line, top = lines[top], top - 1
        if top < 0:
            continue
        head = lines[top]
        cols = [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", head)]
        if not cols:
            continue
        found.claimed.update(range(top, i + 1))

        def col_at(end: int, cols: list[tuple[int, int]] = cols) -> int:
            return min(range(len(cols)), key=lambda c: abs(cols[c][1] - end))

        stage = {}
        if stages_line is not None:
            for m in re.finditer(r"\S+", stages_line[len("IV stages") :]):
                stage[col_at(m.end() + len("IV stages"))] = m.group(0).lower()
        depvar = {col_at(m.end() + 16): m.group(0) for m in re.finditer(r"\S+", line[16:])}
        j = i + 1
        while j < len(lines) and not re.match(r"^(?:Fixed-Effects:|_{5,}|S\.E\.|Observations|---)", lines[j]):
            found.claimed.add(j)
            row = lines[j]
            first_cell = re.search(rf"\s{{2,}}(?={NUM}|\()", row)
            label = row[: first_cell.start()].strip() if first_cell else ""
            if first_cell and label and _is_term(label.replace(" x ", ":"), family):
                for m in _ETABLE_CELL.finditer(row, first_cell.end()):
                    k = col_at(m.end(1) if m.group(3) is None else m.end())
                    if m.group(3) is None:
                        k = col_at(m.end())
                    col_stage = stage.get(k, "")
                    if family == "IV" and (col_stage == "first" or depvar.get(k, "y") == "x"):
                        found.excluded.append(f"{j + 1}: first stage column {k + 1}")
                        continue
                    if family == "IV" and stages_line is not None and col_stage != "second":
                        found.excluded.append(f"{j + 1}: OLS column {k + 1}")
                        continue
                    tok = _Tok(m.start(1), m.end(1), m.group(1), _to_float(m.group(1)), False)
                    cand = _candidate(tok, "etable", f"{row.strip()} [column {k + 1}]", j + 1, family)
                    found.candidates.append(replace(cand, column=k + 1, explicit=col_stage == "second"))
            j += 1
        while j < len(lines) and lines[j].strip() and not lines[j].startswith("Signif"):
            found.claimed.add(j)
            j += 1
    return found


# ------------------------------------------------------------------------------------------------- vectors
_VECTOR_EFFECT_NAMES = re.compile(
    r"^(?:estimate|est|effect|att|ate|atet|late|coef|coefficient|did|did_estimate|"
    r"car|aar|caar|tau|rd_estimate|iv_estimate|tsls|2sls|beta_did|treatment_effect)$",
    re.I,
)


def _vectors(lines: list[str], family: str, claimed: set[int]) -> _Found:
    found = _Found([], set(), [])
    for i in range(len(lines) - 1):
        if i in claimed or i + 1 in claimed:
            continue
        above, below = lines[i], lines[i + 1]
        names = [(m.group(0), m.end()) for m in re.finditer(r"\S+", above)]
        values = _tokens(below)
        if not names or len(names) != len(values) or len(below.split()) != len(values):
            continue
        if any(_TOKEN_RE.fullmatch(n) for n, _ in names):
            continue  # names that are numbers: days or indices, not a coefficient vector
        if not all(abs(end - v.end) <= 1 for (_, end), v in zip(names, values, strict=False)):
            continue
        after = lines[i + 2] if i + 2 < len(lines) else ""
        if (
            after.strip()
            and _tokens(after)
            and len(after.split()) == len(values)
            and all(_TOKEN_RE.fullmatch(w) for w in after.split())
        ):
            continue  # a data frame printed without row names, not a vector
        found.claimed.update((i, i + 1))
        role = _context_role(lines[max(0, i - 3) : i], family)
        explicit = role == "effect!"
        role = role.rstrip("!")
        for (name, _), tok in zip(names, values, strict=False):
            ok = _is_term(name, family) or _VECTOR_EFFECT_NAMES.match(name.strip("`"))
            if not ok:
                continue
            if family == "IV" and _IV_FITTED_TERM.match(_norm_term(name)):
                this_role = "effect" if role != "excluded" else role
            else:
                this_role = role
            line = f"{above.strip()} / {below.strip()}"
            if this_role != "effect":
                found.excluded.append(f"{i + 2}: {this_role}: {line}")
                continue
            found.candidates.append(
                replace(
                    _candidate(tok, "named_vector", line, i + 2, family),
                    explicit=explicit or bool(_IV_FITTED_TERM.match(_norm_term(name))),
                )
            )
    for i in range(len(lines) - 1):  # print(list(effect = ...)): "$effect" above "[1] 0.123"
        m = re.fullmatch(r"\s*\$`?(\w+)`?\s*", lines[i])
        v = re.fullmatch(rf"\s*\[1\]\s+({NUM})\s*", lines[i + 1])
        if m and v and (_VECTOR_EFFECT_NAMES.match(m.group(1)) or _is_term(m.group(1), family)):
            found.claimed.update((i, i + 1))
            tok = _tokens(lines[i + 1])[-1]
            found.candidates.append(
                _candidate(tok, "named_vector", f"{lines[i].strip()} / {lines[i + 1].strip()}", i + 2, family)
            )
    return found


def _t_test(lines: list[str], family: str) -> _Found:
    found = _Found([], set(), [])
    for i in range(len(lines) - 1):
        if not re.fullmatch(r"\s*mean of \S+\s*", lines[i]):
            continue
        found.claimed.update((i, i + 1))
        v = re.fullmatch(rf"\s*({NUM})\s*", lines[i + 1])
        if not v or family != "EVENT_STUDY":
            continue
        data_line = next((lines[k] for k in range(i - 1, max(-1, i - 12), -1) if lines[k].startswith("data:")), "")
        if re.search(r"pre|<\s*0|<=\s*-1|placebo", data_line, re.I):
            found.excluded.append(f"{i + 2}: pre-event t.test")
            continue
        tok = _tokens(lines[i + 1])[0]
        found.candidates.append(
            _candidate(tok, "t_test", f"{lines[i].strip()} / {lines[i + 1].strip()}", i + 2, family)
        )
    return found


# ------------------------------------------------------------------------------------------------- labelled lines
_ANSWER_LINE = re.compile(rf"^Estimate\s*[:=]\s*({NUM})\s*(%?)\s*$", re.I)
_PRINTED_STRING = re.compile(r'^\s*\[\d+\]\s+"(.*)"\s*$')
_ARITHMETIC = re.compile(
    rf"^(?P<label>[^=:]*[=:])\s*(?P<expr>[-+\u2212]?[\d.(][\d.\s()+\-*/\u2212eE]*[-+*/]"
    rf"[\d.\s()+\-*/\u2212eE]*)=\s*(?P<result>{NUM}%?.*)$"
)
_CONF_LEVEL = re.compile(
    r"\b\d{2}(?:\.\d)?\s?%\s*(?=C\.?I|conf|interval)|\b\d{2}\s*percent\s*(?=C\.?I|conf)|"
    r"\(\s*\d{2}\s?%\s*\)",
    re.I,
)


def _groups(line: str) -> list[tuple[int, int]]:
    """Spans of the outermost () and [] groups of a line."""
    spans, stack = [], []
    for k, ch in enumerate(line):
        if ch in "([":
            stack.append(k)
        elif ch in ")]" and stack:
            start = stack.pop()
            if not stack:
                spans.append((start, k + 1))
    return spans


_TERM_LABEL_NOISE = re.compile(r"(?i)\b(?:coef(?:ficient)?|estimate|beta|on|for|of|the|term|b)\b|[^\w:.()*>=]")


def _classify_label(label: str, family: str, effect_re: re.Pattern) -> str:
    """'stat', 'effect', 'excluded', 'neutral' or 'empty' for the text that labels a number."""
    text = label.strip()
    if not re.search(r"[A-Za-z]", text) or re.fullmatch(r"[\W_]*(?:to|and|or|vs\.?|through)?[\W_]*", text, re.I):
        return "empty"
    if _EXCLUDED_ROLE.search(text):
        return "excluded"
    if family == "IV" and _IV_NOT_EFFECT.search(text) and not _IV_EFFECT.search(text):
        return "excluded"
    text = re.sub(r"(?i)\bat (?:the )?(?:cut-?off|threshold|discontinuity|kink)\b(?=\s*[^\s\d.+\-\u2212])", " ", text)
    tail = re.split(r"[,;|]|\band\b", text)[-1]
    if _STRONG_STAT.search(re.sub(r"\([^()]*\)|\[[^\[\]]*\]", " ", tail)):
        return "stat"
    if effect_re.search(text):
        if re.search(r"(?i)\b(?:mean|average|avg)\b", tail) and not _MEAN_EFFECT.search(tail):
            return "stat"
        return "effect"
    if _PREFERRED.search(text) and re.search(r"(?i)\bspec|\bmodel|\bestimate", text):
        return "effect"
    bare = _TERM_LABEL_NOISE.sub(" ", text).split()
    if len(bare) == 1 and _is_term(bare[0], family) and (family != "IV" or re.search(r"[:=]\s*$", text)):
        return "effect"  # "treat_x_post: 0.21", "coefficient on x = 0.5"
    if _WEAK_STAT.search(text) or _STRONG_STAT.search(text):
        return "stat"
    return "neutral"


def _line_candidates(raw: str, lineno: int, family: str, effect_re: re.Pattern) -> tuple[list[Candidate], str]:
    """Candidates on one free-text line and the line's kind: 'effect', 'neutral', 'stat', 'excluded' or ''."""
    line = raw
    m = _PRINTED_STRING.match(line)
    if m:
        line = m.group(1)
    m = _ARITHMETIC.match(line)
    if m:
        line = f"{m.group('label')} {m.group('result')}"
    elif re.match(r"^[^=:]*[=:]\s*[-+\u2212]?\(.*[-+*/].*\)\s*$", line):
        return [], "neutral"  # an unevaluated expression, not a result
    line = _CONF_LEVEL.sub(lambda mm: " " * len(mm.group(0)), line)
    line = re.sub(r"\b\d+\s*[x\u00d7]\s*\d+\b", lambda mm: " " * len(mm.group(0)), line)  # "500 x 4": dimensions
    line = re.sub(r"(?i)\bstage\s*1\b", "first stage", line)
    line = re.sub(r"(?i)\bstage\s*2\b", "second stage", line)
    line = re.sub(
        r"(?i)\b((?:spec(?:ification)?|model|column|col|step|scenario|case|table|wave|round|version|panel)"
        r"\s*#?\s*)(\d+)\b",
        lambda mm: mm.group(1) + "K" * len(mm.group(2)),
        line,
    )  # "Model 2": a name
    window, line = _window(line)
    toks = _tokens(line)
    if not toks:
        missing = re.search(r"[:=]\s*(NA|NaN|-?Inf|NULL)\s*$", line)
        if missing and _classify_label(line[: missing.start()], family, effect_re) == "effect":
            return [Candidate(None, 0.0, "labelled", raw.strip(), lineno, window, text=missing.group(1))], "effect"
        return [], ""
    if len(toks) > MAX_LINE_NUMBERS:
        return [], "stat"  # a row of data, not a labelled result
    groups = _groups(line)
    answer = _ANSWER_LINE.match(line)

    def group_of(tok: _Tok) -> tuple[int, int] | None:
        return next((g for g in groups if g[0] < tok.start < g[1]), None)

    out: list[Candidate] = []
    kinds: list[str] = []
    prev_kind, prev_tok = "", toks[0]  # read from the second token on
    for k, tok in enumerate(toks):
        group = group_of(tok)
        if group is None:
            outside = [t for t in toks[:k] if group_of(t) is None]
            lo = outside[-1].end if outside else 0
        else:
            inside = [t for t in toks[:k] if group_of(t) == group]
            lo = inside[-1].end if inside else group[0] + 1
        label = line[lo : tok.start]
        if group is None:  # text of closed groups without numbers stays, groups with numbers drop out
            kept, pos = [], lo
            for g in groups:
                if g[1] <= lo or g[0] >= tok.start:
                    continue
                kept.append(line[pos : g[0]])
                inner = line[g[0] : g[1]]
                kept.append(inner if not _TOKEN_RE.search(inner) else " ")
                pos = g[1]
            kept.append(line[pos : tok.start])
            label = "".join(kept)
        label = re.split(r"[|;]", label)[-1]
        if k > 0 and re.search(r",\s*[A-Za-z]", label):
            label = label.rsplit(",", 1)[-1]
        kind = _classify_label(label, family, effect_re)
        if group is not None and kind != "stat":  # "t-stat (CAR = 0): -19.1": the group belongs to a statistic
            before = [t for t in toks[:k] if group_of(t) is None and t.end <= group[0]]
            outer = line[before[-1].end if before else 0 : group[0]]
            if _classify_label(re.split(r"[|;,]", outer)[-1], family, effect_re) in ("stat", "excluded"):
                kind = "stat"
        after = line[tok.end : tok.end + 20]
        if tok.percent:
            after = after.lstrip(" %")
        if _COUNT_AFTER.match(after) and kind != "effect":
            kind = "stat"
        if kind == "empty":
            if k == 0:
                head = _classify_label(line[: tok.start], family, effect_re)
                kind = head if head != "empty" else "neutral"
            elif group is not None and prev_kind == "effect" and (group_of(prev_tok) != group):
                kind = "stat"  # "0.25 (0.04)" or "0.25 [0.17, 0.33]": the SE or the CI of the estimate
            elif group is not None and group_of(prev_tok) == group:
                kind = "stat" if prev_kind in ("effect", "stat") else prev_kind
            elif re.fullmatch(r"\s*(?:to|-|\u2013|/|,|and|;)?\s*", label) and prev_kind in ("stat", "excluded"):
                kind = prev_kind
            elif prev_kind == "effect":
                kind = "effect" if not re.search(r"[(\[]", label) else "stat"
            else:
                kind = prev_kind or "neutral"
        elif kind == "neutral":
            head = _classify_label(line[: toks[0].start], family, effect_re) if k > 0 else "neutral"
            short = len(re.findall(r"[A-Za-z]+", label)) <= 2 and re.search(r"[:=]\s*$", label)
            if head == "effect" and short and not (group is not None and prev_kind == "effect"):
                kind = "effect"  # "ATT: value=0.21": a short neutral label inside an estimate line
            elif group is not None and prev_kind == "effect":
                kind = "stat"
        if kind == "effect" and tok.percent is False and re.match(r"\s*(?:percent|pp\b|percentage)", after, re.I):
            tok = _Tok(tok.start, tok.end, tok.text, tok.value, True)
        if kind == "effect" and _SCALE_WORDS.search(label) and family != "EVENT_STUDY":
            tok = _Tok(tok.start, tok.end, tok.text, tok.value, True)  # a rescaled effect: scale unknown
        if kind == "effect" and (re.search(r"\(%\)|in %|\bin percent", label, re.I)):
            tok = _Tok(tok.start, tok.end, tok.text, tok.value, True)
        if kind == "effect" and "," in tok.text:
            tok = _Tok(tok.start, tok.end, tok.text, tok.value, True)
        kinds.append(kind)
        if kind == "effect":
            rest = line[tok.end : toks[k + 1].start] if k + 1 < len(toks) else line[tok.end :]
            preferred = bool(_PREFERRED.search(line[: tok.start])) or bool(
                re.search(r"(?i)(?:<-|\(|\[|\*|--|\s)\s*(?:preferred|main|headline)\b", rest)
            )
            cand = _candidate(
                tok, "answer_line" if answer else "labelled", raw, lineno, family, window, preferred, bool(answer)
            )
            out.append(replace(cand, explicit=bool(_IV_EFFECT.search(label))))
        prev_kind, prev_tok = kind, tok
    kind = (
        "effect"
        if out
        else (
            "excluded"
            if "excluded" in kinds
            else "neutral"
            if kinds and all(k == "neutral" for k in kinds[:1])
            else "stat"
        )
    )
    return out, kind


_STR_LINE = re.compile(
    r"^\s*\$ [^:]{1,60}:\s*(?:int|num|chr|Factor|logi|Date|POSIXct|cplx|List|'|w/)|"
    r"^\s*'data\.frame':|^\s*Classes\s|^\s*tibble \[|^\s*- attr\("
)
_LIST_LINE = re.compile(rf"^\s*(?!{NUM}\s)[^:=]{{1,80}}[:=]\s*(?:{NUM}|NA\b|NaN\b)")


def _labelled(
    lines: list[str], family: str, claimed: set[int], headings: set[int] | frozenset[int] = frozenset()
) -> _Found:
    found = _Found([], set(), [])
    effect_re = _effect_re(family)
    kinds: dict[int, str] = {}
    per_line: dict[int, list[Candidate]] = {}
    for i, line in enumerate(lines):
        if i in claimed or i in headings or not line.strip() or _PRINTER_NOISE.match(line) or _STR_LINE.match(line):
            continue
        cands, kind = _line_candidates(line, i + 1, family, effect_re)
        kinds[i] = kind
        if cands:
            per_line[i] = cands
        elif kind == "excluded":
            found.excluded.append(f"{i + 1}: {line.strip()}")
    # a neutral "label: number" line inside a run of estimate lines is one more specification
    i = 0
    while i < len(lines):
        if i not in kinds or not _LIST_LINE.match(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and j in kinds and _LIST_LINE.match(lines[j]):
            j += 1
        run = range(i, j)
        if any(kinds[k] == "effect" for k in run):
            for k in run:
                if kinds[k] == "neutral" and k not in per_line:
                    toks = _tokens(lines[k])
                    sep = re.search(r"[:=]", lines[k])
                    first = next((t for t in toks if sep and t.start > sep.start()), None)
                    if sep and first is not None:
                        per_line[k] = [
                            _candidate(
                                first,
                                "labelled_list",
                                lines[k],
                                k + 1,
                                family,
                                _window(lines[k][: sep.start()])[0],
                                bool(_PREFERRED.search(lines[k][: first.start])),
                            )
                        ]
        i = j
    for k in sorted(per_line):
        found.candidates.extend(per_line[k])
    return found


# ------------------------------------------------------------------------------------------------- sections
_RULE_LINE = re.compile(r"^[\s=\-_*#~+\u2500\u2550]{5,}$")
_MARKED_HEADING = re.compile(
    r"^\s*(?:={2,}|-{2,}|#{1,6}(?! A tibble)(?! \u2139)(?! \u2026)|\*{3,}(?=\s*[A-Z=-]))\s*"
    r"(?P<text>[^=#*]*?[A-Za-z][^=#*]*?)\s*(?:={2,}|-{2,}|#+|\*{3,})?\s*$"
)


def _is_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    if not re.search(r"[A-Za-z]", line) or len(line) > 120 or _PRINTER_NOISE.match(line):
        return False
    if _MARKED_HEADING.match(line) and not re.search(rf"[:=]\s*{NUM}", line):
        return True
    prev = lines[i - 1] if i > 0 else ""
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    framed = _RULE_LINE.match(nxt) and (_RULE_LINE.match(prev) or not prev.strip())
    if framed and not _TOKEN_RE.search(re.sub(r"\d+[a-z]?\.", "", line)):
        return True
    letters = re.sub(r"[^A-Za-z]", "", line)
    return len(letters) >= 6 and letters.isupper() and len(line.split()) >= 2 and not _TOKEN_RE.search(line)


def _sections(lines: list[str]) -> tuple[list[str], set[int]]:
    """For each line, the heading above it and the sub-heading (a short line ending with ':') it sits under, joined;
    and the indices of heading lines."""
    heading, sub, out, headings = "", "", [], set()
    for i, line in enumerate(lines):
        if _is_heading(lines, i):
            heading, sub = line.strip(), ""
            headings.add(i)
        elif not line.strip():
            sub = ""
        elif re.fullmatch(r"\s*[A-Za-z][^:]{2,80}:\s*", line) and not _PRINTER_NOISE.match(line):
            sub = line.strip()
        out.append(f"{heading} | {sub}")
    return out, headings


def _section_filter(candidates: list[Candidate], sections: list[str], family: str) -> list[Candidate]:
    """Candidates outside robustness/placebo/pre-trend/... sections; in IV designs, a candidate that does not name
    itself the IV estimate is dropped under a first-stage, reduced-form or OLS heading; candidates under a heading
    that names the main/primary/headline result count as marked preferred."""
    kept = []
    for c in candidates:
        section = sections[c.lineno - 1] if 0 < c.lineno <= len(sections) else ""
        if _SECTION_EXCLUDED.search(section) and not c.answer_line:
            continue
        if family == "EVENT_STUDY" and c.window is not None and max(c.window) < 0:
            continue  # a pre-event window
        if family == "IV" and not c.explicit and any(p.search(section) for p in _SECTION_IV.values()):
            continue
        if _SECTION_MAIN.search(section.split(" | ", 1)[0]):
            c = replace(c, preferred=True)  # under a "Main result(s)" heading
        kept.append(c)
    return kept


# ------------------------------------------------------------------------------------------------- decision
def _decide(candidates: list[Candidate]) -> tuple[Candidate | None, str]:
    if not candidates:
        return None, "no candidate"
    answers = [c for c in candidates if c.answer_line]
    preferred = [c for c in candidates if c.preferred]
    if answers:
        pool, why = answers, "answer line"
        if preferred and not all(_agree(a, p) for a in answers for p in preferred):
            return None, "the answer line and a candidate marked preferred disagree"
    elif preferred:
        pool, why = preferred, "marked preferred"
    else:
        pool, why = candidates, "only candidate"
    unusable = [c for c in pool if c.value is None]
    if unusable:
        if any(re.fullmatch(r"NA|NaN|-?Inf|NULL", c.text) for c in unusable):
            return None, "a candidate printed without a value (NA)"
        return None, "a percentage or rescaled effect outside an event study (its scale depends on the outcome)"
    if not _all_agree(pool):
        return None, f"{len(pool)} candidates disagree"
    if all(c.percent for c in pool):
        return None, "only a percentage (whether it is a percent of a return or of the outcome is for the extractor)"
    best = min((c for c in pool if not c.percent), key=lambda c: (c.unit, c.lineno))
    if len(pool) > 1 and why == "only candidate":
        why = f"{len(pool)} candidates print the same value"
    return best, why


def extract(stdout: str, family: str) -> Extraction:
    """The treatment-effect estimate printed in ``stdout`` for a ``family`` design when exactly one candidate can
    be it, else an abstention with the reason and the candidates (see module doc)."""
    if family not in _TERMS:
        raise ValueError(f"unknown design family {family!r}")
    lines = _clean(stdout).split("\n")
    if len(stdout) > MAX_STDOUT_CHARS or len(lines) > MAX_LINES:
        size = f"{len(stdout)} characters" if len(stdout) > MAX_STDOUT_CHARS else f"{len(lines)} lines"
        return _answer_lines_only(lines, family, f"output too long to read whole ({size}): answer lines only")
    unread = sum(len(line) > MAX_LINE_CHARS for line in lines)
    if unread:
        lines = ["" if len(line) > MAX_LINE_CHARS else line for line in lines]
    extraction = _read(lines, family)
    if not unread:
        return extraction
    note = f"{unread} line(s) over {MAX_LINE_CHARS} characters not read"
    return replace(extraction, reason=f"{extraction.reason}; {note}")


def _answer_lines_only(lines: list[str], family: str, why: str) -> Extraction:
    """The decision over the answer lines alone (``Estimate: <number>``), for outputs too large to read whole."""
    effect_re = _effect_re(family)
    candidates = [
        c
        for i, line in enumerate(lines)
        if len(line) <= MAX_LINE_CHARS and _ANSWER_LINE.match(line)
        for c in _line_candidates(line, i + 1, family, effect_re)[0]
    ]
    best, decided = _decide(candidates)
    estimate = (
        None
        if best is None or best.value is None
        else Extracted(best.value, best.rule, best.line, best.window, best.lineno, best.unit)
    )
    return Extraction(estimate, f"{why}; {decided}", tuple(candidates))


def _read(lines: list[str], family: str) -> Extraction:
    """The decision over every rule's candidates in ``lines`` (see module doc)."""
    candidates: list[Candidate] = []
    claimed: set[int] = set()
    for reader in (_etable, _t_test):
        found = reader(lines, family)
        candidates += found.candidates
        claimed |= found.claimed
    found = _tables(lines, family, claimed)
    candidates += found.candidates
    claimed |= found.claimed
    found = _vectors(lines, family, claimed)
    candidates += found.candidates
    claimed |= found.claimed
    sections, headings = _sections(lines)
    candidates += _labelled(lines, family, claimed, headings).candidates
    candidates = _section_filter(candidates, sections, family)
    for line in lines:  # "Preferred specification: column 2" under an etable
        m = _PREFERRED_COLUMN.search(line)
        if m:
            candidates = [replace(c, preferred=True) if c.column == int(m.group(1)) else c for c in candidates]
    best, why = _decide(candidates)
    numbers = has_numbers("\n".join(lines))
    if best is None or best.value is None:  # _decide picks no candidate without a value
        return Extraction(None, why, tuple(candidates), numbers)
    estimate = Extracted(best.value, best.rule, best.line, best.window, best.lineno, best.unit)
    return Extraction(estimate, why, tuple(candidates), numbers)


def extract_estimate(stdout: str, family: str) -> Extracted | None:
    """The estimate of :func:`extract`, or None when it abstains."""
    return extract(stdout, family).estimate


def has_numbers(stdout: str) -> bool:
    """Whether stdout prints any number at all (if not, there is nothing for a judge to find)."""
    return _NUM_RE.search(stdout) is not None


def reply_json_object(reply: str) -> dict | None:
    """The JSON object in a model reply (from its first ``{`` to its last ``}``, so code fences and prose around it
    are ignored), or None when there is no such object (or it nests too deeply for Python's parser)."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        doc = json.loads(reply[start : end + 1])
    except (json.JSONDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


class ExtractorReplyError(ValueError):
    """The extractor's reply is not a JSON effect (a number or null)."""


def parse_extractor_reply(reply: str) -> tuple[float | None, str]:
    """``(effect or None, rationale)`` from the extractor's JSON reply; raise ExtractorReplyError otherwise."""
    doc = reply_json_object(reply)
    if doc is None or "effect" not in doc:
        raise ExtractorReplyError(f"extractor reply is not a JSON object with 'effect': {reply[:200]!r}")
    effect, rationale = doc["effect"], str(doc.get("rationale", ""))
    if effect is None:
        return None, rationale
    if isinstance(effect, bool) or not isinstance(effect, (int, float, str)):
        raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
    if isinstance(effect, str):
        if not re.fullmatch(rf"\s*{NUM}\s*", effect):
            raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
        effect = float(effect.strip().replace("\u2212", "-"))
    return float(effect), rationale
