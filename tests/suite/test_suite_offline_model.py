"""The offline default model (``offline/gemma-3-270m``) through inspect: real generation, greedy determinism."""

from __future__ import annotations

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import match

from causal_suite.offline_model import loop_stop, render_prompt, section_stops

FEW_SHOT = "Q: Ann has 2 pens and buys 2 more. How many pens does she have?\nA: 2 + 2 = 4. The answer is 4.\n\n"


def test_render_prompt_joins_message_texts_without_chat_markup():
    msgs = [ChatMessageSystem(content="Be brief."), ChatMessageUser(content="Q: 1+1?\nA:")]
    assert render_prompt(msgs) == "Be brief.\n\nQ: 1+1?\nA:"


def test_section_stops_are_the_prompts_short_heading_lines():
    prompt = (
        "Solve it and end with one line\nANSWER: <number>\n\nProblem:\nPia has 3 cats: two black.\n"
        "Facts that must still hold:\n- one\nThis long instruction line has many more than five words:\n"
        "Problem:\n  Worked steps:  \n:\n"
    )
    assert section_stops(prompt) == ["\nProblem:", "\nFacts that must still hold:", "\nWorked steps:"]
    assert section_stops("Q: 1+1?\nA:") == ["\nA:"]
    assert section_stops("no headings here") == []


def test_loop_stop_fires_once_the_last_window_of_the_completion_was_written_before():
    prompt = [7, 7, 7, 7, 7, 7]  # the prompt's own repeats do not count
    looping = loop_stop(window=3)
    completion = [1, 2, 3, 4, 1, 2, 9, 1, 2, 3]
    fired = [looping(prompt + completion[:k], None) for k in range(len(completion) + 1)]
    assert fired == [False] * 10 + [True]  # [1, 2, 3] again at the end
    assert not loop_stop(window=3)(prompt, None)
    fresh = loop_stop(window=2)
    assert [fresh(prompt + [5, 5, 5][:k], None) for k in range(4)] == [False, False, False, True]


@pytest.mark.offline_model
def test_a_base_model_continuation_stops_at_a_repeated_heading(tmp_path):
    """The base model goes on to write a new "Problem:" section after its answer (seen in every demo run); the
    response ends before it, and with ``continuation_stops=false`` it runs to the token cap."""
    prompt = "Problem:\nSam has 2 red balls and 3 blue balls. How many balls does Sam have?\n\nAnswer:\n5\n\n" * 3
    question = "Problem:\nAda has 4 pens and 1 cup. How many pens?\n\nAnswer:"
    task = Task(dataset=[Sample(input=prompt + question)], config=GenerateConfig(max_tokens=96))
    outputs = {}
    for stops in (True, False):
        log = eval(
            task,
            model="offline/gemma-3-270m",
            model_args={"continuation_stops": stops},
            display="none",
            log_dir=str(tmp_path / str(stops)),
        )[0]
        outputs[stops] = log.samples[0].output
    assert "Problem:" in outputs[False].completion  # without the stops it starts the next problem
    assert "Problem:" not in outputs[True].completion and "Answer:" not in outputs[True].completion
    assert outputs[True].usage.output_tokens < outputs[False].usage.output_tokens
    assert outputs[True].choices[0].stop_reason == "stop"


@pytest.mark.offline_model
def test_offline_model_answers_easy_few_shot_item_deterministically(tmp_path):
    prompt = FEW_SHOT + "Q: Tom has 3 apples and buys 5 more. How many apples does he have?\nA:"
    task = Task(
        dataset=[Sample(input=prompt, target="8")],
        scorer=match(location="any", numeric=True),
        config=GenerateConfig(max_tokens=24, stop_seqs=["\n\n"]),
    )
    logs = [
        eval(task, model="offline/gemma-3-270m", display="none", log_dir=str(tmp_path / str(i)))[0] for i in range(2)
    ]
    first, second = (log.samples[0].output.completion for log in logs)
    assert logs[0].status == "success"
    assert first == second  # greedy decoding is deterministic
    assert "8" in first
    assert logs[0].samples[0].output.usage.output_tokens > 0


@pytest.mark.offline_model
def test_several_choices_per_request_and_the_token_cap(tmp_path):
    task = Task(
        dataset=[Sample(input=FEW_SHOT + "Q: 5 + 1?\nA:", target="6")],
        scorer=match(numeric=True),
        config=GenerateConfig(max_tokens=64, temperature=0.8, num_choices=3),
    )
    log = eval(
        task, model="offline/gemma-3-270m", model_args={"max_tokens_cap": 8}, display="none", log_dir=str(tmp_path)
    )[0]
    output = log.samples[0].output
    assert len(output.choices) == 3
    assert output.usage.output_tokens <= 3 * 8
    assert output.metadata == {"max_tokens_capped": {"asked": 64, "cap": 8}}
    assert len({c.message.text for c in output.choices}) > 1  # each choice has its own seed


@pytest.mark.offline_model
async def test_a_cancelled_generation_stops_promptly():
    import asyncio
    import time

    from inspect_ai.model import get_model

    # without the continuation stops, so that the story runs for its 1000 tokens unless cancelled
    model = get_model("offline/gemma-3-270m", memoize=False, continuation_stops=False)
    request = asyncio.ensure_future(model.generate("Once upon a time", config=GenerateConfig(max_tokens=1000)))
    await asyncio.sleep(1.0)
    request.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await request
    # the model is free again at once: a short request does not wait for the cancelled one's 1000 tokens
    await model.generate("Hi", config=GenerateConfig(max_tokens=2))
    assert time.monotonic() - started < 5


@pytest.mark.offline_model
def test_loading_and_generating_print_no_llama_cpp_lines():
    """verbose=False left "llama_kv_cache_iswa: using full-size SWA cache" on stderr at every load (issue 19)."""
    import subprocess
    import sys

    code = (
        "import asyncio\n"
        "from inspect_ai.model import GenerateConfig, get_model\n"
        "m = get_model('offline/gemma-3-270m')\n"
        "out = asyncio.run(m.generate('Q: 1+1?\\nA:', config=GenerateConfig(max_tokens=3)))\n"
        "print(out.usage.output_tokens > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    # stdout ends with the script's answer (before it, inspect announces the suite's hooks: causal_suite.unscored)
    assert done.returncode == 0 and done.stdout.strip().splitlines()[-1] == "True", done.stderr[-2000:]
    assert "llama_" not in done.stderr and "SWA cache" not in done.stderr, done.stderr[-2000:]
