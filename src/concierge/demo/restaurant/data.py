"""The restaurant demo's rows: a menu of 25 items in five categories, their options, the opening hours.

Two items are sold out (エビフライ弁当, 天丼), each in a category with others to offer instead. No order
and no draft exists at first: every order comes from a conversation.
"""

from __future__ import annotations

import jaconv

from concierge.language.readings import reading, romaji

MENU = [  # (code, name, English name, category, price, sold out)
    ("B01", "唐揚げ弁当", "karaage bento", "弁当", 690, False),
    ("B02", "のり弁当", "nori bento", "弁当", 450, False),
    ("B03", "鮭弁当", "salmon bento", "弁当", 650, False),
    ("B04", "ハンバーグ弁当", "hamburg steak bento", "弁当", 750, False),
    ("B05", "エビフライ弁当", "fried shrimp bento", "弁当", 820, True),
    ("B06", "生姜焼き弁当", "ginger pork bento", "弁当", 720, False),
    ("B07", "幕の内弁当", "makunouchi bento", "弁当", 880, False),
    ("D01", "牛丼", "beef bowl", "丼", 580, False),
    ("D02", "親子丼", "chicken and egg bowl", "丼", 620, False),
    ("D03", "カツ丼", "pork cutlet bowl", "丼", 700, False),
    ("D04", "天丼", "tempura bowl", "丼", 780, True),
    ("D05", "海鮮丼", "seafood bowl", "丼", 980, False),
    ("N01", "かけうどん", "plain udon", "麺", 420, False),
    ("N02", "きつねうどん", "kitsune udon", "麺", 520, False),
    ("N03", "ざるそば", "cold soba", "麺", 550, False),
    ("N04", "醤油ラーメン", "soy sauce ramen", "麺", 680, False),
    ("S01", "味噌汁", "miso soup", "サイド", 150, False),
    ("S02", "ポテトサラダ", "potato salad", "サイド", 250, False),
    ("S03", "餃子", "gyoza", "サイド", 380, False),
    ("S04", "枝豆", "edamame", "サイド", 300, False),
    ("S05", "春巻き", "spring rolls", "サイド", 280, False),
    ("K01", "緑茶", "green tea", "ドリンク", 150, False),
    ("K02", "ウーロン茶", "oolong tea", "ドリンク", 150, False),
    ("K03", "コーラ", "cola", "ドリンク", 200, False),
    ("K04", "オレンジジュース", "orange juice", "ドリンク", 220, False),
]

OPTIONS = [  # (category, option, price delta)
    ("弁当", "大盛り", 100),
    ("弁当", "小盛り", -50),
    ("丼", "大盛り", 100),
    ("丼", "小盛り", -50),
    ("麺", "大盛り", 150),
    ("ドリンク", "Lサイズ", 80),
]

HOURS = {"id": 1, "opens": "11:00", "closes": "21:00", "prep_minutes": 20}


def search_text(name: str, english: str) -> str:
    """The name, its readings (hiragana, katakana, Hepburn and passport romaji) and the English name, lower-cased,
    joined."""
    kana = list(dict.fromkeys([reading(name), reading(name, spelt=True)]))
    spelt = ["".join(romaji(name, passport=p).split()) for p in (False, True)]
    return " ".join(dict.fromkeys([name, *kana, *map(jaconv.hira2kata, kana), *spelt, english])).lower()


def menu() -> list[dict]:
    return [{"code": c, "name": n, "name_en": e, "category": cat, "price": p, "sold_out": s,
             "search": search_text(n, e)} for c, n, e, cat, p, s in MENU]


def options() -> list[dict]:
    return [{"category": c, "option": o, "price_delta": d} for c, o, d in OPTIONS]


def rows() -> dict[str, list[dict]]:
    return {"restaurant_menu": menu(), "restaurant_options": options(), "restaurant_hours": [HOURS],
            "restaurant_drafts": [], "restaurant_draft_items": [], "restaurant_orders": [],
            "restaurant_order_items": []}
