"""Kinds of request that held-out schemas (hotel, salon, cycle_works in tests/support/business_schemas) answered
with a wrong figure, each on a small schema made here, SQLite and PostgreSQL, its figures by plain SQL:

- a lookup table of no name column (room_types: code, description) filters and groups the rows that point at it;
- a given-name column of few values is a part of a person's name, never an enum of its own;
- two yes/no conditions of one table keep their own words (not shipped is not also not online);
- a participle no parameter takes (backordered), a grouping (by type), a place said with a number (3階) and a
  superlative about a table's own rows are said to be unapplied, never answered with every row;
- 「その人」 with no one said before is asked about; 何回 counts events, not the list of things;
- a value said in the other language (ドイツ, スイート) is the value the data writes in English;
- a table named in Japanese is drafted with romaji names, its fee of a master never summed, its visits the sales.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from drafted import BACKENDS, Drafted, ask, figures

TODAY = date(2025, 9, 17)

HOTEL = [
    "CREATE TABLE room_types (room_type_id INTEGER PRIMARY KEY, code VARCHAR(3) NOT NULL, "
    "description VARCHAR(20) NOT NULL)",
    "CREATE TABLE rooms (room_id INTEGER PRIMARY KEY, room_number VARCHAR(4) NOT NULL, floor INTEGER NOT NULL, "
    "room_type_id INTEGER NOT NULL REFERENCES room_types(room_type_id), nightly_rate NUMERIC(8,2) NOT NULL)",
    "CREATE TABLE guests (guest_id INTEGER PRIMARY KEY, first_name VARCHAR(20) NOT NULL, "
    "last_name VARCHAR(20) NOT NULL, country VARCHAR(20) NOT NULL)",
    "CREATE TABLE stays (stay_id INTEGER PRIMARY KEY, guest_id INTEGER NOT NULL REFERENCES guests(guest_id), "
    "room_id INTEGER NOT NULL REFERENCES rooms(room_id), check_in DATE NOT NULL, check_out DATE, "
    "amount_paid NUMERIC(10,2) NOT NULL)",
    "INSERT INTO room_types VALUES (1, 'STD', 'Standard'), (2, 'DBL', 'Double'), (3, 'STE', 'Suite')",
    # Standard has the most rooms; the suites have the most stays
    "INSERT INTO rooms VALUES (1, '101', 1, 1, 90), (2, '102', 1, 1, 90), (3, '103', 1, 1, 90), "
    "(4, '201', 2, 2, 120), (5, '301', 3, 3, 300), (6, '302', 3, 3, 300)",
    "INSERT INTO guests VALUES (1, 'Anna', 'Berg', 'Germany'), (2, 'Anna', 'Kowalski', 'Poland'), "
    "(3, 'Ken', 'Tanaka', 'Japan'), (4, 'Lea', 'Roth', 'Germany'), (5, 'Tom', 'Weber', 'Germany'), "
    "(6, 'Yui', 'Sato', 'Japan'), (7, 'Jan', 'Nowak', 'Poland'), (8, 'Eva', 'Klein', 'Germany'), "
    "(9, 'Ben', 'Smith', 'Canada'), (10, 'Mia', 'Wolf', 'Germany')",
    *[f"INSERT INTO stays VALUES ({i}, {1 + i % 4}, {room}, '2025-0{month}-{10 + i % 9}', "
      f"{'NULL' if i > 26 else repr(f'2025-0{month}-{12 + i % 9}')}, {'0' if i > 26 else 100 + i * 7}.50)"
      for i, (room, month) in enumerate([(5, 7), (6, 7), (5, 8), (6, 8), (5, 8), (6, 6), (5, 6), (6, 7), (5, 5),
                                         (1, 7), (2, 8), (3, 8), (4, 8), (4, 7), (1, 6), (2, 6), (3, 5), (6, 5),
                                         (5, 4), (6, 4), (1, 4), (2, 4), (4, 6), (4, 5), (5, 9), (6, 9), (1, 9),
                                         (2, 9), (5, 9), (4, 9)], start=1)],
]


@pytest.fixture(params=BACKENDS)
def url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


@pytest.fixture
def make(url, tmp_path):
    """Draft a schema of statements on the backend's database, as `concierge init` does; closed after the test."""
    made: list[Drafted] = []

    def drafted(statements: list[str], name: str) -> Drafted:
        made.append(Drafted(url, statements, tmp_path, name, today=TODAY))
        return made[-1]

    yield drafted
    for d in made:
        d.pipeline.close()


@pytest.fixture
def hotel(make) -> Drafted:
    return make(HOTEL, "hotel")


async def _answers(drafted: Drafted, *said: str, session: bool = False) -> list:
    turns, sid = [], None
    for say in said:
        turn = await ask(drafted.agent, drafted.pipeline, say, sid if session else None)
        sid = turn.session_id
        turns.append(turn)
    return turns


@pytest.mark.anyio
async def test_a_lookup_table_of_no_name_filters_and_groups_the_rows_that_point_at_it(hotel):
    suites = hotel.scalar("SELECT COUNT(*) FROM stays s JOIN rooms r ON r.room_id = s.room_id "
                          "JOIN room_types t ON t.room_type_id = r.room_type_id WHERE t.description = 'Suite'")
    everything = hotel.scalar("SELECT COUNT(*) FROM stays")
    top_type, top_n = hotel.rows(
        "SELECT t.description, COUNT(*) FROM stays s JOIN rooms r ON r.room_id = s.room_id "
        "JOIN room_types t ON t.room_type_id = r.room_type_id GROUP BY t.description ORDER BY 2 DESC")[0]
    most_rooms = hotel.rows("SELECT t.description FROM rooms r JOIN room_types t ON t.room_type_id = r.room_type_id "
                            "GROUP BY t.description ORDER BY COUNT(*) DESC")[0][0]
    assert top_type != most_rooms  # the trap: counting rooms would name another type
    en, ja, ranked = await _answers(hotel, "How many stays were in the suite rooms?", "スイートの宿泊は何件？",
                                    "Which room type had the most stays?")
    for turn in (en, ja):
        assert suites in figures(turn.answer) and everything not in figures(turn.answer), turn.answer
    assert top_type in ranked.answer and top_n in figures(ranked.answer), ranked.answer


@pytest.mark.anyio
async def test_a_grouping_a_state_and_a_place_no_parameter_takes_are_said_not_answered_for_every_row(hotel):
    everything = hotel.scalar("SELECT COUNT(*) FROM stays")
    rooms = hotel.scalar("SELECT COUNT(*) FROM rooms")
    turns = await _answers(hotel, "stays total by weekday", "How many stays are refunded?", "3階の部屋を見せて",
                           "what's our most expensive room?")
    for turn in turns:
        assert turn.calls == [], (turn.answer, turn.calls)
        assert not {Decimal(everything), Decimal(rooms)} & figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_an_empty_check_out_is_a_condition_said_in_both_languages(hotel):
    in_house = hotel.scalar("SELECT COUNT(*) FROM stays WHERE check_out IS NULL")
    en, ja = await _answers(hotel, "How many stays haven't checked out yet?",
                            "まだチェックアウトしていない宿泊は何件？")
    for turn in (en, ja):
        assert [c.args for c in turn.calls] == [{"checked_out": "no"}], turn.calls
        assert in_house in figures(turn.answer)


@pytest.mark.anyio
async def test_a_label_said_picks_the_table_whose_figure_it_is(hotel):
    paid = hotel.scalar("SELECT SUM(amount_paid) FROM stays WHERE check_in >= '2025-07-01' AND check_in < '2025-08-01'")
    turn, = await _answers(hotel, "2025年7月の支払額の合計は？")
    assert Decimal(str(paid)).quantize(Decimal("0.01")) in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_country_said_in_japanese_is_the_country_the_data_writes_in_english(hotel):
    germans = hotel.scalar("SELECT COUNT(*) FROM guests WHERE country = 'Germany'")
    turn, = await _answers(hotel, "ドイツのゲストは何人？")
    assert [c.args for c in turn.calls] == [{"country": "Germany"}]
    assert germans in figures(turn.answer)


@pytest.mark.anyio
async def test_that_person_with_no_one_said_before_is_asked_about(hotel):
    first, = await _answers(hotel, "その人の支払額の合計は？")
    assert first.calls == [] and "その人" in first.answer and not figures(first.answer)
    paid = hotel.scalar("SELECT SUM(amount_paid) FROM stays WHERE guest_id = 3")
    _, then = await _answers(hotel, "ゲスト3の宿泊は何件？", "その人の支払額の合計は？", session=True)
    assert Decimal(str(paid)).quantize(Decimal("0.01")) in figures(then.answer), then.answer


CLINIC = [
    "CREATE TABLE kanja (kanja_id INTEGER PRIMARY KEY, shimei_sei VARCHAR(10) NOT NULL, "
    "shimei_mei VARCHAR(10) NOT NULL)",
    "CREATE TABLE yoyaku (yoyaku_id INTEGER PRIMARY KEY, kanja_id INTEGER NOT NULL REFERENCES kanja(kanja_id), "
    "yoyaku_bi DATE NOT NULL)",
    # 60 patients of a few given names: the given-name column reads as few values, as in any table of people
    *[f"INSERT INTO kanja VALUES ({i}, '{family}', '{given}')" for i, (family, given) in enumerate(
        [("山田", "花子"), ("山田", "太郎"), ("佐々木", "花子")]
        + [(f, g) for f in ("鈴木", "高橋", "田中", "伊藤", "渡辺", "中村", "小林", "加藤", "吉田")
           for g in ("一郎", "恵子", "健", "美香", "翔太", "陽子")][:57], start=1)],
    *[f"INSERT INTO yoyaku VALUES ({i}, {1 + (i * 7) % 57 if i % 3 else 1}, '2025-08-{1 + i % 28:02d}')"
      for i in range(1, 121)],
]


@pytest.mark.anyio
async def test_a_given_name_column_of_few_values_is_a_part_of_the_name(make):
    clinic = make(CLINIC, "clinic")
    hanako = clinic.scalar("SELECT COUNT(*) FROM yoyaku y JOIN kanja k ON k.kanja_id = y.kanja_id "
                           "WHERE k.shimei_sei = '山田' AND k.shimei_mei = '花子'")
    yamada = clinic.scalar("SELECT COUNT(*) FROM yoyaku y JOIN kanja k ON k.kanja_id = y.kanja_id "
                           "WHERE k.shimei_sei = '山田'")
    full, given = await _answers(clinic, "山田花子さんの予約は何件？", "花子さんの予約は何件？")
    assert hanako in figures(full.answer) and yamada not in figures(full.answer), full.answer
    assert given.calls == [] and "佐々木" in given.answer  # two 花子: which one?


ORDERS = [  # PascalCase, quoted as a SQL Server schema moved to PostgreSQL keeps it
    'CREATE TABLE "SalesOrderHeader" ("SalesOrderID" INTEGER PRIMARY KEY, "OrderDate" DATE NOT NULL, '
    '"ShipDate" DATE, "OnlineOrderFlag" BOOLEAN NOT NULL, "SubTotal" NUMERIC(10,2) NOT NULL)',
    *[f"""INSERT INTO "SalesOrderHeader" VALUES ({i}, '2025-08-{1 + i % 28:02d}', """
      f"{'NULL' if i % 5 == 0 else repr(f'2025-08-{2 + i % 27:02d}')}, {'TRUE' if i % 2 else 'FALSE'}, {i * 10}.00)"
      for i in range(1, 41)],
]


@pytest.mark.anyio
async def test_two_yes_no_conditions_of_a_table_keep_their_own_words(make):
    shop = make(ORDERS, "shop")
    unshipped = shop.scalar('SELECT COUNT(*) FROM "SalesOrderHeader" WHERE "ShipDate" IS NULL')
    online = shop.scalar('SELECT COUNT(*) FROM "SalesOrderHeader" WHERE "OnlineOrderFlag"')
    en, ja, order_count = await _answers(shop, "list the orders not shipped yet", "オンライン注文は何件？",
                                         "先月の注文は何件？")
    assert [c.args for c in en.calls] == [{"shipped": "no"}] and unshipped in figures(en.answer)
    assert [c.args for c in ja.calls] == [{"online_order": "yes"}] and online in figures(ja.answer)
    assert [c.args for c in order_count.calls] == [{"order_date_from": "2025-08-01", "order_date_to": "2025-08-31"}]


SALON = [
    'CREATE TABLE "店舗" ("店舗ID" INTEGER PRIMARY KEY, "店舗名" VARCHAR(20) NOT NULL)',
    'CREATE TABLE "スタッフ" ("スタッフID" INTEGER PRIMARY KEY, "氏名" VARCHAR(20) NOT NULL, '
    '"店舗ID" INTEGER NOT NULL REFERENCES "店舗"("店舗ID"), "指名料" INTEGER NOT NULL, "入社日" DATE NOT NULL)',
    'CREATE TABLE "メニュー" ("メニューID" INTEGER PRIMARY KEY, "メニュー名" VARCHAR(20) NOT NULL, '
    '"分類" VARCHAR(10) NOT NULL, "料金" INTEGER NOT NULL)',
    'CREATE TABLE "来店" ("来店ID" INTEGER PRIMARY KEY, '
    '"スタッフID" INTEGER NOT NULL REFERENCES "スタッフ"("スタッフID"), "来店日" DATE NOT NULL, '
    '"合計金額" INTEGER NOT NULL)',
    'CREATE TABLE "施術明細" ("明細ID" INTEGER PRIMARY KEY, "来店ID" INTEGER NOT NULL REFERENCES "来店"("来店ID"), '
    '"メニューID" INTEGER NOT NULL REFERENCES "メニュー"("メニューID"), "金額" INTEGER NOT NULL)',
    """INSERT INTO "店舗" VALUES (1, '渋谷店'), (2, '新宿店')""",
    """INSERT INTO "スタッフ" VALUES (1, '田中　美咲', 1, 550, '2014-04-01'), (2, '森　彩花', 1, 550, '2016-04-01'),
       (3, '石井　蓮', 2, 1100, '2017-04-01')""",
    """INSERT INTO "メニュー" VALUES (1, 'カット', 'カット', 4400), (2, '前髪カット', 'カット', 1100),
       (3, 'カラー', 'カラー', 6600), (4, 'ヘッドスパ', 'スパ', 3300)""",
    *[f"""INSERT INTO "来店" VALUES ({i}, {1 + i % 3}, '2025-08-{1 + i % 28:02d}', {3000 + i * 100})"""
      for i in range(1, 31)],
    *[f"""INSERT INTO "施術明細" VALUES ({i}, {1 + i % 30}, {1 + i % 4}, {1000 + i * 10})""" for i in range(1, 61)],
]


@pytest.mark.anyio
async def test_a_schema_named_in_japanese_reads_its_fees_visits_and_times(make):
    salon = make(SALON, "salon")
    assert {"sutaffu", "raiten", "shijutsu_meisai"} <= set(salon.raw["tools"])  # romaji, never table_2
    assert "指名料" not in salon.tool("sutaffu")["result"].get("totals", {})  # a fee of a master: never summed
    cuts = salon.scalar('SELECT COUNT(*) FROM "施術明細" d JOIN "メニュー" m ON m."メニューID" = d."メニューID" '
                        "WHERE m.\"メニュー名\" = 'カット'")
    menus = salon.scalar("""SELECT COUNT(*) FROM "メニュー" WHERE "分類" = 'カット'""")
    top_staff, top_sales = salon.rows('SELECT s."氏名", SUM(v."合計金額") FROM "来店" v JOIN "スタッフ" s '
                                      'ON s."スタッフID" = v."スタッフID" GROUP BY s."氏名" ORDER BY 2 DESC')[0]
    staff = await _answers(salon, "渋谷店のスタッフ一覧")
    times, ranked = await _answers(salon, "カットは何回出た？", "いちばん売上が多いスタッフは？")
    assert not figures(staff[0].answer) - {Decimal(2)}, staff[0].answer  # the count, and no sum of the fees
    assert cuts in figures(times.answer) and (menus not in figures(times.answer) or menus == cuts), times.answer
    assert top_staff in ranked.answer and top_sales in figures(ranked.answer), ranked.answer


def _po_status(i: int) -> str:
    """Every fourth purchase order not received yet, the eighth of them called off."""
    return "CNCL" if i == 8 else "OPEN" if i % 4 == 0 else "RCVD"


WAREHOUSE = [
    "CREATE TABLE cust (cust_id INTEGER PRIMARY KEY, cust_nm VARCHAR(30) NOT NULL, cust_cd VARCHAR(6) NOT NULL)",
    "CREATE TABLE sku_mst (sku_id INTEGER PRIMARY KEY, sku_cd VARCHAR(9) NOT NULL UNIQUE, sku_nm VARCHAR(30) NOT NULL, "
    "case_qty INTEGER NOT NULL, list_prc NUMERIC(8,2) NOT NULL)",
    "CREATE TABLE po_hdr (po_no INTEGER PRIMARY KEY, po_dt DATE NOT NULL, rcv_dt DATE, stat VARCHAR(4) NOT NULL)",
    "CREATE TABLE po_dtl (po_no INTEGER NOT NULL REFERENCES po_hdr(po_no), line_no INTEGER NOT NULL, "
    "sku_id INTEGER NOT NULL REFERENCES sku_mst(sku_id), ord_qty INTEGER NOT NULL, ext_amt NUMERIC(10,2) NOT NULL, "
    "PRIMARY KEY (po_no, line_no))",
    "CREATE TABLE so_hdr (so_no INTEGER PRIMARY KEY, cust_id INTEGER NOT NULL REFERENCES cust(cust_id), "
    "so_dt DATE NOT NULL, ship_dt DATE)",
    "CREATE TABLE so_dtl (so_no INTEGER NOT NULL REFERENCES so_hdr(so_no), line_no INTEGER NOT NULL, "
    "sku_id INTEGER NOT NULL REFERENCES sku_mst(sku_id), qty INTEGER NOT NULL, line_amt NUMERIC(10,2) NOT NULL, "
    "PRIMARY KEY (so_no, line_no))",
    *[f"INSERT INTO cust VALUES ({i}, 'Store {chr(64 + i)}', 'C{i:04d}')" for i in range(1, 7)],
    *[f"INSERT INTO sku_mst VALUES ({i}, 'SKU-{i:05d}', 'Item {i}', 12, {100 + i}.00)" for i in range(1, 9)],
    *[f"INSERT INTO po_hdr VALUES ({100 + i}, '2025-08-{1 + i:02d}', "
      f"{'NULL' if i % 4 == 0 else repr(f'2025-08-{3 + i:02d}')}, '{_po_status(i)}')" for i in range(1, 21)],
    *[f"INSERT INTO po_dtl VALUES ({100 + i}, 1, {1 + i % 8}, {50 + i}, {1000 + i * 10}.00)" for i in range(1, 21)],
    *[f"INSERT INTO so_hdr VALUES ({500 + i}, {1 + i % 6}, '2025-08-{1 + i % 28:02d}', "
      f"{'NULL' if i % 7 == 0 else repr(f'2025-{8 + (i % 28 > 25):02d}-{1 + (i + 2) % 28:02d}')})"
      for i in range(1, 61)],
    *[f"INSERT INTO so_dtl VALUES ({500 + i}, {k}, {1 + (i + k) % 8}, {1 + (i * k) % 5}, {200 + i * k}.00)"
      for i in range(1, 61) for k in (1, 2)],
]


@pytest.mark.anyio
async def test_an_abbreviated_schema_reads_its_codes_its_purchases_and_its_levels(make):
    wh = make(WAREHOUSE, "wh")
    assert "case_qty" not in wh.tool("sku_mst")["result"].get("totals", {})  # a pack size: never summed
    shipped = wh.scalar("SELECT SUM(d.qty) FROM so_dtl d JOIN so_hdr h ON h.so_no = d.so_no JOIN sku_mst s "
                        "ON s.sku_id = d.sku_id WHERE s.sku_cd = 'SKU-00003' AND h.ship_dt >= '2025-08-01' "
                        "AND h.ship_dt < '2025-09-01'")
    sold = wh.scalar("SELECT SUM(line_amt) FROM so_dtl")
    open_pos = wh.scalar("SELECT COUNT(*) FROM po_hdr WHERE rcv_dt IS NULL AND stat <> 'CNCL'")
    by_customer = wh.scalar("SELECT COUNT(*) FROM so_hdr WHERE cust_id = 4")
    units, sales, waiting, orders = await _answers(
        wh, "units shipped of SKU-00003 last month", "total sales?", "how many POs havent been received yet",
        "Show me the sales orders of customer 4")
    assert shipped in figures(units.answer), units.answer
    assert Decimal(str(sold)).quantize(Decimal("0.01")) in figures(sales.answer), sales.answer  # never the POs
    assert [c.args for c in waiting.calls] == [{"received": "no"}] and open_pos in figures(waiting.answer)
    assert by_customer in figures(orders.answer), orders.answer  # its key, not a code of the customer's
