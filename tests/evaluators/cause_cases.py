"""Development cases for `finance-cause`, written from the rules (docs/agents.md, "Why a
finance answer was wrong"): each a question with its truth, the agent's tool calls and its
answer, the cause a careful grader gives and the values side by side. Messy on purpose:
Chinese and English, markdown, units, AKShare rows, quote objects and text results."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MOUTAI = {"代码": "600519", "名称": "贵州茅台", "最新价": "1455.0", "涨跌幅": "-2.01",
          "涨跌额": "-29.91", "今开": "1483.1", "最高": "1488.0", "最低": "1454.03",
          "昨收": "1484.91"}
WULIANGYE = {"代码": "000858", "名称": "五粮液", "最新价": "142.50", "今开": "143.0",
             "最高": "144.2", "最低": "141.8", "昨收": "143.51", "涨跌幅": "-0.70"}
TENCENT = {"代码": "00700", "名称": "腾讯控股", "最新价": "600.0", "昨收": "605.5",
           "今开": "603.0", "最高": "606.0", "最低": "598.5"}
USDCNY = {"currency_pair": "USD/CNY", "exchange_rate": "7.1270", "exchange_rate_hi": "7.1300",
          "exchange_rate_lo": "7.1240"}
SGE = {"交易时间": "2025-10-17", "早盘价": "970.50", "晚盘价": "972.10"}
APPLE = {"symbol": "AAPL", "name": "Apple Inc.", "price": "252.29", "previous_close": "247.45",
         "change_percent": "1.96"}

ZH_RULE = "仅允许四舍五入误差"
KINDS: dict[str, dict[str, Any]] = {
    "moutai": {"prompt": "贵州茅台最新股价", "akshare_ticker": "600519",
               "wind_ticker": "600519.SH",
               "response_reference": f"必答点：贵州茅台最新股价\n精度要求：{ZH_RULE}",
               "ground_truth": MOUTAI},
    "moutai2": {"prompt": "贵州茅台最新价和涨跌幅", "akshare_ticker": "600519",
                "response_reference": f"必答点：贵州茅台最新价、涨跌幅\n精度要求：{ZH_RULE}",
                "ground_truth": MOUTAI},
    "moutai_prev": {"prompt": "贵州茅台昨收价", "akshare_ticker": "600519",
                    "response_reference": f"必答点：贵州茅台昨收价\n精度要求：{ZH_RULE}",
                    "ground_truth": {"代码": "600519", "名称": "贵州茅台", "最新价": "1455.0"}},
    "wuliangye": {"prompt": "五粮液最新股价是多少？", "akshare_ticker": "000858",
                  "response_reference": f"必答点：五粮液最新股价\n精度要求：{ZH_RULE}",
                  "ground_truth": WULIANGYE},
    "tencent": {"prompt": "腾讯控股最新股价（港元）", "akshare_ticker": "00700",
                "response_reference": f"必答点：腾讯控股最新股价\n精度要求：{ZH_RULE}",
                "ground_truth": TENCENT},
    "usdcny": {"prompt": "What is the latest onshore USD/CNY exchange rate?",
               "response_reference": "Required Content: the latest USD/CNY exchange rate\n"
               "Accuracy Requirements: the allowable error range is an absolute value of 0.001",
               "ground_truth": USDCNY},
    "sge": {"prompt": "上海金午盘基准价是多少？",
            "response_reference": f"必答点：上海金午盘基准价\n精度要求：{ZH_RULE}",
            "ground_truth": SGE},
    "apple": {"prompt": "What is Apple's latest stock price?", "yfinance_ticker": "AAPL",
              "response_reference": "Required Content: Apple's latest stock price\n"
              "Accuracy Requirements: only rounding errors are allowed",
              "ground_truth": APPLE},
}


def quote(args: dict[str, Any], result: Any, name: str = "quote") -> dict[str, Any]:
    return {"name": name, "arguments": args, "result": result}


def failed(args: dict[str, Any], error: str = "HTTP 503", name: str = "quote") -> dict[str, Any]:
    return {"name": name, "arguments": args, "error": error}


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    answer: str
    calls: list[dict[str, Any]] | None
    cause: str | None  # None: abstained (see causes) or nothing recorded
    answer_value: str | None = None
    tool_value: str | None = None
    truth_value: str | None = None
    causes: tuple[str, ...] = ()  # an abstention's candidates
    fields: dict[str, Any] = field(default_factory=dict)  # the item's own, overriding

    def item_fields(self) -> dict[str, Any]:
        f = {**KINDS[self.kind], **self.fields}
        gt = f.get("ground_truth")
        if isinstance(gt, dict):
            f["ground_truth"] = json.dumps(gt, ensure_ascii=False)
        f["response"] = self.answer
        if self.calls is not None:
            f["tool_calls"] = self.calls
        return f


M = {"symbol": "600519"}
MOUTAI_ROW = {**MOUTAI}
STALE_ROW = {**MOUTAI, "最新价": 1448.0, "涨跌幅": "-2.48"}

CASES: list[Case] = [
    # right: the rubric's 1, whatever the tools did
    Case("m_right_md", "moutai", "贵州茅台最新股价为 **1455.00 元**（跌2.01%）",
         [quote(M, {"最新价": 1455.0})], "right", "1455.00", "1455.0", "1455.0"),
    Case("m_right_no_call", "moutai", "1455元", [], "right", "1455", None, "1455.0"),
    Case("m_right_despite_stale_tool", "moutai", "茅台现价1455元",
         [quote(M, STALE_ROW)], "right", "1455", "1448.0", "1455.0"),
    Case("w_right_suffix", "wuliangye", "五粮液（000858.SZ）最新价：142.50元",
         [quote({"symbol": "000858.SZ"}, {"最新价": 142.5})], "right", "142.50", "142.5",
         "142.50"),
    Case("f_right", "usdcny", "USD/CNY onshore: 7.1272",
         [quote({"pair": "USDCNY"}, {"currency_pair": "USD/CNY", "exchange_rate": 7.1272})],
         "right", "7.1272", "7.1272", "7.1270"),
    Case("a_right_md", "apple", "**AAPL**: $252.29 (+1.96%)",
         [quote({"ticker": "aapl"}, {"symbol": "AAPL", "price": 252.29})], "right", "252.29",
         "252.29", "252.29"),
    # stale_data: the right instrument, a value that fails the rule
    Case("m_stale_copied", "moutai", "贵州茅台当前股价：1448.00元",
         [quote(M, {"代码": "600519", "名称": "贵州茅台", "最新价": 1448.0})], "stale_data",
         "1448.00", "1448.0", "1455.0"),
    Case("m_stale_text", "moutai", "根据查询，茅台最新价为1448元。",
         [quote({"q": "茅台股价"}, "贵州茅台(600519) 最新价 1448.00 元，涨跌幅 -2.48%",
                "search")], "stale_data", "1448", "1448.00", "1455.0"),
    Case("m_stale_markdown_table", "moutai", "| 指标 | 数值 |\n|---|---|\n| 最新价 | 1,448.00 |",
         [quote({"symbol": "SH600519"}, {"data": [STALE_ROW]})], "stale_data", "1448.00",
         "1448.0", "1455.0"),
    Case("m_stale_several", "moutai", "最新价1450元",
         [quote(M, {"最新价": 1448.0}), quote(M, {"最新价": 1450.0})], "stale_data", "1450",
         "1450.0", "1455.0"),
    Case("m_stale_json_text", "moutai", "Moutai's latest price is ¥1,448.00.",
         [quote(M, json.dumps({"代码": "600519", "最新价": "1448.00"}, ensure_ascii=False))],
         "stale_data", "1448.00", "1448.00", "1455.0"),
    Case("w_stale_sz_prefix", "wuliangye", "五粮液股价140元",
         [quote({"code": "sz000858"}, {"最新价": 140.0})], "stale_data", "140", "140.0",
         "142.50"),
    Case("t_stale_hk", "tencent", "腾讯控股最新股价598港元",
         [quote({"symbol": "0700.HK"}, {"last_price": 598.0})], "stale_data", "598", "598.0",
         "600.0"),
    Case("f_stale", "usdcny", "The USD/CNY rate is 7.1190.",
         [quote({"symbol": "USD/CNY"}, {"currency_pair": "USD/CNY", "exchange_rate": 7.119})],
         "stale_data", "7.1190", "7.119", "7.1270"),
    Case("g_stale", "sge", "上海金午盘基准价969.30元/克",
         [quote({"symbol": "上海金"}, [{"交易时间": "2025-10-16", "早盘价": 968.0,
                                       "晚盘价": 969.3}], "sge_benchmark")],
         "stale_data", "969.30", "969.3", "972.10"),
    Case("a_stale_unnamed", "apple", "Apple is trading at $250.00.",
         [quote({}, {"price": 250.0})], "stale_data", "250.00", "250.0", "252.29"),
    # misread: the tool had a value that meets the rule, the answer does not
    Case("m_misread_prev_close", "moutai", "贵州茅台最新价 1484.91 元",
         [quote(M, MOUTAI_ROW)], "misread", "1484.91", "1455.0", "1455.0"),
    Case("m_misread_open", "moutai", "Kweichow Moutai last traded at CNY 1,483.10.",
         [quote(M, MOUTAI_ROW)], "misread", "1483.10", "1455.0", "1455.0"),
    Case("m_misread_transposed", "moutai", "最新股价：1545.00元",
         [quote(M, {"最新价": "1455.00"})], "misread", "1545.00", "1455.00", "1455.0"),
    Case("m_misread_scale", "moutai", "贵州茅台股价 14.55 元",
         [quote(M, {"最新价": 1455.0})], "misread", "14.55", "1455.0", "1455.0"),
    Case("m_misread_no_value", "moutai", "抱歉，我无法确定贵州茅台的最新股价。",
         [quote(M, {"最新价": 1455.0})], "misread", None, "1455.0", "1455.0"),
    Case("m_misread_older_call", "moutai", "最新价1448元",
         [quote(M, {"最新价": 1448.0}), quote(M, {"最新价": 1455.0})], "misread", "1448",
         "1455.0", "1455.0"),
    Case("m_misread_text", "moutai", "茅台最新价1485元",
         [quote({"q": "贵州茅台 行情"}, "贵州茅台 最新价 1455.00，昨收 1484.91", "search")],
         "misread", "1485", "1455.00", "1455.0"),
    Case("w_misread_secid", "wuliangye", "五粮液现价143.51元",
         [quote({"secid": "0.000858"}, {"price": 142.5, "pre_close": 143.51})], "misread",
         "143.51", "142.5", "142.50"),
    Case("t_misread_en", "tencent", "Tencent last at HK$605.50",
         [quote({"symbol": "00700"}, {"symbol": "00700", "price": 600.0,
                                      "previous_close": 605.5})], "misread", "605.50", "600.0",
         "600.0"),
    Case("f_misread", "usdcny", "USD/CNY is at 7.2170 onshore.",
         [quote({"pair": "USD/CNY"}, {"currency_pair": "USD/CNY", "exchange_rate": 7.127})],
         "misread", "7.2170", "7.127", "7.1270"),
    Case("g_misread_am_fix", "sge", "上海金午盘基准价为970.50元/克。",
         [quote({"symbol": "上海金"}, [SGE], "sge_benchmark")], "misread", "970.50", "972.10",
         "972.10"),
    Case("p_misread_pct", "moutai2", "最新价1455.00元，涨跌幅-2.10%",
         [quote(M, MOUTAI_ROW)], "misread", "-2.10", "-2.01", "-2.01"),
    # wrong_instrument: data, but for another instrument only
    Case("m_wrong_args", "moutai", "茅台最新价142.5元",
         [quote({"symbol": "000858"}, {"最新价": 142.5})], "wrong_instrument", "142.5",
         "142.5", "1455.0"),
    Case("m_wrong_row", "moutai", "贵州茅台：142.50元",
         [quote(M, {"代码": "000858", "名称": "五粮液", "最新价": 142.5})], "wrong_instrument",
         "142.50", "142.5", "1455.0"),
    Case("w_wrong_moutai", "wuliangye", "五粮液最新价1455.00元",
         [quote({"q": "五粮液"}, "000858.SZ", "search"),
          quote({"symbol": "600519", "market": "SH"},
                {"代码": "600519", "名称": "贵州茅台", "最新价": 1455.0})],
         "wrong_instrument", "1455.00", "1455.0", "142.50"),
    Case("f_wrong_cnh", "usdcny", "The onshore USD/CNY is 7.1350.",
         [quote({"pair": "USD/CNH"}, {"currency_pair": "USD/CNH", "exchange_rate": 7.135})],
         "wrong_instrument", "7.1350", "7.135", "7.1270"),
    Case("f_wrong_eur", "usdcny", "USD/CNY: 8.3012",
         [quote({"pair": "EURCNY"}, {"exchange_rate": 8.3012})], "wrong_instrument", "8.3012",
         "8.3012", "7.1270"),
    # no_retrieval: no call returned market data
    Case("m_none_no_call", "moutai", "1400元", [], "no_retrieval", "1400", None, "1455.0"),
    Case("m_none_failed", "moutai", "大约1400元",
         [failed(M), failed(M, "timeout")], "no_retrieval", "1400", None, "1455.0"),
    Case("m_none_empty", "moutai", "茅台股价约1,420元",
         [quote(M, {}), quote(M, []), quote(M, "暂无数据"), quote(M, {"data": []})],
         "no_retrieval", "1420", None, "1455.0"),
    Case("m_none_search_only", "moutai", "贵州茅台最新价 1500 元",
         [quote({"q": "贵州茅台 股票代码"}, "600519.SH", "search"),
          quote({"q": "茅台"}, {"代码": "600519", "名称": "贵州茅台"}, "lookup")],
         "no_retrieval", "1500", None, "1455.0"),
    Case("a_none_error_text", "apple", "Apple trades around $240.",
         [quote({"ticker": "AAPL"}, "Error: rate limit exceeded")], "no_retrieval", "240",
         None, "252.29"),
    # truth_unavailable: decided first, null
    Case("m_truth_missing", "moutai", "1455元", [quote(M, {"最新价": 1455.0})],
         "truth_unavailable", fields={"ground_truth": None}),
    Case("m_truth_empty", "moutai", "1448元", [quote(M, {"最新价": 1448.0})],
         "truth_unavailable", fields={"ground_truth": ""}),
    Case("m_truth_error", "moutai", "1448元", [],
         "truth_unavailable", fields={"ground_truth": "Error: fetch failed"}),
    Case("m_truth_lacks_point", "moutai_prev", "昨收1484.91元",
         [quote(M, MOUTAI_ROW)], "truth_unavailable"),
    # abstained: a 0 needs evidence
    Case("x_no_quantity", "moutai", "茅台最新价1400元",
         [quote(M, {"代码": "600519", "成交量": 31234})], None, "1400", None, "1455.0",
         causes=("no_retrieval", "misread")),
    # nothing recorded: null, as the trajectory checks
    Case("x_not_recorded", "moutai", "1400元", None, None),
]
