"""Create bakery.db, the data of a neighbourhood bakery (パン工房 こむぎ堂), beside this script.

The bakery takes pre-orders for pickup, by phone or in the chat. Everything is written out by hand,
nothing is random: run it again and the file is the same. The clock of the cases is 2026-12-18
(a Friday) at 10:00; the shop is closed on Tuesdays.

    python make_db.py            # writes bakery.db (replaces an old one)
    python make_db.py other.db   # writes another file
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

SCHEMA = """
CREATE TABLE goods (
    code      TEXT PRIMARY KEY,          -- 商品コード (L01, P01 ...)
    name      TEXT NOT NULL UNIQUE,      -- 商品名, as the showcase label says it
    name_en   TEXT NOT NULL,             -- the English name on the menu board
    shelf     TEXT NOT NULL,             -- 売り場: 食パン/パン/サンドイッチ/カットケーキ/ホールケーキ/ドリンク
    price     INTEGER NOT NULL,          -- 税込の値段 (yen); a whole cake's is its smallest size (4号)
    per       TEXT NOT NULL,             -- 数え方: 斤 / 個 / 本 / 台 / 杯
    gone      INTEGER NOT NULL,          -- 1: 売り切れ (no more pre-orders taken)
    search    TEXT NOT NULL              -- the name, its reading in kana, romaji and English, lower-case
);

CREATE TABLE styles (                    -- what a customer may choose for the goods of one shelf
    shelf     TEXT NOT NULL,
    style     TEXT NOT NULL,             -- 6枚切り, 4号 ...
    sort      TEXT NOT NULL,             -- slice (loaves) / size (whole cakes)
    extra     INTEGER NOT NULL,          -- added to the price (yen)
    PRIMARY KEY (shelf, style)
);

CREATE TABLE opening (                   -- pickup hours per weekday (0 = Sunday ... 6 = Saturday); no row: closed
    weekday   INTEGER PRIMARY KEY,
    day_name  TEXT NOT NULL,
    opens     TEXT NOT NULL,             -- HH:MM, first pickup
    closes    TEXT NOT NULL              -- HH:MM, last pickup
);

CREATE TABLE house_rules (               -- one row
    id            INTEGER PRIMARY KEY,
    lead_minutes  INTEGER NOT NULL,      -- a same-day pickup is at least this long after the call
    days_ahead    INTEGER NOT NULL,      -- pre-orders are taken up to this many days ahead
    closed_note   TEXT NOT NULL          -- how the shop says its closing day
);

CREATE TABLE trays (                     -- the pre-order a conversation is putting together
    session     TEXT PRIMARY KEY,
    pickup_day  TEXT,                    -- YYYY-MM-DD
    pickup_time TEXT                     -- HH:MM
);

CREATE TABLE tray_lines (
    session   TEXT NOT NULL,
    code      TEXT NOT NULL REFERENCES goods(code),
    style     TEXT NOT NULL,             -- '' for none
    qty       INTEGER NOT NULL,
    PRIMARY KEY (session, code, style)
);

CREATE TABLE preorders (                 -- placed pre-orders
    preorder_no TEXT PRIMARY KEY,
    slip        INTEGER NOT NULL,        -- the day's number said to the customer
    session     TEXT NOT NULL,
    customer    TEXT,
    taken_on    TEXT NOT NULL,
    pickup_day  TEXT NOT NULL,
    pickup_time TEXT NOT NULL,
    total       INTEGER NOT NULL,
    UNIQUE (taken_on, slip)
);

CREATE TABLE preorder_lines (
    preorder_no TEXT NOT NULL REFERENCES preorders(preorder_no),
    code        TEXT NOT NULL REFERENCES goods(code),
    style       TEXT NOT NULL,
    qty         INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    PRIMARY KEY (preorder_no, code, style)
);
"""

GOODS = [
    # code, name, English, shelf, price, per, sold out, readings (kana, romaji, other spellings)
    (
        "L01",
        "角食パン",
        "square white loaf",
        "食パン",
        400,
        "斤",
        0,
        "かくしょくぱん カクショクパン kakushokupan 角食 white loaf",
    ),
    (
        "L02",
        "山型食パン",
        "English loaf",
        "食パン",
        450,
        "斤",
        0,
        "やまがたしょくぱん ヤマガタショクパン yamagata 山食 イギリスパン english bread",
    ),
    (
        "L03",
        "レーズン食パン",
        "raisin loaf",
        "食パン",
        520,
        "斤",
        1,
        "れーずんしょくぱん レーズンパン reezun raisin bread",
    ),
    ("P01", "バゲット", "baguette", "パン", 340, "本", 0, "ばげっと フランスパン bagetto french bread"),
    ("P02", "クロワッサン", "croissant", "パン", 230, "個", 0, "くろわっさん kurowassan"),
    ("P03", "メロンパン", "melon bun", "パン", 190, "個", 0, "めろんぱん meronpan melon pan"),
    ("P04", "あんぱん", "red bean bun", "パン", 170, "個", 0, "アンパン あんパン anpan"),
    ("P05", "カレーパン", "curry bun", "パン", 240, "個", 0, "かれーぱん kareepan curry bread"),
    ("P06", "クリームパン", "custard cream bun", "パン", 180, "個", 0, "くりーむぱん kuriimupan cream bun"),
    ("P07", "塩パン", "salt butter roll", "パン", 150, "個", 1, "しおぱん シオパン shiopan salt bread"),
    ("P08", "シナモンロール", "cinnamon roll", "パン", 290, "個", 0, "しなもんろーる shinamonrooru"),
    (
        "S01",
        "たまごサンド",
        "egg sandwich",
        "サンドイッチ",
        380,
        "個",
        0,
        "玉子サンド タマゴサンド tamagosando egg sando",
    ),
    (
        "S02",
        "ハムチーズサンド",
        "ham and cheese sandwich",
        "サンドイッチ",
        420,
        "個",
        0,
        "はむちーずさんど hamuchiizu ham cheese",
    ),
    ("S03", "カツサンド", "pork cutlet sandwich", "サンドイッチ", 560, "個", 0, "かつさんど katsusando katsu sando"),
    (
        "S04",
        "フルーツサンド",
        "fruit sandwich",
        "サンドイッチ",
        480,
        "個",
        0,
        "ふるーつさんど furuutsusando fruit sando",
    ),
    (
        "C01",
        "いちごショート",
        "strawberry shortcake slice",
        "カットケーキ",
        480,
        "個",
        0,
        "苺ショート イチゴショート ショートケーキ ichigo shortcake",
    ),
    ("C02", "チーズケーキ", "cheesecake slice", "カットケーキ", 430, "個", 0, "ちーずけーき chiizukeeki cheesecake"),
    ("C03", "モンブラン", "mont blanc", "カットケーキ", 520, "個", 1, "もんぶらん monburan"),
    ("C04", "プリン", "custard pudding", "カットケーキ", 320, "個", 0, "ぷりん purin pudding"),
    (
        "W01",
        "いちごのデコレーションケーキ",
        "strawberry decoration cake",
        "ホールケーキ",
        2900,
        "台",
        0,
        "苺のデコレーションケーキ デコケーキ でこれーしょんけーき dekoreeshon strawberry whole cake",
    ),
    (
        "W02",
        "ガトーショコラ",
        "gateau chocolat",
        "ホールケーキ",
        2600,
        "台",
        0,
        "がとーしょこら gatoo shokora chocolate cake",
    ),
    ("W03", "フルーツタルト", "fruit tart", "ホールケーキ", 3300, "台", 1, "ふるーつたると furuutsutaruto tart"),
    ("D01", "ブレンドコーヒー", "coffee", "ドリンク", 320, "杯", 0, "ぶれんどこーひー コーヒー koohii blend coffee"),
    ("D02", "カフェラテ", "cafe latte", "ドリンク", 400, "杯", 0, "かふぇらて ラテ kaferate latte"),
    ("D03", "紅茶", "black tea", "ドリンク", 320, "杯", 0, "こうちゃ コウチャ koucha tea"),
    ("D04", "オレンジジュース", "orange juice", "ドリンク", 280, "杯", 0, "おれんじじゅーす orenjijuusu oj"),
    ("D05", "牛乳", "milk", "ドリンク", 180, "本", 0, "ぎゅうにゅう ミルク gyuunyuu"),
]

STYLES = [
    # shelf, style, sort, extra yen
    ("食パン", "6枚切り", "slice", 0),
    ("食パン", "8枚切り", "slice", 0),
    ("食パン", "スライスなし", "slice", 0),
    ("ホールケーキ", "4号", "size", 0),
    ("ホールケーキ", "5号", "size", 800),
    ("ホールケーキ", "6号", "size", 1600),
]

OPENING = [
    # weekday (strftime %w), name, opens, closes; Tuesday (2) is the closing day
    (0, "日曜", "07:30", "18:00"),
    (1, "月曜", "08:00", "19:00"),
    (3, "水曜", "08:00", "19:00"),
    (4, "木曜", "08:00", "19:00"),
    (5, "金曜", "08:00", "19:00"),
    (6, "土曜", "07:30", "18:00"),
]

RULES = (1, 60, 14, "火曜定休")


def make(path: Path) -> None:
    if path.exists():
        path.unlink()
    goods = [(c, n, e, s, p, per, g, " ".join([n, e, extra]).lower()) for c, n, e, s, p, per, g, extra in GOODS]
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO goods VALUES (?, ?, ?, ?, ?, ?, ?, ?)", goods)
        db.executemany("INSERT INTO styles VALUES (?, ?, ?, ?)", STYLES)
        db.executemany("INSERT INTO opening VALUES (?, ?, ?, ?)", OPENING)
        db.execute("INSERT INTO house_rules VALUES (?, ?, ?, ?)", RULES)
    db.close()


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("bakery.db")
    make(target)
    print(f"wrote {target}")
