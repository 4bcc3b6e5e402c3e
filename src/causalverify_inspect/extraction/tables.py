"""Candidates from printer structure (paper App. C.3): coefficient and results tables found by their header columns,
fixest ``etable`` columns with their IV stages, named vectors and ``$name`` list elements, one-sample ``t.test``
means; each block set aside by the role of the lines printed above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from causalverify_inspect.extraction.numbers import _TOKEN_RE, NUM, _to_float, _Tok, _tokens
from causalverify_inspect.extraction.results import _candidate, _Found
from causalverify_inspect.extraction.vocabulary import (
    _CALL_EXCLUDED,
    _CALL_FIRST,
    _CALL_IV,
    _CALL_OLS,
    _EXCLUDED_ROLE,
    _IV_EFFECT,
    _IV_FITTED_TERM,
    _IV_NOT_EFFECT,
    _PREFERRED,
    MAIN_WORDS,
    _is_term,
    _norm_term,
    _window,
)


def _context_role(context: list[str], family: str) -> str:
    """Role of a block from the lines printed above it (nearest first): 'effect!' (an IV call or header), 'effect'
    (nothing said), 'ols', 'first' or 'excluded' (placebo, pre-trend, leads... outside a parenthetical remark)."""
    for line in reversed(context):
        text = line.strip()
        if not text:
            continue
        named = re.sub(r"\([^()]*\)", " ", text)  # "Coefficients (anticipation effect):" names no placebo block
        if _CALL_EXCLUDED.search(named) and not (
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


_EST_COLS = re.compile(
    r"^(?:estimates?|coef\.?|coeff?|coefficients?|effect|att|ate|atet|late|est|b|beta|car|aar|"
    r"caar|point_?estimate|did|rd_?estimate|tau|estimate_?\w*|coef_?\w*|effect_?\w*|"
    r"(?:mean|avg|average)_?(?:c?a{1,2}r|effect|estimate))$",
    re.I,
)


_KEY_COLS = re.compile(
    r"^(?:spec\w*|model\w*|method|window\w*|estimator|approach|bandwidth|bw|h|sample|design|"
    r"name|label|type|variant|version|outcome|check|robustness|column|specif\w*|kernel)$",
    re.I,
)


_DAY_COLS = re.compile(r"^(?:event_?day|day|rel_?day|relative_?day|t|tau|event_?time|time|period|lag|lead)$", re.I)


_TERM_COLS = re.compile(r"^(?:term|terms|variable|var|coefficient_?name|parameter|regressor)$", re.I)


_PREF_COLS = re.compile(rf"^(?:{MAIN_WORDS}|selected|final)$", re.I)


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


def _padded(repl: str) -> Callable[[re.Match[str]], str]:
    """A substitution writing ``repl`` padded to the width of what it replaces (columns keep their positions)."""
    return lambda m: m.expand(repl).ljust(len(m.group(0)))


def _unpiped(line: str) -> str:
    """A pipe-table line (knitr ``kable(format = "pipe")``: ``|term | estimate|``) with its pipes as spaces."""
    return line.replace("|", " ") if re.match(r"^\s*\|.*\|\s*$", line) else line


def _header(line: str) -> _Header | None:
    text = _unpiped(line)
    for pattern, repl in _HEADER_MERGES:
        text = pattern.sub(_padded(repl), text)
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


_SEPARATOR_LINE = re.compile(r"^\s*[=\-_\u2500\u2550]{5,}\s*$|^\s*\|?(?:\s*:?-{3,}:?\s*\|?){2,}\s*$")
"""A rule: a line of ``=``/``-``, or the column rules of a knitr table (``----  -----``, ``|:----|----:|``)."""


_TYPE_LINE = re.compile(r"^\s*(?:<[a-z]+>\s*)+$")


_ROW_INDEX = re.compile(r"^\s*\d+:?\s+(?=\S)")


def _table_rows(lines: list[str], i: int) -> list[int]:
    """The row lines of the table whose header is line ``i``: up to a blank, number-free, header or labelled line
    (separator and tibble type lines skipped)."""
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
    return rows


def _unnamed_vector(header: _Header, lines: list[str], rows: list[int]) -> bool:
    """Whether the "table" has no row names: a named vector ("estimate se n" over three numbers), read as one."""
    return (
        header.est >= 0
        and not header.names[: header.est]
        and all(not lines[r][: min((t.start for t in _tokens(lines[r])), default=0)].strip() for r in rows)
    )


def _row_key(lines: list[str], r: int, i: int, header: _Header, est_tok: _Tok) -> str:
    """The row's name: the text before its estimate, a printed row index dropped where the table has one."""
    line = lines[r]
    key = _unpiped(line)[: est_tok.start]
    if header.key_kind != "term" or header.key_col is not None:
        key = _ROW_INDEX.sub("", key) if re.match(r"^\s*\d+:?\s", key) else key
    key = key.strip()
    if header.key_col is None and header.key_kind != "key":  # a tibble of terms: "1 treat   0.21"
        key = (
            _ROW_INDEX.sub("", line[: est_tok.start]).strip()
            if header.names
            and re.match(r"^\s*\d+\s+\S", line)
            and _TYPE_LINE.match(lines[i + 1] if i + 1 < len(lines) else "")
            else key
        )
    return key


def _results_row(
    found: _Found, header: _Header, line: str, r: int, key: str, family: str
) -> tuple[tuple[int, int] | None, bool] | None:
    """The window and preferred flag of a results-table row, or None for a row that is no point estimate (set
    aside in ``found.excluded`` where its role excludes it)."""
    low = key.lower()
    if re.search(r"bias[- ]?corrected|^robust\b", low):
        return None  # rdrobust: not a point estimate
    if _EXCLUDED_ROLE.search(low) or (family == "IV" and _IV_NOT_EFFECT.search(low) and not _IV_EFFECT.search(low)):
        found.excluded.append(f"{r + 1}: {line.strip()}")
        return None
    if re.fullmatch(r"[-+]?\d+", key) and header.names[header.key_col or 0].lower() in ("window",):
        return None
    window, _ = _window(key)
    preferred = False
    if header.pref_col is not None:
        flag = [t for t in re.finditer(r"\S+", line) if _column_of(header, t.start(), t.end()) == header.pref_col]
        preferred = bool(flag) and flag[-1].group(0).upper() in ("TRUE", "YES", "*", "1", "X")
    return window, preferred or bool(_PREFERRED.search(low))


def _block_candidates(
    found: _Found, lines: list[str], i: int, rows: list[int], header: _Header, family: str, role: str
) -> None:
    """The estimate cells of one table's rows, as candidates or set aside by the block's role."""
    explicit = role == "effect!"
    role = role.rstrip("!")
    for r in rows:
        found.claimed.add(r)
        line = lines[r]
        est_tok = next((t for t in _tokens(line) if _column_of(header, t.start, t.end) == header.est), None)
        if est_tok is None:
            continue
        key = _row_key(lines, r, i, header, est_tok)
        cand_role, window, preferred = role, None, False
        if header.key_kind == "term" or header.key_col is None and header.key_kind != "key":
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
            result_row = _results_row(found, header, line, r, key, family)
            if result_row is None:
                continue
            window, preferred = result_row
        if cand_role != "effect":
            found.excluded.append(f"{r + 1}: {cand_role}: {line.strip()}")
            continue
        explicit_row = explicit or (rule == "results_table" and bool(_IV_EFFECT.search(key)))
        found.candidates.append(
            replace(_candidate(est_tok, rule, line, r + 1, family, window, preferred), explicit=explicit_row)
        )


def _tables(lines: list[str], family: str, claimed: set[int]) -> _Found:
    """Coefficient and results tables: each found by its header, its rows read under the role of the lines printed
    above it (back to the previous table)."""
    found = _Found([], set(), [])
    last_end = -1
    i = 0
    while i < len(lines):
        header = _header(lines[i]) if i not in claimed else None
        rows = _table_rows(lines, i) if header is not None else []
        if header is None or not rows or _unnamed_vector(header, lines, rows):
            i += 1
            continue
        if header.est < 0:
            found.claimed.update(rows)  # the rest of a wrapped table, a confint() print: no estimate
        else:
            role = _context_role(lines[max(last_end + 1, i - 15) : i], family)
            _block_candidates(found, lines, i, rows, header, family, role)
        last_end, i = rows[-1], rows[-1] + 1
    return found


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
