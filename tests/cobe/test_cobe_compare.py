"""python -m cobe_inspect.compare: our figures beside the paper's, on a scripted log; model matching; caveats."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from cobe_inspect.compare import comparison_rows, main, match_paper_model, paper_results


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


def test_rows_are_only_the_figures_both_sides_have():
    metrics = {
        "accuracy": 0.5,
        "stderr": 0.05,
        "phrasing=A": 0.5,
        "phrasing=B": 0.6,
        "phrasing=C": 0.4,
        "graph_type=chain": 0.25,
        "E0_failure": 0.1,
        "E4_numeric_failure": float("nan"),
    }
    rows = {(r.figure, r.breakdown): r for r in comparison_rows(metrics, 1, "gpt", paper_results())}
    assert rows[("Table 5", "accuracy, mean of A-C ± std")].ours == "50.0 ± 10.0"
    assert rows[("Table 5", "accuracy, mean of A-C ± std")].paper == "61.3 ± 0.5"
    assert rows[("Fig. 7", "graph chain")].diff == "-38.5"
    assert rows[("Fig. 6", "failure E3 connectors (our E0)")].paper == "3.8"
    assert not any("numeric" in b for _, b in rows) and not any("collider" in b for _, b in rows)
    tier3 = comparison_rows({"accuracy": 0.7}, 3, "gemini", paper_results())
    assert [(r.figure, r.ours, r.paper, r.diff) for r in tier3] == [("Table 7", "70.0", "67.1", "+2.9")]
    assert comparison_rows({"accuracy": 0.7}, 3, "claude", paper_results()) == []  # Table 7 has no Claude


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
