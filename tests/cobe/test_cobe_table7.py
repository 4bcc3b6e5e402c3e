"""Table 7: a seeded subset of core examples that is the same at every tier, and the view lining tiers up on it."""

from __future__ import annotations

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from causal_suite.logs import read_log_digest
from causal_suite.subset import subset_dataset
from cobe_inspect.compare import main, paper_results
from cobe_inspect.dataset import cobe_dataset
from cobe_inspect.prompts import FINAL_STORY_MARKER
from cobe_inspect.table7 import table7


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def scenarios(tier: int, n: int, seed: int) -> list[str]:
    dataset = subset_dataset(cobe_dataset(None, tier), n, "core_id", seed=seed)
    return list(dict.fromkeys(str(s.id).rsplit("-", 1)[0] for s in dataset))


@pytest.mark.parametrize(("n", "seed"), [(5, 0), (12, 7), (1, 3)])
def test_the_subset_draws_the_same_scenarios_at_every_tier(n, seed):
    drawn = [scenarios(tier, n, seed) for tier in (1, 2, 3, 4)]
    assert len(drawn[0]) == n and all(d == drawn[0] for d in drawn)
    assert scenarios(1, n, seed + 1) != drawn[0] or n == 1  # the seed matters


@pytest.fixture(scope="module")
def four_tiers(tmp_path_factory, scripted_factory):
    logs = tmp_path_factory.mktemp("table7")

    def respond(prompt: str) -> str:  # the built-in B queries open "Using the text above"; D "Rewrite the text above"
        kind = "weak" if "Using the text above" in prompt or "Rewrite the text above" in prompt else "good"
        return f"Steps.\n{FINAL_STORY_MARKER} A {kind} rewrite." if "do(V=v)" in prompt else f"A {kind} rewrite."

    def judge(prompt: str) -> str:  # E1 fails on the weak rewrites: Tier-1 phrasing B and Tier 2 (D)
        return "F" if "must still hold" in prompt and "A weak rewrite." in prompt else "T"

    paths = []
    for tier in (1, 2, 3, 4):
        args = {"tier": tier, "subset": 3, "subset_seed": 5, "judge_cache": False}  # module scope: no private cache
        [log] = eval(
            "cobe_inspect/cobe",
            task_args=args | ({"phrasings": "D"} if tier == 2 else {}),
            model=scripted_factory(respond, name="gpt-5.4-pro"),
            model_roles={"grader": scripted_factory(judge, name="judge")},
            display="none",
            log_dir=str(logs),
        )
        paths.append(log.location)
    return paths


def test_table7_lines_the_tiers_up_on_one_subset(four_tiers, capsys):
    assert main(["--table7", "--min-n", "3", *four_tiers]) == 0
    out = capsys.readouterr().out
    cells = [line.split() for line in out.splitlines()]
    rows = {c[0]: c for c in cells if c and c[0] in ("1", "2", "3", "4")}  # tier, phrasings, n, ..., ours, ±, se
    assert rows["1"][:5] == ["1", "A,B,C", "9", "3", "3"]
    assert rows["2"][1:5] == ["D", "3", "3", "3"] and rows["2"][-1] == "like"  # "not like": D only, paper D-G
    # Tier 1: B fails E1 on every scenario, so 2 of 3 phrasings pass; tiers 3 and 4 pass; tier 2 fails
    assert rows["1"][5] == "66.7" and rows["3"][5] == rows["4"][5] == "100.0" and rows["2"][5] == "0.0"
    assert rows["3"][-1] == f"{100 - 73.5:+.1f}" and rows["4"][8] == "81.3"
    assert "caveat: tier 2: not like the paper's: phrasings D scored" in out


def test_table7_names_what_differs_and_refuses_two_logs_of_one_tier(four_tiers, tmp_path, scripted):
    [other] = eval(
        "cobe_inspect/cobe",
        task_args={"tier": 3, "subset": 3, "subset_seed": 6},
        model=scripted("A rewrite.", name="gpt-5.4-pro"),
        model_roles={"grader": scripted("T", name="judge")},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    logs = [read_log_digest(p) for p in four_tiers[:2]] + [read_log_digest(other.location)]
    text = table7(logs, paper_results())
    assert (
        "caveat: the logs differ in subsets: {'core_examples': 3, 'seed': 5}, {'core_examples': 3, 'seed': 6}" in text
    )
    assert "not scored in every log, left out" in text
    with pytest.raises(SuiteInputError, match=r"Table 7 takes one log per tier, but .* are both tier 3"):
        table7([read_log_digest(four_tiers[2]), read_log_digest(other.location)], paper_results())
