"""`causal-suite check`: a suite task that ended in error gives exit 1 (``inspect eval`` itself exits 0)."""

from __future__ import annotations

from inspect_ai import eval
from inspect_ai.model import get_model

from causal_suite.cli import main
from glass_inspect.task import glassgsm


def unreachable_model():
    """A model whose every request fails, like ``mockllm/model`` offline or a provider that is down."""

    def outputs(messages, tools, tool_choice, config):
        raise RuntimeError("provider unreachable")

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def test_a_task_that_ended_in_error_exits_1_and_says_why(tmp_path, scripted, capsys):
    [ok] = eval(glassgsm(), model=scripted("ANSWER: 3"), limit=2, epochs=1, display="none", log_dir=str(tmp_path))
    assert ok.status == "success"
    assert main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"success: glass_inspect/glassgsm (2/2 samples) {ok.location}")

    [bad] = eval(glassgsm(), model=unreachable_model(), limit=2, epochs=1, display="none", log_dir=str(tmp_path))
    assert bad.status == "error"
    assert main(["check", bad.location]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("error: glass_inspect/glassgsm (") and "provider unreachable" in out[0]
    assert out[-1] == "check: 1 of 1 logs did not end in success."
    assert main(["check", str(tmp_path)]) == 1  # the folder holds both: one failed
    assert capsys.readouterr().out.splitlines()[-1] == "check: 1 of 2 logs did not end in success."


def test_no_logs_is_one_sentence_and_exit_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "absent")]) == 2
    assert "does not exist: pass eval log files" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 2
    assert "no eval logs under" in capsys.readouterr().err


def test_check_reads_the_header_only(tmp_path, scripted, capsys, monkeypatch):
    """No sample member and no per-sample reduction is read: check's cost is one header per log, whatever its size."""
    from causal_suite import inspect_compat, logs

    [ok] = eval(glassgsm(), model=scripted("ANSWER: 3"), limit=2, epochs=1, display="none", log_dir=str(tmp_path))

    def refuse(*args, **kwargs):
        raise AssertionError("check read a sample or the reductions")

    monkeypatch.setattr(logs.LogReader, "_member", refuse)
    monkeypatch.setattr(inspect_compat, "_reductions", refuse)
    assert main(["check", ok.location]) == 0
    assert capsys.readouterr().out.startswith("success: glass_inspect/glassgsm (2/2 samples)")
