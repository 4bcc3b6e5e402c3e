"""Final-answer extraction, normalisation and equivalence for GlassGSM / GlassMATH (§1: Y is exact match of the
extracted answer; §3.1: GSM8K numbers and Hendrycks-MATH answers).

Public API (also used by the corpus builder to normalise gold answers):

- ``extract_answer(completion, suite)``: the raw final answer a completion commits to, or None;
- ``normalize_answer(raw, suite)``: a canonical string (equal strings mean equal answers), or None;
- ``final_answer(completion, suite)``: ``normalize_answer(extract_answer(...))``;
- ``answers_match(a, b, suite)``: equality of canonical answers, plus symbolic equivalence for MATH;
- ``answer_groups(answers, same)`` / ``modal_vote(answers, same)``: the draws of one prompt grouped into equal
  answers, and the modal answer (Y's answer; also read by Frail's base probes).

GSM answers are numbers: thousands separators, currency, units, percent signs and trailing periods are dropped,
``1/4`` and ``0.25`` are the same number, and the canonical form is a plain decimal (``-3``, ``1234.5``).
MATH answers are LaTeX: the last ``\\boxed{}`` wins; ``\\dfrac``/``\\tfrac``, degrees, ``\\text{}`` units, ``x =``
prefixes and spacing are normalised; numeric expressions (fractions, radicals, pi) are put in sympy's canonical
form; tuples and intervals are compared element-wise with their brackets; unbracketed lists as sets; anything
sympy cannot read is compared as normalised text (``\\text{Monday}`` == ``monday``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

import sympy
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    rationalize,
    standard_transformations,
)

SUITES = ("gsm", "math")

# "ANSWER: ..." is the form our prompt asks for; the others are common ways models state a final answer.
_MARKER = re.compile(r"(?:final\s+answer|answer)\s*(?:is)?\s*[:：]\s*(.*)", re.IGNORECASE)
_ANSWER_IS = re.compile(r"(?:final\s+answer|the\s+answer)\s+is\s*:?\s*(.+)", re.IGNORECASE)
_GSM_HASHES = re.compile(r"####\s*(.+)")
_NUMBER = re.compile(r"(?<![\w.])(-\s?)?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?/\s?(\d+)(?![\d.]))?(?![\d])")
_MINUS = str.maketrans({"\u2212": "-", "\u2013": "-", "\uff0d": "-"})


def _check_suite(suite: str) -> None:
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}: expected one of {SUITES}.")


# ---------------------------------------------------------------- extraction


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` / ``\\fbox{...}`` (balanced braces), or ``\\boxed 5``; None if absent."""
    starts = [m for m in re.finditer(r"\\(?:boxed|fbox)\s*(\{)?", text)]
    for m in reversed(starts):
        if m.group(1) is None:
            bare = re.match(r"[^\s$]+", text[m.end() :])
            if bare:
                return bare.group(0)
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            return text[m.end() : i - 1].strip()
    return None


def _marker_answer(text: str) -> tuple[int, str | None]:
    """(position, text after the last ``ANSWER:`` marker): the rest of its line, or the next non-empty line."""
    matches = list(_MARKER.finditer(text))
    if not matches:
        return -1, None
    m = matches[-1]
    rest = m.group(1).strip() or next((ln.strip() for ln in text[m.end() :].splitlines() if ln.strip()), "")
    rest = rest.strip(" *`")
    if "\\boxed" in rest:
        rest = last_boxed(text[m.start() :]) or ""
    return m.start(), rest or None


def _last_box_at(text: str) -> tuple[int, str | None]:
    pos = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    return pos, last_boxed(text) if pos >= 0 else None


def _answer_is(text: str) -> tuple[int, str | None]:
    said = list(_ANSWER_IS.finditer(text))
    if not said:
        return -1, None
    stated = said[-1].group(1).strip().rstrip(".").strip()
    return said[-1].start(), last_boxed(stated) if "\\boxed" in stated else stated


def extract_answer(completion: str, suite: str) -> str | None:
    """The raw final answer of a completion, or None when it commits to none.

    Candidates: the last ``ANSWER:`` line (the form our prompt asks for; a box inside it is unwrapped), the last
    ``\\boxed{}`` and the last ``The answer is ...``; the one stated last in the text wins. GSM also accepts
    a GSM8K-style ``#### n`` and finally the last number in the text (the usual GSM8K convention).
    """
    _check_suite(suite)
    text = (completion or "").translate(_MINUS)
    stated = [found for found in (_marker_answer(text), _last_box_at(text), _answer_is(text)) if found[1]]
    if stated:
        return max(stated, key=lambda found: found[0])[1]  # the statement made last in the text wins
    if suite == "gsm":
        hashes = _GSM_HASHES.findall(text)
        if hashes:
            return hashes[-1].strip()
        numbers = list(_NUMBER.finditer(text))
        if numbers:
            return numbers[-1].group(0)
    return None


# ---------------------------------------------------------------- GSM numbers


def _number_value(m: re.Match) -> Fraction:
    sign = -1 if m.group(1) else 1
    whole = m.group(2).replace(",", "")
    value = Fraction(Decimal(whole + (m.group(3) or "")))
    if m.group(4):
        denom = int(m.group(4))
        if denom == 0:
            raise ZeroDivisionError
        value /= denom
    return sign * value


def _format_number(value: Fraction) -> str:
    if _terminates(value.denominator):
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return f"{value.numerator}/{value.denominator}"


def _terminates(denominator: int) -> bool:
    for p in (2, 5):
        while denominator % p == 0:
            denominator //= p
    return denominator == 1


def normalize_gsm(raw: str) -> str | None:
    """The first number in ``raw`` as a canonical decimal (``$1,234.50`` -> ``1234.5``); None if there is none."""
    text = raw.translate(_MINUS).replace("\\$", "$").replace("{,}", ",")
    text = re.sub(r"\\(?:d|t)?frac\{(\d+)\}\{(\d+)\}", r"\1/\2", text)
    for m in _NUMBER.finditer(text):
        try:
            return _format_number(_number_value(m))
        except (ZeroDivisionError, InvalidOperation):
            continue
    return None


# ---------------------------------------------------------------- MATH answers

_SPACES = re.compile(r"\\[,;:! ]|\\quad|\\qquad|\\displaystyle|\\left|\\right|~")
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°|\\degree")
_UNIT_TEXT = re.compile(r"(?<=[\d}])\s*\\(?:text|mbox|mathrm)\{[^{}]*\}\s*$")
_WRAPPERS = re.compile(r"\\(?:text|mbox|mathrm|textbf|mathbf|operatorname)\{([^{}]*)\}")
_ASSIGN = re.compile(r"^\s*(?:[a-zA-Z]|\\[a-zA-Z]+)\s*(?:=|\\in\b)\s*")
_UNIT_WORDS = re.compile(
    r"(?<=\d)\s*(?:square\s+|cubic\s+)?(?:units?|cm|mm|km|m|meters?|inches|inch|feet|foot|ft|miles?|degrees?"
    r"|dollars?|cents?|seconds?|minutes?|hours?|days?)\s*(?:\^\s*\{?[23]\}?)?$"
)
_CHOICE = re.compile(r"^\(?([A-Ea-e])\)?$")
_THOUSANDS = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_ALLOWED_NAMES = {"sqrt", "pi", "oo", "sin", "cos", "tan", "log", "ln", "exp"}
# every single letter is a plain symbol (sympy's namespace would make S, N, O, Q special), except i = sqrt(-1)
_LOCALS = {c: sympy.Symbol(c) for c in "abcdefghjklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"} | {
    "i": sympy.I,
    "ln": sympy.log,
}
_TRANSFORMS = standard_transformations + (implicit_multiplication_application, convert_xor, rationalize)
MAX_EXPONENT = 10_000


def _clean_math(raw: str) -> str:
    s = raw.translate(_MINUS).strip()
    s = re.sub(r"^\$+|\$+$", "", s).strip()
    s = s.rstrip(".").strip()
    s = _SPACES.sub("", s)
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = _DEGREES.sub("", s)
    s = s.replace("\\%", "").replace("%", "").replace("\\$", "").replace("$", "")
    s = _UNIT_TEXT.sub("", s)
    prev = None
    while prev != s:
        prev, s = s, _WRAPPERS.sub(r"\1", s)
    s = _UNIT_WORDS.sub("", s)
    s = re.sub(r"\\frac(\d)(\d)", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\frac(\d)\{", r"\\frac{\1}{", s)
    s = re.sub(r"\\frac\{([^{}]*)\}(\d)", r"\\frac{\1}{\2}", s)
    s = re.sub(r"\\sqrt(\d+)", r"\\sqrt{\1}", s)
    s = s.replace("{,}", ",")
    s = re.sub(r"(?<![\d])\.(\d)", r"0.\1", s)
    return re.sub(r"\s+", " ", s).strip()


def _braced(s: str, i: int) -> tuple[str, int]:
    """The content of the brace group starting at ``s[i] == '{'`` and the index after it."""
    depth, j = 1, i + 1
    while j < len(s) and depth:
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        j += 1
    if depth:
        raise ValueError("unbalanced braces")
    return s[i + 1 : j - 1], j


def _latex_to_sympy_text(s: str) -> str:
    """Rewrite the LaTeX of a short answer into sympy input (fractions, roots, powers); ValueError if unsupported."""
    out, i = [], 0
    while i < len(s):
        if s.startswith("\\frac", i):
            j = i + len("\\frac")
            if j >= len(s) or s[j] != "{":
                raise ValueError("bare \\frac")
            num, j = _braced(s, j)
            if j >= len(s) or s[j] != "{":
                raise ValueError("\\frac without denominator")
            den, j = _braced(s, j)
            out.append(f"(({_latex_to_sympy_text(num)})/({_latex_to_sympy_text(den)}))")
            i = j
        elif s.startswith("\\sqrt", i):
            j, index = i + len("\\sqrt"), None
            if j < len(s) and s[j] == "[":
                k = s.index("]", j)
                index, j = s[j + 1 : k], k + 1
            if j >= len(s) or s[j] != "{":
                raise ValueError("bare \\sqrt")
            body, j = _braced(s, j)
            body = _latex_to_sympy_text(body)
            out.append(f"(({body})**(1/({_latex_to_sympy_text(index)})))" if index else f"sqrt({body})")
            i = j
        elif s[i] == "\\":
            m = re.match(r"\\([a-zA-Z]+)", s[i:])
            name = m.group(1) if m else ""
            simple = {
                "pi": "pi",
                "cdot": "*",
                "times": "*",
                "div": "/",
                "infty": "oo",
                "ln": "ln",
                "log": "log",
                "sin": "sin",
                "cos": "cos",
                "tan": "tan",
                "exp": "exp",
            }
            if name not in simple:
                raise ValueError(f"unsupported command \\{name}")
            out.append(f" {simple[name]} ")
            i += len(name) + 1
        elif s[i] == "{":
            body, i = _braced(s, i)
            out.append(f"({_latex_to_sympy_text(body)})")
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _safe_sympy(text: str) -> sympy.Expr | None:
    """Parse sympy input that passed the whitelist; None when it is not a plain bounded expression."""
    if not re.fullmatch(r"[0-9A-Za-z+\-*/^(). ]+", text):
        return None
    if any(len(tok) > 1 and tok not in _ALLOWED_NAMES for tok in re.findall(r"[A-Za-z_]+", text)):
        return None
    if len(text) > 200 or re.search(r"\d{40,}", text):
        return None
    try:
        lazy = parse_expr(text, local_dict=dict(_LOCALS), transformations=_TRANSFORMS, evaluate=False)
        for power in lazy.atoms(sympy.Pow):
            exp = power.exp
            if exp.is_number and abs(complex(exp.evalf(15))) > MAX_EXPONENT:
                return None
        expr = parse_expr(text, local_dict=dict(_LOCALS), transformations=_TRANSFORMS)
    except Exception:  # any parse failure means "not an expression": the caller falls back to text
        return None
    return expr if isinstance(expr, sympy.Expr) else None


def _split_top(s: str) -> list[str]:
    parts, depth = [], 0
    cur: list[str] = []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _canonical_element(s: str) -> str:
    if s.count("=") + s.count("\\in") == 1:
        s = _ASSIGN.sub("", s, count=1)
    choice = _CHOICE.match(s)
    if choice:
        return choice.group(1).upper()
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    try:
        expr = _safe_sympy(_latex_to_sympy_text(s))
    except ValueError:
        expr = None
    if expr is not None:
        return sympy.sstr(expr)
    return re.sub(r"\s+", "", s).lower()


def normalize_math(raw: str) -> str | None:
    """Canonical form of a MATH answer (see the module docstring); None for an empty answer."""
    s = _clean_math(raw)
    if not s:
        return None
    if _THOUSANDS.match(s):
        return _canonical_element(s)
    bracketed = re.fullmatch(r"([\[(])(.*)([\])])", s)
    if bracketed and "," in bracketed.group(2) and len(_split_top(bracketed.group(2))) > 1:
        inner = [_canonical_element(p) for p in _split_top(bracketed.group(2))]
        return f"{bracketed.group(1)}{','.join(inner)}{bracketed.group(3)}"
    parts = _split_top(s)
    if len(parts) > 1:
        return ",".join(sorted(_canonical_element(p) for p in parts if p))
    return _canonical_element(s)


@lru_cache(maxsize=8192)
def normalize_answer(raw: str | None, suite: str) -> str | None:
    """Canonical answer string for ``suite`` ("gsm" or "math"); None when ``raw`` holds no answer.

    Cached: the scorer normalises the same gold answer on every draw, and MATH normalisation parses with sympy.
    """
    _check_suite(suite)
    if raw is None:
        return None
    return normalize_gsm(raw) if suite == "gsm" else normalize_math(raw)


def final_answer(completion: str, suite: str) -> str | None:
    """The normalised final answer of a completion, or None when it gives none."""
    return normalize_answer(extract_answer(completion, suite), suite)


@lru_cache(maxsize=8192)
def _equivalent_math(a: str, b: str) -> bool:
    """Symbolic equality of two canonical MATH answers (cached: the per-draw scorer and the modal-vote reducer
    compare the same pairs again, and ``sympy.simplify`` is the costliest step of scoring)."""
    ba = re.fullmatch(r"([\[(])(.*)([\])])", a)
    bb = re.fullmatch(r"([\[(])(.*)([\])])", b)
    if ba and bb and "," in a and "," in b:
        pa, pb = _split_top(ba.group(2)), _split_top(bb.group(2))
        return (
            (ba.group(1), ba.group(3)) == (bb.group(1), bb.group(3))
            and len(pa) == len(pb)
            and all(_equivalent_math(x, y) for x, y in zip(pa, pb, strict=False))
        )
    ea, eb = _safe_sympy(a), _safe_sympy(b)
    if ea is None or eb is None:
        return False
    try:
        return bool(sympy.simplify(ea - eb) == 0)
    except Exception:  # simplification failures mean "not shown equal"
        return False


def answers_match(a: str | None, b: str | None, suite: str) -> bool:
    """Whether two normalised answers are the same answer (MATH: also symbolically equal, e.g. radicals)."""
    _check_suite(suite)
    if a is None or b is None:
        return False
    if a == b:
        return True
    return suite == "math" and _equivalent_math(a, b)


# ---------------------------------------------------------------- modal vote


def answer_groups(answers: list[str | None], same: Callable[[str, str], bool]) -> list[list[int]]:
    """Indices of ``answers`` grouped by ``same`` against each group's first member, groups in order of first
    appearance; ``None`` (no answer) is its own group."""
    groups: list[list[int]] = []
    for i, a in enumerate(answers):
        for group in groups:
            rep = answers[group[0]]
            if (a is None and rep is None) or (a is not None and rep is not None and same(a, rep)):
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def modal_vote(answers: list[str | None], same: Callable[[str, str], bool]) -> tuple[str | None, int, bool]:
    """(modal answer, its votes, whether another answer had as many) over epoch-ordered answers grouped by
    ``answer_groups``. Ties go to the group whose first member came first."""
    groups = answer_groups(answers, same)
    if not groups:
        return None, 0, False
    best = max(groups, key=len)  # max keeps the first of equals: the earliest-drawn group
    tie = sum(len(g) == len(best) for g in groups) > 1
    return answers[best[0]], len(best), tie
