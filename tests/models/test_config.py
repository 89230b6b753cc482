from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.errors import ConfigError
from assay.models.config import ModelConfig, get_model, load_models, save_models


def test_round_trip_keeps_only_the_variable_name(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    cfg = ModelConfig("ds", "https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY",
                      {"temperature": 0})
    save_models({"ds": cfg}, path)
    assert load_models(path) == {"ds": cfg}
    assert "DEEPSEEK_API_KEY" in path.read_text("utf-8")


@pytest.mark.parametrize(("text", "message"), [
    ("models:\n  a: [1\n", r"m\.yaml:\d+: invalid YAML"),
    ("- 1\n", r"m\.yaml:1: the file must be a mapping"),
    ("other: 1\n", r"m\.yaml: expected a 'models:' mapping"),
    ("models:\n  a: {base_url: 'http://x/v1', model: m, api_key: sk-1}\n",
     r"model 'a': unknown key\(s\) api_key"),
    ("models:\n  a: {base_url: 'ftp://x', model: m}\n", r"base URL must start with http"),
])
def test_bad_registry_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_models(path)


def test_unknown_model_suggests(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    save_models({"deepseek": ModelConfig("deepseek", "http://x/v1", "m")}, path)
    with pytest.raises(ConfigError, match="unknown model 'deepsek'; did you mean deepseek"):
        get_model("deepsek", path)
