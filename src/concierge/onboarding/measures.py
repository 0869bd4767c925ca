"""Which numeric columns of a table are additive measures, the figures a drafted tool may sum.

A sum means something only for a flow: money that changed hands (amount, total, 金額, gokei), pieces
counted (quantity, 数量, suryo). Summed, a unit price, a rate, a duration, a size, a rating, an age, a
year or a position is a number no one asked for, so such a column is never summed. A stock level
(units_in_stock, reorder_level, 在庫, zaiko, a balance) is a level at one moment, not a flow: summed
over rows it counts the same goods once per row, so it is not summed either.

Each column is read in this order, and the first that decides wins:

1. what the table says: a primary key, a foreign key, a column with a unique index is a key;
2. its Japanese comment, where it names the figure (単価, 合計金額, 在庫数 ...);
3. the words of its name, English or romaji read as the glossary's English concepts (gokei_kingaku ->
   total amount, hanbai_tanka -> sale unit price): the last word that names a figure is its head
   (discount_amount is an amount, tax_rate a rate), and the words before it qualify it (unit_price,
   avg_amount: per unit; total_price: a total; zaiko_suryo, units_in_stock: a level); a last word that
   names a key (order_no) makes a key; a cost, value or fee of a table that records no events (a
   product's cost) is what one of its rows costs, not money that changed hands;
4. where the name says nothing, the data: a dense run of distinct integers is a serial number, four
   digits between 1900 and 2100 a year, a handful of small integers a code; what is left is a figure
   of its table, summed only where the table records events (it has a date of its own).

A person who knows better edits the drafted `result.totals` (docs/catalog.md, "Result shaping").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from concierge.onboarding import glossary
from concierge.onboarding.introspect import Column, Schema, Table
from concierge.onboarding.naming import words

Role = Literal["money", "quantity", "figure", "unit_price", "per_unit", "rate", "duration", "size", "score",
               "age", "year", "geo", "level", "key"]
ADDITIVE: frozenset[Role] = frozenset({"money", "quantity", "figure"})
MONEY: frozenset[Role] = frozenset({"money", "unit_price"})

# The head word of a name -> what the column holds. Romaji names are read through the glossary's English
# concepts first (gokei_kingaku -> total amount, hanbai_tanka -> sale unit price, zaiko_suryo -> stock quantity).
_HEADS: dict[str, Role] = {
    **dict.fromkeys(("amount", "amounts", "amt", "total", "totals", "subtotal", "revenue", "revenues", "sales",
                     "turnover", "cost", "costs", "paid", "payment", "payments", "fee", "fees", "tax", "taxes",
                     "charge", "charges", "freight", "shipping", "postage", "spend", "spent", "income", "expense",
                     "expenses", "profit", "refund", "refunds", "tip", "tips", "deposit", "withdrawal", "invoiced",
                     "billed", "budget", "value"), "money"),
    **dict.fromkeys(("quantity", "quantities", "qty", "count", "cnt", "pieces", "pcs", "units", "sold"), "quantity"),
    # what goods are counted in (pots of a nursery's plants, bottles of wine): a count, never a code of few values
    **dict.fromkeys(("pots", "bottles", "boxes", "packs", "bags", "cans", "cups", "bowls", "trays", "bunches",
                     "jars", "loaves", "servings", "portions", "dozens"), "quantity"),
    **dict.fromkeys(("price", "prices", "fare"), "unit_price"),
    **dict.fromkeys(("avg", "average", "mean", "median"), "per_unit"),
    **dict.fromkeys(("rate", "rates", "ratio", "percent", "percentage", "pct", "discount", "share", "margin"),
                    "rate"),
    **dict.fromkeys(("milliseconds", "millisecond", "millis", "ms", "msec", "seconds", "second", "secs", "sec",
                     "minutes", "minute", "mins", "hours", "hrs", "duration", "elapsed", "runtime"), "duration"),
    **dict.fromkeys(("bytes", "byte", "size", "filesize", "kb", "mb", "gb", "width", "height", "depth", "length",
                     "weight", "kg", "grams", "volume"), "size"),
    **dict.fromkeys(("rating", "ratings", "score", "scores", "rank", "ranking", "stars", "grade", "priority"),
                    "score"),
    **dict.fromkeys(("age",), "age"),
    **dict.fromkeys(("year", "yr", "fy"), "year"),
    **dict.fromkeys(("lat", "latitude", "lon", "lng", "longitude", "altitude", "elevation"), "geo"),
    **dict.fromkeys(("stock", "inventory", "balance", "level", "onhand", "limit", "capacity", "threshold"), "level"),
    **dict.fromkeys(("id", "code", "no", "nr", "num", "number", "key", "zip", "postal", "phone", "tel", "seq",
                     "sequence", "position", "pos", "sort", "order", "version", "month", "day", "week", "hour",
                     "flag", "type", "kind", "status"), "key"),
}
# Words before the head that change what it is.
_PER_UNIT = frozenset({"unit", "per", "each", "avg", "average", "mean", "median", "max", "maximum", "min", "minimum",
                       "list", "selling", "sell", "standard", "hourly", "case", "pack", "carton", "lot"})
_LEVEL = frozenset({"stock", "inventory", "instock", "onhand", "balance", "reorder", "remaining"})
# Words anywhere in a name that make it a level (qty_on_hand, qty_alloc, reorder_pt, safety_stock).
_LEVEL_SAID = ("on hand", "onhand", "in stock", "instock", "allocated", "alloc", "reserved", "reorder", "safety",
               "available")
_TOTAL = frozenset({"total", "sum", "sub", "line", "extended", "ext", "net", "gross", "ttl"})
# Money words that, in a table recording no events (a product, a supply), are what one of its rows costs.
_PRICE_OF_A_THING = frozenset({"cost", "costs", "value", "fee", "fees", "charge", "charges"})

# Japanese terms of a comment -> what they name (the last one in the comment is its head).
_JA_TERMS: dict[str, Role] = {
    **dict.fromkeys(("金額", "合計", "売上", "小計", "税額", "料金", "費用", "手数料", "送料", "入金", "支払",
                     "値引額", "利益", "請求額", "料"), "money"),
    **dict.fromkeys(("数量", "個数", "件数", "人数", "回数", "本数", "枚数", "台数", "冊数", "販売数", "受注数",
                     "出荷数"), "quantity"),
    **dict.fromkeys(("単価", "価格", "定価", "原価", "売価"), "unit_price"),
    **dict.fromkeys(("平均",), "per_unit"),
    **dict.fromkeys(("率", "割引", "割合", "歩合", "パーセント"), "rate"),
    **dict.fromkeys(("時間", "秒", "日数", "期間", "所要"), "duration"),
    **dict.fromkeys(("サイズ", "容量", "重量", "重さ", "幅", "高さ", "長さ", "バイト"), "size"),
    **dict.fromkeys(("評価", "点数", "スコア", "ランク", "順位", "評点"), "score"),
    **dict.fromkeys(("年齢",), "age"),
    **dict.fromkeys(("年度", "西暦"), "year"),
    **dict.fromkeys(("緯度", "経度"), "geo"),
    **dict.fromkeys(("在庫", "残高", "残数", "上限", "下限", "発注点"), "level"),
    **dict.fromkeys(("ID", "コード", "番号", "区分", "フラグ", "種別", "順"), "key"),
}
_JA_FEES = ("料", "料金", "手数料", "費用")  # what a thing costs each time, where no event is recorded
_JA_PER_UNIT = ("単価", "平均", "1個あたり", "あたり")
_JA_LEVEL = ("在庫", "残")

_SCALE = re.compile(r"\(\s*\d+\s*,\s*(\d+)\s*\)")
SERIAL_MIN_ROWS = 20  # fewer rows say nothing about a column being a run of numbers
CODE_MAX_VALUES = 10  # an integer column of this many values at most (and far fewer than rows) is a code


@dataclass(frozen=True)
class Measure:
    """What one numeric column holds, and what a drafted tool may do with it."""

    column: str
    role: Role | None  # None: not a number
    why: str  # the word, term or fact that decided, for a person reading the draft

    @property
    def additive(self) -> bool:
        """Summed over rows, a figure someone asks for (money that changed hands, pieces counted)."""
        return self.role in ADDITIVE

    @property
    def money(self) -> bool:
        """An amount of money (summed or not): shown to the currency's digits."""
        return self.role in MONEY


class LineAmount(NamedTuple):
    """The amount of an order line that has none of its own: quantity × unit price (× (1 − discount))."""

    quantity: Column
    unit_price: Column
    discount: Column | None  # a fraction (0.1) or, where its data reaches past 1, a percent (10)

    @property
    def discount_in_percent(self) -> bool:
        return self.discount is not None and self.discount.high is not None and self.discount.high > 1

    def sql(self, expr: dict[str, str]) -> str:
        """The amount as SQL, each column written as `expr` names it (``{"quantity": 't."qty"', ...}``)."""
        out = f"{expr[self.quantity.name]} * {expr[self.unit_price.name]}"
        if self.discount is not None:
            d = expr[self.discount.name]
            out += f" * (1 - COALESCE({d}, 0){' / 100.0' if self.discount_in_percent else ''})"
        return out


# --- one column ----------------------------------------------------------------------------------
def measure(table: Table, col: Column) -> Measure:
    """What `col` of `table` holds (the module docstring says in which order it is read)."""
    if col.kind not in ("integer", "number"):
        return Measure(col.name, None, f"a {col.kind} column")
    key = _key_fact(table, col)
    if key:
        return Measure(col.name, "key", key)
    dated = _dated(table)
    if dated and _price_alone(col) and not _counts_pieces(table):
        return Measure(col.name, "money", "the price of each dated event, one a row (the table counts no pieces)")
    said = _said(col, dated=dated)
    if said is not None:
        return Measure(col.name, *said)
    return Measure(col.name, *_from_data(table, col))


def _said(col: Column, *, dated: bool) -> tuple[Role, str] | None:
    """What a column's comment (or Japanese name), else its English name, says it holds."""
    return _from_comment(col.comment or (col.name if not col.name.isascii() else None), dated=dated) \
        or _from_name(name_words(col.name), dated=dated)


def _price_alone(col: Column) -> bool:
    """A column named price and nothing more, its comment saying nothing else: of each unit, or, in a table that
    counts no pieces, of each row."""
    return name_words(col.name) in (["price"], ["prices"]) and _from_comment(col.comment, dated=True) is None


def _counts_pieces(table: Table) -> bool:
    return any((_said(c, dated=True) or (None, ""))[0] == "quantity" for c in table.columns)


def name_words(identifier: str) -> list[str]:
    """The English words a name says: romaji read as the glossary's concepts (gokei_kingaku -> total,
    amount), English words run together split where they are known ones (unitprice -> unit, price)."""
    return [part for w in glossary.concepts(words(identifier)) for part in _run_together(w)]


def scale(col: Column) -> int | None:
    """The decimal places a NUMERIC(p, s) / DECIMAL(p, s) column keeps (its s), else None."""
    m = _SCALE.search(col.type_name) if col.kind == "number" else None
    return int(m.group(1)) if m else None


def _key_fact(table: Table, col: Column) -> str | None:
    if col.name in table.primary_key:
        return "the primary key"
    if table.fk_of(col.name) is not None or any(col.name in fk.columns for fk in table.foreign_keys):
        return "a foreign key"
    if any(ix.unique and ix.columns == (col.name,) for ix in table.indexes):
        return "a unique index"
    return None


def _from_comment(comment: str | None, *, dated: bool) -> tuple[Role, str] | None:
    """What a Japanese comment (or a name written in Japanese) names: the term that ends last in its first
    phrase is the head; a fee of a table that records no events (a stylist's 指名料) is what one use costs."""
    if not comment:
        return None
    phrase = re.split(r"[。、,.(（\n]", comment.strip(), maxsplit=1)[0]
    found = [(phrase.rfind(t) + len(t), t) for t in _JA_TERMS if t in phrase]
    if not found:
        return None
    _, term = max(found, key=lambda f: (f[0], len(f[1])))
    role = _JA_TERMS[term]
    rest = phrase.replace(term, "")
    if role in ("money", "quantity") and any(t in rest for t in _JA_LEVEL):
        return "level", f"{term} of a stock (comment {phrase})"
    if role in ("money", "quantity") and any(t in rest for t in _JA_PER_UNIT):
        return ("unit_price" if role == "money" else "per_unit"), f"{term} per unit (comment {phrase})"
    if role == "money" and term in _JA_FEES and not dated:
        return "unit_price", f"the {term} of each row of a table that records no events (comment {phrase})"
    return role, f"comment {phrase}"


def _from_name(ws: list[str], *, dated: bool) -> tuple[Role, str] | None:
    """What the words of a name say: the last word that names a figure, as the words before it qualify it."""
    if not ws:
        return None
    if _HEADS.get(ws[-1]) == "key":
        return "key", f"its name ends in {ws[-1]!r}"
    said = " ".join(ws)
    level = next((w for w in _LEVEL_SAID if re.search(rf"(?<![a-z]){w}(?![a-z])", said)), None)
    if level is not None:  # qty_on_hand, qty_alloc, reorder_pt: what is there at one moment, not a flow
        return "level", f"a level ({level})"
    at = next((i for i in range(len(ws) - 1, -1, -1) if ws[i] in _HEADS and _HEADS[ws[i]] != "key"), None)
    if at is None:
        return None
    head, role = ws[at], _HEADS[ws[at]]
    before, after = set(ws[:at]), ws[at + 1:]
    if role == "money" and head in _TOTAL and after and after[-1].endswith("s"):
        return "quantity", f"a total of {after[-1]}"  # total_items: pieces counted
    if role in ("money", "quantity") and before & _LEVEL:
        return "level", f"{head} of a stock ({', '.join(sorted(before & _LEVEL))})"
    if role in ("money", "quantity") and before & _PER_UNIT:
        return ("unit_price" if role == "money" else "per_unit"), f"{head} per unit"
    if role == "unit_price" and before & _TOTAL and not before & _PER_UNIT:
        return "money", f"a total {head}"
    if role == "money" and head in _PRICE_OF_A_THING and not dated and not before & _TOTAL:
        return "unit_price", f"the {head} of each row of a table that records no events"
    return role, f"the word {head!r}"


def _run_together(word: str) -> list[str]:
    """A word run together from two known ones (unitprice, totalamount) as those words; else the word."""
    if word in _HEADS or len(word) < 6:
        return [word]
    known = _HEADS.keys() | _PER_UNIT | _LEVEL | _TOTAL
    for end in sorted((w for w in _HEADS if len(w) >= 3 and word.endswith(w)), key=len, reverse=True):
        if word[: -len(end)] in known:
            return [word[: -len(end)], end]
    return [word]


# Dates that say when a row was kept or changed, or what a row is (a birth date), not an event it records.
_NOT_EVENT_WORDS = frozenset({"update", "updated", "updates", "modified", "modify", "changed", "edited", "synced",
                              "birth", "born", "dob", "birthday", "expiry", "expires", "expiration"})
_JA_NOT_EVENT = ("更新", "変更", "生年月日", "誕生日", "有効期限")


def event_date(col: Column) -> bool:
    """Whether a date column says when something the row records happened (ordered, shipped, visited), not
    when the row was last changed (last_update) or what it is (a birth date)."""
    return col.is_date and not set(name_words(col.name)) & _NOT_EVENT_WORDS and not any(
        w in (col.comment or col.name) for w in _JA_NOT_EVENT)  # 生年月日, named or commented


# Dates of when a row began to be what it is (a hire date, 入社日): an employee is no event for that.
_JOINED_WORDS = frozenset({"hire", "hired", "joined", "joining", "started", "enrolled"})
_JA_JOINED = ("入社", "採用", "入会", "入学")


def _dated(table: Table) -> bool:
    """Whether the table records events: it has an event date of its own (`event_date`) that is not when the
    row began (a hire date)."""
    return any(event_date(c) and not set(name_words(c.name)) & _JOINED_WORDS
               and not any(w in (c.comment or c.name) for w in _JA_JOINED) for c in table.columns)


def _from_data(table: Table, col: Column) -> tuple[Role, str]:
    """A column whose name says nothing, by its data: a serial number, a year, a code, else a figure of its
    table (summed only where the table records events: it has a date of its own)."""
    low, high, distinct, rows = col.low, col.high, col.distinct, table.row_count
    integral = col.kind == "integer" or (low is not None and high is not None and scale(col) in (None, 0)
                                         and float(low).is_integer() and float(high).is_integer())
    if integral and low is not None and high is not None and distinct is not None and rows >= SERIAL_MIN_ROWS:
        if distinct >= 0.95 * rows and high - low + 1 <= 2 * rows:
            return "key", "a run of distinct whole numbers"
        if low >= 1900 and high <= 2100:
            return "year", "four-digit whole numbers between 1900 and 2100"
        if distinct <= CODE_MAX_VALUES and distinct * 3 <= rows and high <= 100:
            return "key", f"{distinct} small whole numbers (a code)"
    if _dated(table):
        return "figure", "a number of a table of dated events"
    return "level", "a number of a table that records no events (a property of each row)"


# --- a table -------------------------------------------------------------------------------------
_PREFERRED = ("money", "quantity", "figure")


def additive_columns(table: Table) -> list[Column]:
    """The columns a drafted tool sums: money amounts first (a total before its parts), then pieces, then
    other figures."""
    found = [(measure(table, c), c) for c in table.columns]
    summed = [(m, c) for m, c in found if m.additive]
    return [c for m, c in sorted(summed, key=lambda mc: (_PREFERRED.index(mc[0].role or "figure"),
                                                          _rank(mc[1])))]


_AMOUNT_ORDER = ("total", "amount", "revenue", "sales", "subtotal")


def _rank(col: Column) -> int:
    ws = name_words(col.name)
    return next((i for i, w in enumerate(_AMOUNT_ORDER) if w in ws), len(_AMOUNT_ORDER))


def money_columns(table: Table) -> list[Column]:
    """The columns that hold money, summed or not (amounts, totals, unit prices)."""
    return [c for c in table.columns if measure(table, c).money]


def line_amount(table: Table) -> LineAmount | None:
    """Quantity × unit price (× (1 − discount)) where a table has both and no money amount of its own (an
    order line); else None."""
    found = [(measure(table, c), c) for c in table.columns]
    if any(m.role == "money" for m, _ in found):
        return None
    quantity = next((c for m, c in found if m.role == "quantity"), None)
    price = next((c for m, c in found if m.role == "unit_price"), None)
    if quantity is None or price is None:
        return None
    discount = next((c for m, c in found if m.role == "rate" and _discount(c)), None)
    return LineAmount(quantity, price, discount)


def _discount(col: Column) -> bool:
    """A rate that is a discount (by name or comment), whose data is a fraction or a percent."""
    said = "discount" in name_words(col.name) or "割引" in (col.comment or "")
    return bool(said) and (col.high is None or col.high <= 100)


# --- how a drafted tool's figures are shown -------------------------------------------------------
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def currency_of(schema: Schema) -> str | None:
    """The currency of a schema's money: yen where the schema is Japanese (its comments are, or its names
    are romaji), else None (amounts shown with their decimals and no sign, until a person says)."""
    for table in schema.tables:
        if _CJK.search(table.comment or "") or any(_CJK.search(c.comment or "") for c in table.columns):
            return "JPY"
        if glossary.reading(words(table.name)) is not None:
            return "JPY"
    return None


def formats(schema: Schema, columns: dict[str, tuple[Table, Column]]) -> dict[str, Any]:
    """The `result` keys that say how a tool's figures are kept and shown: `money` (the result's columns that
    are amounts of money), `decimals` (the places each keeps: a NUMERIC's scale, 0 for whole money) and the
    schema's `currency`; each only where it has something to say."""
    money = [name for name, (table, col) in columns.items() if measure(table, col).money]
    decimals = {name: scale(col) for name, (_, col) in columns.items() if scale(col)}
    decimals.update({name: 0 for name in money if columns[name][1].kind == "integer"})
    out: dict[str, Any] = {}
    if money:
        out["money"] = money
    if decimals:
        out["decimals"] = {name: decimals[name] for name in columns if name in decimals}
    currency = currency_of(schema) if money else None
    if currency:
        out["currency"] = currency
    return out
