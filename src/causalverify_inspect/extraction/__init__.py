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
     in a run of such lines is a candidate too; an event-study window in the label is kept. Numbers that cannot
     be results are blanked before any label is read: model formulas and their powers, counts (an integer
     followed by a plural noun, by rule: ``80 IPOs``), and the settings an estimate was made with when the
     estimate follows (``using bandwidth h = 0.25:``). One identifier naming the estimate (``beta_IV``,
     ``ate_hat``, ``tau_rd``) is a label; robustness, sensitivity, OLS, first-stage and placebo labels are not;
   - ``answer_line``: the line the prompt asks for, ``Estimate: <number>`` alone on its line, not indented.

   Banners framed on both sides (``=== Main RD Estimate (at cutoff = 0.5) ===``) are headings whatever numbers
   their parentheses hold; a parenthetical remark on the line above a table (``(anticipation effect)``) does not
   set it aside. Known printer headers and footers (fixest's ``Fixed-effects: unit_id: 200``, ``Observations``, R-squared, F
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

from causalverify_inspect.extraction.code import CodeBlocks, extract_r_code
from causalverify_inspect.extraction.numbers import MAX_LINE_CHARS, MAX_LINES, MAX_STDOUT_CHARS, NUM
from causalverify_inspect.extraction.reader import extract, extract_estimate, has_numbers
from causalverify_inspect.extraction.replies import ExtractorReplyError, parse_extractor_reply, reply_json_object
from causalverify_inspect.extraction.results import Candidate, Extracted, Extraction

__all__ = [
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_STDOUT_CHARS",
    "NUM",
    "Candidate",
    "CodeBlocks",
    "Extracted",
    "Extraction",
    "ExtractorReplyError",
    "extract",
    "extract_estimate",
    "extract_r_code",
    "has_numbers",
    "parse_extractor_reply",
    "reply_json_object",
]
