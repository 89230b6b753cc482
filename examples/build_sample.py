"""Build examples/finsearch_t1_sample.json from the real 2025-10-17 AKShare snapshot.

Run from the project root with shared/ beside it:  python examples/build_sample.py
The output is committed, so `make demo` needs neither this script nor shared/.
Each question comes with several answers of known quality and the score the T1 rules give them
(`expected_score`), which the test suite checks item by item.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SNAP = ROOT.parent.parent / "shared" / "data" / "finsearchcomp" / "market_snapshots"
STAMP = "20251017T103505Z"
GC = "Time-Sensitive_Data_Fetching(Greater China)"
GL = "Time-Sensitive_Data_Fetching(Global)"
ZH_ROUND = "仅允许四舍五入误差"
ZH_RANGE = "答案落在最高价最低价区间即可"
EN_ROUND = "Only rounding errors are allowed"
EN_RANGE = "Any answer between the high and low price is considered correct"


def zh_abs(x: str) -> str:
    return f"允许误差范围绝对数值±{x}"


def en_abs(x: str) -> str:
    return f"The allowable error range is an absolute value of ±{x}"


def zh_exp(x: str) -> str:
    return f"在最高价最低价区间基础上扩大范围绝对数值{x}"


def en_exp(x: str) -> str:
    return f"Expand the high-low price range by an absolute value of {x}"


USED: dict[str, set[str]] = {}  # table → keys of the rows the questions use
HEADERS: dict[str, list[str]] = {}


class Table(dict[str, dict[str, str]]):
    """A snapshot table that remembers which rows were looked up, so only those are copied."""

    def __init__(self, name: str, rows: dict[str, dict[str, str]]) -> None:
        super().__init__(rows)
        self.name = name

    def __getitem__(self, key: str) -> dict[str, str]:
        USED.setdefault(self.name, set()).add(key)
        return super().__getitem__(key)


def load(table: str, key: str) -> Table:
    with (SNAP / f"{table}_{STAMP}.csv").open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        HEADERS[table] = list(reader.fieldnames or [])
        return Table(table, {row[key]: row for row in reader})


def write_snapshot_subsets() -> None:
    """Copy only the snapshot rows the sample uses, as the data's licence note asks."""
    out_dir = ROOT / "data" / "market_snapshots"
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {"cn_stock": CN, "hk_stock": HK, "us_stock": US, "cn_index": CNI,
              "h_index": HI, "global_idx": GI, "fx": FX}
    for name, table in tables.items():
        keys = USED.get(name, set())
        with (out_dir / f"{name}_{STAMP}.csv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=HEADERS[name])
            writer.writeheader()
            for key in sorted(keys):
                writer.writerow(dict.__getitem__(table, key))


def akshare(row: dict[str, str], cols: list[str]) -> str:
    return json.dumps({c: row[c] for c in cols}, ensure_ascii=False)


def wind(code: str, row: dict[str, str], mapping: dict[str, str]) -> str:
    rec = {"RT_DATE": "20251017", "RT_TIME": "103505"}
    rec.update({k: row[v] for k, v in mapping.items()})
    return json.dumps({code.replace(".", "___"): rec})


def quote(row: dict[str, str], sym: str, cols: dict[str, str]) -> str:
    data = {"symbol": sym, "latest_trading_day": "20251017"}
    data.update({k: row[v] for k, v in cols.items()})
    if "change_percent" in data:
        data["change_percent"] = data["change_percent"] + "%"
    return json.dumps({"data": data})


CN = load("cn_stock", "代码")
HK = load("hk_stock", "代码")
US = load("us_stock", "代码")
CNI = load("cn_index", "代码")
HI = load("h_index", "代码")
GI = load("global_idx", "代码")
FX = load("fx", "代码")
CN_COLS = ["代码", "名称", "最新价", "涨跌幅", "涨跌额", "今开", "最高", "最低", "昨收", "总市值"]
HK_COLS = ["代码", "名称", "最新价", "涨跌额", "涨跌幅", "今开", "最高", "最低", "昨收"]
US_COLS = ["代码", "名称", "最新价", "涨跌额", "涨跌幅", "开盘价", "最高价", "最低价", "昨收价"]
IDX_COLS = ["代码", "名称", "最新价", "涨跌幅", "今开", "最高", "最低", "昨收"]
GI_COLS = ["代码", "名称", "最新价", "涨跌幅", "开盘价", "最高价", "最低价", "昨收价", "最新行情时间"]
FX_COLS = ["代码", "名称", "最新价", "涨跌幅", "今开", "最高", "最低", "昨收"]

# (question id, prompt, required, rule, ground truth, label, tags, tickers, answers)
# answers: (kind, text, expected score: 1 / 0 / None)
Q: list[tuple] = []


def q(qid, prompt, required, rule, gt, label, tags, tickers, answers, en=False):
    ref = (f"Required Content: {required}\nAccuracy Requirements: {rule}" if en else
           f"必答点：{required}\n精度要求：{rule}")
    Q.append((qid, prompt, ref, gt, label, tags, tickers, answers))


r = CN["600519"]
q("S01", "贵州茅台最新股价", "贵州茅台最新股价（即最新收盘价）", ZH_ROUND, akshare(r, CN_COLS), GC,
  "Stock", {"akshare_ticker": "600519", "wind_ticker": "600519.SH"}, [
      ("right", "贵州茅台（600519）最新股价为1455.00元，下跌2.01%。", 1),
      ("rounded", "截至2025年10月17日收盘，茅台报1455元。", 1),
      ("stale", "贵州茅台最新收盘价为1484.91元。", 0),
      ("wrong_field", "贵州茅台今日开盘价1483.10元，最高1488.00元。", 0),
      ("contradictory", "贵州茅台最新价1455.00元；另一数据源显示最新价1460.50元。", 0),
      ("empty", "", 0)])
r = CN["300750"]
q("S02", "宁德时代今天的开盘价、最高价和最低价", "宁德时代最新的开盘价、最高价、最低价", ZH_ROUND,
  akshare(r, CN_COLS), GC, "Stock", {"akshare_ticker": "300750", "wind_ticker": "300750.SZ"}, [
      ("right", "宁德时代（300750.SZ）今日开盘价367.50元，最高价375.00元，最低价356.99元。", 1),
      ("rounded", "宁德时代开盘价、最高价、最低价分别为367.5、375.0、357.0元。", 1),
      ("wrong_field", "宁德时代开盘价367.50元，最高价375.00元，最新价358.14元。", 0),
      ("contradictory", "宁德时代开盘价367.50元，最高价375.00元，最低价356.99元；"
       "也有报道称最低价为355.20元。", 0)])
r = CN["600036"]
q("S03", "招商银行最新涨跌幅是多少？", "招商银行最新涨跌幅（百分比）", zh_abs("0.01%"),
  akshare(r, CN_COLS), GC, "Stock", {"akshare_ticker": "600036", "wind_ticker": "600036.SH"}, [
      ("right", "招商银行今日下跌0.81%，报41.59元。", 1),
      ("rounded", "招商银行跌幅约0.8%。", 1),
      ("wrong_sign", "招商银行今日上涨0.81%。", 0),
      ("wrong_field", "招商银行今日下跌0.34元，报41.59元。", 0)])
r = CN["601318"]
q("S04", "中国平安最新股价", "中国平安最新股价", ZH_RANGE, akshare(r, CN_COLS), GC, "Stock",
  {"akshare_ticker": "601318", "wind_ticker": "601318.SH"}, [
      ("right", "中国平安最新价57.28元。", 1),
      ("in_range", "中国平安盘中报57.90元。", 1),
      ("out_of_range", "中国平安最新股价为58.60元。", 0),
      ("empty", "   ", 0)])
r = CN["002594"]
q("S05", "比亚迪昨收价", "比亚迪昨收价（前一交易日收盘价）", ZH_ROUND, akshare(r, CN_COLS), GC,
  "Stock", {"akshare_ticker": "002594", "wind_ticker": "002594.SZ"}, [
      ("right", "比亚迪昨收106.96元，今日开盘106.60元。", 1),
      ("wrong_field", "比亚迪今日收盘价104.43元。", 0),
      ("stale", "比亚迪昨收价为105.12元。", 0)])
r = CN["000858"]
q("S06", "五粮液最新总市值", "五粮液最新总市值", ZH_ROUND, akshare(r, CN_COLS), GC, "Stock",
  {"akshare_ticker": "000858", "wind_ticker": "000858.SZ"}, [
      ("right", "五粮液最新总市值约4699.46亿元，股价121.07元。", 1),
      ("rounded", "五粮液总市值4699亿元。", 1),
      ("wrong", "五粮液总市值约4700亿元。", 0)])
r = HK["00700"]
q("S07", "腾讯控股最新股价", "腾讯控股最新股价", zh_abs("1"),
  wind("0700.HK", r, {"RT_LAST": "最新价"}), GC, "Stock",
  {"akshare_ticker": "00700", "wind_ticker": "0700.HK"}, [
      ("right", "腾讯控股（00700）最新股价608.0港元。", 1),
      ("within", "腾讯最新报607.2港元，跌1.94%。", 1),
      ("outside", "腾讯控股股价为606.5港元。", 0),
      ("stale", "腾讯控股最新价620.0港元。", 0)])
r = HK["09988"]
q("S08", "What is Alibaba-W's latest share price in Hong Kong?",
  "The latest price of Alibaba-W (09988)", EN_RANGE, akshare(r, HK_COLS), GL, "Stock",
  {"akshare_ticker": "09988", "wind_ticker": "9988.HK"}, [
      ("right", "Alibaba-W (09988.HK) last traded at HK$154.40, down 4.22%.", 1),
      ("in_range", "Alibaba's Hong Kong shares are trading at HK$155.0.", 1),
      ("stale", "Alibaba-W closed at HK$161.20.", 0)], en=True)
r = HK["03690"]
q("S09", "Meituan-W change percentage today",
  "Meituan-W's latest change percentage", EN_ROUND, akshare(r, HK_COLS), GL, "Stock",
  {"akshare_ticker": "03690", "wind_ticker": "3690.HK"}, [
      ("right", "Meituan-W fell 4.30% to HK$94.50.", 1),
      ("rounded", "Meituan is down 4.3% today.", 1),
      ("wrong_field", "Meituan-W is down HK$4.25 at HK$94.50.", 0)], en=True)
r = HK["01810"]
q("S10", "Xiaomi-W open, high and low today",
  "Xiaomi-W's latest opening price, high price and low price", EN_ROUND,
  quote(r, "01810", {"open": "今开", "high": "最高", "low": "最低", "price": "最新价",
                     "previous_close": "昨收", "change": "涨跌额",
                     "change_percent": "涨跌幅"}), GL, "Stock",
  {"akshare_ticker": "01810", "wind_ticker": "1810.HK"}, [
      ("right", "Xiaomi-W opened at HK$47.54, with a high of HK$47.88 and a low of HK$45.74.", 1),
      ("respectively", "The open, high and low were HK$47.54, HK$47.88 and HK$45.74, "
       "respectively.", 1),
      ("missing", "Xiaomi-W opened at HK$47.54 and hit a high of HK$47.88.", 0)], en=True)
r = HK["00005"]
q("S11", "HSBC Holdings latest closing price",
  "The latest closing price of HSBC Holdings (00005)", EN_ROUND, akshare(r, HK_COLS), GL,
  "Stock", {"akshare_ticker": "00005", "wind_ticker": "0005.HK"}, [
      ("right", "HSBC Holdings closed at HK$100.90 on October 17, 2025.", 1),
      ("stale", "HSBC's latest close was HK$102.90.", 0)], en=True)
r = US["105.NVDA"]
q("S12", "NVIDIA latest stock price", "NVIDIA's latest stock price", EN_ROUND,
  quote(r, "NVDA", {"open": "开盘价", "high": "最高价", "low": "最低价", "price": "最新价",
                    "previous_close": "昨收价", "change": "涨跌额",
                    "change_percent": "涨跌幅"}), GL, "Stock",
  {"akshare_ticker": "105.NVDA", "wind_ticker": "NVDA.O", "yfinance_ticker": "NVDA"}, [
      ("right", "NVIDIA (NVDA) is trading at $181.81, up 1.10% on the day.", 1),
      ("rounded", "NVDA last price: $181.8", 1),
      ("stale", "NVIDIA's latest price is $179.83.", 0),
      ("extra_ok", "NVIDIA's latest price is $181.81; after-hours it traded at $182.40.", 1)],
  en=True)
r = US["105.AAPL"]
q("S13", "最新苹果股价", "苹果最新股价（即最新收盘价）", ZH_ROUND,
  wind("AAPL.O", r, {"RT_LAST": "最新价", "RT_PRE_CLOSE": "昨收价"}), GL, "Stock",
  {"akshare_ticker": "105.AAPL", "wind_ticker": "AAPL.O", "yfinance_ticker": "AAPL"}, [
      ("right", "苹果最新股价$247.45 USD。", 1),
      ("contradictory", "苹果最新股价$247.45 USD。另有数据源显示苹果最新股价：开盘价$248.25，"
       "收盘价$246.88", 0),
      ("stale", "苹果最新股价为249.34美元。", 0)])
r = US["105.MSFT"]
q("S14", "How did Microsoft stock do today?",
  "Microsoft's latest opening price, high price, low price and change percentage", EN_ROUND,
  quote(r, "MSFT", {"open": "开盘价", "high": "最高价", "low": "最低价", "price": "最新价",
                    "previous_close": "昨收价", "change": "涨跌额",
                    "change_percent": "涨跌幅"}), GL, "Stock",
  {"akshare_ticker": "105.MSFT", "wind_ticker": "MSFT.O", "yfinance_ticker": "MSFT"}, [
      ("right", "Microsoft fell 0.35% to $511.61. It opened at $512.58, the high was $516.85 "
       "and the low was $508.13.", 1),
      ("contradictory", "Microsoft fell 0.35%. It opened at $512.58, the high was $516.85 and the "
       "low was $508.13. After hours it was down a further 0.50%.", 0),
      ("missing", "Microsoft opened at $512.58 and fell 0.35%.", 0)], en=True)
r = US["105.TSLA"]
q("S15", "Tesla latest stock price", "Tesla's latest stock price", en_exp("1"),
  akshare(r, US_COLS), GL, "Stock",
  {"akshare_ticker": "105.TSLA", "wind_ticker": "TSLA.O", "yfinance_ticker": "TSLA"}, [
      ("right", "Tesla (TSLA) last traded at $428.75.", 1),
      ("in_expanded", "Tesla is at about $440.00.", 1),
      ("outside", "Tesla's latest price is $441.00.", 0)], en=True)
r = US["106.DIS"]
q("S16", "Disney's latest opening price", "The latest opening price of Disney", EN_ROUND,
  wind("DIS.N", r, {"RT_OPEN": "开盘价"}), GL, "Stock",
  {"akshare_ticker": "106.DIS", "wind_ticker": "DIS.N", "yfinance_ticker": "DIS"}, [
      ("right", "Disney's latest opening price is $111.79.", 1),
      ("rounded", "Disney opened at $111.8.", 1),
      ("wrong", "Disney opened at $109.88.", 0)], en=True)
r = US["106.PM"]
q("S17", "Philip Morris International's stock latest closing price",
  "The latest closing price of Philip Morris International", EN_ROUND,
  wind("PM.N", r, {"RT_LAST": "最新价"}), GL, "Stock",
  {"akshare_ticker": "106.PM", "wind_ticker": "PM.N", "yfinance_ticker": "PM"}, [
      ("right", "The latest closing price for Philip Morris International (PM) was $155.98 as "
       "of Friday, October 17, 2025.", 1),
      ("stale", "The latest closing price for Philip Morris International (PM) stock was $157.91 "
       "as of Thursday, October 2, 2025.", 0)], en=True)
r = US["105.AMZN"]
q("S18", "亚马逊昨收价", "亚马逊昨收价", ZH_ROUND, akshare(r, US_COLS), GL, "Stock",
  {"akshare_ticker": "105.AMZN", "wind_ticker": "AMZN.O", "yfinance_ticker": "AMZN"}, [
      ("right", "亚马逊（AMZN）昨收215.57美元，最新价214.47美元。", 1),
      ("wrong_field", "亚马逊最新收盘价214.47美元。", 0)])
r = CNI["000001"]
q("S19", "上证指数最新点位", "上证指数最新点位", zh_abs("1"), akshare(r, IDX_COLS), GC, "Index",
  {"akshare_ticker": "000001", "wind_ticker": "000001.SH"}, [
      ("right", "上证指数（000001）收报3839.76点，下跌1.95%。", 1),
      ("within", "上证指数约3840点。", 1),
      ("stale", "上证指数最新点位3916.23点。", 0)])
r = CNI["399001"]
q("S20", "深证成指今日涨跌幅", "深证成指最新涨跌幅", zh_abs("0.01%"), akshare(r, IDX_COLS), GC,
  "Index", {"akshare_ticker": "399001", "wind_ticker": "399001.SZ"}, [
      ("right", "深证成指今日下跌3.04%，收于12688.94点。", 1),
      ("signed", "深证成指涨跌幅-3.04%。", 1),
      ("wrong", "深证成指下跌3.1%。", 0)])
r = CNI["399006"]
q("S21", "创业板指最新点位", "创业板指最新点位", ZH_RANGE, akshare(r, IDX_COLS), GC, "Index",
  {"akshare_ticker": "399006", "wind_ticker": "399006.SZ"}, [
      ("right", "创业板指最新报2935.37点。", 1),
      ("in_range", "创业板指目前在3000点附近。", 1),
      ("out_of_range", "创业板指最新点位3050点。", 0)])
r = CNI["000300"]
q("S22", "沪深300指数最新点位", "沪深300指数最新点位", ZH_ROUND, akshare(r, IDX_COLS), GC,
  "Index", {"akshare_ticker": "000300", "wind_ticker": "000300.SH"}, [
      ("right", "沪深300指数最新报4514.23点，跌2.26%。", 1),
      ("rounded", "沪深300最新4514.2点。", 1),
      ("wrong", "沪深300最新4518.42点。", 0)])
r = HI["HSI"]
q("S23", "Hang Seng Index latest level", "The latest level of the Hang Seng Index", en_abs("5"),
  akshare(r, IDX_COLS), GL, "Index", {"akshare_ticker": "HSI", "wind_ticker": "HSI.HI"}, [
      ("right", "The Hang Seng Index closed at 25,247.10, down 641.41 points.", 1),
      ("within", "The Hang Seng Index is at about 25,250.", 1),
      ("stale", "The Hang Seng Index stands at 25,888.51.", 0)], en=True)
r = HI["HSTECH"]
q("S24", "恒生科技指数今日最高和最低点位", "恒生科技指数最新的最高点位、最低点位", ZH_ROUND,
  akshare(r, IDX_COLS), GC, "Index", {"akshare_ticker": "HSTECH", "wind_ticker": "HSTECH.HI"}, [
      ("right", "恒生科技指数今日最高5999.48点，最低5732.75点。", 1),
      ("missing", "恒生科技指数今日最高5999.48点。", 0)])
r = GI["SPX"]
q("S25", "S&P 500 latest level", "The latest level of the S&P 500 index", EN_ROUND,
  akshare(r, GI_COLS), GL, "Index", {"akshare_ticker": "SPX", "wind_ticker": "SPX.GI"}, [
      ("right", "The S&P 500 closed at 6,629.07, down 0.63%.", 1),
      ("stale", "The S&P 500 index is at 6,671.06.", 0)], en=True)
r = GI["NDX"]
q("S26", "Nasdaq 100 index latest level", "The latest level of the Nasdaq 100 index",
  en_abs("10"), akshare(r, GI_COLS), GL, "Index",
  {"akshare_ticker": "NDX", "wind_ticker": "NDX.GI"}, [
      ("right", "The Nasdaq 100 ended at 22,562.54.", 1),
      ("within", "The Nasdaq 100 index is around 22,570.", 1),
      ("outside", "The Nasdaq 100 index is at 22,600.", 0)], en=True)
r = GI["DJIA"]
q("S27", "道琼斯指数最新点位", "道琼斯指数最新点位", zh_exp("10"), akshare(r, GI_COLS), GL, "Index",
  {"akshare_ticker": "DJIA", "wind_ticker": "DJI.GI"}, [
      ("right", "道琼斯指数最新报45952.24点。", 1),
      ("in_expanded", "道指约46430点。", 1),
      ("outside", "道琼斯指数最新46500点。", 0)])
r = GI["N225"]
q("S28", "日经225指数最新点位", "日经225指数最新点位", ZH_ROUND, akshare(r, GI_COLS), GL, "Index",
  {"akshare_ticker": "N225", "wind_ticker": "N225.GI"}, [
      ("right", "日经225指数收报47582.15点，下跌1.44%。", 1),
      ("stale", "日经225指数最新48277.74点。", 0)])
r = FX["USDCNH"]
q("S29", "美元兑离岸人民币最新汇率", "美元兑离岸人民币最新汇率", ZH_RANGE, akshare(r, FX_COLS), GC,
  "汇率", {"akshare_ticker": "USDCNH", "wind_ticker": "USDCNH.FX"}, [
      ("right", "美元兑离岸人民币最新报7.1271。", 1),
      ("in_range", "离岸人民币汇率7.13，较前一交易日小幅走弱。", 1),
      ("out_of_range", "美元兑离岸人民币汇率为7.14。", 0),
      ("contradictory", "离岸人民币汇率7.1271；另一来源显示离岸人民币汇率7.1450。", 0)])
r = FX["USDCNYC"]
q("S30", "USD/CNY central parity today", "The latest USD/CNY central parity rate", EN_ROUND,
  akshare(r, FX_COLS), GL, "汇率", {"akshare_ticker": "USDCNYC", "wind_ticker": "USDCNY.IB"}, [
      ("right", "The USD/CNY central parity was set at 7.0949, 19 pips stronger.", 1),
      ("wrong_field", "The offshore rate is 7.1271 per dollar.", 0)], en=True)
r = FX["EURUSD"]
q("S31", "EUR/USD latest exchange rate", "The latest EUR/USD exchange rate", en_abs("0.0005"),
  akshare(r, FX_COLS), GL, "汇率", {"akshare_ticker": "EURUSD", "wind_ticker": "EURUSD.FX"}, [
      ("right", "EUR/USD is trading at 1.1696.", 1),
      ("within", "The euro is at 1.1700 against the dollar.", 1),
      ("outside", "EUR/USD exchange rate: 1.1710", 0)], en=True)
r = FX["USDJPY"]
q("S32", "美元兑日元最新汇率", "美元兑日元最新汇率", ZH_ROUND, akshare(r, FX_COLS), GL, "汇率",
  {"akshare_ticker": "USDJPY", "wind_ticker": "USDJPY.FX"}, [
      ("right", "美元兑日元最新汇率149.74。", 1),
      ("stale", "美元兑日元汇率150.43。", 0)])
q("S33", "上海金午盘的最新基准价", "上海金SHAU.SGE午盘的最新基准价格（即最新交易日午盘收盘价）",
  zh_abs("15"), json.dumps({"SHAU___SGE": {"RT_DATE": "20251017", "RT_TIME": "153000"}}), GC,
  "贵金属", {"akshare_ticker": "", "wind_ticker": "SHAU.SGE"}, [
      ("no_truth", "上海金午盘基准价为968.75元/克。", None)])
q("S34", "COMEX黄金最新价格", "comex黄金最新价格", zh_abs("0.6"), '{"GC___CMX": {"RT_LAST": 42',
  GL, "贵金属", {"akshare_ticker": "", "wind_ticker": "GC.CMX"}, [
      ("bad_truth", "COMEX黄金最新价格4213.3美元/盎司。", None)])


def build() -> list[dict]:
    items = []
    for qid, prompt, ref, gt, label, tags, tickers, answers in Q:
        for kind, text, expected in answers:
            items.append({
                "prompt_id": f"(T1)Assay_Sample_{qid}_{kind}",
                "question_id": qid,
                "prompt": prompt,
                "response_reference": ref,
                "ground_truth": gt,
                "time": "2025-10-17 10:35:05",
                "label": label,
                "tags": tags,
                "method": "akshare_snapshot_20251017",
                **{"akshare_ticker": "", "wind_ticker": "", "yfinance_ticker": "", **tickers},
                "response": text,
                "answer_kind": kind,
                "expected_score": expected,
            })
    return items


if __name__ == "__main__":
    items = build()
    out = ROOT / "finsearch_t1_sample.json"
    out.write_text(json.dumps(items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    write_snapshot_subsets()
    print(f"{len(items)} items from {len(Q)} questions → {out}; "
          f"{sum(map(len, USED.values()))} snapshot rows → examples/data/market_snapshots/")
