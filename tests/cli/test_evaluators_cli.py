from __future__ import annotations

from pathlib import Path

from tests.cli.test_score_cli import assay


def test_list_shows_code_evaluators_and_templates(tmp_path: Path) -> None:
    r = assay("evaluators", "list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("finance-rubric", "finsearch-t1-judge", "finsearch-t1-judge-en",
                 "coze-correctness", "coze-quality", "coze-persona", "coze-ecommerce",
                 "item-judge"):
        assert name in r.stdout
    assert 'integer in [0, 1] or "null"' in r.stdout


def test_show_prints_the_messages(tmp_path: Path) -> None:
    r = assay("evaluators", "show", "finsearch-t1-judge", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "你是一个严格的判官" in r.stdout
    assert '{"score":1}' in r.stdout
    assert "【问题】：{prompt}" in r.stdout


def test_show_unknown_suggests(tmp_path: Path) -> None:
    r = assay("evaluators", "show", "coze-qualty", cwd=tmp_path)
    assert r.returncode == 2
    assert "did you mean coze-quality" in r.stderr
    assert "Traceback" not in r.stderr
