"""Letter framing: what an e-mail or chat report wraps around its answer.

An agent that writes as a colleague ends with a valediction, a signature (name, desk, phone)
and a disclaimer ("Disclaimer: … past performance (e.g. FY2023 revenue of USD 211.9bn) …",
"免责声明：以上数据截至2024年12月31日…"). None of it is the answer, yet its figures (a phone
number read as 021, 6888, 1234; a year in the copyright line; an earlier figure cited as an
example) would be read as values. Each is set aside whole, and only after the answer: a
valediction on the first line, or a disclaimer with nothing before it, is left alone.
"""

from __future__ import annotations

import re

from assay.core.lazy_pattern import lazy

from .steps import LineStarts

# a line that is only a valediction: what follows it is the signature
_VALEDICTION = LineStarts(lazy(
    r"^[ \t]*(?:best(?: regards| wishes)?|kind regards|warm regards|regards|many thanks|thanks|"
    r"thank you|cheers|sincerely|yours sincerely|yours truly|all the best|顺颂商祺|顺颂时祺|顺祝商祺|"
    r"此致敬礼|此致|敬礼|祝好|祝商祺|谢谢|多谢)[ \t]*[,，!！.。]?[ \t]*$",
    re.IGNORECASE | re.MULTILINE))
# what no signature holds: a postscript, a self-correction, a field word with a figure
_STILL_ANSWER = lazy(r"p\.?\s?s\.?|附[:：言]|更正|修正|correction|actually|update|"
                           r"价|收盘|最新|price|close|revenue|营收|净利|\d[\d,]*\.\d", re.IGNORECASE)
# a paragraph that is a disclaimer: from its label to the next blank line
_DISCLAIMER = LineStarts(lazy(
    r"^[ \t]*(?:\*\*|_)?(?:disclaimer|important notice|risk warning|免责声明|风险提示|重要提示|"
    r"重要声明|声明)(?:\*\*|_)?[ \t]*[:：]", re.IGNORECASE | re.MULTILINE))
# a telephone number: a country code or a 0-led area code, then groups of digits
_PHONE = lazy(r"(?=[+(0])(?<![\d.,])(?:\+\d{1,3}[ \t-]?(?:\(0\)[ \t]?)?\d{1,4}(?:[ \t-]\d{2,4}){1,3}|"
                    r"\(?0\d{1,3}\)?[ \t-]\d{3,4}[ \t-]?\d{4})(?![\d.,])")
_PHONE_LABEL = lazy(r"(?:tel|phone|mobile|fax|电话|手机|传真)\.?[ \t]*[:：]?[ \t]*$",
                          re.IGNORECASE)


def set_aside(text: str) -> tuple[str, list[str]]:
    """The answer without its signature, disclaimers and telephone numbers."""
    done: list[str] = []
    for m in _VALEDICTION.finditer(text):
        after = text[m.end():].strip()
        # a signature is a few short lines; more after the valediction (a P.S., a correction,
        # a figure with its field word) is still the answer's
        if text[:m.start()].strip() and len(after) <= 160 and after.count("\n") <= 3 \
                and not _STILL_ANSWER.search(after):
            text = text[:m.start()].rstrip()
            done.append("signature set aside")
            break
    if _DISCLAIMER.search(text):
        kept: list[str] = []
        for para in re.split(r"(\n[ \t]*\n)", text):
            head = _DISCLAIMER.match(para.lstrip("\n"))
            if head is not None and "".join(kept).strip():
                done.append("disclaimer set aside")
                continue
            kept.append(para)
        text = "".join(kept).rstrip()
    if any(c in text for c in "+-( \t") and _PHONE.search(text):
        new = _PHONE.sub(lambda m: _phone(text, m), text)
        if new != text:
            text = new
            done.append("telephone numbers set aside")
    return text, done


def _phone(text: str, m: re.Match[str]) -> str:
    """A telephone number is set aside where its form is unmistakable: a + country code, or a
    0-led area code beside a label or a separator of a signature line ("| 021-6888 1234")."""
    before = text[max(0, m.start() - 12):m.start()]
    if m.group(0).startswith("+") and len(re.sub(r"\D", "", m.group(0))) >= 8:
        return "☎"
    if _PHONE_LABEL.search(before) or before.rstrip().endswith(("|", "·", "/")):
        return "☎"
    return m.group(0)
