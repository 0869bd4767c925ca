"""Create inn.db, the data of a small inn (旅館 やまびこ荘), beside this script.

Everything is written out by hand, nothing is random: run it again and the file is the same.
The clock of the cases is 2026-11-27 (a Friday): some stays are over (チェックアウト済),
some guests are in the house tonight, most bookings are for late November and December.

    python make_db.py            # writes inn.db (replaces an old one)
    python make_db.py other.db   # writes another file
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

SCHEMA = """
CREATE TABLE rooms (
    room_no   TEXT PRIMARY KEY,          -- 部屋番号 (101, 203 ...)
    room_name TEXT NOT NULL UNIQUE,      -- 部屋の名前 (松, 桔梗 ...): staff say 桔梗の間
    room_type TEXT NOT NULL,             -- 和室 / 洋室 / 和洋室 / 特別室
    capacity  INTEGER NOT NULL,          -- 定員 (people)
    rate      INTEGER NOT NULL           -- 1泊の室料 (yen per night, the room)
);

CREATE TABLE guests (
    guest_id  TEXT PRIMARY KEY,          -- G01 ...
    name      TEXT NOT NULL,             -- 氏名 (kanji, no space)
    kana      TEXT NOT NULL,             -- よみ (hiragana, no space)
    name_en   TEXT NOT NULL,             -- the name in Latin letters, given name first
    phone     TEXT NOT NULL
);

CREATE TABLE reservations (
    res_no    TEXT PRIMARY KEY,          -- 予約番号 R-5001 ...
    guest_id  TEXT NOT NULL REFERENCES guests(guest_id),
    room_no   TEXT NOT NULL REFERENCES rooms(room_no),
    check_in  TEXT NOT NULL,             -- YYYY-MM-DD
    check_out TEXT NOT NULL,             -- YYYY-MM-DD (the morning the guest leaves)
    people    INTEGER NOT NULL,          -- 人数
    status    TEXT NOT NULL              -- 確定 / キャンセル / チェックアウト済
);

CREATE TABLE shop_items (
    item_code TEXT PRIMARY KEY,          -- S01 ...
    name      TEXT NOT NULL UNIQUE,      -- 品目
    name_en   TEXT NOT NULL,
    unit      TEXT NOT NULL,             -- 本 / 箱 / 枚 / 個
    stock     INTEGER NOT NULL           -- 在庫数
);

CREATE TABLE shop_receipts (
    receipt_no  TEXT PRIMARY KEY,        -- N-01 ...
    item_code   TEXT NOT NULL REFERENCES shop_items(item_code),
    received_on TEXT NOT NULL,           -- 入庫日 YYYY-MM-DD
    quantity    INTEGER NOT NULL,        -- 入庫数
    UNIQUE (item_code, received_on)      -- one receipt per item and day
);
"""

ROOMS = [
    # room_no, name, type, capacity, rate
    ("101", "松", "和室", 4, 18000),
    ("102", "竹", "和室", 4, 18000),
    ("103", "梅", "和室", 2, 14000),
    ("201", "桔梗", "和洋室", 5, 24000),
    ("202", "椿", "和室", 3, 16000),
    ("203", "楓", "洋室", 2, 13000),
    ("205", "萩", "洋室", 2, 13000),
    ("301", "桐", "和洋室", 6, 28000),
    ("302", "鳳凰", "特別室", 4, 38000),
    ("303", "葵", "和室", 3, 16000),
]

GUESTS = [
    # guest_id, name, kana, name_en, phone
    ("G01", "山田太郎", "やまだたろう", "Taro Yamada", "090-1111-2201"),
    ("G02", "田中一郎", "たなかいちろう", "Ichiro Tanaka", "090-2222-3302"),
    ("G03", "田中美咲", "たなかみさき", "Misaki Tanaka", "080-3333-4403"),
    ("G04", "鈴木花子", "すずきはなこ", "Hanako Suzuki", "090-4444-5504"),
    ("G05", "佐藤健", "さとうけん", "Ken Sato", "080-5555-6605"),
    ("G06", "高橋由美", "たかはしゆみ", "Yumi Takahashi", "090-6666-7706"),
    ("G07", "伊藤誠", "いとうまこと", "Makoto Ito", "070-7777-8807"),
    ("G08", "渡辺さくら", "わたなべさくら", "Sakura Watanabe", "090-8888-9908"),
    ("G09", "中村大輔", "なかむらだいすけ", "Daisuke Nakamura", "080-9999-0009"),
    ("G10", "小林直子", "こばやしなおこ", "Naoko Kobayashi", "090-1234-5610"),
    ("G11", "加藤修", "かとうおさむ", "Osamu Kato", "070-2345-6711"),
    ("G12", "吉田恵", "よしだめぐみ", "Megumi Yoshida", "090-3456-7812"),
    ("G13", "スミスジョン", "すみすじょん", "John Smith", "+1-415-555-0113"),
    ("G14", "斎藤亮", "さいとうりょう", "Ryo Saito", "080-4567-8914"),
    ("G15", "森陽子", "もりようこ", "Yoko Mori", "090-5678-9015"),
]

OK, CANCELLED, LEFT = "確定", "キャンセル", "チェックアウト済"

RESERVATIONS = [
    # res_no, guest, room, check_in, check_out, people, status
    ("R-5001", "G05", "101", "2026-11-20", "2026-11-22", 3, LEFT),
    ("R-5002", "G06", "203", "2026-11-21", "2026-11-23", 2, LEFT),
    ("R-5003", "G09", "301", "2026-11-23", "2026-11-24", 5, LEFT),
    ("R-5004", "G10", "102", "2026-11-25", "2026-11-28", 2, OK),
    ("R-5005", "G13", "203", "2026-11-26", "2026-11-29", 2, OK),
    ("R-5006", "G07", "201", "2026-11-27", "2026-11-28", 4, OK),
    ("R-5007", "G11", "103", "2026-11-27", "2026-11-29", 2, OK),
    ("R-5008", "G01", "202", "2026-11-28", "2026-11-30", 2, OK),
    ("R-5009", "G02", "301", "2026-11-28", "2026-11-29", 4, OK),
    ("R-5010", "G12", "205", "2026-11-28", "2026-11-29", 1, CANCELLED),
    ("R-5011", "G04", "101", "2026-11-29", "2026-12-01", 3, OK),
    ("R-5012", "G08", "302", "2026-11-30", "2026-12-02", 2, OK),
    ("R-5013", "G03", "103", "2026-12-01", "2026-12-03", 2, OK),
    ("R-5014", "G14", "201", "2026-12-03", "2026-12-05", 5, OK),
    ("R-5015", "G15", "203", "2026-12-04", "2026-12-05", 1, OK),
    ("R-5016", "G05", "102", "2026-12-05", "2026-12-07", 4, OK),
    ("R-5017", "G06", "301", "2026-12-05", "2026-12-06", 6, OK),
    ("R-5018", "G09", "101", "2026-12-05", "2026-12-06", 2, CANCELLED),
    ("R-5019", "G10", "302", "2026-12-06", "2026-12-08", 3, OK),
    ("R-5020", "G07", "205", "2026-12-10", "2026-12-12", 2, OK),
    ("R-5021", "G02", "203", "2026-12-12", "2026-12-13", 2, OK),
    ("R-5022", "G11", "303", "2026-12-12", "2026-12-14", 3, OK),
    ("R-5023", "G12", "201", "2026-12-18", "2026-12-20", 4, OK),
    ("R-5024", "G13", "302", "2026-12-20", "2026-12-22", 2, OK),
    ("R-5025", "G01", "103", "2026-11-14", "2026-11-15", 2, LEFT),
    ("R-5026", "G08", "202", "2026-12-24", "2026-12-26", 2, OK),
    ("R-5027", "G14", "303", "2026-11-27", "2026-11-28", 2, CANCELLED),
    ("R-5028", "G04", "205", "2026-11-10", "2026-11-12", 1, LEFT),
    ("R-5029", "G10", "301", "2026-12-30", "2027-01-01", 5, OK),
    ("R-5030", "G09", "102", "2026-12-28", "2026-12-30", 3, OK),
]

SHOP_ITEMS = [
    # item_code, name, name_en, unit, stock
    ("S01", "地酒", "local sake", "本", 24),
    ("S02", "温泉まんじゅう", "onsen manju", "箱", 40),
    ("S03", "手ぬぐい", "hand towel", "枚", 30),
    ("S04", "入浴剤", "bath salts", "個", 55),
    ("S05", "絵はがき", "postcards", "枚", 120),
    ("S06", "缶ビール", "beer", "本", 48),
    ("S07", "緑茶", "green tea", "本", 36),
    ("S08", "ゆず羊羹", "yuzu yokan", "本", 18),
]

RECEIPTS = [
    # receipt_no, item_code, received_on, quantity
    ("N-01", "S01", "2026-11-20", 12),
    ("N-02", "S02", "2026-11-20", 20),
    ("N-03", "S06", "2026-11-21", 24),
    ("N-04", "S04", "2026-11-22", 30),
    ("N-05", "S05", "2026-11-24", 50),
    ("N-06", "S01", "2026-11-25", 12),
    ("N-07", "S03", "2026-11-25", 10),
    ("N-08", "S02", "2026-11-26", 20),
    ("N-09", "S07", "2026-11-26", 24),
    ("N-10", "S08", "2026-11-26", 10),
    ("N-11", "S06", "2026-11-26", 24),
]


def make(path: Path) -> None:
    if path.exists():
        path.unlink()
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO rooms VALUES (?, ?, ?, ?, ?)", ROOMS)
        db.executemany("INSERT INTO guests VALUES (?, ?, ?, ?, ?)", GUESTS)
        db.executemany("INSERT INTO reservations VALUES (?, ?, ?, ?, ?, ?, ?)", RESERVATIONS)
        db.executemany("INSERT INTO shop_items VALUES (?, ?, ?, ?, ?)", SHOP_ITEMS)
        db.executemany("INSERT INTO shop_receipts VALUES (?, ?, ?, ?)", RECEIPTS)
    db.close()


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("inn.db")
    make(target)
    print(f"wrote {target}")
