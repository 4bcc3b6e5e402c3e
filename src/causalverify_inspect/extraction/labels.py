"""Candidates from free-text lines (``cat``/``sprintf``/``print``, paper App. C.3): every number attributed to its
own label within the line, answer lines (``Estimate: <number>``), and neutral labels in a run of estimate lines.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

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
    _RETURN_LABEL,
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


def _prepared_line(raw: str) -> str | None:
    """``raw`` as it is read: a printed string unquoted, arithmetic reduced to its result, non-results, confidence
    levels and dimensions blanked, stage and specification numbers turned into names; None for an unevaluated
    expression (not a result)."""
    line = raw
    m = _PRINTED_STRING.match(line)
    if m:
        line = m.group(1)
    m = _ARITHMETIC.match(line)
    if m:
        line = f"{m.group('label')} {m.group('result')}"
    elif re.match(r"^[^=:]*[=:]\s*[-+\u2212]?\(.*[-+*/].*\)\s*$", line):
        return None
    line = _blank_non_results(line)
    line = _CONF_LEVEL.sub(lambda mm: " " * len(mm.group(0)), line)
    line = re.sub(r"\b\d+\s*[x\u00d7]\s*\d+\b", lambda mm: " " * len(mm.group(0)), line)  # "500 x 4": dimensions
    line = re.sub(r"(?i)\bstage\s*1\b", "first stage", line)
    line = re.sub(r"(?i)\bstage\s*2\b", "second stage", line)
    return re.sub(
        r"(?i)\b((?:spec(?:ification)?|model|column|col|step|scenario|case|table|wave|round|version|panel)"
        r"\s*#?\s*)(\d+)\b",
        lambda mm: mm.group(1) + "K" * len(mm.group(2)),
        line,
    )  # "Model 2": a name


@dataclass(frozen=True)
class _Line:
    """One prepared free-text line read for one design family: its text, number tokens and outermost groups."""

    text: str
    toks: list[_Tok]
    groups: list[tuple[int, int]]
    family: str
    effect_re: re.Pattern

    def classify(self, label: str) -> str:
        return _classify_label(label, self.family, self.effect_re)

    def group_of(self, tok: _Tok | None) -> tuple[int, int] | None:
        return None if tok is None else next((g for g in self.groups if g[0] < tok.start < g[1]), None)

    def label_of(self, k: int) -> str:
        """The text labelling token ``k``: back to the previous number in its group (or outside all groups, where
        closed groups without numbers stay and groups with numbers drop out), after the last ``|``/``;``."""
        tok, line = self.toks[k], self.text
        group = self.group_of(tok)
        if group is None:
            outside = [t for t in self.toks[:k] if self.group_of(t) is None]
            lo = outside[-1].end if outside else 0
            kept, pos = [], lo
            for g in self.groups:
                if g[1] <= lo or g[0] >= tok.start:
                    continue
                kept.append(line[pos : g[0]])
                inner = line[g[0] : g[1]]
                kept.append(inner if not _TOKEN_RE.search(inner) else " ")
                pos = g[1]
            kept.append(line[pos : tok.start])
            label = "".join(kept)
        else:
            inside = [t for t in self.toks[:k] if self.group_of(t) == group]
            label = line[inside[-1].end if inside else group[0] + 1 : tok.start]
        label = re.split(r"[|;]", label)[-1]
        if k > 0 and re.search(r",\s*[A-Za-z]", label):
            label = label.rsplit(",", 1)[-1]
        return label


def _inherited_kind(ln: _Line, k: int, label: str, kind: str, prev_kind: str, prev_tok: _Tok | None) -> str:
    """The kind of token ``k`` whose own label is empty or neutral, from its line's head and the previous token."""
    tok, group = ln.toks[k], ln.group_of(ln.toks[k])
    if kind == "empty" and re.search(r"\+/-|\u00b1", label):
        return "stat"  # "-0.73 +/- 0.04": the margin of the estimate
    if kind == "empty":
        if k == 0:
            head = ln.classify(ln.text[: tok.start])
            return head if head != "empty" else "neutral"
        if group is not None and prev_kind == "effect" and (ln.group_of(prev_tok) != group):
            return "stat"  # "0.25 (0.04)" or "0.25 [0.17, 0.33]": the SE or the CI of the estimate
        if group is not None and ln.group_of(prev_tok) == group:
            return "stat" if prev_kind in ("effect", "stat") else prev_kind
        if re.fullmatch(r"\s*(?:to|-|\u2013|/|,|and|;)?\s*", label) and prev_kind in ("stat", "excluded"):
            return prev_kind
        if prev_kind == "effect":
            return "effect" if not re.search(r"[(\[]", label) else "stat"
        return prev_kind or "neutral"
    if kind == "neutral":
        head = ln.classify(ln.text[: ln.toks[0].start]) if k > 0 else "neutral"
        short = len(re.findall(r"[A-Za-z]+", label)) <= 2 and re.search(r"[:=]\s*$", label)
        if head == "effect" and short and not (group is not None and prev_kind == "effect"):
            return "effect"  # "ATT: value=0.21": a short neutral label inside an estimate line
        if group is not None and prev_kind == "effect":
            return "stat"
    return kind


def _token_kind(ln: _Line, k: int, prev_kind: str, prev_tok: _Tok | None) -> tuple[str, str, str]:
    """The kind of token ``k`` ('effect', 'stat', 'excluded', 'neutral'), its label and the text after it."""
    tok = ln.toks[k]
    group = ln.group_of(tok)
    label = ln.label_of(k)
    kind = ln.classify(label)
    if group is not None and kind != "stat":  # "t-stat (CAR = 0): -19.1": the group belongs to a statistic
        before = [t for t in ln.toks[:k] if ln.group_of(t) is None and t.end <= group[0]]
        outer = ln.text[before[-1].end if before else 0 : group[0]]
        if ln.classify(re.split(r"[|;,]", outer)[-1]) in ("stat", "excluded"):
            kind = "stat"
    after = ln.text[tok.end : tok.end + 20]
    if tok.percent:
        after = after.lstrip(" %")
    if _COUNT_AFTER.match(after) and kind != "effect":
        kind = "stat"
    return _inherited_kind(ln, k, label, kind, prev_kind, prev_tok), label, after


def _effect_scale(tok: _Tok, label: str, after: str, family: str) -> _Tok:
    """An effect token marked as a percentage (scale unknown) when its label or the text after it rescales it."""
    rescaled = (
        (tok.percent is False and re.match(r"\s*(?:percent|pp\b|percentage)", after, re.I))
        or (_SCALE_WORDS.search(label) and family != "EVENT_STUDY")  # a rescaled effect: scale unknown
        or re.search(r"\(%\)|in %|\bin percent", label, re.I)
        or "," in tok.text
    )
    return _Tok(tok.start, tok.end, tok.text, tok.value, True) if rescaled else tok


def _return_in_percent(tok: _Tok, label: str, family: str) -> bool:
    """Whether an event-study effect printed in percent is an abnormal return in percent (``CAR[-1,+1]: 2.84%``,
    read as 0.0284): its own label names the return and nothing that rescales it (``% of the pre-event mean``)."""
    if family != "EVENT_STUDY" or not tok.percent or not _RETURN_LABEL.search(label):
        return False
    return not _SCALE_WORDS.search(re.sub(r"(?i)\bin\s+(?:percent(?:age)?|%)|percent(?:age)?|%", " ", label))


def _missing_effect(
    line: str, raw: str, lineno: int, family: str, effect_re: re.Pattern, window: tuple[int, int] | None
) -> list[Candidate]:
    """An estimate line whose value printed as NA/NaN/Inf/NULL: one candidate without a value."""
    missing = re.search(r"[:=]\s*(NA|NaN|-?Inf|NULL)\s*$", line)
    if missing and _classify_label(line[: missing.start()], family, effect_re) == "effect":
        return [Candidate(None, 0.0, "labelled", raw.strip(), lineno, window, text=missing.group(1))]
    return []


def _line_candidates(raw: str, lineno: int, family: str, effect_re: re.Pattern) -> tuple[list[Candidate], str]:
    """Candidates on one free-text line and the line's kind: 'effect', 'neutral', 'stat', 'excluded' or ''."""
    prepared = _prepared_line(raw)
    if prepared is None:
        return [], "neutral"  # an unevaluated expression, not a result
    window, line = _window(prepared)
    toks = _tokens(line)
    if not toks:
        missing = _missing_effect(line, raw, lineno, family, effect_re, window)
        return missing, "effect" if missing else ""
    if len(toks) > MAX_LINE_NUMBERS:
        return [], "stat"  # a row of data, not a labelled result
    ln = _Line(line, toks, _groups(line), family, effect_re)
    answer = _ANSWER_LINE.match(line)
    out: list[Candidate] = []
    kinds: list[str] = []
    prev_kind, prev_tok = "", None
    for k, tok in enumerate(toks):
        kind, label, after = _token_kind(ln, k, prev_kind, prev_tok)
        kinds.append(kind)
        if kind == "effect":
            tok = _effect_scale(tok, label, after, family)
            rest = line[tok.end : toks[k + 1].start] if k + 1 < len(toks) else line[tok.end :]
            preferred = bool(_PREFERRED.search(line[: tok.start])) or bool(
                re.search(r"(?i)(?:<-|\(|\[|\*|--|\s)\s*(?:preferred|main|headline)\b", rest)
            )
            cand = _candidate(
                tok, "answer_line" if answer else "labelled", raw, lineno, family, window, preferred, bool(answer)
            )
            percent = cand.percent and not _return_in_percent(tok, label, family)
            out.append(replace(cand, explicit=bool(_IV_EFFECT.search(label)), percent=percent))
        prev_kind, prev_tok = kind, tok
    if out:
        return out, "effect"
    if "excluded" in kinds:
        return out, "excluded"
    return out, "neutral" if kinds and all(k == "neutral" for k in kinds[:1]) else "stat"


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
