"""A Japanese clinic's booking and billing system: patients, doctors, departments, bookings, payments at the desk.

Identifiers are romaji without table prefixes (kanja 患者, ishi 医師, shinryoka 診療科, yoyaku 予約, kaikei
会計; shimei_sei / shimei_mei for family and given name, seinengappi, yoyaku_nichiji, seikyu_gaku), the
values are Japanese, and on PostgreSQL every table and column has a Japanese COMMENT. What a careless
draft gets wrong is in the data: two patients named 山田 and two named 花子, the 山田 pair together ahead
of the patient billed the most and each alone behind; 内科 beside 心療内科 and 外科 beside 整形外科 (a
substring match is broader than the question); a booking's status, its appointment time beside the
time the record was made (sakusei_nichiji), bookings after today still 予約済; a share of the fee
(futan_wariai) and a display order (hyoji_jun) that are never summed. Money is integer yen.

How the questions are read: a count of bookings counts every booking whatever its status unless the
question names one; "this month" is the whole calendar month, bookings still to come included; a
bill's month is its payment day (shiharai_bi, the day of the visit).
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 11, 19)  # a Wednesday: last month is October 2025, last week Mon 10 to Sun 16 November

_FIRST_DAY, _LAST_DAY = date(2025, 8, 1), date(2025, 11, 30)  # bookings run past TODAY to the end of the month

metadata = sa.MetaData()

shinryoka = sa.Table("shinryoka", metadata,
                     sa.Column("shinryoka_id", sa.Integer, primary_key=True, comment="診療科ID"),
                     sa.Column("shinryoka_mei", sa.String(20), nullable=False, comment="診療科名"),
                     sa.Column("hyoji_jun", sa.Integer, nullable=False, comment="表示順"),
                     comment="診療科")
ishi = sa.Table("ishi", metadata,
                sa.Column("ishi_id", sa.Integer, primary_key=True, comment="医師ID"),
                sa.Column("shimei_sei", sa.String(20), nullable=False, comment="氏名（姓）"),
                sa.Column("shimei_mei", sa.String(20), nullable=False, comment="氏名（名）"),
                sa.Column("shinryoka_id", sa.ForeignKey("shinryoka.shinryoka_id"), nullable=False, comment="診療科"),
                sa.Column("yakushoku", sa.String(10), nullable=False, comment="役職"),
                comment="医師")
kanja = sa.Table("kanja", metadata,
                 sa.Column("kanja_id", sa.Integer, primary_key=True, comment="患者番号"),
                 sa.Column("shimei_sei", sa.String(20), nullable=False, comment="氏名（姓）"),
                 sa.Column("shimei_mei", sa.String(20), nullable=False, comment="氏名（名）"),
                 sa.Column("kana_sei", sa.String(40), nullable=False, comment="フリガナ（姓）"),
                 sa.Column("kana_mei", sa.String(40), nullable=False, comment="フリガナ（名）"),
                 sa.Column("seinengappi", sa.Date, nullable=False, comment="生年月日"),
                 sa.Column("seibetsu", sa.String(1), nullable=False, comment="性別（男／女）"),
                 sa.Column("denwa_bango", sa.String(20), comment="電話番号"),
                 sa.Column("touroku_bi", sa.Date, nullable=False, comment="登録日"),
                 comment="患者")
yoyaku = sa.Table("yoyaku", metadata,
                  sa.Column("yoyaku_id", sa.Integer, primary_key=True, comment="予約ID"),
                  sa.Column("kanja_id", sa.ForeignKey("kanja.kanja_id"), nullable=False, comment="患者"),
                  sa.Column("ishi_id", sa.ForeignKey("ishi.ishi_id"), nullable=False, comment="担当医"),
                  sa.Column("yoyaku_nichiji", sa.DateTime, nullable=False, comment="予約日時"),
                  sa.Column("jotai", sa.String(10), nullable=False, comment="状態（予約済／受診済／キャンセル）"),
                  sa.Column("shoshin_flg", sa.Boolean, nullable=False, comment="初診フラグ"),
                  sa.Column("biko", sa.String(200), comment="備考"),
                  sa.Column("sakusei_nichiji", sa.DateTime, nullable=False, comment="レコード作成日時"),
                  comment="予約")
kaikei = sa.Table("kaikei", metadata,
                  sa.Column("kaikei_id", sa.Integer, primary_key=True, comment="会計ID"),
                  sa.Column("yoyaku_id", sa.ForeignKey("yoyaku.yoyaku_id"), nullable=False, comment="予約"),
                  sa.Column("seikyu_gaku", sa.Integer, nullable=False, comment="請求額（医療費総額、円）"),
                  sa.Column("futan_wariai", sa.Integer, nullable=False, comment="負担割合（割）"),
                  sa.Column("futan_gaku", sa.Integer, nullable=False, comment="患者負担額（円）"),
                  sa.Column("shiharai_bi", sa.Date, nullable=False, comment="支払日"),
                  sa.Column("shiharai_hoho", sa.String(20), nullable=False, comment="支払方法"),
                  comment="会計")

# --- the data ------------------------------------------------------------------------------------------
_DEPARTMENTS = ["内科", "心療内科", "外科", "整形外科", "小児科", "皮膚科", "眼科"]
_DOCTORS = [("佐藤", "健一", 1, "部長"), ("高橋", "美穂", 1, "医長"), ("伊藤", "誠", 1, "医員"),
            ("渡辺", "由美", 2, "医長"), ("中村", "大輔", 3, "部長"), ("小林", "直樹", 3, "医員"),
            ("加藤", "恵", 4, "部長"), ("吉田", "拓也", 4, "医員"), ("山本", "彩", 5, "医長"),
            ("松本", "亮", 5, "医員"), ("井上", "真理", 6, "医長"), ("木村", "浩", 6, "医員"),
            ("斎藤", "陽子", 7, "部長"), ("清水", "修", 7, "医員")]
_CHILDREN_DEPARTMENT = 5
_BUSY_DOCTOR = 2  # 高橋 sees three times as many patients as any other
# Family and given names with their readings (フリガナ).
_FAMILIES = [("池田", "イケダ"), ("橋本", "ハシモト"), ("山下", "ヤマシタ"), ("石川", "イシカワ"), ("中島", "ナカジマ"),
             ("前田", "マエダ"), ("藤田", "フジタ"), ("後藤", "ゴトウ"), ("岡田", "オカダ"), ("長谷川", "ハセガワ"),
             ("村上", "ムラカミ"), ("近藤", "コンドウ"), ("石田", "イシダ"), ("坂本", "サカモト"), ("遠藤", "エンドウ"),
             ("青木", "アオキ"), ("藤井", "フジイ"), ("西村", "ニシムラ"), ("福田", "フクダ"), ("太田", "オオタ"),
             ("三浦", "ミウラ"), ("藤原", "フジワラ"), ("岡本", "オカモト"), ("松田", "マツダ"), ("中川", "ナカガワ"),
             ("中野", "ナカノ"), ("原田", "ハラダ"), ("小野", "オノ"), ("田村", "タムラ"), ("竹内", "タケウチ"),
             ("金子", "カネコ"), ("和田", "ワダ"), ("中山", "ナカヤマ"), ("石原", "イシハラ"), ("上田", "ウエダ"),
             ("森田", "モリタ"), ("柴田", "シバタ"), ("酒井", "サカイ"), ("工藤", "クドウ"), ("横山", "ヨコヤマ"),
             ("宮崎", "ミヤザキ"), ("宮本", "ミヤモト"), ("内田", "ウチダ"), ("高木", "タカギ"), ("安藤", "アンドウ"),
             ("谷口", "タニグチ"), ("大野", "オオノ"), ("丸山", "マルヤマ"), ("今井", "イマイ"), ("河野", "コウノ"),
             ("藤本", "フジモト"), ("村田", "ムラタ")]
_WOMEN = [("陽子", "ヨウコ"), ("恵子", "ケイコ"), ("美香", "ミカ"), ("由紀", "ユキ"), ("さくら", "サクラ"),
          ("愛", "アイ"), ("真由美", "マユミ"), ("千尋", "チヒロ"), ("直美", "ナオミ"), ("結衣", "ユイ")]
_MEN = [("健", "ケン"), ("大輔", "ダイスケ"), ("翔太", "ショウタ"), ("拓海", "タクミ"), ("浩二", "コウジ"),
        ("隆", "タカシ"), ("修一", "シュウイチ"), ("和也", "カズヤ"), ("悠斗", "ユウト"), ("博", "ヒロシ")]
# The patients the traps are made of, and how often each comes (everyone else: 1).
_NAMED = [("山田", "ヤマダ", "花子", "ハナコ", "女", date(1962, 4, 3), 3),
          ("山田", "ヤマダ", "太郎", "タロウ", "男", date(1959, 9, 21), 3),
          ("佐々木", "ササキ", "花子", "ハナコ", "女", date(1984, 1, 30), 1),
          ("鈴木", "スズキ", "一郎", "イチロウ", "男", date(1948, 6, 12), 5)]
_PATIENTS = 150
_PAYMENT = ["現金"] * 6 + ["クレジットカード"] * 3 + ["電子マネー"] * 2
_NOTES = [None] * 8 + ["発熱あり", "紹介状持参", "再診・検査結果説明", "電話予約"]


def _patients(rng: random.Random) -> tuple[list[dict], list[int]]:
    people = list(_NAMED)
    for _ in range(_PATIENTS - len(_NAMED)):
        family, kana = rng.choice(_FAMILIES)
        sex = rng.choice("男女")
        given, given_kana = rng.choice(_MEN if sex == "男" else _WOMEN)
        born = date(1935, 1, 1) + timedelta(days=rng.randrange(365 * 87))
        people.append((family, kana, given, given_kana, sex, born, 1))
    rows, weights = [], []
    for i, (family, kana, given, given_kana, sex, born, weight) in enumerate(people, start=1):
        phone = f"0{rng.choice([3, 6, 90, 80])}-{rng.randrange(1000, 9999)}-{rng.randrange(1000, 9999)}"
        rows.append({"kanja_id": i, "shimei_sei": family, "shimei_mei": given, "kana_sei": kana, "kana_mei": given_kana,
                     "seinengappi": born, "seibetsu": sex, "denwa_bango": phone,
                     "touroku_bi": None if weight == 1 and rng.random() < 0.25  # new: registered at the first booking
                     else date(2020, 4, 1) + timedelta(days=rng.randrange(1900))})
        weights.append(weight)
    return rows, weights


def _age(born: date, on: date) -> int:
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def _share(age: int) -> int:
    """The patient's share of the fee in tenths (割), by age."""
    if age < 6 or 70 <= age < 75:
        return 2
    return 1 if age >= 75 else 3


def _status(rng: random.Random, at: datetime) -> str:
    if at.date() < TODAY:
        return "キャンセル" if rng.random() < 0.14 else "受診済"
    if at.date() == TODAY:
        return "受診済" if at.hour < 12 else "予約済"
    return "キャンセル" if rng.random() < 0.05 else "予約済"


def _doctor(rng: random.Random, patient: dict, day: date) -> int:
    if _age(patient["seinengappi"], day) < 15:
        return rng.choice([i for i, d in enumerate(_DOCTORS, start=1) if d[2] == _CHILDREN_DEPARTMENT])
    adults = [i for i, d in enumerate(_DOCTORS, start=1) if d[2] != _CHILDREN_DEPARTMENT]
    return rng.choices(adults, weights=[3 if i == _BUSY_DOCTOR else 1 for i in adults])[0]


def _bookings(rng: random.Random, patients: list[dict], weights: list[int]) -> tuple[list[dict], list[dict]]:
    bookings: list[dict] = []
    bills: list[dict] = []
    day = _FIRST_DAY
    while day <= _LAST_DAY:
        slots = sorted(rng.sample(range(18), rng.randint(3, 7)))  # half hours from 9:00
        for slot in slots if day.weekday() != 6 else []:
            patient = rng.choices(patients, weights=weights)[0]
            at = datetime(day.year, day.month, day.day, 9 + slot // 2, 30 * (slot % 2))
            status = _status(rng, at)
            made = at - timedelta(days=rng.randint(1, 30), hours=rng.randint(0, 8))
            first = patient["touroku_bi"] is None
            if first:
                patient["touroku_bi"] = made.date()
            booking = len(bookings) + 1
            bookings.append({"yoyaku_id": booking, "kanja_id": patient["kanja_id"],
                             "ishi_id": _doctor(rng, patient, day), "yoyaku_nichiji": at, "jotai": status,
                             "shoshin_flg": first, "biko": rng.choice(_NOTES), "sakusei_nichiji": made})
            if status == "受診済":
                fee = rng.randrange(1500, 15000, 10) + (2880 if first else 0)
                share = _share(_age(patient["seinengappi"], day))
                bills.append({"kaikei_id": len(bills) + 1, "yoyaku_id": booking, "seikyu_gaku": fee,
                              "futan_wariai": share, "futan_gaku": (fee * share // 10 + 5) // 10 * 10,
                              "shiharai_bi": day, "shiharai_hoho": rng.choice(_PAYMENT)})
        day += timedelta(days=1)
    for patient in patients:
        patient["touroku_bi"] = patient["touroku_bi"] or _LAST_DAY  # new, and not come yet
    return bookings, bills


def _data() -> dict[sa.Table, list[dict]]:
    rng = random.Random(20251119)
    patients, weights = _patients(rng)
    bookings, bills = _bookings(rng, patients, weights)
    return {
        shinryoka: [{"shinryoka_id": i, "shinryoka_mei": n, "hyoji_jun": i * 10}
                    for i, n in enumerate(_DEPARTMENTS, start=1)],
        ishi: [{"ishi_id": i, "shimei_sei": s, "shimei_mei": m, "shinryoka_id": d, "yakushoku": role}
               for i, (s, m, d, role) in enumerate(_DOCTORS, start=1)],
        kanja: patients,
        yoyaku: bookings,
        kaikei: bills,
    }


def create(url: str) -> None:
    """The tables (with their Japanese comments on PostgreSQL) and the seeded data, the same on both engines."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
_OCTOBER = ("2025-10-01", "2025-11-01")
_NOVEMBER = ("2025-11-01", "2025-12-01")
_SEPTEMBER = ("2025-09-01", "2025-10-01")
_LAST_WEEK = ("2025-11-10", "2025-11-17")


def _booked(period: tuple[str, str], status: str | None = None, negate: bool = False) -> str:
    where = f"yoyaku_nichiji >= '{period[0]}' AND yoyaku_nichiji < '{period[1]}'"
    if status:
        where += f" AND jotai {'<>' if negate else '='} '{status}'"
    return f"SELECT COUNT(*) FROM yoyaku WHERE {where}"


def _billed(column: str, period: tuple[str, str]) -> str:
    return f"SELECT SUM({column}) FROM kaikei WHERE shiharai_bi >= '{period[0]}' AND shiharai_bi < '{period[1]}'"


def _bills(period: tuple[str, str]) -> str:
    return f"SELECT COUNT(*) FROM kaikei WHERE shiharai_bi >= '{period[0]}' AND shiharai_bi < '{period[1]}'"


def _beside(period: tuple[str, str], asked: str = "seikyu_gaku") -> list[str]:
    """What an answer on the total of a period's bills may add: how many they are, and the other money total."""
    return [_bills(period), _billed("futan_gaku" if asked == "seikyu_gaku" else "seikyu_gaku", period)]


def _doctors_in(department: str) -> str:
    return ("SELECT COUNT(*) FROM ishi i JOIN shinryoka s ON s.shinryoka_id = i.shinryoka_id "
            f"WHERE s.shinryoka_mei = '{department}'")


def _doctor_in(department: str, offset: int) -> str:
    return ("SELECT i.shimei_sei FROM ishi i JOIN shinryoka s ON s.shinryoka_id = i.shinryoka_id "
            f"WHERE s.shinryoka_mei = '{department}' ORDER BY i.ishi_id LIMIT 1 OFFSET {offset}")


_HANAKO = ("SELECT COUNT(*) FROM yoyaku y JOIN kanja k ON k.kanja_id = y.kanja_id "
           "WHERE k.shimei_sei = '山田' AND k.shimei_mei = '花子'")
_BY_DOCTOR = "SELECT ishi_id, COUNT(*) AS n FROM yoyaku GROUP BY ishi_id"
_BILLED_BY_PATIENT = ("SELECT y.kanja_id, SUM(b.seikyu_gaku) AS billed, SUM(b.futan_gaku) AS paid, COUNT(*) AS n "
                      "FROM kaikei b "
                      "JOIN yoyaku y ON y.yoyaku_id = b.yoyaku_id GROUP BY y.kanja_id")
_BILLS_OF_17 = "FROM kaikei b JOIN yoyaku y ON y.yoyaku_id = b.yoyaku_id WHERE y.kanja_id = 17"
_CHILDREN_IN_OCTOBER = ("SELECT COUNT(*) FROM yoyaku y JOIN ishi i ON i.ishi_id = y.ishi_id "
                        "JOIN shinryoka s ON s.shinryoka_id = i.shinryoka_id WHERE s.shinryoka_mei = '小児科' "
                        f"AND y.yoyaku_nichiji >= '{_OCTOBER[0]}' AND y.yoyaku_nichiji < '{_OCTOBER[1]}'")

QUESTIONS = [
    Question("cl_patients", "患者は何人登録されていますか？", ["SELECT COUNT(*) FROM kanja"], "count"),
    Question("cl_patients_en", "How many patients do we have?", ["SELECT COUNT(*) FROM kanja"], "count"),
    Question("cl_doctors", "医師は全部で何名？", ["SELECT COUNT(*) FROM ishi"], "count"),
    Question("cl_departments", "診療科はいくつありますか？", ["SELECT COUNT(*) FROM shinryoka"], "count"),
    Question("cl_this_month", "今月の予約は何件？", [_booked(_NOVEMBER)], "total_in_period",
             may_state=[_booked(_NOVEMBER, "キャンセル"), _booked(_NOVEMBER, "キャンセル", negate=True)]),
    Question("cl_today", "今日の予約は何件ありますか？", [_booked(("2025-11-19", "2025-11-20"))], "total_in_period"),
    Question("cl_last_week_seen", "先週、受診済みになった予約は何件？", [_booked(_LAST_WEEK, "受診済")],
             "total_in_period"),
    Question("cl_cancelled", "キャンセルになった予約は？", ["SELECT COUNT(*) FROM yoyaku WHERE jotai = 'キャンセル'"],
             "count_in_category"),
    Question("cl_cancelled_last_month", "先月キャンセルされた予約は何件？", [_booked(_OCTOBER, "キャンセル")],
             "count_in_category"),
    Question("cl_cancelled_en", "How many appointments were cancelled last month?", [_booked(_OCTOBER, "キャンセル")],
             "count_in_category"),
    Question("cl_naika_doctors", "内科の医師は何人？", [_doctors_in("内科")], "count_in_category"),
    Question("cl_geka_doctors", "外科は？", [_doctors_in("外科")], "follow_up", follow_up="cl_naika_doctors"),
    Question("cl_ganka_doctors", "眼科の医師を教えて", [_doctor_in("眼科", k) for k in range(2)], "list_filtered",
             may_state=[_doctors_in("眼科")]),
    Question("cl_shonika_last_month", "先月の小児科の予約は何件？", [_CHILDREN_IN_OCTOBER], "count_in_category"),
    Question("cl_billed_last_month", "先月の会計の請求額合計は？", [_billed("seikyu_gaku", _OCTOBER)],
             "total_in_period", may_state=_beside(_OCTOBER)),
    Question("cl_copay_last_month", "患者負担額の合計は？", [_billed("futan_gaku", _OCTOBER)], "follow_up",
             follow_up="cl_billed_last_month", may_state=_beside(_OCTOBER, "futan_gaku")),
    Question("cl_billed_en", "What was the total billed last month?", [_billed("seikyu_gaku", _OCTOBER)],
             "total_in_period", may_state=_beside(_OCTOBER)),
    Question("cl_billed_september", "2025年9月の請求額の合計はいくら？", [_billed("seikyu_gaku", _SEPTEMBER)],
             "total_in_period", may_state=_beside(_SEPTEMBER)),
    Question("cl_hanako_count", "山田花子さんの予約は何件？", [_HANAKO], "count_by_entity_name"),
    Question("cl_hanako_list", "山田花子さんの予約を見せて", [_HANAKO], "list_filtered"),
    Question("cl_hanako_cancelled", "そのうちキャンセルは何件？", [_HANAKO + " AND y.jotai = 'キャンセル'"],
             "follow_up", follow_up="cl_hanako_list", may_state=[_HANAKO]),
    Question("cl_top_doctor", "予約件数がいちばん多い医師は？",
             [f"SELECT i.shimei_sei FROM ishi i JOIN ({_BY_DOCTOR}) x ON x.ishi_id = i.ishi_id "
              "ORDER BY x.n DESC LIMIT 1",
              f"SELECT MAX(n) FROM ({_BY_DOCTOR}) x"], "top_entity"),
    Question("cl_top_patient", "請求額の合計がいちばん多い患者は誰？",
             [f"SELECT k.shimei_sei FROM kanja k JOIN ({_BILLED_BY_PATIENT}) x ON x.kanja_id = k.kanja_id "
              "ORDER BY x.billed DESC LIMIT 1",
              f"SELECT MAX(billed) FROM ({_BILLED_BY_PATIENT}) x"], "top_entity",
             may_state=[f"SELECT {c} FROM ({_BILLED_BY_PATIENT}) x ORDER BY billed DESC LIMIT 1"
                        for c in ("n", "paid")]),
    Question("cl_patient_bookings", "患者番号17の予約は何件？", ["SELECT COUNT(*) FROM yoyaku WHERE kanja_id = 17"],
             "per_entity_key"),
    Question("cl_patient_copay", "その患者の負担額の合計は？",
             [f"SELECT SUM(b.futan_gaku) {_BILLS_OF_17}"], "follow_up", follow_up="cl_patient_bookings",
             may_state=[f"SELECT COUNT(*) {_BILLS_OF_17}", f"SELECT SUM(b.seikyu_gaku) {_BILLS_OF_17}",
                        "SELECT kanja_id FROM kanja WHERE kanja_id = 17"]),  # the patient the question carries on
    Question("cl_cash", "現金で支払われた会計は何件？", ["SELECT COUNT(*) FROM kaikei WHERE shiharai_hoho = '現金'"],
             "count_in_category",
             may_state=[f"SELECT SUM({c}) FROM kaikei WHERE shiharai_hoho = '現金'"
                        for c in ("seikyu_gaku", "futan_gaku")]),
    Question("cl_first_visits", "初診の予約は何件？", ["SELECT COUNT(*) FROM yoyaku WHERE shoshin_flg"],
             "count_in_category"),
    Question("cl_women", "女性の患者は何人？", ["SELECT COUNT(*) FROM kanja WHERE seibetsu = '女'"],
             "count_in_category"),
]


def traps(url: str) -> None:
    """Two 山田 patients who together (not apart) are billed more than the top patient; two 花子; 内科 beside 心療内科
    and 外科 beside 整形外科; bookings after today still 予約済."""
    yamada = ("SELECT SUM(b.seikyu_gaku) FROM kaikei b JOIN yoyaku y ON y.yoyaku_id = b.yoyaku_id "
              "JOIN kanja k ON k.kanja_id = y.kanja_id WHERE k.shimei_sei = '山田' "
              "GROUP BY k.kanja_id ORDER BY k.kanja_id LIMIT 1 OFFSET {}")
    hanako, taro = scalar(url, yamada.format(0)), scalar(url, yamada.format(1))
    top = scalar(url, "SELECT MAX(s) FROM (SELECT SUM(b.seikyu_gaku) AS s FROM kaikei b "
                      "JOIN yoyaku y ON y.yoyaku_id = b.yoyaku_id GROUP BY y.kanja_id) x")
    assert max(hanako, taro) < top < hanako + taro
    assert scalar(url, "SELECT COUNT(*) FROM kanja WHERE shimei_mei = '花子'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM shinryoka WHERE shinryoka_mei LIKE '%内科%'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM shinryoka WHERE shinryoka_mei LIKE '%外科%'") == 2
    assert scalar(url, "SELECT COUNT(*) FROM yoyaku WHERE jotai = '予約済' AND yoyaku_nichiji >= '2025-11-20'") > 0
