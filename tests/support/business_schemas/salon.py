"""A hair-salon chain of three shops whose tables and columns are named in Japanese, as Access-born systems are.

Every identifier is kanji or katakana (店舗, スタッフ, 顧客, メニュー, 来店, 施術明細, 予約; 店舗名, 氏名, フリガナ,
来店日, 指名フラグ, 合計金額, 所要時間（分） with full-width parentheses), and the values are Japanese. A person's
氏名 is one column, family and given name parted by a full-width space (佐藤　花子), as staff type it into the
register; staff type it in questions without the space. Money is integer yen, tax included.

What a careless draft gets wrong is in the data:
- two customers of the family name 佐藤 (佐藤　花子, 佐藤　健太) who together (not apart) spent more than the top
  customer (中村　由美), and two of the given name 花子 (佐藤　花子, 伊藤　花子); every full name is unique;
- two staff named 田中: the stylist 田中　美咲 (渋谷店) and the assistant 田中　翔 (新宿東口店), both nominated
  (指名) this month;
- the menu カット beside 前髪カット, カット＋カラー and カット＋パーマ, the shop 新宿店 beside 新宿東口店: a substring
  match is broader than the question;
- カラー is both a menu and a 分類 (カラー, リタッチカラー; カット＋カラー is in the 分類 セット), and 来店 is both a
  table (the visits) and a 状態 of a booking (予約 that became a visit); walk-ins have no booking, so the visits
  of a month are more than the bookings of that month that became visits;
- a visit's 合計金額 is what the customer paid (its lines' 金額 plus the stylist's 指名料 when nominated): the
  sales of a period are the sum of 合計金額 over visits, and a sum over visits joined to their lines counts a
  visit once per line; the lines' 金額 add up to less (no 指名料);
- 料金 (list price), 単価 (the price charged: first-visit discounts make it lower), 所要時間（分） and 指名料
  are never summed; 金額 = 単価 × 数量, and retail goods (店販) are sold more than one at a time;
- the shops close on Tuesdays; bookings after today are still 予約済.

How questions are read: TODAY is Wednesday 18 June 2025 (last month is May, 先々月 April, last week 9 to 15
June); visits are recorded up to yesterday. "売上" of visits is the sum of 合計金額; "売上" of a menu is the sum of
its lines' 金額. A menu named in a question (カット, トリートメント) is that menu alone; "カラー系" is the 分類. A
count of bookings counts every booking whatever its state unless the question names one; tomorrow has no
cancelled booking, so both readings agree. "指名数" counts nominated visits. A shop's staff are all its staff,
whatever their 役職.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 6, 18)  # a Wednesday: last month is May 2025, last week Mon 9 to Sun 15 June
SEED = 20250618

_FIRST_DAY, _LAST_BOOKING = date(2025, 2, 1), date(2025, 6, 30)

metadata = sa.MetaData()

店舗 = sa.Table("店舗", metadata,
              sa.Column("店舗ID", sa.Integer, primary_key=True, autoincrement=False),
              sa.Column("店舗名", sa.String(40), nullable=False),
              sa.Column("電話番号", sa.String(20)),
              sa.Column("住所", sa.String(100)))
スタッフ = sa.Table("スタッフ", metadata,
                sa.Column("スタッフID", sa.Integer, primary_key=True, autoincrement=False),
                sa.Column("氏名", sa.String(40), nullable=False),
                sa.Column("店舗ID", sa.Integer, sa.ForeignKey("店舗.店舗ID"), nullable=False),
                sa.Column("役職", sa.String(20), nullable=False),
                sa.Column("指名料", sa.Integer, nullable=False),
                sa.Column("入社日", sa.Date))
顧客 = sa.Table("顧客", metadata,
              sa.Column("顧客ID", sa.Integer, primary_key=True, autoincrement=False),
              sa.Column("氏名", sa.String(40), nullable=False),
              sa.Column("フリガナ", sa.String(60)),
              sa.Column("性別", sa.String(2)),
              sa.Column("生年月日", sa.Date),
              sa.Column("電話番号", sa.String(20)),
              sa.Column("登録日", sa.Date, nullable=False))
メニュー = sa.Table("メニュー", metadata,
                sa.Column("メニューID", sa.Integer, primary_key=True, autoincrement=False),
                sa.Column("メニュー名", sa.String(40), nullable=False),
                sa.Column("分類", sa.String(20), nullable=False),
                sa.Column("料金", sa.Integer, nullable=False),
                sa.Column("所要時間（分）", sa.Integer, nullable=False))
来店 = sa.Table("来店", metadata,
              sa.Column("来店ID", sa.Integer, primary_key=True, autoincrement=False),
              sa.Column("顧客ID", sa.Integer, sa.ForeignKey("顧客.顧客ID"), nullable=False),
              sa.Column("スタッフID", sa.Integer, sa.ForeignKey("スタッフ.スタッフID"), nullable=False),
              sa.Column("店舗ID", sa.Integer, sa.ForeignKey("店舗.店舗ID"), nullable=False),
              sa.Column("来店日", sa.Date, nullable=False),
              sa.Column("来店時刻", sa.Time, nullable=False),
              sa.Column("指名フラグ", sa.Boolean, nullable=False),
              sa.Column("支払方法", sa.String(10), nullable=False),
              sa.Column("合計金額", sa.Integer, nullable=False),
              sa.Column("備考", sa.String(200)))
施術明細 = sa.Table("施術明細", metadata,
                sa.Column("明細ID", sa.Integer, primary_key=True, autoincrement=False),
                sa.Column("来店ID", sa.Integer, sa.ForeignKey("来店.来店ID"), nullable=False),
                sa.Column("メニューID", sa.Integer, sa.ForeignKey("メニュー.メニューID"), nullable=False),
                sa.Column("数量", sa.Integer, nullable=False),
                sa.Column("単価", sa.Integer, nullable=False),
                sa.Column("金額", sa.Integer, nullable=False))
予約 = sa.Table("予約", metadata,
              sa.Column("予約ID", sa.Integer, primary_key=True, autoincrement=False),
              sa.Column("顧客ID", sa.Integer, sa.ForeignKey("顧客.顧客ID"), nullable=False),
              sa.Column("店舗ID", sa.Integer, sa.ForeignKey("店舗.店舗ID"), nullable=False),
              sa.Column("スタッフID", sa.Integer, sa.ForeignKey("スタッフ.スタッフID")),
              sa.Column("予約日時", sa.DateTime, nullable=False),
              sa.Column("状態", sa.String(10), nullable=False),
              sa.Column("来店ID", sa.Integer, sa.ForeignKey("来店.来店ID")),
              sa.Column("受付日時", sa.DateTime, nullable=False))

# --- the data ------------------------------------------------------------------------------------------
_SHOPS = [("渋谷店", "03-3461-2201", "東京都渋谷区宇田川町12-3"),
          ("新宿店", "03-3354-7810", "東京都新宿区新宿3-24-1"),
          ("新宿東口店", "03-5367-0452", "東京都新宿区新宿3-36-6")]
# 氏名, shop, 役職, 指名料
_STAFF = [("山口　拓也", 1, "店長", 1100), ("田中　美咲", 1, "スタイリスト", 550),
          ("小川　亮", 1, "スタイリスト", 550), ("森　彩花", 1, "スタイリスト", 550),
          ("石井　蓮", 1, "スタイリスト", 550), ("松井　優奈", 1, "アシスタント", 0),
          ("野口　陸", 1, "アシスタント", 0),
          ("大塚　健司", 2, "店長", 1100), ("菅原　真央", 2, "スタイリスト", 550),
          ("岩崎　大和", 2, "スタイリスト", 550), ("平野　葵", 2, "スタイリスト", 550),
          ("久保　美月", 2, "アシスタント", 0), ("杉山　海斗", 2, "アシスタント", 0),
          ("桑原　里奈", 3, "店長", 1100), ("千葉　悠真", 3, "スタイリスト", 550),
          ("市川　七海", 3, "スタイリスト", 550), ("田中　翔", 3, "アシスタント", 0),
          ("荒木　芽衣", 3, "アシスタント", 0)]
# メニュー名, 分類, 料金, 所要時間（分）
_MENUS = [("カット", "カット", 4950, 60), ("前髪カット", "カット", 1100, 15), ("カラー", "カラー", 6600, 90),
          ("リタッチカラー", "カラー", 5500, 75), ("カット＋カラー", "セット", 9900, 120),
          ("パーマ", "パーマ", 8800, 90), ("カット＋パーマ", "セット", 12100, 150), ("縮毛矯正", "パーマ", 18700, 180),
          ("トリートメント", "ケア", 3300, 30), ("ヘッドスパ", "ケア", 4400, 30),
          ("ホームケアシャンプー", "店販", 3300, 0), ("ヘアオイル", "店販", 2750, 0)]
_CUT, _FRINGE, _TREATMENT, _SPA, _SHAMPOO, _OIL = 1, 2, 9, 10, 11, 12
_MAIN = [(1, 34), (2, 7), (3, 10), (4, 7), (5, 20), (6, 5), (7, 8), (8, 3), (10, 6)]  # a visit's main menu, weight
_ASSISTANT_WORK = {_FRINGE, _SPA}  # what an assistant does alone

_FAMILIES = [("高橋", "タカハシ"), ("渡辺", "ワタナベ"), ("山本", "ヤマモト"), ("小林", "コバヤシ"),
             ("加藤", "カトウ"), ("吉田", "ヨシダ"), ("山田", "ヤマダ"), ("佐々木", "ササキ"),
             ("松本", "マツモト"), ("井上", "イノウエ"), ("木村", "キムラ"), ("林", "ハヤシ"),
             ("斎藤", "サイトウ"), ("清水", "シミズ"), ("山崎", "ヤマザキ"), ("阿部", "アベ"),
             ("池田", "イケダ"), ("橋本", "ハシモト"), ("山下", "ヤマシタ"), ("石川", "イシカワ"),
             ("中島", "ナカジマ"), ("前田", "マエダ"), ("藤田", "フジタ"), ("後藤", "ゴトウ"),
             ("岡田", "オカダ"), ("長谷川", "ハセガワ"), ("村上", "ムラカミ"), ("近藤", "コンドウ"),
             ("石田", "イシダ"), ("坂本", "サカモト"), ("遠藤", "エンドウ"), ("青木", "アオキ"),
             ("藤井", "フジイ"), ("西村", "ニシムラ"), ("福田", "フクダ"), ("太田", "オオタ"),
             ("三浦", "ミウラ"), ("藤原", "フジワラ"), ("岡本", "オカモト"), ("松田", "マツダ"),
             ("中川", "ナカガワ"), ("中野", "ナカノ"), ("原田", "ハラダ"), ("小野", "オノ"),
             ("竹内", "タケウチ")]
_WOMEN = [("陽子", "ヨウコ"), ("美香", "ミカ"), ("由紀", "ユキ"), ("さくら", "サクラ"), ("愛", "アイ"),
          ("真由美", "マユミ"), ("千尋", "チヒロ"), ("直美", "ナオミ"), ("結衣", "ユイ"), ("明日香", "アスカ"),
          ("舞", "マイ"), ("彩", "アヤ"), ("香織", "カオリ"), ("沙織", "サオリ"), ("玲奈", "レイナ"),
          ("菜々子", "ナナコ")]
_MEN = [("健", "ケン"), ("大輔", "ダイスケ"), ("翔太", "ショウタ"), ("拓海", "タクミ"), ("浩二", "コウジ"),
        ("隆", "タカシ"), ("和也", "カズヤ"), ("悠斗", "ユウト"), ("直樹", "ナオキ"), ("誠", "マコト")]
# The customers the traps are made of (ids 1 to 4), with how often each comes (everyone else: 1).
_NAMED = [("佐藤", "サトウ", "花子", "ハナコ", "女", date(1988, 3, 14), 3.2),
          ("佐藤", "サトウ", "健太", "ケンタ", "男", date(1985, 11, 2), 3.2),
          ("伊藤", "イトウ", "花子", "ハナコ", "女", date(1979, 7, 25), 1.5),
          ("中村", "ナカムラ", "由美", "ユミ", "女", date(1972, 5, 8), 4.5)]
_TOP_SPENDER = 4
_CUSTOMERS = 420
_PAYMENT = ["現金"] * 8 + ["カード"] * 7 + ["QR"] * 5
_NOTES = [None] * 14 + ["次回カラー希望", "敏感肌", "初回", "担当変更希望", "ポイント利用"]


def _customers(rng: random.Random) -> tuple[list[dict], list[float]]:
    people = list(_NAMED)
    seen = {f"{f}　{g}" for f, _, g, _, _, _, _ in _NAMED}
    while len(people) < _CUSTOMERS:
        family, kana = rng.choice(_FAMILIES)
        sex = "女" if rng.random() < 0.7 else "男"
        given, given_kana = rng.choice(_WOMEN if sex == "女" else _MEN)
        if f"{family}　{given}" in seen:
            continue
        seen.add(f"{family}　{given}")
        born = date(1950, 1, 1) + timedelta(days=rng.randrange(365 * 55))
        people.append((family, kana, given, given_kana, sex, born, 1.0))
    rows, weights = [], []
    for i, (family, kana, given, given_kana, sex, born, weight) in enumerate(people, start=1):
        rows.append({"顧客ID": i, "氏名": f"{family}　{given}", "フリガナ": f"{kana}　{given_kana}", "性別": sex,
                     "生年月日": born, "電話番号": f"090-{rng.randrange(1000, 9999)}-{rng.randrange(1000, 9999)}",
                     "登録日": date(2019, 4, 1) + timedelta(days=rng.randrange(2100))})
        weights.append(weight)
    return rows, weights


def _staff_of(shop: int, role: str | None = None) -> list[int]:
    return [i for i, (_, s, r, _) in enumerate(_STAFF, start=1) if s == shop and (role is None or (r == role))]


def _booking(rng: random.Random, customer: dict, shop: int, at: datetime, state: str) -> dict:
    """A booking that did not become a visit: cancelled, or still to come."""
    return {"予約ID": 0, "顧客ID": customer["顧客ID"], "店舗ID": shop,
            "スタッフID": rng.choice(_staff_of(shop)) if rng.random() < 0.5 else None,
            "予約日時": at, "状態": state, "来店ID": None,
            "受付日時": at - timedelta(days=rng.randint(1, 20), hours=rng.randint(1, 9))}


def _menus_of(rng: random.Random, big: bool) -> list[int]:
    """What one visit had done (and bought): a main menu, maybe a treatment, a head spa, a retail item."""
    main = 5 if big else rng.choices([m for m, _ in _MAIN], weights=[w for _, w in _MAIN])[0]
    menus = [main]
    if big or (main != _TREATMENT and rng.random() < 0.3):
        menus.append(_TREATMENT)
    if main != _SPA and rng.random() < 0.1:
        menus.append(_SPA)
    if rng.random() < 0.12:
        menus.append(_SHAMPOO if rng.random() < 0.6 else _OIL)
    return menus


def _visit(rng: random.Random, visit: int, customer: dict, shop: int, at: datetime, first: bool,
           lines: list[dict]) -> dict:
    """One visit, its lines added to `lines`; 合計金額 is the lines' 金額 plus the 指名料 when nominated."""
    menus = _menus_of(rng, customer["顧客ID"] == _TOP_SPENDER)
    if set(menus) <= _ASSISTANT_WORK and rng.random() < 0.6:
        staff = rng.choice(_staff_of(shop, "アシスタント"))
        nominated = rng.random() < 0.35
    else:
        staff = rng.choice(_staff_of(shop, "店長") + _staff_of(shop, "スタイリスト"))
        nominated = rng.random() < 0.45
    first = first and rng.random() < 0.2
    total = 0
    for menu in menus:
        price = _MENUS[menu - 1][2]
        retail = menu in (_SHAMPOO, _OIL)
        unit = price if retail or not first else (price * 9 // 10 + 5) // 10 * 10  # 初回10%off
        quantity = rng.choice([1, 1, 1, 2, 2, 3]) if retail else 1
        lines.append({"明細ID": len(lines) + 1, "来店ID": visit, "メニューID": menu, "数量": quantity,
                      "単価": unit, "金額": unit * quantity})
        total += unit * quantity
    if nominated:
        total += _STAFF[staff - 1][3]
    return {"来店ID": visit, "顧客ID": customer["顧客ID"], "スタッフID": staff, "店舗ID": shop,
            "来店日": at.date(), "来店時刻": at.time(), "指名フラグ": nominated,
            "支払方法": rng.choice(_PAYMENT), "合計金額": total, "備考": "初回" if first else rng.choice(_NOTES)}


def _visits(rng: random.Random, customers: list[dict], weights: list[float]
            ) -> tuple[list[dict], list[dict], list[dict]]:
    visits: list[dict] = []
    lines: list[dict] = []
    bookings: list[dict] = []
    seen: set[int] = set()
    day = _FIRST_DAY
    while day <= _LAST_BOOKING:
        for shop in (1, 2, 3) if day.weekday() != 1 else ():  # closed on Tuesdays
            busy = 4 if day.weekday() < 5 else 7
            for _ in range(rng.randint(busy - 2, busy + 2)):
                customer = rng.choices(customers, weights=weights)[0]
                at = datetime.combine(day, time(10 + rng.randrange(18) // 2, 30 * rng.randrange(2)))
                if day >= TODAY:  # still to come: a booking only, none of tomorrow's cancelled
                    cancelled = day != TODAY + timedelta(days=1) and rng.random() < 0.06
                    bookings.append(_booking(rng, customer, shop, at, "キャンセル" if cancelled else "予約済"))
                elif rng.random() < 0.11:  # booked, then cancelled
                    bookings.append(_booking(rng, customer, shop, at, "キャンセル"))
                else:
                    visit = _visit(rng, len(visits) + 1, customer, shop, at, customer["顧客ID"] not in seen, lines)
                    seen.add(customer["顧客ID"])
                    visits.append(visit)
                    if rng.random() < 0.7:  # booked ahead; the others walked in
                        nominated = visit["スタッフID"] if visit["指名フラグ"] else None
                        bookings.append({"予約ID": 0, "顧客ID": customer["顧客ID"], "店舗ID": shop,
                                         "スタッフID": nominated, "予約日時": at, "状態": "来店",
                                         "来店ID": visit["来店ID"],
                                         "受付日時": at - timedelta(days=rng.randint(0, 20), hours=rng.randint(1, 9))})
        day += timedelta(days=1)
    bookings.sort(key=lambda b: b["受付日時"])
    for i, booking in enumerate(bookings, start=1):
        booking["予約ID"] = i
    return visits, lines, bookings


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(SEED)
    customers, weights = _customers(rng)
    visits, lines, bookings = _visits(rng, customers, weights)
    return {
        店舗: [{"店舗ID": i, "店舗名": n, "電話番号": p, "住所": a} for i, (n, p, a) in enumerate(_SHOPS, start=1)],
        スタッフ: [{"スタッフID": i, "氏名": n, "店舗ID": s, "役職": r, "指名料": fee,
                 "入社日": date(2012 + i % 11, 4, 1)} for i, (n, s, r, fee) in enumerate(_STAFF, start=1)],
        顧客: customers,
        メニュー: [{"メニューID": i, "メニュー名": n, "分類": c, "料金": p, "所要時間（分）": m}
                for i, (n, c, p, m) in enumerate(_MENUS, start=1)],
        来店: visits,
        施術明細: lines,
        予約: bookings,
    }


def create(url: str) -> None:
    """The tables and the seeded data, the same on SQLite and PostgreSQL."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
_MAY = ("2025-05-01", "2025-06-01")
_APRIL = ("2025-04-01", "2025-05-01")
_JUNE = ("2025-06-01", "2025-07-01")
_LAST_WEEK = ("2025-06-09", "2025-06-16")
_TOMORROW = ("2025-06-19", "2025-06-20")


def _on(column: str, period: tuple[str, str]) -> str:
    return f"{column} >= '{period[0]}' AND {column} < '{period[1]}'"


def _visits_of(what: str, where: str) -> str:
    """One figure over the visits (v) that match, with their shop (s), staff (st) and customer (c)."""
    return ('SELECT ' + what + ' FROM "来店" v JOIN "店舗" s ON s."店舗ID" = v."店舗ID" '
            'JOIN "スタッフ" st ON st."スタッフID" = v."スタッフID" JOIN "顧客" c ON c."顧客ID" = v."顧客ID" '
            'WHERE ' + where)


def _count(where: str) -> str:
    return _visits_of("COUNT(*)", where)


def _sales(where: str) -> str:
    return _visits_of('SUM(v."合計金額")', where)


def _lines_of(what: str, where: str) -> str:
    """One figure over the lines (d) that match, with their menu (m), visit (v) and its shop (s) and customer (c)."""
    return ('SELECT ' + what + ' FROM "施術明細" d JOIN "メニュー" m ON m."メニューID" = d."メニューID" '
            'JOIN "来店" v ON v."来店ID" = d."来店ID" JOIN "店舗" s ON s."店舗ID" = v."店舗ID" '
            'JOIN "顧客" c ON c."顧客ID" = v."顧客ID" WHERE ' + where)


def _beside(where: str) -> list[str]:
    """What an answer on the sales of some visits may add: how many visits, and what their lines add up to."""
    return [_count(where), _lines_of('SUM(d."金額")', where)]


def _booked(where: str) -> str:
    return 'SELECT COUNT(*) FROM "予約" WHERE ' + where


_DAY = 'v."来店日"'
_BOOKED_AT = '"予約日時"'
_IN_MAY = _on(_DAY, _MAY)
_SHINJUKU_MAY = f"s.\"店舗名\" = '新宿店' AND {_IN_MAY}"
_TANAKA_JUNE = "st.\"氏名\" = '田中　美咲' AND v.\"指名フラグ\" AND " + _on(_DAY, _JUNE)
_HANAKO = "c.\"氏名\" = '佐藤　花子'"
_BY_STAFF = 'SELECT "スタッフID" AS sid, SUM("合計金額") AS total, COUNT(*) AS n FROM "来店" GROUP BY "スタッフID"'
_BY_CUSTOMER = 'SELECT "顧客ID" AS sid, SUM("合計金額") AS total, COUNT(*) AS n FROM "来店" GROUP BY "顧客ID"'
_BY_SHOP_MAY = ('SELECT "店舗ID" AS sid, SUM("合計金額") AS total, COUNT(*) AS n FROM "来店" '
                'WHERE ' + _on('"来店日"', _MAY) + ' GROUP BY "店舗ID"')
_SHIBUYA_STAFF = 'SELECT "氏名" FROM "スタッフ" WHERE "店舗ID" = 1 ORDER BY "スタッフID" LIMIT 1 OFFSET {}'
_TREATMENT_MAY = f"m.\"メニュー名\" = 'トリートメント' AND {_IN_MAY}"
_SPA_MAY = "m.\"メニュー名\" = 'ヘッドスパ' AND " + _IN_MAY
_SHAMPOO_SOLD = "m.\"メニュー名\" = 'ホームケアシャンプー'"


def _top(ranking: str, table: str, key: str, column: str) -> str:
    return (f'SELECT t."{column}" FROM "{table}" t JOIN ({ranking}) x ON x.sid = t."{key}" '
            f'ORDER BY x.total DESC, x.sid LIMIT 1')


QUESTIONS = [
    Question("sa_customers", "顧客は何人？", ['SELECT COUNT(*) FROM "顧客"'], "count"),
    Question("sa_customers_en", "How many customers do we have?", ['SELECT COUNT(*) FROM "顧客"'], "count"),
    Question("sa_shinjuku_staff", "新宿店のスタッフは何人",
             ["SELECT COUNT(*) FROM \"スタッフ\" st JOIN \"店舗\" s ON s.\"店舗ID\" = st.\"店舗ID\" "
              "WHERE s.\"店舗名\" = '新宿店'"], "count_in_category"),
    Question("sa_visits_may", "先月の来店は何件？", [_count(_IN_MAY)], "total_in_period",
             may_state=[_sales(_IN_MAY)]),
    Question("sa_visits_april", "先々月は？", [_count(_on(_DAY, _APRIL))], "follow_up",
             follow_up="sa_visits_may", may_state=[_sales(_on(_DAY, _APRIL))]),
    Question("sa_sales_may", "先月の売上合計", [_sales(_IN_MAY)], "total_in_period", may_state=_beside(_IN_MAY)),
    Question("sa_sales_may_cash", "そのうち現金払いは？", [_sales(f"{_IN_MAY} AND v.\"支払方法\" = '現金'")],
             "follow_up", follow_up="sa_sales_may",
             may_state=[*_beside(f"{_IN_MAY} AND v.\"支払方法\" = '現金'"), _sales(_IN_MAY)]),
    Question("sa_sales_shinjuku", "新宿店の先月の売上", [_sales(_SHINJUKU_MAY)], "total_in_period",
             may_state=_beside(_SHINJUKU_MAY)),
    Question("sa_tanaka_nominations", "スタイリストの田中さんの今月の指名数", [_count(_TANAKA_JUNE)],
             "count_by_entity_name", may_state=[_sales(_TANAKA_JUNE)]),
    Question("sa_top_staff", "いちばん売上が多いスタッフは？",
             [_top(_BY_STAFF, "スタッフ", "スタッフID", "氏名"), f"SELECT MAX(total) FROM ({_BY_STAFF}) x"],
             "top_entity", may_state=[f"SELECT n FROM ({_BY_STAFF}) x ORDER BY total DESC, sid LIMIT 1"]),
    Question("sa_cut_lines", "カットは何回出た？", [_lines_of("COUNT(*)", "m.\"メニュー名\" = 'カット'")],
             "count_in_category", may_state=[_lines_of('SUM(d."金額")', "m.\"メニュー名\" = 'カット'")]),
    Question("sa_customer12_visits", "顧客番号12の来店回数", ['SELECT COUNT(*) FROM "来店" WHERE "顧客ID" = 12'],
             "per_entity_key", may_state=[_sales('v."顧客ID" = 12')]),  # as the other counts of visits allow
    Question("sa_customer12_sales", "その人の売上合計は？", ['SELECT SUM("合計金額") FROM "来店" WHERE "顧客ID" = 12'],
             "follow_up", follow_up="sa_customer12_visits", may_state=[*_beside('v."顧客ID" = 12')]),
    Question("sa_cash_visits", "現金払いの来店は何件", [_count("v.\"支払方法\" = '現金'")], "count_in_category",
             may_state=[_sales("v.\"支払方法\" = '現金'")]),
    Question("sa_top_customer", "売上がいちばん多い顧客は？",
             [_top(_BY_CUSTOMER, "顧客", "顧客ID", "氏名"), f"SELECT MAX(total) FROM ({_BY_CUSTOMER}) x"],
             "top_entity", may_state=[f"SELECT n FROM ({_BY_CUSTOMER}) x ORDER BY total DESC, sid LIMIT 1"]),
    Question("sa_last_week_en", "How many visits last week?", [_count(_on(_DAY, _LAST_WEEK))],
             "total_in_period", may_state=[_sales(_on(_DAY, _LAST_WEEK))]),
    Question("sa_cancelled", "キャンセルされた予約は何件？", [_booked("\"状態\" = 'キャンセル'")], "count_in_category"),
    Question("sa_booked_visited_may", "先月の予約で来店になったのは何件",
             [_booked(f"\"状態\" = '来店' AND {_on(_BOOKED_AT, _MAY)}")], "count_in_category",
             may_state=[_booked(_on(_BOOKED_AT, _MAY))]),
    Question("sa_hanako_visits", "佐藤花子さんの来店回数は？", [_count(_HANAKO)], "count_by_entity_name",
             may_state=[_sales(_HANAKO)]),
    Question("sa_hanako_nominated", "そのうち指名は何回", [_count(f'{_HANAKO} AND v."指名フラグ"')], "follow_up",
             follow_up="sa_hanako_visits", may_state=[_count(_HANAKO)]),
    Question("sa_color_menus", "カラー系のメニューは何種類ある？",
             ["SELECT COUNT(*) FROM \"メニュー\" WHERE \"分類\" = 'カラー'"],
             "count_in_category"),
    Question("sa_treatment_sales_may", "先月のトリートメントの売上いくら", [_lines_of('SUM(d."金額")', _TREATMENT_MAY)],
             "sum_lines", may_state=[_lines_of("COUNT(*)", _TREATMENT_MAY)]),
    Question("sa_shampoo_units", "シャンプー何本売れた？", [_lines_of('SUM(d."数量")', _SHAMPOO_SOLD)], "sum_lines",
             may_state=[_lines_of("COUNT(*)", _SHAMPOO_SOLD), _lines_of('SUM(d."金額")', _SHAMPOO_SOLD)]),
    Question("sa_shibuya_staff", "渋谷店のスタッフ一覧", [_SHIBUYA_STAFF.format(k) for k in range(7)], "list_filtered",
             may_state=['SELECT COUNT(*) FROM "スタッフ" WHERE "店舗ID" = 1']),
    Question("sa_women", "女性のお客様は何人？", ["SELECT COUNT(*) FROM \"顧客\" WHERE \"性別\" = '女'"],
             "count_in_category"),
    Question("sa_top_shop_en", "Which store had the highest sales last month?",
             [_top(_BY_SHOP_MAY, "店舗", "店舗ID", "店舗名"), f"SELECT MAX(total) FROM ({_BY_SHOP_MAY}) x"],
             "top_entity", may_state=[f"SELECT n FROM ({_BY_SHOP_MAY}) x ORDER BY total DESC, sid LIMIT 1"]),
    Question("sa_june_en", "sales so far this month?", [_sales(_on(_DAY, _JUNE))], "total_in_period",
             may_state=_beside(_on(_DAY, _JUNE))),
    Question("sa_tomorrow", "明日の予約は何件入ってる？", [_booked(_on(_BOOKED_AT, _TOMORROW))], "total_in_period"),
    Question("sa_nominated_may", "先月の指名は何件", [_count(f'{_IN_MAY} AND v."指名フラグ"')], "count_in_category",
             may_state=[_sales(f'{_IN_MAY} AND v."指名フラグ"')]),
    Question("sa_headspa_may", "ヘッドスパは先月何件？", [_lines_of("COUNT(*)", _SPA_MAY)], "count_in_category",
             may_state=[_lines_of('SUM(d."金額")', _SPA_MAY)]),
]


def traps(url: str) -> None:
    """Two 佐藤 who together (not apart) spent more than the top customer; two 花子; two staff 田中, both nominated
    this month; カット beside カット＋カラー, 新宿店 beside 新宿東口店; カラー a menu and a 分類, 来店 a table and a
    状態; a visit's 合計金額 beside its lines' 金額; 単価 below 料金 and 数量 above 1; walk-ins without a booking;
    bookings after today still 予約済, none of tomorrow's cancelled."""
    sato = ('SELECT SUM(v."合計金額") FROM "来店" v JOIN "顧客" c ON c."顧客ID" = v."顧客ID" '
            "WHERE c.\"氏名\" LIKE '佐藤　%' GROUP BY c.\"顧客ID\" ORDER BY c.\"顧客ID\" LIMIT 1 OFFSET {}")
    hanako, kenta = scalar(url, sato.format(0)), scalar(url, sato.format(1))
    top = scalar(url, f"SELECT MAX(total) FROM ({_BY_CUSTOMER}) x")
    assert max(hanako, kenta) < top < hanako + kenta
    assert scalar(url, "SELECT COUNT(*) FROM \"顧客\" WHERE \"氏名\" LIKE '佐藤　%'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM \"顧客\" WHERE \"氏名\" LIKE '%　花子'") == 2
    assert scalar(url, 'SELECT COUNT(DISTINCT "氏名") FROM "顧客"') == scalar(url, 'SELECT COUNT(*) FROM "顧客"')
    assert scalar(url, _top(_BY_CUSTOMER, "顧客", "顧客ID", "氏名")) == "中村　由美"
    # two 田中 on the staff, both nominated this month
    assert scalar(url, "SELECT COUNT(*) FROM \"スタッフ\" WHERE \"氏名\" LIKE '田中　%'") == 2
    assert scalar(url, _count(_TANAKA_JUNE)) > 0
    assert scalar(url, _count("st.\"氏名\" = '田中　翔' AND v.\"指名フラグ\" AND " + _on(_DAY, _JUNE))) > 0
    # a substring is broader than the name asked
    assert scalar(url, "SELECT COUNT(*) FROM \"メニュー\" WHERE \"メニュー名\" LIKE '%カット%'") == 4
    assert scalar(url, "SELECT COUNT(*) FROM \"店舗\" WHERE \"店舗名\" LIKE '新宿%'") == 2
    assert scalar(url, _count("s.\"店舗名\" = '新宿東口店' AND " + _IN_MAY)) > 0
    assert scalar(url, _lines_of("COUNT(*)", "m.\"メニュー名\" = 'カット＋カラー'")) > 0
    # カラー a menu and a 分類; 来店 a table and a 状態
    assert scalar(url, "SELECT COUNT(*) FROM \"メニュー\" WHERE \"メニュー名\" = 'カラー' AND \"分類\" = 'カラー'") == 1
    assert scalar(url, "SELECT COUNT(*) FROM \"メニュー\" WHERE \"メニュー名\" LIKE '%カラー%'") == 3
    assert scalar(url, _booked("\"状態\" = '来店'")) < scalar(url, 'SELECT COUNT(*) FROM "来店"')
    assert scalar(url, _booked(f"\"状態\" = '来店' AND {_on(_BOOKED_AT, _MAY)}")) < scalar(
        url, _count(_IN_MAY))
    # a visit's 合計金額 is more than its lines' 金額 (指名料), and a join to the lines counts it once per line
    visits_total = scalar(url, 'SELECT SUM("合計金額") FROM "来店"')
    assert scalar(url, 'SELECT SUM(d."金額") FROM "施術明細" d') < visits_total
    joined = 'SELECT SUM(v."合計金額") FROM "来店" v JOIN "施術明細" d ON d."来店ID" = v."来店ID"'
    assert scalar(url, joined) > visits_total
    # 単価 below 料金 (first-visit discount); 数量 above 1 (retail)
    assert scalar(url, 'SELECT COUNT(*) FROM "施術明細" d JOIN "メニュー" m ON m."メニューID" = d."メニューID" '
                       'WHERE d."単価" < m."料金"') > 0
    assert scalar(url, 'SELECT COUNT(*) FROM "施術明細" WHERE "数量" > 1') > 0
    assert scalar(url, 'SELECT SUM("単価") FROM "施術明細"') != scalar(url, 'SELECT SUM("金額") FROM "施術明細"')
    # bookings after today still 予約済, none of tomorrow's cancelled; visits recorded up to yesterday
    assert scalar(url, _booked("\"状態\" = '予約済' AND \"予約日時\" >= '2025-06-19'")) > 0
    assert scalar(url, _booked("\"状態\" <> '予約済' AND \"予約日時\" >= '2025-06-18'")) > 0  # later cancellations
    assert scalar(url, _booked(f"\"状態\" = 'キャンセル' AND {_on(_BOOKED_AT, _TOMORROW)}")) == 0
    assert scalar(url, 'SELECT COUNT(*) FROM "来店" WHERE "来店日" >= \'2025-06-18\'') == 0
