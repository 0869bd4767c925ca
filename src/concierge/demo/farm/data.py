"""The farm demo: 20 customers and their sales, generated from a fixed seed.

The rows that the published transcripts quote are written as they are
(`FIXED_SALES`); the rest is filler drawn from a seeded generator under the
rules of docs/demo-data.md §1 (no sale after 2025-05-14; 0009 has one
sale in 2025-05-05..11; 0010 none that week; 0014 none in May; 0002 exactly
four in April–May; every customer but 0010 and 0014 at least three in 2025).
"""

from __future__ import annotations

import random
from datetime import date, timedelta

SEED = 20250515
LAST_DAY = date(2025, 5, 14)
FIRST_DAY = date(2024, 10, 1)
REP_SCOPE = ("tanaka", range(11, 21))  # tanaka's accounts: 0011..0020

CUSTOMERS = [
    ("0001", "佐藤太郎", "東京都新宿区西新宿3丁目ヒカリビル12階", "03-1234-5678"),
    ("0002", "John Smith", "神奈川県横浜市中区山下町2-5 ハーバーテラス805", "045-321-7788"),
    ("0003", "山田花子", "北海道札幌市中央区大通西4丁目ファンタジアA101", "011-987-6543"),
    ("0004", "鈴木一郎", "大阪府大阪市北区梅田1-3-1 梅田タワー20階", "06-6345-1200"),
    ("0005", "高橋美咲", "愛知県名古屋市中区栄3-15-33", "052-261-4455"),
    ("0006", "伊藤健太", "福岡県福岡市博多区博多駅前2-1-1", "092-411-2030"),
    ("0007", "渡辺由美", "宮城県仙台市青葉区一番町4-9-18", "022-262-5511"),
    ("0008", "中村翔", "広島県広島市中区紙屋町1-2-22", "082-247-3390"),
    ("0009", "佐藤次郎", "京都府京都市下京区烏丸通河原町スモータル館302", "075-666-7777"),
    ("0010", "小林直子", "兵庫県神戸市中央区三宮町1-8-1", "078-391-6620"),
    ("0011", "加藤大輔", "埼玉県さいたま市大宮区桜木町1-7-5", "048-641-2288"),
    ("0012", "吉田さくら", "千葉県千葉市中央区富士見2-3-1", "043-222-8181"),
    ("0013", "Emily Brown", "東京都港区六本木6-10-1 ヒルズレジデンス1204", "03-5411-9090"),
    ("0014", "斉藤明", "静岡県静岡市葵区紺屋町11-1", "054-255-3131"),
    ("0015", "井上陽介", "新潟県新潟市中央区万代1-6-1", "025-246-7070"),
    ("0016", "松本理恵", "長野県長野市南長野県町593", "026-232-4545"),
    ("0017", "木村拓也", "岡山県岡山市北区本町6-36", "086-231-1212"),
    ("0018", "林美穂", "熊本県熊本市中央区手取本町5-1", "096-324-5656"),
    ("0019", "清水健", "石川県金沢市広岡1-1-18", "076-263-3434"),
    ("0020", "山口真由", "沖縄県那覇市久茂地1-1-1", "098-866-2121"),
]

# (sales number, customer, date, products, price) quoted by the transcripts.
FIXED_SALES = [
    ("S20250510143012", "0009", date(2025, 5, 10), "キュウリ15本", 1050),
    ("S20250419112931", "0002", date(2025, 4, 19), "トマト2個とかぼちゃ1個", 340),
    ("S20250422101931", "0002", date(2025, 4, 22), "トマト8個", 640),
    ("S20250502094510", "0002", date(2025, 5, 2), "かぼちゃ2個", 240),
    ("S20250507161205", "0002", date(2025, 5, 7), "トマト12個", 960),
]

PRODUCE = [  # (name, counter, unit price)
    ("キュウリ", "本", 70),
    ("ナス", "個", 90),
    ("トマト", "個", 80),
    ("かぼちゃ", "個", 150),
    ("ピーマン", "個", 50),
    ("玉ねぎ", "個", 60),
    ("じゃがいも", "個", 55),
    ("キャベツ", "玉", 180),
    ("大根", "本", 160),
    ("にんじん", "本", 45),
]

# Periods in which a customer must have no filler sale.
_QUIET = {
    "0002": (date(2025, 4, 1), date(2025, 5, 31)),
    "0009": (date(2025, 5, 5), date(2025, 5, 11)),
    "0010": (date(2025, 5, 5), date(2025, 5, 11)),
    "0014": (date(2025, 5, 1), date(2025, 5, 31)),
}


def customers() -> list[dict]:
    rep, codes = REP_SCOPE
    return [
        {"code": c, "name": n, "address": a, "phone": p, "assigned_to": rep if int(c) in codes else None}
        for c, n, a, p in CUSTOMERS
    ]


def sales() -> list[dict]:
    rng = random.Random(SEED)
    rows = [_row(*fixed) for fixed in FIXED_SALES]
    numbers = {r["sales_number"] for r in rows}
    for code, *_ in CUSTOMERS:
        count = {"0010": 2, "0014": 2}.get(code, rng.randint(5, 9))
        in_2025 = 0
        while count > 0 or (code not in ("0010", "0014") and in_2025 < 3):
            day = _filler_day(rng, code, in_2025)
            if day is None:
                continue
            number = f"S{day:%Y%m%d}{rng.randint(8, 18):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}"
            if number in numbers:
                continue
            numbers.add(number)
            rows.append(_row(number, code, day, *_basket(rng)))
            in_2025 += day.year == 2025
            count -= 1
    rows.sort(key=lambda r: (r["sale_date"], r["sales_number"]))
    return rows


def _filler_day(rng: random.Random, code: str, in_2025: int) -> date | None:
    start = date(2025, 1, 1) if in_2025 < 3 and code not in ("0010", "0014") else FIRST_DAY
    day = start + timedelta(days=rng.randint(0, (LAST_DAY - start).days))
    quiet = _QUIET.get(code)
    if quiet and quiet[0] <= day <= quiet[1]:
        return None
    if code == "0014" and day.year == 2025 and day.month == 5:
        return None
    return day


def _basket(rng: random.Random) -> tuple[str, int]:
    items = rng.sample(PRODUCE, rng.choice((1, 1, 2)))
    parts, price = [], 0
    for name, counter, unit in items:
        qty = rng.randint(2, 20)
        parts.append(f"{name}{qty}{counter}")
        price += unit * qty
    return "と".join(parts), price


def _row(number: str, code: str, day: date, products: str, price: int) -> dict:
    return {"sales_number": number, "customer_code": code, "sale_date": day, "products": products, "price": price}
