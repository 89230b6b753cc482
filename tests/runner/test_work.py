"""The work list (what a run, or its resume, still has to do) and the collector policy it is
built under."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from assay.core.types import Answer, Item
from assay.runner.gc_tuning import building_long_lived_data, long_lived_data_frozen
from assay.runner.overrides import Overrides
from assay.runner.resume import Prior
from assay.runner.spec import load_spec
from assay.runner.work import work_list
from assay.targets.recorded import RecordedTarget

ITEMS = [Item(f"q{i}", {"response": str(i)}) for i in range(3)]


def _prior(tmp_path: Path) -> Prior:
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text("dataset: {path: d.json}\ntargets: [{name: recorded, type: recorded}]\n"
                         "evaluators: [exact]\n", encoding="utf-8")
    return Prior("r-1", "run", load_spec(spec_file), Overrides(), {}, "v1")


def test_a_fresh_run_does_every_sample_in_epoch_target_item_order() -> None:
    a, b = RecordedTarget("a"), RecordedTarget("b")
    todo = work_list(ITEMS, [a, b], 2, None, {"exact-match"})
    assert [(w.epoch, w.target.name, w.item.id) for w in todo] == [
        (e, t, i) for e in (0, 1) for t in ("a", "b") for i in ("q0", "q1", "q2")]
    assert all(w.prior is None and not w.done for w in todo)
    assert todo[0].done is todo[-1].done  # one shared empty set, not one per sample


def test_a_resume_skips_finished_samples_and_carries_what_is_stored(tmp_path: Path) -> None:
    prior = _prior(tmp_path)
    t = RecordedTarget("recorded")
    prior.answers[("q0", "recorded", 0)] = Answer("0")  # finished: answer and every result
    prior.results[("q0", "recorded", 0)] = {"exact-match", "contains"}
    prior.answers[("q1", "recorded", 0)] = Answer("1")  # answered, one evaluator missing
    prior.results[("q1", "recorded", 0)] = {"contains"}
    todo = work_list(ITEMS, [t], 1, prior, {"exact-match", "contains"})
    assert [w.item.id for w in todo] == ["q1", "q2"]
    assert todo[0].prior == Answer("1") and todo[0].done == {"contains"}
    assert todo[1].prior is None and not todo[1].done


def test_the_collector_is_paused_while_long_lived_data_is_built_and_restored_after() -> None:
    assert gc.isenabled()
    with building_long_lived_data():
        assert not gc.isenabled()
        with building_long_lived_data():  # re-entrant: the inner block does not resume it
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), building_long_lived_data():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_disabled_by_the_caller_stays_disabled() -> None:
    gc.disable()
    try:
        with building_long_lived_data():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_loop_freezes_what_exists_and_restores_thresholds() -> None:
    before = gc.get_threshold()
    kept = [[i] for i in range(1000)]  # tracked containers that exist before the loop
    with long_lived_data_frozen(young_threshold=12345):
        assert gc.get_threshold()[0] == max(12345, before[0])
        assert gc.get_freeze_count() >= len(kept)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
