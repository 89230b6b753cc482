"""Tables. Portable types only (no SQLite-only features): a PostgreSQL URL uses the same schema,
with JSONB where PostgreSQL has it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

metadata = MetaData()


class JsonOrJsonb(TypeDecorator[Any]):
    """JSON, stored as JSONB on PostgreSQL. Chosen when a dialect asks rather than written as
    `JSON().with_variant(JSONB(), "postgresql")`, which imports PostgreSQL's dialect with the
    schema: about 0.13 G instructions of every command's start-up, on SQLite too."""

    impl = JSON
    cache_ok = True
    # As JSON where TypeDecorator's defaults differ: None is stored as JSON null, not SQL NULL;
    # not hashable; a Python value compared with the column (or a path in it) is typed as JSON
    # would type it ("x" a string, not JSON text), True and False as SQL's own
    # (tests/store/test_json_type.py compiles queries both ways).
    should_evaluate_none = True
    hashable = False
    coerce_to_is_types = (type(None), bool)

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB

            return dialect.type_descriptor(JSONB())
        return dialect.type_descriptor(JSON())

    def coerce_compared_value(self, op: Any, value: Any) -> Any:
        return self.impl_instance.coerce_compared_value(op, value)


Json = JsonOrJsonb()


def call_columns() -> list[Column[Any]]:
    """An answer's or a result's model call (core/model_call.py): the whole call as JSON, and
    what is summed — its cost and tokens — in columns of their own, so cost sheets and token
    counts are plain column sums (migration 0010). NULL: no call, or not reported."""
    return [Column("cost", Float), Column("prompt_tokens", Integer),
            Column("completion_tokens", Integer), Column("total_tokens", Integer),
            Column("call", Json)]

datasets = Table(
    "datasets", metadata,
    Column("id", String(64), primary_key=True),  # content version hash
    Column("name", String(255), nullable=False),
    Column("path", Text, nullable=False),
    Column("format", String(16), nullable=False),
    Column("n_items", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

items = Table(
    "items", metadata,
    Column("dataset_id", String(64), ForeignKey("datasets.id"), primary_key=True),
    Column("item_id", String(255), primary_key=True),
    Column("line", Integer),
    Column("fields", Json, nullable=False),
    Column("label", String(255)),  # fields["label"], kept apart for listing and filtering
    Index("ix_items_dataset_label", "dataset_id", "label", "item_id"),
)

# A name's versions (`assay datasets add NAME FILE`): each changed content is the next number,
# pointing at the content-hashed dataset above, whose items are kept.
dataset_versions = Table(
    "dataset_versions", metadata,
    Column("name", String(255), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("dataset_id", String(64), ForeignKey("datasets.id"), nullable=False),
    Column("source", Text, nullable=False),  # the file it was added from
    Column("created_at", DateTime(timezone=True), nullable=False),
)

runs = Table(
    "runs", metadata,
    Column("id", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),  # score | run
    Column("status", String(16), nullable=False),  # running | finished | interrupted | failed
    Column("dataset_id", String(64), ForeignKey("datasets.id")),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("manifest", Json, nullable=False),
    Column("summary", Json),
    # the process working on the run ("host:pid:token") and until when (store/lease.py)
    Column("lease_owner", String(255)),
    Column("lease_until", DateTime(timezone=True)),
    Column("dataset_ref", String(255)),  # NAME@VERSION when the run used a named dataset
)

# A sample is (item, target, epoch): one run may hold several targets and repeats.
answers = Table(
    "answers", metadata,
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("item_id", String(255), primary_key=True),
    Column("target", String(255), primary_key=True),
    Column("epoch", Integer, primary_key=True, server_default="0"),
    Column("text", Text),
    Column("error", Text),
    Column("latency_s", Float),
    Column("usage", Json),
    Column("extras", Json),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    *call_columns(),
    # a conversation's end (core/conversation.py Outcome); NULL for a one-question sample
    Column("outcome", String(16)),
)

results = Table(
    "results", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), ForeignKey("runs.id"), nullable=False),
    Column("item_id", String(255), nullable=False),
    Column("target", String(255), nullable=False, server_default="recorded"),
    Column("epoch", Integer, nullable=False, server_default="0"),
    Column("evaluator", String(255), nullable=False),
    Column("evaluator_version", String(64), nullable=False),
    Column("score", Float),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("evidence", Json),
    Column("created_at", DateTime(timezone=True), nullable=False),
    *call_columns(),
    UniqueConstraint("run_id", "item_id", "target", "epoch", "evaluator",
                     name="uq_results_sample_evaluator"),
    Index("ix_results_run_status", "run_id", "status"),
    # a run's results in insertion order with the columns that filters, summaries and
    # comparisons read, so that none reads a result's row (its evidence is inline: ~2.4 KB a
    # row), and a page of a filtered run stops at the page's end (migration 0011)
    Index("ix_results_run_rows", "run_id", "id", "score", "status", "evaluator", "item_id",
          "target", "epoch", "cost"),
)

spans = Table(
    "spans", metadata,
    # keyed per run: an agent's own span ids, sent to two online runs, are stored by both
    Column("span_id", String(32), primary_key=True),
    Column("trace_id", String(32), nullable=False),
    Column("parent_id", String(32)),
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("item_id", String(255)),
    Column("kind", String(32), nullable=False),
    Column("name", String(255), nullable=False),
    Column("start_at", DateTime(timezone=True), nullable=False),
    Column("end_at", DateTime(timezone=True)),
    Column("status", String(16), nullable=False),
    Column("attributes", Json),
    Index("ix_spans_run_item", "run_id", "item_id"),
)

# The ground truth a sample was judged against, when fetched (live or recorded tables).
truth_snapshots = Table(
    "truth_snapshots", metadata,
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("item_id", String(255), primary_key=True),
    Column("target", String(255), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("mode", String(16), nullable=False),  # live | snapshot
    Column("provider", String(32), nullable=False),
    Column("instrument", String(64), nullable=False),
    Column("market", String(32)),
    Column("query", Text, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
    Column("answered_at", DateTime(timezone=True)),
    Column("gap_s", Float),  # fetched_at − answered_at, seconds
    Column("status", String(16), nullable=False),  # ok | empty | error
    Column("message", Text),
    Column("fields", Json),
    Column("source_fields", Json),
    Column("payload", Json),  # what the evaluators received as ground_truth
)

# A conversation's messages, one row each, written as they happen (migration 0012): a user
# turn (scripted, or the simulated user's with its model call) and the target's answer to it
# (its call, tool calls, the truth captured at that answer's time). A kill loses only the
# message in flight, and a resume continues from the last one stored without asking the
# simulated user again. The conversation itself is the sample: its `answers` row (final
# answer, outcome, summed costs) and `results` rows (each evaluator's conversation score) are
# written together when it ends.
turns = Table(
    "turns", metadata,
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("item_id", String(255), primary_key=True),
    Column("target", String(255), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("turn", Integer, primary_key=True),  # from 1
    Column("role", String(16), primary_key=True),  # user | assistant
    Column("source", String(16), nullable=False),  # script | simulator | target
    Column("text", Text),
    Column("error", Text),
    Column("latency_s", Float),
    Column("extras", Json),  # tool calls, what the target said beside its text
    Column("truth", Json),  # the snapshot captured at this answer's time, with its payload
    Column("ended", String(16)),  # the conversation ended with this message (an Outcome)
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    *call_columns(),
)

# A conversation's per-turn judgments (each_turn, final_turn): one row per turn and evaluator.
turn_results = Table(
    "turn_results", metadata,
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("item_id", String(255), primary_key=True),
    Column("target", String(255), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("evaluator", String(255), primary_key=True),
    Column("evaluator_version", String(64), nullable=False),
    Column("score", Float),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("evidence", Json),
    Column("created_at", DateTime(timezone=True), nullable=False),
    *call_columns(),
)

# A reviewer's correction of one result; the raw score stays in `results`.
reviews = Table(
    "reviews", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", String(64), ForeignKey("runs.id"), nullable=False),
    Column("item_id", String(255), nullable=False),
    Column("target", String(255), nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("evaluator", String(255), nullable=False),
    Column("score", Float),
    Column("reason", Text, nullable=False),
    Column("reviewer", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_reviews_run", "run_id"),
)

response_cache = Table(
    "response_cache", metadata,
    Column("key", String(64), primary_key=True),  # models.cache.cache_key
    Column("model", String(255), nullable=False),
    Column("response", Json, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
