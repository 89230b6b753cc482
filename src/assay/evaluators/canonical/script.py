"""Traditional Chinese read as simplified: "開市價", "現報", "升跌幅", "數值" are the readers'
开市价, 现报, 升跌幅, 数值. Converted by OpenCC (a maintained converter, `t2s`), only for
answers that hold a character used in traditional writing, so most answers never load it."""

from __future__ import annotations

from functools import cache
from typing import Any

# common characters written only in traditional Chinese (the simplified forms differ): one of
# them in an answer is the cue to convert
_TRADITIONAL = frozenset("數價開漲報現時間為來對說國際億萬點幣長會後過還進發們個這門問題與應實當經總區"
                         "專項體務營產業變態賣買貸據壓側則種約額權淨淺歷預計劃顯級錢銀鐘")


@cache
def _converter() -> Any:
    import opencc  # ~20 ms to load: only answers in traditional characters pay it

    return opencc.OpenCC("t2s")


def simplified(text: str) -> tuple[str, list[str]]:
    if _TRADITIONAL.isdisjoint(text):  # one pass in C, not a generator step per character
        return text, []
    new = str(_converter().convert(text))
    return (new, ["traditional → simplified"]) if new != text else (text, [])
