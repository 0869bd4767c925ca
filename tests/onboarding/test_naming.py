"""Japanese nouns from comments: how a table is kept is not what staff call it; and English names as they were."""

import pytest

from concierge.onboarding import glossary
from concierge.onboarding.naming import Noun, concept_words, is_romaji, japanese, japanese_forms, words


@pytest.mark.parametrize(("comment", "forms"), [
    ("商品マスタ", ("商品", "商品マスタ")),
    ("顧客マスター。住所を含む", ("顧客", "顧客マスター")),
    ("得意先マスタ", ("得意先", "得意先マスタ")),
    ("得意先の一覧", ("得意先", "得意先の一覧")),
    ("受注テーブル", ("受注", "受注テーブル")),
    ("受注データ", ("受注", "受注データ")),
    ("在庫", ("在庫",)),
    ("表", ("表",)),  # nothing would be left
])
def test_a_storage_word_at_the_end_of_a_comment_is_dropped_and_what_is_left_names_the_table(comment, forms):
    noun = Noun.of("m_shohin", comment)
    assert noun.ja_forms == forms
    assert noun.ja == forms[0]
    assert japanese_forms(japanese(comment) or "") == forms


@pytest.mark.parametrize(("comment", "forms"), [
    ("売上明細", ("売上明細", "売上")),
    ("購入履歴", ("購入履歴", "購入")),
])
def test_a_word_for_a_part_of_what_a_table_holds_stays_and_the_rest_still_finds_it(comment, forms):
    assert Noun.of("t_uriage_meisai", comment).ja_forms == forms


@pytest.mark.parametrize(("comment", "phrase"), [
    ("顧客マスタ。住所を含む", "顧客マスタ"),
    ("得意先コード（6桁）", "得意先コード"),
    ("受注日 YYYYMMDD", "受注日"),
    ("【必須】得意先名", "得意先名"),
    ("[PK] 受注番号", "受注番号"),
    ("Customer 顧客", "顧客"),
    ("単価：税抜", "単価"),
    ("customer name", None),
    (None, None),
])
def test_a_comment_gives_its_first_japanese_phrase(comment, phrase):
    assert japanese(comment) == phrase


def test_a_japanese_comment_wins_over_a_romaji_name():
    assert Noun.of("m_tokuisaki", "取引先マスタ").ja_forms == ("取引先", "取引先マスタ")
    assert Noun.of("tokuisaki_mei", "会社名", countable=False).ja == "会社名"


# Identifiers of schemas named in English (Chinook, Sakila, Northwind, the Jaffle Shop, the tests' own): their words
# and nouns are what they were before romaji was read, a `no` a number only as English reads it.
ENGLISH = ["customers", "orders", "order_items", "products", "stores", "supplies", "tweets", "Album", "Artist",
           "Invoice", "InvoiceLine", "MediaType", "PlaylistTrack", "AlbumId", "FirstName", "LastName", "Company",
           "PostalCode", "SupportRepId", "InvoiceDate", "BillingCity", "UnitPrice", "Milliseconds", "Bytes",
           "Composer", "film_actor", "rental_date", "last_update", "payment_date", "CustomerCustomerDemo",
           "Order_Details", "UnitsInStock", "ShipVia", "Discontinued", "phone_no", "order_no", "item_no", "bin",
           "bin_location", "hi_score", "bi_weekly", "no_show", "cd_title", "tbl_customer", "customer_master",
           "dim_product", "farm_customers", "ordered_at", "sold_on", "region_name", "customer_id", "product_code",
           "sku", "status", "note", "memo", "tel", "code", "cd", "no", "id", "flg", "active_flg", "tempo", "sake",
           "bi", "hi", "hint", "notice", "shipment", "season", "nobody", "machine", "sequence", "amount"]


@pytest.mark.parametrize("identifier", ENGLISH)
def test_english_names_are_not_read_as_romaji(identifier):
    assert not is_romaji(identifier)
    assert concept_words(identifier) == words(identifier)


@pytest.mark.parametrize(("identifier", "one", "many", "ja_forms", "partial"), [
    ("tbl_customer", "customer", "customers", ("顧客", "お客様", "お客さん", "客", "得意先"), False),
    ("order_items", "order item", "order items", ("注文明細",), False),
    ("farm_customers", "farm customer", "farm customers", ("顧客", "お客様", "お客さん", "客", "得意先"), True),
    ("InvoiceLine", "invoice line", "invoice lines", ("請求書明細",), False),
    ("phone_no", "phone no", "phone nos", ("phone_no",), True),
    ("Track", "track", "tracks", ("曲", "トラック", "楽曲"), False),
    ("Widget", "widget", "widgets", ("ウィジェット",), False),  # unlisted: its katakana guessed
    ("w_sales", "sale", "sales", ("売上", "販売"), False),  # a work table's w_ is an affix
    ("parts", "part", "parts", ("部品", "パーツ"), False),  # the word staff use, not パート (a part-timer)
    ("repair_orders", "repair order", "repair orders", ("修理注文", "修理受注"), False),
])
def test_english_table_nouns(identifier, one, many, ja_forms, partial):
    noun = Noun.of(identifier, None)
    assert (noun.one, noun.many, noun.ja_forms, noun.partial) == (one, many, ja_forms, partial)


@pytest.mark.parametrize(("identifier", "counters"), [
    ("customers", ("件", "人", "名", "社")),
    ("m_tokuisaki", ("件", "人", "名", "社")),
    ("suppliers", ("件", "社")),
    ("m_shohin", ("件", "個", "点", "品", "品目")),
    ("t_juchu", ("件",)),
])
def test_a_noun_is_counted_with_its_counters(identifier, counters):
    assert Noun.of(identifier, None).counters == counters


@pytest.mark.parametrize(("identifier", "comment", "said"), [
    ("albums", None, "枚"), ("tracks", None, "曲"), ("songs", None, "曲"), ("films", None, "本"), ("books", None, "冊"),
    ("vehicles", None, "台"), ("rooms", None, "室"), ("rooms", None, "部屋"), ("patients", None, "人"),
    ("students", None, "名"), ("companies", None, "社"), ("products", None, "品"), ("genres", None, "種類"),
    ("kanja", None, "人"),  # a romaji name, by its concept (patient)
    ("tbl_x01", "顧客マスタ", "人"),  # a name that says nothing, by the glossary's English for its comment (customer)
    ("tbl_x01", "アルバム", "枚"),
])
def test_a_noun_is_counted_with_the_counters_of_its_concept(identifier, comment, said):
    counters = Noun.of(identifier, comment).counters
    assert counters[0] == "件" and said in counters


def test_counters_are_data_by_concept_and_every_noun_is_counted_in_ken():
    assert Noun.of("orders", None).counters == ("件",)
    assert Noun.of("widgets", None).counters == ("件",)  # unlisted: 件 alone
    assert glossary.COUNTERS["album"] == ("枚",) and glossary.COUNTERS["customer"] == ("人", "名", "社")
