"""The boundary helpers of issue 13: text made safe (unpaired surrogates, NULs) and secrets
masked, applied to a target's answer and a provider's snapshot."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.core import secrets, text
from assay.core.model_call import ModelCall, Usage
from assay.core.text import REPLACEMENT, safe_text, safe_value, unsafe_position
from assay.core.types import Answer, TruthSnapshot
from assay.targets.boundary import settled
from assay.truth.capture import settled_snapshot


@pytest.fixture(autouse=True)
def _no_secrets() -> Iterator[None]:
    secrets.forget_all()
    yield
    secrets.forget_all()


def test_safe_text_replaces_unpaired_surrogates_and_nuls_only() -> None:
    assert safe_text("plain") == ("plain", False)
    assert safe_text("最新价 😀") == ("最新价 😀", False)
    assert safe_text("a\ud800b\udc00c\x00") == (f"a{REPLACEMENT}b{REPLACEMENT}c{REPLACEMENT}",
                                               True)
    assert unsafe_position("ab\x00") == 2 and unsafe_position("ok") is None


@given(st.text())
def test_safe_text_is_always_encodable_and_leaves_clean_text_alone(text: str) -> None:
    cleaned, changed = safe_text(text)
    cleaned.encode("utf-8")
    assert "\x00" not in cleaned
    assert changed == (cleaned != text)


def test_safe_value_walks_containers_and_copies_only_when_needed() -> None:
    clean = {"a": [1, "x", {"b": None}]}
    assert safe_value(clean) == (clean, False) and safe_value(clean)[0] is clean
    dirty = {"k\ud800": ["ok", ("t\x00",)], "n": 1.5}
    assert safe_value(dirty) == ({f"k{REPLACEMENT}": ["ok", (f"t{REPLACEMENT}",)], "n": 1.5},
                                 True)


Pair = namedtuple("Pair", "a b")


@dataclass
class Opaque:  # an object the walk does not enter: its text is left as it is
    note: str


class Raw(str):
    pass


class Items(dict):  # type: ignore[type-arg]  # reads differently through its own methods
    def items(self):  # type: ignore[no-untyped-def]
        return [("a", "x\x00")]


class Listed(list):  # type: ignore[type-arg]
    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(["y\x00"])


class Hollow(dict):  # type: ignore[type-arg]
    def __len__(self) -> int:
        return 0


class Broken(tzinfo):  # orjson 3.x ended the process reading a datetime with this zone
    def utcoffset(self, dt: datetime | None) -> timedelta:
        raise ValueError("no offset")

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None


def test_safe_value_decides_as_the_walk_on_the_cases_orjson_treats_apart() -> None:
    """The fast check (orjson encodes the whole value once) must never pass over what the walk
    would replace, nor replace what it would not: each case here is one it handles apart."""
    cases: list[Any] = [
        {"p": Pair("ok", "t\x00")},  # a tuple subclass orjson does not encode: walked
        (Pair("a", "b"),),
        {"d": Decimal("1.5"), "s": "x\ud800"},  # a type orjson refuses, and a surrogate
        {"o": Opaque("t\x00")},  # opaque to the walk: not replaced either way
        {1: "a", None: ["b\x00"], 2.5: "c"},  # keys that are not text
        {("t", "\x00"): "v"},  # a tuple key: orjson refuses it, the walk leaves it
        {"r": Raw("raw\x00")},  # a str subclass, replaced as the walk does
        ["\\u0000 only looks like the escape"],
        [2 ** 70, "big\x00"],  # past orjson's 64-bit integers
        {"k\x00": 1},
        [float("nan"), "ok"],
        Items(a="ok"), {"nested": Items(a="ok")}, Listed(["ok"]), [Listed(["ok"])],
        Hollow(k="z\x00"), [Hollow(k="z\x00")],
        [datetime(2026, 1, 1, tzinfo=Broken()), "ok"],  # opaque to the walk: not read
    ]
    for value in cases:
        assert safe_value(value) == text._walk(value), value
        if not text._walk(value)[1]:
            assert safe_value(value)[0] is value


_leaf = st.one_of(st.text(), st.integers(), st.floats(), st.none(), st.booleans(),
                  st.decimals(allow_nan=False), st.builds(Opaque, st.text()),
                  st.builds(Raw, st.text()))
_json = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.builds(Pair, inner, inner),
    st.dictionaries(st.one_of(st.text(), st.integers()), inner, max_size=4)), max_leaves=12)


@given(_json)
def test_safe_value_is_the_walk_whatever_the_value(value: Any) -> None:
    fast, walked = safe_value(value), text._walk(value)
    assert fast[1] == walked[1]
    assert repr(fast[0]) == repr(walked[0])  # (nan != nan: compared as written)
    if not walked[1]:
        assert fast[0] is value


def test_secrets_are_masked_longest_first_and_before_cutting() -> None:
    secrets.remember("sk-abcdef123456", "KEY")
    secrets.remember("sk-abcdef123456-long", "LONG")
    secrets.remember("short", "TOO_SHORT")  # below the minimum length: never masked
    assert secrets.mask("Bearer sk-abcdef123456-long and sk-abcdef123456 short") == \
        "Bearer [secret $LONG] and [secret $KEY] short"
    text = "x" * 195 + "sk-abcdef123456"
    assert "sk-abc" not in secrets.clip(text, 200)
    assert secrets.mask_value({"h": ["sk-abcdef123456"]}) == {"h": ["[secret $KEY]"]}


def test_a_target_answer_is_settled_and_says_what_changed() -> None:
    secrets.remember("tok-0123456789", "AGENT_TOKEN")
    call = ModelCall("m", usage=Usage(total_tokens=3))
    a = Answer("ok\ud800", {"headers": "Bearer tok-0123456789"}, 0.1,
               {"echo": "tok-0123456789\x00"}, None, call)
    s = settled(a)
    assert s.text == f"ok{REPLACEMENT}" and s.extras["headers"] == "Bearer [secret $AGENT_TOKEN]"
    assert s.raw == {"echo": f"[secret $AGENT_TOKEN]{REPLACEMENT}"}
    assert s.extras["sanitized"] == ["text", "raw"] and s.call == call
    assert s.usage == Usage(total_tokens=3)


def test_a_model_call_is_settled_with_its_answer() -> None:
    """A model target's messages and reply pass the same boundary as its text: a secret the
    endpoint echoed is masked, a character no store keeps is replaced, and the answer says so."""
    secrets.remember("sk-echoed-key-0123", "MODEL_KEY")
    call = ModelCall("m", messages=({"role": "user", "content": "key sk-echoed-key-0123\x00"},),
                     reply="said sk-echoed-key-0123")
    s = settled(Answer("said sk-echoed-key-0123", {}, 0.1, None, None, call))
    assert s.call is not None and s.text == s.call.reply == "said [secret $MODEL_KEY]"
    assert s.call.messages == ({"role": "user",
                                "content": f"key [secret $MODEL_KEY]{REPLACEMENT}"},)
    assert s.extras["sanitized"] == ["call"]
    clean = Answer("fine", {"x": 1})
    assert settled(clean).extras == {"x": 1} and "sanitized" not in settled(clean).extras


def test_a_provider_snapshot_is_settled() -> None:
    secrets.remember("ts-token-abcdef", "TUSHARE_TOKEN")
    snap = TruthSnapshot("tushare", "600519.SH", "q", datetime.now(UTC), "error",
                         {"last": 1.0}, {"名称\ud800": "x"}, None,
                         "HTTP 403 token=ts-token-abcdef", None, {"data": {"last": "1\x00"}})
    s = settled_snapshot(snap)
    assert s.source_fields == {f"名称{REPLACEMENT}": "x"}
    assert s.payload == {"data": {"last": f"1{REPLACEMENT}"}}
    assert s.message == ("HTTP 403 token=[secret $TUSHARE_TOKEN]; sanitized: unpaired "
                         "surrogates or NULs replaced")
    secrets.forget_all()
    fine = TruthSnapshot("x", "y", "q", datetime.now(UTC), "ok", {"last": 1.0})
    assert settled_snapshot(fine) is fine


def test_a_secret_echoed_url_encoded_is_masked_too() -> None:
    """An endpoint that echoes its query string echoes the key URL-encoded (issue 27)."""
    from assay.core import secrets

    secrets.forget_all()
    try:
        secrets.remember("sk-abc/def+ghi=jkl", "MY_KEY")
        for echoed in ("sk-abc%2Fdef%2Bghi%3Djkl", "sk-abc%2Fdef%2Bghi%3Djkl",
                       "sk-abc/def%2Bghi%3Djkl"):
            assert secrets.mask(f"GET /v1?key={echoed} 401") == "GET /v1?key=[secret $MY_KEY] 401"
        assert secrets.mask("key=sk-abc/def+ghi=jkl") == "key=[secret $MY_KEY]"
    finally:
        secrets.forget_all()
