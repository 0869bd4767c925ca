"""Schemas designed in Japan name things in romaji (m_tokuisaki, t_juchu_meisai, gokei_kingaku): read as business
words, so the English drafting rules apply to them and the staff's Japanese finds their tables.

Four schemas written here, in the spellings such schemas use: Hepburn, kunrei (syohin, hattyuu), long vowels
written out or not (suuryou, suryo), words run together (TokuisakiMei, jusho1) and the affixes of how a table is
kept (m_, mst_, t_, tr_, w_, _mst, _tbl)."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa
from drafted import BACKENDS, Drafted

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.onboarding import glossary
from concierge.onboarding.naming import Noun, concept_words, is_romaji
from concierge.storage import users

# --- the names of four schemas: sales, purchasing and stock, staff, billing ------------------------------------
CONCEPTS = {
    # sales (販売管理), Hepburn
    "m_tokuisaki": "customer", "tokuisaki_cd": "customer code", "tokuisaki_mei": "customer name",
    "tokuisaki_mei_kana": "customer name reading", "t_juchu": "order", "juchu_no": "order number",
    "juchu_bi": "order date", "gokei_kingaku": "total amount", "t_juchu_meisai": "order line", "m_shohin": "product",
    "hyojun_tanka": "standard unit price", "uriage_kingaku": "sales amount", "tanto_cd": "rep code",
    "shiten_mst": "branch",
    # purchasing and stock, kunrei and long vowels
    "mst_siiresaki": "supplier", "tr_hattyuu": "purchase order", "hattyuu_no": "purchase order number",
    "syouhin_cd": "product code", "souko_cd": "warehouse code", "zaiko_suuryou": "stock quantity",
    "nyuuka_yotei_bi": "arrival planned date", "zaiko_tbl": "stock", "shiire_tanka": "purchase unit price",
    # staff (人事)
    "m_shain": "employee", "shain_no": "employee number", "shimei": "full name", "shimei_kana": "full name reading",
    "busho_cd": "department code", "nyusha_bi": "hire date", "seibetsu_kbn": "gender kind",
    "seinengappi": "birth date", "sei": "last name", "sakujo_flg": "deleted flag",
    # billing, words run together and in capitals
    "T_SEIKYU": "invoice", "SeikyuNo": "invoice number", "seikyusaki_cd": "billing party code",
    "zeigaku": "tax amount", "zeikomi_kingaku": "including tax amount", "TokuisakiMei": "customer name",
    "jusho1": "address 1", "denwa_bango": "phone number", "todoufuken": "prefecture", "yubin_bango": "postal number",
    "nyuukin_yotei_hi": "payment planned date", "w_henpin": "return", "denpyou_no": "slip number",
    "juchubi": "order date",
    # other businesses: a clinic, a school, a hotel, staff, deliveries, rentals; a name in parts
    "kanja": "patient", "ishi_id": "doctor id", "shinryoka_mei": "department name", "futan_gaku": "copay amount",
    "shiharai_hoho": "payment method", "shimei_sei": "last name", "shimei_mei": "first name",
    "kana_mei": "first name reading", "m_gakusei": "student", "koza_cd": "course code", "t_juko": "enrollment",
    "kyakushitsu_no": "room number", "shukuhaku_bi": "stay date", "t_kintai": "attendance",
    "nimotsu_juryo": "parcel weight", "m_bukken": "property", "yachin": "rent", "kashidashi_bi": "rental date",
}

LABELS = {
    "tokuisaki_mei": "得意先名", "t_juchu_meisai": "受注明細", "gokei_kingaku": "合計金額",
    "juchu_bi": "受注日", "juchu_no": "受注番号", "m_tokuisaki": "得意先", "tokuisaki_cd": "得意先コード",
    "tokuisaki_mei_kana": "得意先名カナ", "hyojun_tanka": "標準単価", "mst_siiresaki": "仕入先",
    "tr_hattyuu": "発注", "zaiko_suuryou": "在庫数量", "nyuuka_yotei_bi": "入荷予定日",
    "syouhin_cd": "商品コード", "shimei_kana": "氏名カナ", "seibetsu_kbn": "性別区分", "sakujo_flg": "削除フラグ",
    "T_SEIKYU": "請求", "zeikomi_kingaku": "税込金額", "TokuisakiMei": "得意先名", "jusho1": "住所1",
    "denwa_bango": "電話番号", "todoufuken": "都道府県", "shiire_saki": "仕入先", "w_henpin": "返品",
    "mei": "名称", "tanto_sha_mei": "担当者名", "tokuisaki_email": "得意先メールアドレス",
    "tokuisaki_code": "得意先コード",
    "m_kanja": "患者", "shimei_sei": "姓", "shimei_mei": "名", "futan_gaku": "負担額", "shiharai_hoho": "支払方法",
    "m_gakusei": "学生", "kyakushitsu_no": "客室番号", "t_kintai": "勤怠", "m_bukken": "物件",
    "haisou_gyousha": "配送業者",
}


@pytest.mark.parametrize(("identifier", "concepts"), CONCEPTS.items())
def test_a_romaji_name_has_the_english_concept_words_drafting_rules_read(identifier, concepts):
    assert is_romaji(identifier)
    assert concept_words(identifier) == concepts.split()


@pytest.mark.parametrize(("identifier", "label"), LABELS.items())
def test_a_romaji_name_reads_in_japanese(identifier, label):
    noun = Noun.of(identifier, None, countable=identifier[:2].lower() in ("m_", "t_", "tr", "ms", "w_"))
    assert noun.ja == label
    assert not noun.partial


@pytest.mark.parametrize("spellings", [
    ("shohin", "syohin", "shouhin", "syouhin"), ("juchu", "juchuu", "jutyu", "jutyuu", "zyutyuu"),
    ("hatchu", "hacchu", "hattyu", "hachuu"), ("suryo", "suuryou", "suryou", "suuryo"), ("gokei", "goukei"),
    ("shiire", "siire"), ("seikyu", "seikyuu"), ("jusho", "juusho", "zyuusyo"), ("tanto", "tantou", "tanntou"),
    ("tantosha", "tantousha", "tantousya"), ("todofuken", "todoufuken", "todouhuken"), ("nichiji", "nitiji"),
    ("tsuki", "tuki"), ("shukka", "syukka"), ("bango", "bangou"), ("kbn", "kubun"),
])
def test_every_usual_spelling_of_a_word_is_the_same_word(spellings):
    read = {glossary.reading([s]) for s in spellings}
    assert len({(r.english[0], r.japanese[0]) for r in read if r}) == 1 and None not in read, spellings


@pytest.mark.parametrize(("identifier", "romaji", "expected"), [
    ("juchu_no", None, ["order", "number"]),  # beside a romaji word, no is a number
    ("phone_no", None, ["phone", "no"]),  # an English name: as it was
    ("bin", None, ["bin"]),  # only whole words: bi is not in bin
    ("no", None, ["no"]),
    ("no", True, ["number"]),  # a column `no` of a schema known to be romaji
    ("cd", True, ["code"]),
    ("juchu_no", False, ["juchu", "no"]),
])
def test_a_romaji_spelling_that_is_english_too_counts_only_beside_romaji(identifier, romaji, expected):
    assert concept_words(identifier, romaji=romaji) == expected


def test_a_romaji_table_gets_japanese_nouns_and_english_concepts():
    customer = Noun.of("m_tokuisaki", None)
    assert (customer.one, customer.many, customer.ja, customer.partial) == ("customer", "customers", "得意先", False)
    assert customer.japanese_forms == ["得意先", "お得意先"]
    assert "社" in customer.counters
    lines = Noun.of("t_juchu_meisai", None)
    assert (lines.one, lines.many, lines.heads, lines.ja_forms) == (
        "order line", "order lines", ("line", "lines"), ("受注明細",))
    orders = Noun.of("tr_hattyuu", None)
    assert (orders.many, orders.ja) == ("purchase orders", "発注")
    assert Noun.of("juchu_bi", None, countable=False).one == "order date"


def test_the_words_are_data_each_with_japanese_and_an_english_concept():
    assert len(glossary.ROMAJI) > 150
    for spelling, word in glossary.ROMAJI.items():
        assert word.ja and all(not j.isascii() for j in word.ja), spelling
        assert word.en and all(w.isascii() and w.islower() for w in word.en), spelling
    assert {"tr", "w", "m", "mst", "t", "v"} <= glossary.PREFIXES and {"mst", "tbl", "master"} <= glossary.SUFFIXES
    assert "社" in glossary.COUNTERS["customer"] and "社" in glossary.COUNTERS["company"]


# --- a romaji schema drafted, and asked in Japanese and English --------------------------------------------------
TODAY = date(2025, 6, 10)


def _hanbai(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE m_tokuisaki (tokuisaki_cd VARCHAR(8) PRIMARY KEY, "
                             "tokuisaki_mei VARCHAR(40) NOT NULL, tokuisaki_mei_kana VARCHAR(40), "
                             "todofuken VARCHAR(8))"))
        conn.execute(sa.text("CREATE TABLE m_shohin (shohin_cd VARCHAR(8) PRIMARY KEY, "
                             "shohin_mei VARCHAR(40) NOT NULL, hyojun_tanka INTEGER)"))
        conn.execute(sa.text("CREATE TABLE t_juchu (juchu_no INTEGER PRIMARY KEY, tokuisaki_cd VARCHAR(8) "
                             "REFERENCES m_tokuisaki(tokuisaki_cd), juchu_bi DATE NOT NULL, "
                             "gokei_kingaku INTEGER NOT NULL)"))
        conn.execute(sa.text("INSERT INTO m_tokuisaki VALUES (:c, :n, :k, :t)"),
                     [{"c": f"T{i:04d}", "n": f"株式会社{i}", "k": f"カブシキガイシャ{i}",
                       "t": ["東京都", "大阪府"][i % 2]} for i in range(1, 13)])
        conn.execute(sa.text("INSERT INTO m_shohin VALUES (:c, :n, :p)"),
                     [{"c": f"S{i:04d}", "n": f"商品{i}", "p": 100 * i} for i in range(1, 9)])
        conn.execute(sa.text("INSERT INTO t_juchu VALUES (:i, :c, :d, :a)"),
                     [{"i": i, "c": f"T{1 + i % 12:04d}", "d": date(2025, 4 + i % 3, 1 + i % 28), "a": 1000 * i}
                      for i in range(1, 41)])
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def hanbai(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _hanbai(url)
    drafted = Drafted(url, [], tmp_path, "hanbai", today=TODAY)
    users.add(drafted.pipeline.db, "yamada", "staff")
    yield url, drafted.pipeline
    drafted.pipeline.close()


def _count(url: str, table: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "table"), [
    ("得意先は全部で何社？", "m_tokuisaki"),
    ("得意先は何件ありますか", "m_tokuisaki"),
    ("商品は何個ありますか", "m_shohin"),
    ("受注は何件？", "t_juchu"),
    ("How many customers do we have?", "m_tokuisaki"),
    ("How many products are there?", "m_shohin"),
])
async def test_a_romaji_table_is_found_by_its_japanese_and_english_nouns(hanbai, question, table):
    url, pipeline = hanbai
    turn = await Agent(pipeline, OfflineProvider(pipeline)).ask(question, pipeline.user("yamada"))
    assert [(c.name, dict(c.args)) for c in turn.calls] == [(table, {})]
    assert str(_count(url, table)) in turn.answer
