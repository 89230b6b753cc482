from __future__ import annotations

from pathlib import Path

from tests.cli.test_score_cli import assay


def test_list_shows_code_evaluators_and_templates(tmp_path: Path) -> None:
    r = assay("evaluators", "list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for name in ("finance-rubric", "finsearch-t1-judge", "finsearch-t1-judge-en",
                 "coze-correctness", "coze-quality", "coze-persona", "coze-ecommerce",
                 "item-judge", "finance-hybrid", "judge-file", "jury-majority", "jury-mean"):
        assert name in r.stdout
    assert 'integer in [0, 1] or "null"' in r.stdout
    hybrid = next(line for line in r.stdout.splitlines() if "finance-hybrid" in line)
    assert "hybrid" in hybrid.replace("finance-hybrid", "")  # its kind, from the registry


def test_list_includes_a_project_template(tmp_path: Path) -> None:
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "house.md").write_text(
        "---\nname: house-check\ndescription: Our own check. More words.\n---\n[user]\n"
        "{{input}} {{output}}\n", "utf-8")
    r = assay("evaluators", "list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "house-check" in r.stdout and "Our own check." in r.stdout


def test_show_a_registered_evaluator(tmp_path: Path) -> None:
    r = assay("evaluators", "show", "finance-hybrid", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("finance-hybrid (hybrid evaluator): a model extracts")
    assert "model: the judge model" in r.stdout
    r = assay("evaluators", "show", "finance-rubric", cwd=tmp_path)
    assert "reads item fields: prompt, response_reference, ground_truth" in r.stdout


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
