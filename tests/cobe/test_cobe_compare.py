"""python -m cobe_inspect.compare: our figures beside the paper's, on a scripted log; model matching; caveats."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from cobe_inspect.compare import LogView, comparison_rows, main, match_paper_model, paper_results, unlike


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("openai/gpt-5.4-pro", "gpt"),
        ("google/gemini-3.1-pro-preview", "gemini"),
        ("anthropic/claude-opus-4-7", "claude"),
        ("hf/meta-llama/Llama-3.1-8B-Instruct", "llama3-8b"),
        ("together/meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo", "llama3-70b"),
        ("ollama/qwen2.5:7b", "qwen-7b"),
        ("vllm/mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b"),
        ("hf/microsoft/phi-4", "phi4"),
        ("hf/google/gemma-2-27b-it", "gemma-27b"),
        ("mockllm/model", None),
    ],
)
def test_models_match_the_papers_by_name(model, key):
    assert match_paper_model(model, paper_results()) == key


def test_shipped_numbers_are_the_papers():
    paper = paper_results()
    assert paper["table5"]["gpt"] == {"accuracy": 61.34, "std": 0.45}
    assert paper["fig7_graph"]["hybrid"]["claude"] == 50.1  # the figure's legend spells it "Hydrid"
    assert paper["table7_tier"]["qwen-7b"] == {"1": 36.2, "2": 33.3, "3": 25.0, "4": 32.0}
    assert set(paper["fig6_failure"]) == {"upstream", "downstream", "connectors", "numeric", "latent"}


@pytest.mark.shared_data
def test_shipped_numbers_equal_the_shared_copy(shared_dir):
    shared = json.loads((shared_dir / "data" / "cobe" / "paper-results.json").read_text(encoding="utf-8"))
    paper = paper_results()
    assert paper["table5"] == shared["overall"]
    assert paper["fig8_phrasing"] == shared["by_query"]["values"]
    assert paper["fig6_failure"] == shared["by_criterion"]["values"]
    assert paper["fig9_failure_mode"] == shared["by_failure_mode"]["values"]
    assert sorted(paper["fig7_graph"]["chain"].values()) == sorted(shared["by_graph"]["values"]["Chain-like"].values())


def view(metrics: dict, tier: int = 1, scenarios: dict | None = None) -> LogView:
    same = frozenset({"1v1", "2v1"})
    default = {p: same for p in ("ABC" if tier == 1 else "DEFG" if tier == 2 else ("H1" if tier == 3 else "H2",))}
    return LogView(metrics, tier, scenarios or default)


def test_rows_are_only_the_figures_both_sides_have_each_with_its_n():
    metrics = {
        "accuracy": 0.5,
        "accuracy_n": 120,
        "phrasing=A": 0.5,
        "phrasing=B": 0.6,
        "phrasing=C": 0.4,
        "phrasing=A_n": 40,
        "phrasing=B_n": 40,
        "phrasing=C_n": 40,
        "graph_type=chain": 0.25,
        "graph_type=chain_n": 30,
        "E0_failure": 0.1,
        "E0_failure_n": 12,
        "E4_numeric_failure": float("nan"),
    }
    rows = {(r.figure, r.breakdown): r for r in comparison_rows(view(metrics), "gpt", paper_results())}
    mean = rows[("Table 5", "accuracy, mean of A-C ± std")]
    assert (mean.n, mean.ours, mean.paper) == ("120", "50.0 ± 10.0", "61.3 ± 0.5")
    assert rows[("Fig. 7", "graph chain")].diff == "-38.5" and rows[("Fig. 7", "graph chain")].n == "30"
    connectors = rows[("Fig. 6", "failure E3 connectors (our E0)")]
    assert (connectors.n, connectors.paper, connectors.diff) == ("12", "3.8", "n<30")  # shown, not compared
    assert not any("numeric" in b for _, b in rows) and not any("collider" in b for _, b in rows)
    tier3 = comparison_rows(view({"accuracy": 0.7, "accuracy_n": 40}, 3), "gemini", paper_results())
    assert [(r.figure, r.n, r.ours, r.paper, r.diff) for r in tier3] == [("Table 7", "40", "70.0", "67.1", "+2.9")]
    assert comparison_rows(view({"accuracy": 0.7}, 3), "claude", paper_results()) == []  # Table 7 has no Claude


def test_unlike_phrasings_or_scenarios_are_marked_not_compared():
    d_only = view({"accuracy": 0.7, "accuracy_n": 400}, 2, {"D": frozenset({"1v1"})})
    assert unlike(d_only) == "phrasings D scored, where the paper's tier 2 averages D-G"
    [row] = comparison_rows(d_only, "gpt", paper_results())
    assert row.diff == "not like" and row.ours == "70.0"
    # published records: A on nine scenarios, C on one; the mean of A-C would mix sets
    mixed = {"A": frozenset({f"{i}v1" for i in range(9)}), "B": frozenset({"9v1"}), "C": frozenset({"9v1"})}
    metrics = {f"phrasing={p}": 0.5 for p in "ABC"} | {"accuracy": 0.5, "accuracy_n": 300}
    assert unlike(view(metrics, 1, mixed)) == (
        "the phrasings were scored on different scenarios (A 9, B 1, C 1), so their mean mixes sets"
    )
    rows = {(r.figure, r.breakdown): r for r in comparison_rows(view(metrics, 1, mixed), "gpt", paper_results())}
    assert ("Table 5", "accuracy, mean of A-C ± std") not in rows
    assert rows[("Table 5", "accuracy (all samples ± clustered SE)")].diff == "not like"
    assert unlike(view(metrics)) is None


def test_compare_table_on_a_scripted_log(scripted, tmp_path, capsys):
    def judge(prompt: str) -> str:  # E1 fails on every phrasing of the first built-in scenario
        return "F" if "must still hold" in prompt and "Maya's alarm clock plugs into the wall" in prompt else "T"

    [log] = eval(
        "cobe_inspect/cobe",
        model=scripted("A rewritten story.", name="respondent"),
        model_roles={"grader": scripted(judge, name="judge")},
        limit=6,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert main([log.location, "--paper-model", "gpt"]) == 0
    out = capsys.readouterr().out
    assert "paper model: GPT-5.4-Pro (gpt)" in out
    assert "caveat: judged by mockllm/judge, not the paper's Claude-Opus-4.7" in out
    assert "caveat: data: our 36 built-in scenarios, not the paper's 2,000" in out
    assert "Table 5  accuracy, mean of A-C ± std" in out and "50.0 ± 0.0" in out and "61.3 ± 0.5" in out
    assert "Fig. 6   failure E1 upstream (our E1 preserve)" in out and "Table 7  tier 1" in out
    assert main([log.location]) == 0  # mockllm/respondent matches no paper model: header only
    assert "none matched (name one with --paper-model)" in capsys.readouterr().out


def test_a_self_judged_log_says_so(scripted, tmp_path, capsys):
    model = scripted(lambda p: "T" if "Reply with exactly one character" in p else "A rewrite.")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"self_judge": True},
        model=model,
        limit=3,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert main([log.location, "--paper-model", "claude"]) == 0
    assert "caveat: SELF-JUDGED" in capsys.readouterr().out


def test_bad_arguments(tmp_path, capsys):
    assert main([str(tmp_path / "missing.eval")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main([str(tmp_path / "x.eval"), "--paper-model", "gpt-4"]) == 2
    assert "--paper-model must be one of" in capsys.readouterr().err


def test_a_tier2_run_of_d_only_is_marked_against_the_papers_d_to_g(scripted, tmp_path, capsys):
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"tier": 2, "phrasings": "D", "subset": 2},
        model=scripted("A rewritten story.", name="gpt-5.4-pro"),
        model_roles={"grader": scripted("T", name="judge")},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert main([log.location, "--min-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "tier 2, phrasings D; scored 2" in out
    assert "caveat: not like the paper's: phrasings D scored, where the paper's tier 2 averages D-G" in out
    assert out.rstrip().endswith("not like")


def test_a_directory_or_a_corrupt_log_is_one_sentence(tmp_path, capsys):
    bad = tmp_path / "bad.eval"
    bad.write_text("not a zip", encoding="utf-8")
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"Eval log '{tmp_path}' is a directory, not a file.")
    assert main([str(bad)]) == 2
    assert "is not a readable inspect eval log (BadZipFile" in capsys.readouterr().err
    assert main([str(bad), "--min-n", "0"]) == 2 and "--min-n must be a whole number >= 1" in capsys.readouterr().err
