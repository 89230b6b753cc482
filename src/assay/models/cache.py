"""The response cache. ONE key function for every provider and caller: the same request must
never be cached under two keys, nor two requests under one. Only successful replies are kept."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from assay.store import cache as stored
from assay.store.db import Engine


def cache_key(base_url: str, model: str, messages: list[dict[str, str]],
              params: dict[str, Any], seed: int | None = None) -> str:
    blob = orjson.dumps({"base_url": base_url.rstrip("/"), "model": model,
                         "messages": messages, "params": params, "seed": seed},
                        option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


class ResponseCache:
    def __init__(self, engine: Engine, *, read: bool = True) -> None:
        self.engine = engine
        self.read = read  # False: ask the model again (replay --fresh), keep the first reply

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.read:
            return None
        return stored.cached_response(self.engine, key)

    def put(self, key: str, model: str, response: dict[str, Any]) -> None:
        # the same request answered twice concurrently: the first answer stays
        stored.keep_response(self.engine, key, model, response)
