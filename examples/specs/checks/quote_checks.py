"""A check of one's own for examples/specs/checks.yaml: the answer names the item's ticker
or its company. Called as names_ticker(item, answer, **args)."""

from __future__ import annotations

NAMES = {"600519": ["茅台"], "0700": ["腾讯"], "AAPL": ["apple"], "000001": ["上证"]}


def names_ticker(item: dict, answer: str, also_names: bool = True) -> bool:
    ticker = str(item["ticker"])
    words = [ticker] + (NAMES.get(ticker, []) if also_names else [])
    return any(w.lower() in answer.lower() for w in words)
