"""Candidates from free-text lines (``cat``/``sprintf``/``print``, paper App. C.3): every number attributed to its
own label within the line, answer lines (``Estimate: <number>``), and neutral labels in a run of estimate lines.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import replace

from causalverify_inspect.extraction.numbers import (
    _TOKEN_RE,
    MAX_LINE_NUMBERS,
    NUM,
    _blank_non_results,
    _groups,
    _Tok,
    _tokens,
)
from causalverify_inspect.extraction.results import Candidate, _candidate, _Found
from causalverify_inspect.extraction.vocabulary import (
    _COUNT_AFTER,
    _EXCLUDED_ROLE,
    _IV_EFFECT,
    _IV_NOT_EFFECT,
    _MEAN_EFFECT,
    _NAMED_PREFERRED_SPEC,
    _PREFERRED,
    _PRINTER_NOISE,
    _SCALE_WORDS,
    _SETTING_PHRASE,
    _STRONG_STAT,
    _TERM_LABEL_NOISE,
    _WEAK_STAT,
    _effect_re,
    _effect_token,
    _is_term,
    _window,
)

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


def _classify_label(label: str, family: str, effect_re: re.Pattern) -> str:
    """'stat', 'effect', 'excluded', 'neutral' or 'empty' for the text that labels a number."""
    text = label.strip()
    if not re.search(r"[A-Za-z]", text) or re.fullmatch(r"[\W_]*(?:to|and|or|vs\.?|through)?[\W_]*", text, re.I):
        return "empty"
    if _effect_token(text):
        return "effect"
    if effect_re.search(text):  # "RD estimate using the default bandwidth": the setting the estimate was made with
        text = _SETTING_PHRASE.sub(" ", text)
    if _EXCLUDED_ROLE.search(text):
        return "excluded"
    if _IV_NOT_EFFECT.search(text) and (family != "IV" or not _IV_EFFECT.search(text)):
        return "excluded"  # a first stage, reduced form or OLS: in an IV design unless the label names the IV
    text = re.sub(r"(?i)\bat (?:the )?(?:cut-?off|threshold|discontinuity|kink)\b(?=\s*[^\s\d.+\-\u2212])", " ", text)
    if _NAMED_PREFERRED_SPEC.match(text):
        return "effect"  # "Spec Half bandwidth (preferred) =": a specification's name, marked preferred
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
    line = _blank_non_results(line)
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

    def group_of(tok: _Tok | None) -> tuple[int, int] | None:
        return None if tok is None else next((g for g in groups if g[0] < tok.start < g[1]), None)

    out: list[Candidate] = []
    kinds: list[str] = []
    prev_kind, prev_tok = "", None
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
        if kind == "empty" and re.search(r"\+/-|\u00b1", label):
            kind = "stat"  # "-0.73 +/- 0.04": the margin of the estimate
        elif kind == "empty":
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


def _labelled(lines: list[str], family: str, claimed: set[int], headings: AbstractSet[int] = frozenset()) -> _Found:
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
                    if first is not None and sep is not None:
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
