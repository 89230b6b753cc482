"""Template variables: shared by judges (their prompts) and targets (a model's prompt, an HTTP
agent's request body), so they live in core."""

from __future__ import annotations

import json

import pytest

from assay.core.errors import ConfigError
from assay.core.render import DOUBLE, SINGLE, placeholders, render


def test_render_single_keeps_json_examples() -> None:
    text = '如果打1分请输出{"score":1}。问题：{prompt}；回复：{response}'
    assert placeholders(text, SINGLE) == ["prompt", "response"]
    out = render(text, {"prompt": "最新价？", "response": "1455元"}, SINGLE)
    assert out == '如果打1分请输出{"score":1}。问题：最新价？；回复：1455元'


def test_render_double_leaves_single_braces_alone() -> None:
    text = "输入：{{ input }}\n回复基于{chunk}中的信息"
    assert placeholders(text, DOUBLE) == ["input"]
    assert render(text, {"input": "x"}, DOUBLE) == "输入：x\n回复基于{chunk}中的信息"


def test_missing_variables_are_an_error_never_empty() -> None:
    with pytest.raises(ConfigError, match="no value for template variables chunk, chat_history"):
        render("{{chunk}} {{chat_history}} {{input}}", {"input": "q", "chunk": None}, DOUBLE)
    # an empty answer is a value (it is judged), a missing one is not
    assert render("[{{output}}]", {"output": ""}, DOUBLE) == "[]"


def test_non_text_values_are_written_as_json() -> None:
    out = render("{ground_truth}", {"ground_truth": {"RT_LAST": 1}}, SINGLE)
    assert json.loads(out) == {"RT_LAST": 1}
