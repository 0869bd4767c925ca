"""Rules of the planner that read a request by its tokens (verbs, conditions, labels, codes, small talk)."""

from __future__ import annotations

from concierge.language.tokens import tokenise
from concierge.planner import verbs


def test_english_verb_stems_are_read_from_words_ending_ed_or_ing():
    assert verbs._stems(tokenise("the most rented film")) == {"rent"}
    assert verbs._stems(tokenise("top shipped items")) == {"shipp", "ship"}
    assert verbs._stems(tokenise("bed and red")) == set()


def test_a_japanese_noun_said_with_suru_is_a_verb_of_its_rows():
    assert verbs._done(tokenise("先月予約された部屋"), "予約")
    assert verbs._done(tokenise("予約しました"), "予約")
    assert not verbs._done(tokenise("予約の一覧"), "予約")


def test_a_key_is_read_from_an_answer_only_as_words_of_its_own():
    from concierge.planner import _key_of

    assert _key_of("顧客ID 2のほう", ("1", "2")) == "2"
    assert _key_of("customer 12", ("1", "2")) is None
    assert _key_of("ALFKI please", ("ALFKI", "ANATR")) == "ALFKI"
    assert _key_of("１のほう", ("1", "2")) == "1"


def test_a_date_word_is_found_as_a_word_or_from_the_start_of_a_japanese_token():
    from concierge.planner.date_pairs import _nearest

    assert _nearest(("shipped",), "units shipped last month", 14) == 8
    assert _nearest(("ship",), "units shipped last month", 14) is None
    assert _nearest(("出荷",), "先月出荷した商品", 0) == 2


def test_a_condition_is_read_from_its_marker_and_figure():
    from concierge.planner import conditions

    clause = "今月の販売件数がまだ0件の場合、登録して"
    m = conditions.JA_MARKER.search(clause)
    assert clause[m.start():m.end()] == "の場合、"
    assert conditions.JA_MARKER.search("ならべて") is None
    assert conditions.parse("1,000円未満なら") == conditions.Condition("amount", "<", 1000, "1,000円未満なら")
    assert conditions.parse("fewer than 1,000 yen").value == 1000
    assert conditions.parse("at least 5 sales").op == ">="
    assert conditions.parse("3件以上だったら").op == ">="


def test_an_english_condition_begins_with_if_and_may_follow_what_is_done():
    from concierge.planner import conditions

    assert conditions.EN_PREFIX.match("Only if there are no sales, register").end() == len("Only if ")
    assert conditions.EN_PREFIX.match("register it") is None
    clause = "register it but only if no sales"
    m = conditions.EN_INFIX.search(clause)
    assert (m.start(), clause[m.end():]) == (len("register it"), "no sales")


def test_thanks_and_greetings_are_read_from_the_words_said():
    from concierge.planner.plan import _small_talk

    assert _small_talk(tokenise("どうもありがとうございます")) == "thanks"
    assert _small_talk(tokenise("Thanks a lot")) == "thanks"
    assert _small_talk(tokenise("hi there")) == "greeting"
    assert _small_talk(tokenise("this is it")) is None
    assert _small_talk(tokenise("はじめまして")) == "greeting"


def test_an_amount_with_no_unit_is_read_after_its_words_or_before_a_verb_of_selling():
    from types import SimpleNamespace

    from concierge.planner.plan import _bare_amount, _numbers_said

    def read(text: str) -> int | None:
        return _bare_amount(SimpleNamespace(text=text, read_text=text))

    assert read("sold 3 for 1,200 yesterday") == 1200
    assert read("金額は500") == 500
    assert read("かぼちゃ4個を600で売った") == 600
    assert read("かぼちゃ4個") is None
    assert _numbers_said("個数５で価格750円") == [5, 750]


def test_a_whole_request_asking_what_a_term_is_is_a_general_question():
    from datetime import date

    from concierge.planner.scope import out_of_scope

    assert out_of_scope("MCPとは？", date(2026, 1, 1), False).kind == "general"
    assert out_of_scope("what is MCP?", date(2026, 1, 1), False).kind == "general"
    assert out_of_scope("3月とは？", date(2026, 1, 1), False) is None
    assert out_of_scope("先月の売上とは？", date(2026, 1, 1), False) is None


def test_a_label_said_before_a_value_names_it_as_a_value():
    from concierge.planner.frame import _label_before, _named_after

    def label(text: str, value: str, labels: set[str]) -> tuple[int, str] | None:
        return _label_before(tokenise(text), text.lower(), text.index(value), frozenset(labels))

    assert label("商品名が売上の件数", "売上", {"商品名", "商品"}) == (0, "named")
    assert label("product named Sales", "Sales", {"product"}) == (0, "named")
    assert label("商品: 売上", "売上", {"商品"}) == (0, "named")
    assert label("product Sales", "Sales", {"product"}) == (0, "gap")
    assert label("商品ランキングの売上", "ランキング", {"商品"}) == (0, "glued")
    assert label("先月のランキング", "ランキング", {"商品"}) is None
    assert _named_after(tokenise("売上という商品"), "売上という商品", 2, frozenset({"商品"}))
    assert not _named_after(tokenise("売上の商品"), "売上の商品", 2, frozenset({"商品"}))


def test_codes_of_a_declared_shape_are_found_as_tokens_said_together():
    from concierge.planner.lexicon import CodeShape

    booking = CodeShape(r"^R-\d{4}$")
    assert [m.group() for m in booking.finditer("予約R-5023の件、R-1234-5とR-99999")] == ["R-5023", "R-1234"]
    room = CodeShape(r"^\d{3}$")
    assert [m.group() for m in room.finditer("203号室の鈴木さん、2024年の302 people 101人")] == ["203", "302"]
    assert list(CodeShape(None).finditer("R-5023")) == []


def test_a_count_is_read_before_its_unit_and_a_noun_after_a_word_pointing_back():
    from concierge.planner.lexicon import Referring, Units

    units = Units(("%", "ちゃんねる", "percent"))
    assert units.search("明るさを30%に")["n"] == "30"
    assert units.search("4チャンネルにして")["n"] == "4"
    assert units.search("set it to 50 percent")["n"] == "50"
    assert units.search("1.5%") is None
    people = Units(("人", "名"))
    assert people.search("人数2人に変更")["n"] == "2"  # the analyser's one word 2人
    assert Units(("人前",)).search("餃子を2人前にして")["n"] == "2"  # 2人|前
    assert people.search("12345人") is None
    nouns = Referring(("お客様", "customer", "予約"))
    assert [m.group("noun") for m in nouns.finditer("そのお客様の予約と、this customer, この予約")] == [
        "お客様", "customer", "予約"]


def test_the_kind_of_figure_is_read_from_the_words_said():
    from concierge.planner.measure import says_kind

    assert says_kind(tokenise("先月の売上高は"), "money")
    assert says_kind(tokenise("total amounts by customer"), "money")
    assert not says_kind(tokenise("paramount"), "money")
    assert says_kind(tokenise("何個売れた"), "quantity")
    assert says_kind(tokenise("how many orders"), "count")


def test_a_compound_label_is_found_with_the_of_that_links_its_nouns():
    from concierge.planner.measure import _without_linking_of

    assert _without_linking_of("患者の負担額は？") == "患者負担額は？"
    assert _without_linking_of("佐藤さんの負担額") == "佐藤さんの負担額"  # さん is no noun: the の is kept
