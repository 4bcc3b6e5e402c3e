"""The built-in problems (our own wording): every gold answer recomputed independently of its worked solution."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from importlib import resources

import sympy as sp

from glass_inspect.answers import answers_match, last_boxed, normalize_answer


def _rows(name: str) -> list[dict]:
    text = resources.files("glass_inspect.corpus").joinpath(f"data/{name}").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# one independent computation per GSM problem, in file order
GSM_GOLD = [
    (4 * 12 - 15) // 3,
    (240 - 240 * 2 // 5) // 4,
    6 * 9 * 7 // 14,
    45 * 2 * 5 * 4,
    (3 * 24 + 5) * 60,
    85 - 23 - 17,
    132 + (132 - 18) + 2 * (132 - 18),
    60 + 60 + 25,
    Fraction(275, 100) * 2 * 22 - 68,
    2 * (80 + 45) * 6,
    (210 - 35 - 28) // 21,
    (108 - 108 // 9) // 12 * 4,
    12 - 5 - (5 - 2),
    (450 - 450 * 8 // 10) // 2,
    18 * 38 + 55,
    15 + (1200 - 15 * 40) // (40 - 10),
    3 * 14 - 10,
    (13 * 60 + 15) - (9 * 60 + 40),
    7 * 24 - 31 * 5,
    400 - (360 - 360 * 15 // 100),
    next(d for d in range(100) if (d + 4 + 6) + (d + 6) == 40),
    15 // 3 * 2,
    3 + (14 - 8 - 1) * 2,
    25 + Fraction(1, 10) * (340 - 200),
    5 * 16 - 5 * 16 // 4,
    (25 + 35) * 30 // 60,
    min(12 * p + 3 * max(0, 23 - 5 * p) for p in range(6)),
    28 - 28 * 3 // 7 - 8,
    Fraction(18 * 5, 2) + Fraction(12 * 3, 2),
    150 - 3 * 16 - 2 * 29,
    sum(12 + 3 * k for k in range(5)),
    (18 - 3) * 24 * 9 // 10,
    (47 + 29 - 16) // 2,
]

x, y, s = sp.symbols("x y s")
MATH_GOLD = [
    sp.Rational(15, 100) * 240,
    3 * sp.Rational(240, 100) + sp.Rational(135, 100),
    sp.solve(5 * x - 7 - 3 * x - 11)[0],
    (3 * x**2 - 2 * x + 1).subs(x, -2),
    sp.prod(sp.solve([sp.Symbol("a") + sp.Symbol("b") - 42, sp.Symbol("a") - sp.Symbol("b") - 10]).values()),
    sum(sp.solve((2 * x - 5) ** 2 - 81)),
    sum(r**2 for r in sp.solve(x**2 - 7 * x + 3)),
    sp.gcd(84, 126),
    2**10 % 7,
    sp.divisor_count(360),
    next(n for n in range(1, 100) if n % 5 == 3 and n % 7 == 4),
    pow(7, 2023, 10),
    sp.factorial(4),
    sp.Rational(sum(sp.isprime(k) for k in range(1, 7)), 6),
    5 * 3 * (2 + 1),
    sp.Rational(sum(a + b == 8 for a in range(1, 7) for b in range(1, 7)), 36),
    sum(1 for n in range(1000, 10000) if list(str(n)) == sorted(set(str(n)))),
    sp.sqrt(12**2 + 5**2),
    abs(sp.Matrix([[0, 0, 1], [8, 0, 1], [3, 6, 1]]).det()) / 2,
    360 // (180 - 150),
    100 - sp.pi * 5**2,
    sp.pi * 6**2 * sp.sqrt(10**2 - 6**2) / 3,
    sp.rem(x**3 - 4 * x**2 + 2 * x + 5, x - 3),
    8 / (1 - sp.Rational(1, 2)),
    sp.minimum(x**2 + 6 * x + 14, x),
    sp.maximum((10 - y) * y**2, y, sp.Interval.open(0, 10)),
    sp.sin(sp.pi / 6) + sp.cos(sp.pi / 3),
    sp.Matrix([[3, -1], [4, 2]]).det(),
    sp.Matrix([2, -3, 5]).dot([4, 1, -2]),
    (sp.sqrt(4 + 12), sp.atan2(2 * sp.sqrt(3), -2)),
    sp.Rational(32, 10) * (1 + 2 + 2) - sp.Rational(15, 10),
    3 * sp.solve(3 * s + 12 - 2 * (s + 12))[0],
    96 / (sp.Rational(12, 10) * sp.Rational(8, 10)),
    sum(1 for p in itertools.permutations("ABCD") if p.index("A") not in (0, 3)),
    12 + 7 + 2 * 7,
    next((v, 2 * v + 3) for v in sp.solve(2 * x + 3 - (-2 * x - 5))),
    sp.Rational(82 + 90 + 77, 3),
]


def test_builtin_gsm_gold_answers_are_correct():
    rows = _rows("gsm_builtin.jsonl")
    assert len(rows) == len(GSM_GOLD) >= 30
    for row, gold in zip(rows, GSM_GOLD, strict=False):
        stated = row["answer"].rsplit("####", 1)[1].strip()
        assert Fraction(stated) == Fraction(gold) and Fraction(gold).denominator == 1, row["question"]
        assert normalize_answer(stated, "gsm") == str(int(gold))


def test_builtin_math_gold_answers_are_correct():
    rows = _rows("math_builtin.jsonl")
    assert len(rows) == len(MATH_GOLD) >= 30
    assert {r["level"] for r in rows} == {f"Level {k}" for k in range(1, 6)}
    assert len({r["type"] for r in rows}) == 7
    for row, gold in zip(rows, MATH_GOLD, strict=False):
        boxed = last_boxed(row["solution"])
        if isinstance(gold, tuple):
            expected = f"({sp.latex(gold[0])}, {sp.latex(gold[1])})"
        else:
            expected = sp.latex(sp.nsimplify(gold))
        assert answers_match(normalize_answer(boxed, "math"), normalize_answer(expected, "math"), "math"), (
            row["problem"],
            boxed,
            expected,
        )
