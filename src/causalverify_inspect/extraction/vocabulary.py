"""The one vocabulary of roles and labels the readers share (paper App. C.3): the treatment term of each design,
the words that name the effect, a statistic, another estimator (first stage, OLS, placebo, pre-trend, leads,
robustness), a preferred specification or a main-results section, the printers' own header and footer lines, and
event-study windows in a label. A role's words are written here once and read by every rule.
"""

from __future__ import annotations

import re

from causalverify_inspect.extraction.numbers import _to_float

# The words of each role, written once; the rules below compose them.
PLACEBO_WORDS = r"placebo|pre[- ]?trend|pre[- ]?event|pre[- ]?period|falsification|\bleads?\b|anticipation"
"""A placebo, pre-trend, pre-event or leads check: never the effect."""
ROBUSTNESS_WORDS = r"robustness|sensitivity"
"""A robustness or sensitivity variant of the estimate: never the headline."""
OLS_WORDS = r"(?<![a-z])ols\b|\bnaive\b"
"""A naive or OLS estimate (in IV designs, the biased one)."""
OTHER_STAGE_WORDS = r"first[-_ ]?stage|1st[-_ ]stage|reduced[-_ ]?form"
"""An IV design's first stage or reduced form, not the second-stage effect."""
IV_WORDS = r"2sls|\btsls\b|\biv\b|second[- ]stage|instrumented|\bwald\b|instrumental"
"""Words naming the IV (second-stage) estimate."""
MAIN_WORDS = r"preferred|main|headline|chosen|primary"
"""Words marking the preferred specification or the main result."""


_IV_FITTED = r"fit_x|x_?hat|xhat|x\(fit\)|x_?fitted|fitted_?x"
"""The fitted endogenous regressor of a hand-made second stage (``lm(y ~ fit_x)``): a term naming the IV estimate."""

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
    "IV": re.compile(rf"^(?:{_IV_FITTED}|x|xtrue|x1|fit_x1)$", re.I),
    "RDD": re.compile(
        r"^(?:treated\w*|treat|d|d1|dtrue|above\w*|treatment\w*|conventional|rdeffect|cutoff_?dummy|"
        r"i\(running_var>=?[\d.]+\)\w*|\(?running_var>=?[\d.]+\)?\w*)$",
        re.I,
    ),
}


_IV_FITTED_TERM = re.compile(rf"^(?:{_IV_FITTED})$", re.I)


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
    "IV": IV_WORDS,
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
    r"\bwu-hausman\b|\bsargan\b|\bweak\b|statistic|\biter\w*|\belapsed\b|\bseconds?\b(?![- _]?stage)|\bdegree\b|\border\b|"
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
    rf"{PLACEBO_WORDS}|{ROBUSTNESS_WORDS}|{OLS_WORDS}|pre[- ]?treatment|\btrue\b|\bexpected\b|\bprior\b|\bcanonical\b|\bdgp\b|simulated|\bdays? -\d+\b|"
    r"bias[- ]corrected|\brobust\s*[:=]|\bdifference\b(?![- ]in[- ]|s?[- ]in[- ])|\bdiff\b(?![- ]in)|"
    r"\bwithout\b|\bexcluding\b|\btrimmed\b|\bwinsori[sz]ed\b|\bsubsample\b|\bsubgroup\b|\bheterogene\w*|"
    r"\bmanual\b|\b(?:no|without) (?:controls|covariates)\b",
    re.I,
)


_IV_NOT_EFFECT = re.compile(f"{OTHER_STAGE_WORDS}|{OLS_WORDS}", re.I)


_IV_EFFECT = re.compile(
    rf"{IV_WORDS}|\bivreg\b|iv_robust",
    re.I,
)


_PREFERRED_COLUMN = re.compile(
    rf"(?i)\b(?:{MAIN_WORDS})\b[^\d\n]{{0,40}}?\b(?:column|model)"
    r"\s*[#(]?\s*(\d+)\)?\s*\.?\s*$"
)


_PREFERRED = re.compile(rf"\b(?:{MAIN_WORDS}|final|favou?red)\b", re.I)


_RETURN_LABEL = re.compile(r"\b(?:c?a{1,2}r|caar|(?:cumulative )?abnormal returns?)\b", re.I)
"""An abnormal return named in an event-study label: a return, so a percentage of it is the return in percent."""


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
    rf"{ROBUSTNESS_WORDS}|{PLACEBO_WORDS}|parallel[- ]trends?|alternative spec|heterogene|subgroup|balance|"
    r"hausman|endogeneity test|event[- ]time|dynamic|by[- ]day|day[- ]by[- ]day|daily|per[- ]day|trimmed|winsori|"
    r"outlier|excluding|donut|mccrary|density test|first[- ]stage residual",
    re.I,
)


_SECTION_MAIN = re.compile(
    r"(?i)\bmain\b|\bprimary\b|\bheadline\b|\bkey (?:result|estimate|finding)|"
    r"\bpreferred\b|\bfinal (?:result|estimate|answer)"
)


_SECTION_IV = {
    "first": re.compile(OTHER_STAGE_WORDS, re.I),
    "ols": re.compile(f"{OLS_WORDS}|benchmark", re.I),
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


_CALL_IV = re.compile(
    r"\b(?:ivreg|iv_robust|tsls|ivlm|felm)\s*\(|feols\s*\(.*\|.*~|TSLS estimation|"
    r"Second stage|IV: Second|\b2SLS\b|\bIV\b|instrumental",
    re.I,
)


_CALL_OLS = re.compile(r"\blm\s*\(|lm_robust\s*\(|OLS estimation|\bOLS\b|\bnaive\b|glm\s*\(", re.I)


_CALL_FIRST = re.compile(rf"{OTHER_STAGE_WORDS}|Dep\. Var\.: x\b", re.I)


_CALL_EXCLUDED = re.compile(
    f"{PLACEBO_WORDS}|naive",
    re.I,
)


_TERM_LABEL_NOISE = re.compile(r"(?i)\b(?:coef(?:ficient)?|estimate|beta|on|for|of|the|term|b)\b|[^\w:.()*>=]")


_EFFECT_TOKEN = re.compile(
    r"(?i)^(?:(?:beta|tau|theta|delta|b|coef|est)_(?P<core>\w+?)(?:_hat|_est)?|(?P<core2>\w+?)_(?:hat|est|estimate))$"
)


_EFFECT_TOKEN_CORES = re.compile(r"(?i)^(?:iv|2sls|tsls|did|dd|rd|rdd|att|ate|atet|late|aar|car|caar|post|es|event)$")


_SETTING_PHRASE = re.compile(
    r"(?i)\b(?:using|with|at|under)\s+(?:the\s+|a\s+)?(?:default\s+|optimal\s+|mse-optimal\s+|chosen\s+|"
    r"selected\s+|data-driven\s+)?(?:bandwidth|bw|cut-?off|threshold|kernel|window)\b|"
    r"\b(?:using|with|via)\s+(?:the\s+)?(?:instruments?\s+)?z\b|\binstrument(?:s|ed)?\s*(?:[:=]\s*|by\s+|with\s+)?z\b"
)
"""The setting an estimate was made with, named in its label (a bandwidth, a cutoff, the instrument ``z``)."""


_NAMED_PREFERRED_SPEC = re.compile(
    r"(?i)^(?:spec(?:ification)?|model)\b[^()=:]{0,40}\((?:preferred|main|headline)\)\s*[:=]?\s*$"
)


def _effect_token(text: str) -> bool:
    """Whether a label is one identifier naming the estimate (``beta_IV``, ``ate_hat``, ``tau_rd``)."""
    m = _EFFECT_TOKEN.match(re.sub(r"[\s:=]+$", "", text))
    core = m and (m.group("core") or m.group("core2"))
    return bool(core and _EFFECT_TOKEN_CORES.match(core))
