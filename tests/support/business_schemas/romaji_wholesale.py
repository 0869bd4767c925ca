"""A Japanese food wholesaler whose identifiers are romaji: m_ masters, t_ transactions, _cd codes, _mei names.

What it holds that a careless draft gets wrong: tables and columns named in romaji (m_tokuisaki is the
customer master, tokuisaki_mei a name, gokei_kingaku an amount in yen); text codes as keys ('T0001',
'S01'); an order's kind as a column (juchu_kbn: 受注, 見積, 取消) beside the noun 受注 itself;
two customers sharing a word (株式会社山田商店 and 山田商事株式会社); order lines with a composite key.
On PostgreSQL every table and column has a Japanese comment; SQLite has none.

Figures count every row a table holds unless the question names a kind: a 見積 is still a row of
t_juchu, and 「受注件数」 counts the rows of t_juchu.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

import sqlalchemy as sa

from business_schemas import Question, load, scalar

TODAY = date(2025, 10, 8)  # a Wednesday: 先月 is September 2025, 先週 2025-09-29 .. 2025-10-05
SEED = 2024
FIRST_DAY = date(2024, 4, 1)
FIRST_ORDER = 1001

metadata = sa.MetaData()


def _col(name: str, type_: sa.types.TypeEngine | type[sa.types.TypeEngine], comment: str, *args, **kw) -> sa.Column:
    return sa.Column(name, type_, *args, comment=comment, **kw)


m_tantosha = sa.Table(
    "m_tantosha", metadata,
    _col("tanto_sha_cd", sa.String(3), "担当者コード", primary_key=True),
    _col("shimei", sa.String(20), "氏名", nullable=False),
    _col("busho", sa.String(20), "部署"),
    comment="担当者マスタ")
m_tokuisaki = sa.Table(
    "m_tokuisaki", metadata,
    _col("tokuisaki_cd", sa.String(5), "得意先コード", primary_key=True),
    _col("tokuisaki_mei", sa.String(60), "得意先名", nullable=False),
    _col("tokuisaki_mei_kana", sa.String(60), "得意先名カナ"),
    _col("todofuken", sa.String(4), "都道府県"),
    _col("tanto_sha_cd", sa.String(3), "担当者コード", sa.ForeignKey("m_tantosha.tanto_sha_cd")),
    comment="得意先マスタ")
m_shohin = sa.Table(
    "m_shohin", metadata,
    _col("shohin_cd", sa.String(5), "商品コード", primary_key=True),
    _col("shohin_mei", sa.String(40), "商品名", nullable=False),
    _col("shohin_kbn", sa.String(10), "商品区分", nullable=False),
    _col("hyojun_tanka", sa.Integer, "標準単価", nullable=False),
    comment="商品マスタ")
t_juchu = sa.Table(
    "t_juchu", metadata,
    _col("juchu_no", sa.Integer, "受注番号", primary_key=True, autoincrement=False),
    _col("tokuisaki_cd", sa.String(5), "得意先コード", sa.ForeignKey("m_tokuisaki.tokuisaki_cd"), nullable=False,
         index=True),
    _col("juchu_bi", sa.Date, "受注日", nullable=False, index=True),
    _col("juchu_kbn", sa.String(4), "受注区分", nullable=False),
    _col("gokei_kingaku", sa.Integer, "合計金額", nullable=False),
    comment="受注")
t_juchu_meisai = sa.Table(
    "t_juchu_meisai", metadata,
    _col("juchu_no", sa.Integer, "受注番号", sa.ForeignKey("t_juchu.juchu_no"), primary_key=True),
    _col("gyo_no", sa.SmallInteger, "行番号", primary_key=True),
    _col("shohin_cd", sa.String(5), "商品コード", sa.ForeignKey("m_shohin.shohin_cd"), nullable=False, index=True),
    _col("suryo", sa.Integer, "数量", nullable=False),
    _col("tanka", sa.Integer, "単価", nullable=False),
    _col("kingaku", sa.Integer, "金額", nullable=False),
    comment="受注明細")

TANTOSHA = [("S01", "佐藤 一郎", "営業一課"), ("S02", "鈴木 花子", "営業一課"), ("S03", "高橋 健", "営業二課"),
            ("S04", "田中 美咲", "営業二課"), ("S05", "伊藤 誠", "営業三課"), ("S06", "渡辺 直子", "営業三課")]
TOKUISAKI = [  # name, kana, prefecture, person in charge, orders placed
    ("株式会社山田商店", "ヤマダショウテン", "東京都", "S01", 40),
    ("山田商事株式会社", "ヤマダショウジ", "大阪府", "S02", 30),
    ("有限会社佐藤食品", "サトウショクヒン", "神奈川県", "S03", 25),
    ("株式会社丸井物産", "マルイブッサン", "東京都", "S01", 35),
    ("東海フーズ株式会社", "トウカイフーズ", "愛知県", "S04", 28),
    ("北海道乳業株式会社", "ホッカイドウニュウギョウ", "北海道", "S05", 20),
    ("株式会社さくら商会", "サクラショウカイ", "東京都", "S02", 33),
    ("合同会社青葉", "アオバ", "宮城県", "S05", 12),
    ("株式会社みどり屋", "ミドリヤ", "福岡県", "S06", 22),
    ("大和商店", "ヤマトショウテン", "奈良県", "S04", 15),
    ("株式会社浪速食品", "ナニワショクヒン", "大阪府", "S02", 60),
    ("京都老舗本舗株式会社", "キョウトシニセホンポ", "京都府", "S03", 18),
    ("株式会社博多うまか", "ハカタウマカ", "福岡県", "S06", 26),
    ("有限会社富士見屋", "フジミヤ", "静岡県", "S04", 14),
    ("株式会社東京デリカ", "トウキョウデリカ", "東京都", "S01", 45),
    ("株式会社横浜マート", "ヨコハママート", "神奈川県", "S03", 30),
    ("株式会社千葉ストア", "チバストア", "千葉県", "S01", 16),
    ("埼玉フレッシュ株式会社", "サイタマフレッシュ", "埼玉県", "S02", 21),
    ("株式会社広島屋", "ヒロシマヤ", "広島県", "S06", 11),
    ("株式会社仙台商会", "センダイショウカイ", "宮城県", "S05", 17),
    ("株式会社神戸ベーカリー", "コウベベーカリー", "兵庫県", "S03", 19),
    ("有限会社金沢堂", "カナザワドウ", "石川県", "S04", 9),
    ("株式会社新潟米穀", "ニイガタベイコク", "新潟県", "S05", 13),
    ("株式会社日本橋食材", "ニホンバシショクザイ", "東京都", "S02", 24),
    ("株式会社那覇物産", "ナハブッサン", "沖縄県", "S06", 8),
    ("株式会社ひまわり", "ヒマワリ", "大阪府", None, 10),
]
SHOHIN = [  # name, kind, standard price in yen
    ("緑茶ティーバッグ", "飲料", 380), ("ほうじ茶 200g", "飲料", 520), ("煎茶 100g", "飲料", 980),
    ("麦茶パック", "飲料", 260), ("缶コーヒー 24本", "飲料", 2400), ("ミネラルウォーター 2L×6", "飲料", 780),
    ("醤油 1L", "調味料", 420), ("味噌 1kg", "調味料", 650), ("みりん 1L", "調味料", 580),
    ("米酢 900ml", "調味料", 350),
    ("だしの素 1kg", "調味料", 1800), ("ごま油 600g", "調味料", 720), ("食塩 1kg", "調味料", 180),
    ("米 5kg", "食品", 2600), ("そば 乾麺", "食品", 320), ("うどん 乾麺", "食品", 280), ("焼き海苔 10枚", "食品", 450),
    ("かつお節 500g", "食品", 2900), ("梅干し 1kg", "食品", 2200), ("たくあん", "食品", 300), ("餅 1kg", "食品", 980),
    ("乾燥わかめ", "食品", 400),
    ("台所用洗剤", "日用品", 240), ("食品用ラップ", "日用品", 310), ("紙皿 50枚", "日用品", 420),
    ("割り箸 100膳", "日用品", 350), ("ゴミ袋 45L", "日用品", 290),
]
KINDS = ["受注"] * 22 + ["見積"] * 3 + ["取消"]
# the best seller of September 2025, by quantity and by amount whichever rows are counted: it sells more that month
SEPTEMBER_HIT = "S0018"  # かつお節 500g
YAMADA_SHOTEN = "T0001"


def _juchu_rows(rnd: random.Random) -> tuple[list[dict], list[dict]]:
    placed = [f"T{i:04d}" for i, (*_, n) in enumerate(TOKUISAKI, start=1) for _ in range(n)]
    rnd.shuffle(placed)
    span = (TODAY - FIRST_DAY).days - 1
    juchu_rows, meisai_rows = [], []
    for n, tokuisaki_cd in enumerate(placed):
        juchu_no = FIRST_ORDER + n
        day = FIRST_DAY + timedelta(days=span * n // len(placed))
        if (day.year, day.month) == (2025, 9) and n % 8 == 0:
            tokuisaki_cd = YAMADA_SHOTEN  # a regular that ordered last month
        chosen = rnd.sample(range(1, len(SHOHIN) + 1), rnd.randint(1, 6))
        if day.year == 2025 and day.month == 9 and rnd.random() < 0.7:
            chosen = [int(SEPTEMBER_HIT[1:]), *(c for c in chosen if c != int(SEPTEMBER_HIT[1:]))]
        total = 0
        for gyo_no, shohin in enumerate(chosen, start=1):
            suryo = rnd.choice([1, 2, 3, 5, 10, 12, 20, 24, 30, 50])
            if f"S{shohin:04d}" == SEPTEMBER_HIT and day.month == 9 and day.year == 2025:
                suryo = max(suryo, 30)
            tanka = SHOHIN[shohin - 1][2] * rnd.choice([100, 100, 95, 90]) // 100
            meisai_rows.append({"juchu_no": juchu_no, "gyo_no": gyo_no, "shohin_cd": f"S{shohin:04d}",
                                "suryo": suryo, "tanka": tanka, "kingaku": suryo * tanka})
            total += suryo * tanka
        juchu_rows.append({"juchu_no": juchu_no, "tokuisaki_cd": tokuisaki_cd, "juchu_bi": day,
                           "juchu_kbn": rnd.choice(KINDS), "gokei_kingaku": total})
    return juchu_rows, meisai_rows


def create(url: str) -> None:
    """The tables (with Japanese comments on PostgreSQL) and the seeded data set, on SQLite or PostgreSQL."""
    rnd = random.Random(SEED)
    juchu_rows, meisai_rows = _juchu_rows(rnd)
    rows: dict[sa.Table, list[dict[str, Any]]] = {
        m_tantosha: [{"tanto_sha_cd": c, "shimei": n, "busho": b} for c, n, b in TANTOSHA],
        m_tokuisaki: [{"tokuisaki_cd": f"T{i:04d}", "tokuisaki_mei": n, "tokuisaki_mei_kana": k, "todofuken": p,
                       "tanto_sha_cd": s} for i, (n, k, p, s, _) in enumerate(TOKUISAKI, start=1)],
        m_shohin: [{"shohin_cd": f"S{i:04d}", "shohin_mei": n, "shohin_kbn": k, "hyojun_tanka": p}
                   for i, (n, k, p) in enumerate(SHOHIN, start=1)],
        t_juchu: juchu_rows,
        t_juchu_meisai: meisai_rows,
    }
    load(url, metadata, rows)


_SEPT = "juchu_bi >= '2025-09-01' AND juchu_bi < '2025-10-01'"
_YAMADA = "tokuisaki_cd = (SELECT tokuisaki_cd FROM m_tokuisaki WHERE tokuisaki_mei = '株式会社山田商店')"
_YAMADA_SHOJI = "tokuisaki_cd = (SELECT tokuisaki_cd FROM m_tokuisaki WHERE tokuisaki_mei = '山田商事株式会社')"
_LAST_WEEK = "juchu_bi >= '2025-09-29' AND juchu_bi < '2025-10-06'"
_AUGUST = "juchu_bi >= '2025-08-01' AND juchu_bi < '2025-09-01'"
_JULY = "juchu_bi >= '2025-07-01' AND juchu_bi < '2025-08-01'"
_TOP_CUSTOMER = ("SELECT tokuisaki_cd FROM t_juchu WHERE juchu_bi >= '2025-01-01' GROUP BY tokuisaki_cd "
                 "ORDER BY SUM(gokei_kingaku) DESC LIMIT 1")
_TOP_TANTOSHA = ("SELECT t.tanto_sha_cd FROM t_juchu j JOIN m_tokuisaki t ON t.tokuisaki_cd = j.tokuisaki_cd "
                 "WHERE t.tanto_sha_cd IS NOT NULL GROUP BY t.tanto_sha_cd ORDER BY COUNT(*) DESC LIMIT 1")
_KATSUOBUSHI = "m.shohin_cd = (SELECT shohin_cd FROM m_shohin WHERE shohin_mei = 'かつお節 500g')"
_HIT = ("SELECT m.shohin_cd FROM t_juchu_meisai m JOIN t_juchu j ON j.juchu_no = m.juchu_no "
        f"WHERE j.{_SEPT} GROUP BY m.shohin_cd ORDER BY SUM(m.suryo) DESC LIMIT 1")


def _juchu(where: str) -> list[str]:
    """How many orders, and their total in yen."""
    return [f"SELECT COUNT(*) FROM t_juchu WHERE {where}", f"SELECT SUM(gokei_kingaku) FROM t_juchu WHERE {where}"]


def _meisai(where: str) -> list[str]:
    """How many order lines, the quantity, and the amount in yen."""
    return [f"SELECT {e} FROM t_juchu_meisai m JOIN t_juchu j ON j.juchu_no = m.juchu_no WHERE {where}"
            for e in ("COUNT(*)", "SUM(m.suryo)", "SUM(m.kingaku)")]


def _sales_of_kind(kind: str) -> str:
    return (f"SELECT SUM(m.kingaku) FROM t_juchu_meisai m JOIN m_shohin s ON s.shohin_cd = m.shohin_cd "
            f"WHERE s.shohin_kbn = '{kind}'")


QUESTIONS = [
    Question("tokuisaki", "得意先は全部で何社？", ["SELECT COUNT(*) FROM m_tokuisaki"], "count"),
    Question("shohin", "商品は何品目ありますか", ["SELECT COUNT(*) FROM m_shohin"], "count"),
    Question("tantosha", "担当者は何人？", ["SELECT COUNT(*) FROM m_tantosha"], "count"),
    Question("customers_en", "How many customers do we have?", ["SELECT COUNT(*) FROM m_tokuisaki"], "count"),
    Question("yamada_sept", "山田商店の先月の受注は何件？", _juchu(f"{_YAMADA} AND {_SEPT}")[:1],
             "count_by_entity_name", may_state=_juchu(f"{_YAMADA} AND {_SEPT}")[1:]),
    Question("yamada_shoji_total", "山田商事の受注金額の合計は？", _juchu(_YAMADA_SHOJI)[1:], "count_by_entity_name",
             may_state=_juchu(_YAMADA_SHOJI)[:1]),
    Question("suzuki_customers", "鈴木さんが担当している得意先は何社？",
             ["SELECT COUNT(*) FROM m_tokuisaki t JOIN m_tantosha s ON s.tanto_sha_cd = t.tanto_sha_cd "
              "WHERE s.shimei = '鈴木 花子'"], "count_by_entity_name"),
    Question("juchu_1024", "受注番号1024の合計金額は？", ["SELECT gokei_kingaku FROM t_juchu WHERE juchu_no = 1024"],
             "per_entity_key", may_state=_meisai("j.juchu_no = 1024")[:2]),
    Question("t0005_count", "得意先コードT0005の受注件数は？", _juchu("tokuisaki_cd = 'T0005'")[:1], "per_entity_key",
             may_state=_juchu("tokuisaki_cd = 'T0005'")[1:]),
    Question("juchu_1100_lines", "受注番号1100の明細を見せて", _meisai("j.juchu_no = 1100")[:1], "per_entity_key",
             may_state=_meisai("j.juchu_no = 1100")[1:]),
    Question("hit_last_month", "先月いちばん売れた商品は？",
             [f"SELECT shohin_mei FROM m_shohin WHERE shohin_cd = ({_HIT})"], "top_entity",
             may_state=_meisai(f"j.{_SEPT} AND m.shohin_cd = ({_HIT})")),
    Question("top_customer_2025", "今年いちばん受注金額が大きい得意先は？",
             [f"SELECT tokuisaki_mei FROM m_tokuisaki WHERE tokuisaki_cd = ({_TOP_CUSTOMER})"], "top_entity",
             may_state=_juchu(f"juchu_bi >= '2025-01-01' AND tokuisaki_cd = ({_TOP_CUSTOMER})")),
    Question("top_tantosha", "受注件数がいちばん多い担当者は？",
             [f"SELECT shimei FROM m_tantosha WHERE tanto_sha_cd = ({_TOP_TANTOSHA})"], "top_entity",
             may_state=_juchu("tokuisaki_cd IN (SELECT tokuisaki_cd FROM m_tokuisaki "
                              f"WHERE tanto_sha_cd = ({_TOP_TANTOSHA}))")),
    Question("sales_by_kind", "商品区分ごとの売上", [_sales_of_kind(k) for k in ("飲料", "調味料", "食品", "日用品")],
             "sum_lines"),
    Question("katsuobushi_units", "かつお節 500gは今までに何個売れた？", _meisai(_KATSUOBUSHI)[1:2], "sum_lines",
             may_state=_meisai(_KATSUOBUSHI)[::2]),
    Question("tokyo", "東京都の得意先は何社？", ["SELECT COUNT(*) FROM m_tokuisaki WHERE todofuken = '東京都'"],
             "count_in_category"),
    Question("mitsumori", "受注区分が見積のものは何件？", _juchu("juchu_kbn = '見積'")[:1], "count_in_category",
             may_state=_juchu("juchu_kbn = '見積'")[1:]),
    Question("inryo", "飲料の商品はいくつある？", ["SELECT COUNT(*) FROM m_shohin WHERE shohin_kbn = '飲料'"],
             "count_in_category"),
    Question("torikeshi_list", "取消になった受注を見せて", _juchu("juchu_kbn = '取消'")[:1], "list_filtered",
             may_state=_juchu("juchu_kbn = '取消'")[1:]),
    Question("osaka_list", "大阪府の得意先一覧", ["SELECT COUNT(*) FROM m_tokuisaki WHERE todofuken = '大阪府'"],
             "list_filtered"),
    Question("juchu_last_month", "先月の受注件数", _juchu(_SEPT)[:1], "total_in_period", may_state=_juchu(_SEPT)[1:]),
    Question("mitsumori_last_month", "そのうち見積は何件？", _juchu(f"{_SEPT} AND juchu_kbn = '見積'")[:1],
             "follow_up", follow_up="juchu_last_month", may_state=_juchu(f"{_SEPT} AND juchu_kbn = '見積'")[1:]),
    Question("juchu_last_week", "先週の受注は何件？", _juchu(_LAST_WEEK)[:1], "total_in_period",
             may_state=_juchu(_LAST_WEEK)[1:]),
    Question("amount_aug", "2025年8月の受注金額の合計は？", _juchu(_AUGUST)[1:], "total_in_period",
             may_state=_juchu(_AUGUST)[:1]),
    Question("amount_jul", "7月は？", _juchu(_JULY)[1:], "follow_up", follow_up="amount_aug",
             may_state=_juchu(_JULY)[:1]),
    Question("amount_last_month_en", "Total order amount last month?", _juchu(_SEPT)[1:], "total_in_period",
             may_state=[*_juchu(_SEPT)[:1], *_meisai(_SEPT)[:2]]),  # the orders, or their lines, and units
]


def traps(url: str) -> None:
    """Two customers sharing the word 山田; three 受注区分 values, one of them the noun 受注."""
    assert scalar(url, "SELECT COUNT(*) FROM m_tokuisaki WHERE tokuisaki_mei LIKE '%山田%'") == 2
    assert scalar(url, "SELECT COUNT(DISTINCT juchu_kbn) FROM t_juchu") == 3
