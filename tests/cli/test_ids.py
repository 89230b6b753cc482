"""Issue 28's id trap: a dataset's `id` column is its items' ids, as answer files' ids are, and
recorded answers that match no item stop the run before anything is stored (exit 3)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from assay.core.errors import DataError
from assay.datasets.loader import load_dataset
from assay.store import repo
from assay.store.db import open_engine
from tests.invoke import assay_in_process, cli_env


def _assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` in this process (tests/invoke.py), without ASSAY_DB."""
    return assay_in_process(*args, cwd=cwd, env=cli_env(hide=("ASSAY_DB",)))


def _general(tmp_path: Path, n: int = 20) -> Path:
    """A newcomer's own evaluation: not finance, ids in an `id` column."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": f"{i} + {i}?",
                                        "reference": str(2 * i)}) + "\n"
                            for i in range(1, n + 1)), encoding="utf-8")
    return data


@pytest.mark.parametrize("column", ["id", "item_id", "prompt_id"])
def test_an_id_column_is_the_items_id(tmp_path: Path, column: str) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({column: f"k{i}", "q": "same text"}) + "\n"
                            for i in range(3)), encoding="utf-8")
    assert [it.id for it in load_dataset(data).items] == ["k0", "k1", "k2"]


def test_prompt_id_wins_over_id_and_numbers_are_text(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"prompt_id": "p1", "id": 7}) + "\n" +
                    json.dumps({"prompt_id": "p2", "id": 8}) + "\n", encoding="utf-8")
    assert [it.id for it in load_dataset(data).items] == ["p1", "p2"]
    data.write_text(json.dumps({"id": 7}) + "\n" + json.dumps({"id": 8}) + "\n",
                    encoding="utf-8")
    assert [it.id for it in load_dataset(data).items] == ["7", "8"]


def test_an_item_without_the_id_others_have_is_named(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "a"}) + "\n" + json.dumps({"q": "b"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_dataset(data)
    assert str(exc.value) == (
        f"{data}:2: field 'id': missing or empty, while other items have one (line 1): give "
        "every item a id, or choose the id field (--id-field, or id_field in a spec)")


def test_the_version_changes_only_where_ids_change(tmp_path: Path) -> None:
    """A dataset whose ids were hashes and are now its `id` column is a new version (its items
    are stored under the new ids); one with prompt_id or with no id column keeps its version."""
    import hashlib

    def old_version(path: Path) -> str:
        digest = hashlib.sha256(path.read_bytes())
        digest.update(repr([]).encode())
        digest.update(repr(None).encode())
        return digest.hexdigest()[:16]

    with_pid, with_id, without = (tmp_path / f"{n}.jsonl" for n in ("p", "i", "n"))
    with_pid.write_text(json.dumps({"prompt_id": "a", "q": 1}) + "\n", encoding="utf-8")
    with_id.write_text(json.dumps({"id": "a", "q": 1}) + "\n", encoding="utf-8")
    without.write_text(json.dumps({"q": 1}) + "\n", encoding="utf-8")
    assert load_dataset(with_pid).version == old_version(with_pid)
    assert load_dataset(without).version == old_version(without)
    assert load_dataset(with_id).version != old_version(with_id)


def test_a_general_evaluation_with_an_id_column_scores_its_answers(tmp_path: Path) -> None:
    data = _general(tmp_path)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"q{i}", "answer": str(2 * i)}) + "\n"
                               for i in range(1, 21)), encoding="utf-8")
    r = _assay("score", str(data), "--responses", str(answers), "-e", "exact",
               "--field", "reference_output=reference", "--db", "sqlite:///s.db", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr
    engine = open_engine(f"sqlite:///{tmp_path / 's.db'}")
    run = repo.list_runs(engine)[0]
    scores = repo.result_scores(engine, run["id"])
    assert sorted(s[3] for s in scores) == ["scored"] * 20
    assert sum(s[4] for s in scores) == 20


def test_answers_matching_no_item_stop_before_anything_is_stored(tmp_path: Path) -> None:
    data = _general(tmp_path)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"x{i}", "answer": "1"}) + "\n"
                               for i in range(3)), encoding="utf-8")
    r = _assay("score", str(data), "--responses", str(answers), "-e", "exact",
               "--field", "reference_output=reference", "--db", "sqlite:///s.db", cwd=tmp_path)
    assert r.returncode == 3, r.stdout + r.stderr
    assert r.stderr.strip() == (
        "error: answers.jsonl: none of its 3 answers has the id of an item of data.jsonl "
        "(answers: e.g. 'x0'; items: e.g. 'q1'); the items' ids come from prompt_id, id or "
        "item_id (else a hash of the item), or the column --id-field names")
    assert repo.list_runs(open_engine(f"sqlite:///{tmp_path / 's.db'}")) == []


def test_answers_for_some_items_say_so_in_one_line(tmp_path: Path) -> None:
    data = _general(tmp_path)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"q{i}", "answer": str(2 * i)}) + "\n"
                               for i in range(1, 16)) +
                       json.dumps({"id": "q99", "answer": "0"}) + "\n", encoding="utf-8")
    r = _assay("score", str(data), "--responses", str(answers), "-e", "exact",
               "--field", "reference_output=reference", "--db", "sqlite:///s.db", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: answers.jsonl: answers for 15 of 20 items; no answer for 5 (e.g. 'q16', "
        "scored as errors); 1 answers match no item (e.g. 'q99')"]


def test_a_finished_run_becomes_a_dataset_whose_answers_are_the_reference(
        tmp_path: Path) -> None:
    """`assay datasets add NAME --from-run RUN --as-reference` (issue 28)."""
    data = _general(tmp_path, 5)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"q{i}", "answer": str(2 * i)}) + "\n"
                               for i in range(1, 5)), encoding="utf-8")  # q5 unanswered
    db = ["--db", "sqlite:///s.db"]
    r = _assay("score", str(data), "--responses", str(answers), "-e", "exact",
               "--field", "reference_output=reference", *db, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run_id = repo.list_runs(open_engine(f"sqlite:///{tmp_path / 's.db'}"))[0]["id"]
    r = _assay("datasets", "add", "baseline", "--from-run", run_id, "--as-reference", *db,
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("(content")[0] == f"baseline@1: 4 item(s) from run {run_id} "
    assert "1 sample(s) whose target failed left out" in r.stdout
    r = _assay("score", "baseline@1", "-e", "exact", *db, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    engine = open_engine(f"sqlite:///{tmp_path / 's.db'}")
    latest = repo.list_runs(engine)[0]["id"]
    assert sorted((s[0], s[4]) for s in repo.result_scores(engine, latest)) == [
        ("q1", 1.0), ("q2", 1.0), ("q3", 1.0), ("q4", 1.0)]
    for args, message in (
            (["baseline"], "error: give a FILE or --from-run RUN (one of them)"),
            (["baseline", "--from-run", "nope"], "error: no run 'nope' in the store s.db (see "
             "assay runs; another store is chosen with --db or ASSAY_DB)"),
            (["baseline", "--from-run", run_id, "--target", "x"],
             f"error: run {run_id} has no target 'x' (it has recorded)"),
            (["baseline", str(data), "--as-reference"],
             "error: --target and --as-reference go with --from-run")):
        r = _assay("datasets", "add", *args, *db, cwd=tmp_path)
        assert (r.returncode, r.stderr.strip()) == (2, message), args
