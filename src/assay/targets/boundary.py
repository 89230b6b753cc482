"""Where a target's answer enters Assay: made safe once, for everything after it.

Every target hands its `Answer` through `settled` before returning it: unpaired surrogates and
NULs (a JSON reply's "\\ud800", an agent's stray byte) are replaced in the text, the error, the
extras and the raw response, and `extras["sanitized"]` names what was changed, so the evidence
says the text is not byte-for-byte what the target sent. Every secret Assay sent (a model key,
a `${VAR}` header value) is masked in the same places: an endpoint that echoes it back cannot
put it in the store, an export or a terminal."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from assay.core import secrets
from assay.core.model_call import ModelCall
from assay.core.text import safe_text, safe_value
from assay.core.types import Answer


def settled(answer: Answer, *, sanitized: bool = False) -> Answer:
    """The answer made safe; `sanitized` says an earlier boundary (the model client) already
    replaced characters in the text."""
    changed: list[str] = ["text"] if sanitized else []
    text, error = answer.text, answer.error
    if text is not None:
        text, c = safe_text(secrets.mask(text))
        if c and "text" not in changed:
            changed.append("text")
    if error is not None:
        error, c = safe_text(secrets.mask(error))
        if c:
            changed.append("error")
    extras, c = safe_value(secrets.mask_value(answer.extras))
    if c:
        changed.append("extras")
    raw: Any
    raw, c = safe_value(secrets.mask_value(answer.raw))
    if c:
        changed.append("raw")
    call = answer.call
    if call is not None:
        call, c = _settled_call(call, text if call.reply == answer.text else None)
        if c:
            changed.append("call")
    if changed:
        extras = {**extras, "sanitized": changed}
    if not changed and text is answer.text and error is answer.error \
            and extras is answer.extras and raw is answer.raw and call is answer.call:
        return answer
    return Answer(text, extras, answer.latency_s, raw, error, call)


def _settled_call(call: ModelCall, reply: str | None) -> tuple[ModelCall, bool]:
    """The call's messages and reply made safe like the answer (`reply`: the answer's text
    already made safe, when the reply is that text); whether characters were replaced."""
    messages: Any
    messages, c_messages = safe_value(secrets.mask_value([dict(m) for m in call.messages]))
    c_reply = False
    if reply is None and call.reply is not None:
        reply, c_reply = safe_text(secrets.mask(call.reply))
    if reply == call.reply and messages == [dict(m) for m in call.messages]:
        return call, c_messages or c_reply
    return replace(call, messages=tuple(messages), reply=reply), c_messages or c_reply
