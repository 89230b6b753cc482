"""Whether runs being compared ran on the same data: a one-line warning per run whose dataset
version (content hash, or NAME@VERSION) or item set differs from the baseline's. The paired
figures stay right either way — they use the items both runs have — but a difference in means
between different item sets is easy to misread."""

from __future__ import annotations

from assay.store import dataset_names as names
from assay.store import repo
from assay.store.db import Engine


def _repeats(engine: Engine, run_id: str) -> int:
    run = repo.get_run(engine, run_id) or {}
    value = (run.get("manifest") or {}).get("repeats")
    return value if isinstance(value, int) and value > 0 else 1


def dataset_warnings(engine: Engine, run_ids: list[str]) -> list[str]:
    if len(run_ids) < 2:
        return []
    used = names.run_datasets(engine, run_ids)
    base = run_ids[0]
    base_items = names.run_item_ids(engine, base)
    out = []
    for other in run_ids[1:]:
        parts = []
        if used.get(base, (None, None))[0] != used.get(other, (None, None))[0]:
            parts.append(f"{base} used {_label(used.get(base))}, {other} used "
                         f"{_label(used.get(other))}")
        items = names.run_item_ids(engine, other)
        if items != base_items:
            parts.append(f"item sets differ ({len(base_items - items)} item(s) only in {base}, "
                         f"{len(items - base_items)} only in {other}, "
                         f"{len(base_items & items)} in both)")
        r_base, r_other = _repeats(engine, base), _repeats(engine, other)
        if r_base != r_other:
            parts.append(f"{base} has {r_base} repeat(s) per item, {other} {r_other}")
        if parts and max(r_base, r_other) > 1:  # the table pairs and counts samples
            parts.append("the table's 'only' columns count samples (item × repeat)")
        if parts:
            out.append("warning: different data: " + "; ".join(parts)
                       + " — paired figures use only the items both runs have")
    return out


def _label(used: tuple[str | None, str | None] | None) -> str:
    dataset_id, ref = used or (None, None)
    content = (dataset_id or "?")[:12]
    return f"dataset {ref} (content {content})" if ref else f"dataset content {content}"
