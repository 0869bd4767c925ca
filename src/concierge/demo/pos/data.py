"""The POS demo: store D店, 20 products x 62 days, generated from a fixed seed.

Most days are filler drawn around each product's usual daily quantity. The
two weeks the transcripts compare (2026-08-17..23 and 2026-08-24..30) are
built from weekly quantities chosen so that the totals, the change and the
top-3 lists of docs/demo-data.md §2 hold exactly, then spread over
the seven days.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

SEED = 20260831
STORE = "D店"
FIRST_DAY = date(2026, 7, 1)
LAST_DAY = date(2026, 8, 31)
PREV_WEEK = date(2026, 8, 17)
CUR_WEEK = date(2026, 8, 24)
PREV_TOTAL = 647_940
CUR_TOTAL = 635_010

PRODUCTS = {  # product: (category, unit price, usual quantity per day)
    "鮭おにぎり": ("おにぎり", 160, 55),
    "明太子おにぎり": ("おにぎり", 180, 50),
    "ツナマヨおにぎり": ("おにぎり", 150, 45),
    "梅おにぎり": ("おにぎり", 130, 25),
    "昆布おにぎり": ("おにぎり", 130, 22),
    "幕の内弁当": ("弁当", 580, 14),
    "ハンバーグ弁当": ("弁当", 580, 16),
    "唐揚げ弁当": ("弁当", 520, 18),
    "焼肉弁当": ("弁当", 650, 10),
    "のり弁当": ("弁当", 400, 15),
    "アイスバー": ("デザート", 120, 40),
    "プリン": ("デザート", 220, 18),
    "シュークリーム": ("デザート", 180, 16),
    "ロールケーキ": ("デザート", 300, 8),
    "杏仁豆腐": ("デザート", 250, 9),
    "麦茶": ("飲料", 140, 45),
    "緑茶": ("飲料", 150, 40),
    "ミネラルウォーター": ("飲料", 110, 38),
    "ブラックコーヒー": ("飲料", 160, 35),
    "オレンジジュース": ("飲料", 170, 20),
}

# Weekly change in quantity (current week minus previous) fixed by the facts.
FIXED_CHANGE = {
    "ハンバーグ弁当": -55,  # -31,900
    "明太子おにぎり": -170,  # -30,600
    "麦茶": -61,  # -8,540
    "幕の内弁当": 33,  # +19,140
    "鮭おにぎり": 81,  # +12,960
    "アイスバー": 103,  # +12,360
}
CHANGE_LOW, CHANGE_HIGH = -8_540, 12_360  # every other product strictly between
# Two products priced 170 and 160 yen fix any remainder: 170*r - 160*r = 10*r.
_FIX_UP, _FIX_DOWN = "オレンジジュース", "ブラックコーヒー"


def rows() -> list[dict]:
    rng = random.Random(SEED)
    prev_qty = _week_quantities(rng, PREV_TOTAL, scale=1.0)
    change = _other_changes(rng, (CUR_TOTAL - PREV_TOTAL) - _value(FIXED_CHANGE))
    change.update(FIXED_CHANGE)
    cur_qty = {p: prev_qty[p] + change[p] for p in PRODUCTS}
    weekly = {PREV_WEEK: prev_qty, CUR_WEEK: cur_qty}
    out = []
    day = FIRST_DAY
    while day <= LAST_DAY:
        week_start = day - timedelta(days=day.weekday())
        for product, (category, price, usual) in PRODUCTS.items():
            if week_start in weekly:
                qty = _spread(weekly[week_start][product], SEED + hash_of(product, week_start))[day.weekday()]
            else:
                weekend = 1.15 if day.weekday() >= 5 else 1.0
                qty = max(1, round(rng.gauss(usual * weekend, usual * 0.15)))
            out.append(
                {
                    "store": STORE,
                    "sale_date": day,
                    "product": product,
                    "category": category,
                    "unit_price": price,
                    "quantity": qty,
                    "amount": qty * price,
                }
            )
        day += timedelta(days=1)
    return out


def hash_of(product: str, week: date) -> int:
    """A stable per-(product, week) seed (Python's hash() of str is salted per process)."""
    return sum(ord(ch) * (i + 1) for i, ch in enumerate(product)) * 1000 + week.toordinal()


def _value(quantities: dict[str, int]) -> int:
    return sum(PRODUCTS[p][1] * q for p, q in quantities.items())


def _week_quantities(rng: random.Random, total: int, scale: float) -> dict[str, int]:
    qty = {p: max(20, round(rng.gauss(usual * 7 * scale, usual * 0.6))) for p, (_, _, usual) in PRODUCTS.items()}
    return _fix_remainder(qty, total - _value(qty))


def _other_changes(rng: random.Random, wanted: int) -> dict[str, int]:
    free = [p for p in PRODUCTS if p not in FIXED_CHANGE]
    while True:
        change = {p: round(rng.uniform(-6_000, 8_000) / PRODUCTS[p][1]) for p in free}
        change = _fix_remainder(change, wanted - _value(change))
        if all(CHANGE_LOW < PRODUCTS[p][1] * q < CHANGE_HIGH for p, q in change.items()):
            return change


def _fix_remainder(qty: dict[str, int], remainder: int, cap: int = 3_000) -> dict[str, int]:
    """Move `remainder` yen into the quantities, at most `cap` yen per product per pass."""
    qty = dict(qty)
    by_price = sorted(qty, key=lambda p: -PRODUCTS[p][1])
    while abs(remainder) >= 130:
        for product in by_price:
            price = PRODUCTS[product][1]
            step = int(max(-cap, min(cap, remainder)) / price)  # towards zero
            qty[product] += step
            remainder -= step * price
            if abs(remainder) < 130:
                break
    if remainder % 10:
        raise ValueError("every price is a multiple of 10, so every remainder must be")
    qty[_FIX_UP] += remainder // 10
    qty[_FIX_DOWN] -= remainder // 10
    return qty


def _spread(total: int, seed: int) -> list[int]:
    """Split a weekly quantity over Monday..Sunday (weekends a little busier)."""
    rng = random.Random(seed)
    weights = [rng.uniform(0.85, 1.15) * (1.15 if d >= 5 else 1.0) for d in range(7)]
    shares = [int(total * w / sum(weights)) for w in weights]
    for d in range(total - sum(shares)):
        shares[d % 7] += 1
    return shares
