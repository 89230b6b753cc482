"""`finance-hybrid`: a model reads, the rubric decides.

The model only extracts, for each required field, the values the answer states (as written, with
the exact words they come from). The `finance-rubric` code then checks them against the ground
truth with the precision rule. Both the extraction and the decision are stored — the model's
request as the score's `call`, how its values were read as `evidence["extraction"]` — so when
this disagrees with a plain LLM judge one can see which step differs.
"""

from __future__ import annotations

from typing import Any

from assay.core.model_call import ModelCall
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot

from .base import missing_fields
from .judge.evaluator import ask, request_steps
from .judge.parse import json_objects
from .rubric import words as F
from .rubric.evaluator import FinanceRubric
from .rubric.numbers import Mention, normalise, read_numbers
from .rubric.reader import Bound

SYSTEM = """You extract numbers from an answer to a financial question. You do not judge.
For each field listed, copy every value the answer states for that field, as it is written
(keep units such as 万, 亿, %, $), and quote the exact words it appears in. Use a negative value
for a fall (下跌, 跌幅, fell, down). Leave a field out when the answer does not state it.
Reply with one JSON object only:
{"values": [{"field": "<field key>", "value": "<number as written>", "quote": "<exact words>"}]}"""

USER = """Question: {question}

Fields (key: meaning):
{fields}

Answer:
{answer}"""


class FinanceHybrid:
    version = "hybrid-1"
    deterministic = False
    uses_truth = True

    def __init__(self, client: Any, cache: Any = None) -> None:
        self.client = client
        self.cache = cache
        self.rubric = FinanceRubric()
        self.name = f"finance-hybrid@{client.cfg.name}"
        self.requires = self.rubric.requires

    @property
    def concurrency(self) -> int:
        return int(self.client.cfg.max_concurrency)

    def lacking(self, item: Item) -> list[str]:
        return missing_fields(self.requires, item)

    def prompts(self, item: Item, answer: Answer) -> list[dict[str, str]] | None:
        return None  # its prompt is built from the rubric's reading; it always fills

    async def close(self) -> None:
        return None  # the client is shared and closed by whoever built it

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        prepared = self.rubric.prepare(item, answer, truth)
        if isinstance(prepared, Score):  # the rules decide without reading values
            return self._named(prepared)
        # Only where the code abstains (two readings that decide differently) is a model
        # asked to read the answer: a run pays for an LLM call only there.
        decided = self.rubric.check(item, answer, truth)
        if decided.status != ScoreStatus.ABSTAINED:
            return self._named(decided)
        criteria = prepared.criteria
        text = (answer.text or "").strip()
        listing = "\n".join(f"{f}: {F.NAMES_EN[f]} / {F.NAMES_ZH[f]}" for f in criteria.required)
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": USER.format(
                        question=item.get("prompt") or "", fields=listing, answer=text)}]
        completion, call = await ask(self.client, self.cache, messages)
        if completion.error is not None:
            return self._named(Score.error(f"model call failed: {completion.error}", self.name,
                                           self.version), call)
        values, notes = _values(completion.text or "", text, set(criteria.required))
        if values is None:
            return self._named(Score.unscored("the extraction reply has no JSON object with a "
                                              "'values' list", self.name, self.version),
                               call, {"read": notes})
        decision = self.rubric.decide(item, answer, values, truth)
        return self._named(decision, call, {"read": notes})

    def _named(self, score: Score, call: ModelCall | None = None,
               extraction: dict[str, Any] | None = None) -> Score:
        """The rubric's score under this evaluator's name, with the model's extraction: how
        its values were read (evidence) and the request itself (`call`)."""
        evidence = dict(score.evidence)
        if extraction is not None:
            evidence["extraction"] = extraction
        steps = request_steps(call) if call is not None else []
        return Score(score.value, score.status, score.reason, self.name, self.version,
                     score.full_score, evidence, tuple(steps), call)


def _values(reply: str, answer: str, required: set[str]
            ) -> tuple[list[Bound] | None, list[dict[str, Any]]]:
    """The model's values as rubric values; None when the reply holds no `values` list."""
    found = [o for _, o in json_objects(reply) if isinstance(o.get("values"), list)]
    if not found:
        return None, []
    norm = normalise(answer)
    out: list[Bound] = []
    notes: list[dict[str, Any]] = []
    for entry in found[-1]["values"]:
        if not isinstance(entry, dict):
            notes.append({"entry": entry, "used": False, "why": "not an object"})
            continue
        field, raw = str(entry.get("field", "")), str(entry.get("value", ""))
        quote = str(entry.get("quote", ""))
        note: dict[str, Any] = {"field": field, "value": raw, "quote": quote}
        numbers = read_numbers(normalise(raw))
        if field not in required:
            note.update(used=False, why="not a required field")
        elif len(numbers) != 1:
            note.update(used=False, why=f"{len(numbers)} numbers in the value")
        else:
            m = numbers[0]
            at = norm.find(normalise(quote)) if quote else -1
            note.update(used=True, found_in_answer=at >= 0)
            span = (at, at + len(quote)) if at >= 0 else (-1, -1)
            mention = Mention(span[0], span[1], raw, m.value, m.quantum, m.percent, m.signed,
                              m.unit)
            out.append(Bound(field, mention, m.value, "model extraction"))
        notes.append(note)
    return out, notes


