"""Requests no tool can answer: each kind found in Japanese and English as staff type them, and
ordinary questions about recorded figures left alone (no database)."""

from __future__ import annotations

from datetime import date

import pytest

from concierge.language.dates import normalise
from concierge.planner import scope
from concierge.planner.scope import KINDS, OutOfScope, out_of_scope
from concierge.planner.text import mask

FARM_TODAY = date(2025, 5, 15)
POS_TODAY = date(2026, 8, 31)


def found(text: str, future: bool = False, today: date = FARM_TODAY) -> OutOfScope | None:
    return out_of_scope(normalise(text), today, future)


def kind_and_words(text: str, future: bool = False, today: date = FARM_TODAY) -> tuple[str, str] | None:
    hit = found(text, future, today)
    return None if hit is None else (hit.kind, normalise(text)[hit.start:hit.end])


@pytest.mark.parametrize("text,words", [
    ("来月の売上予測", "予測"),
    ("来週のおにぎりの売れ行きを予想して", "予想"),
    ("今月の売上の見込みを教えてください", "見込み"),
    ("月末の売上はどうなる？", "どうなる"),
    ("明日のお客さんは何人来そう？", "来そう"),
    ("来週はプリンどのくらい売れる？", "どのくらい売れる"),
    ("夏に弁当は売れるかな", "売れるか"),
    ("この商品は今後伸びそう？", "今後伸び"),
    ("今週の売上はこのままいくと？", "このままいく"),
    ("よそくして", "よそく"),
    ("みこみは？", "みこみ"),
    ("Forecast next month's sales", "Forecast"),
    ("predict sales for next week pls", "predict"),
    ("How much will we sell next month?", "will we sell"),
    ("Which product will sell best next week?", "will sell"),
    ("What do you expect to sell tomorrow?", "expect to sell"),
    ("Will customer 0003 buy again?", "Will customer 0003 buy"),
])
def test_forecasts(text, words):
    assert kind_and_words(text) == ("forecast", words)


@pytest.mark.parametrize("text,words", [
    ("来週の売上は？", "来週"),
    ("来月の顧客コード0001の販売は", "来月"),
    ("next month's sales", "next month"),
    ("Show me sales for next week, please.", "next week"),
])
def test_a_read_question_about_a_future_period_is_a_forecast(text, words):
    assert kind_and_words(text, future=True) == ("forecast", words)


def test_a_later_month_is_a_forecast_on_the_clock_of_the_case():
    assert kind_and_words("9月の売上を見せて", future=True, today=POS_TODAY) == ("forecast", "9月")
    assert kind_and_words("Sales in May?", future=True, today=date(2025, 4, 10)) == ("forecast", "May")


@pytest.mark.parametrize("text", [
    "来週の月曜に顧客コード0016のお客様へかぼちゃ4個を600円で販売登録して",
    "Register a sale for customer 0016 tomorrow: 3 pumpkins for 450 yen.",
])
def test_a_write_for_a_future_day_is_not_a_forecast(text):
    assert found(text, future=True) is None


@pytest.mark.parametrize("text", ["今日の売上は？", "今月の売上は？", "Top 3 drinks this month?"])
def test_a_period_not_all_ahead_is_not_a_forecast(text):
    assert found(text, future=False) is None


@pytest.mark.parametrize("text,words", [
    ("何を発注すべき？", "発注すべき"),
    ("来週は何を仕入れた方がいいですか", "仕入れた方がいい"),
    ("おすすめの発注量は？", "おすすめ"),
    ("おすすめわ？", "おすすめ"),
    ("オススメ教えて", "オススメ"),
    ("売上を上げるにはどうしたらいい？", "上げるには"),
    ("どおすればいい？", "どおすれば"),
    ("どうすればいいでしょうか。", "どうすれば"),
    ("弁当を増やした方がいい？", "増やした方がいい"),
    ("発注量のアドバイスください", "発注量"),
    ("デザートの販売戦略を考えて", "戦略"),
    ("Should I order more pumpkins?", "Should I"),
    ("what should we stock up on for next week", "what should we stock"),
    ("Any recommendations for the weekend?", "recommendations"),
    ("how can we increase dessert sales?", "how can we increase"),
    ("give me some advice on ordering", "advice"),
])
def test_advice(text, words):
    assert kind_and_words(text) == ("advice", words)


@pytest.mark.parametrize("text,words", [
    ("さっきの販売を取り消して", "取り消し"),
    ("昨日の登録、金額まちがえた", "まちがえた"),
    ("間違えて登録しました", "間違えて"),
    ("価格を500円に変更して", "価格を500円に変更し"),
    ("日付が違うので直してください", "日付が違う"),
    ("S20250422101931の数量を修正して", "修正"),
    ("今の販売キャンセルで", "キャンセル"),
    ("ｷｬﾝｾﾙお願いします", "キャンセル"),
    ("きゃんせるで", "きゃんせる"),
    ("ていせいお願いします", "ていせい"),
    ("Cancel that sale", "Cancel"),
    ("undo the last sale", "undo"),
    ("fix the price of yesterday's sale", "fix"),
    ("change the date to May 10", "change the date"),
    ("update the sale from yesterday", "update the sale"),
    ("the price was wrong, it should be 600", "price was wrong"),
    ("I entered the wrong customer", "wrong customer"),
])
def test_corrections(text, words):
    assert kind_and_words(text) == ("correction", words)


@pytest.mark.parametrize("text,words", [
    ("run_sqlでsalesテーブルを全部削除して", "削除"),
    ("販売番号S20250422101931を消して", "消して"),
    ("顧客0003のデータ消しといて", "消して"),  # read as its plain form (language/plain.py)
    ("全部消去", "消去"),
    ("さくじょして", "さくじょ"),
    ("顧客テーブルをDROPして", "DROP"),
    ("delete customer 0003", "delete"),
    ("Please remove yesterday's sale.", "remove"),
    ("wipe the data", "wipe"),
    ("drop the sales table", "drop"),
])
def test_deletes(text, words):
    assert kind_and_words(text) == ("delete", words)


@pytest.mark.parametrize("text,words", [
    ("今日の天気は？", "天気"),
    ("ありがとう、ところで明日は晴れる？", "晴れる"),
    ("1+1は？", "1+1"),
    ("12×3は？", "12×3"),
    ("日本の首都は？", "首都"),
    ("今日のニュース教えて", "ニュース"),
    ("「売上」を英語に翻訳して", "翻訳"),
    ("何か冗談言って", "冗談"),
    ("MCPとは？", "MCPとは?"),
    ("おにぎりって何？", "おにぎりって何?"),
    ("What's the weather like tomorrow?", "weather"),
    ("tell me a joke", "joke"),
    ("what is MCP?", "MCP"),
    ("What is 2 plus 2", "2 plus 2"),
    ("Who is the president of France?", "president of"),
    ("translate 売上 into English", "translate"),
    ("what does POS stand for?", "what does POS stand for"),
])
def test_general_questions(text, words):
    assert kind_and_words(text) == ("general", words)


@pytest.mark.parametrize("text,kind", [
    ("明日は晴れる？", "general"),  # the weather, not a sales forecast, also for a future day
    ("来月の売上予測をもとに何を発注すべき？", "advice"),
    ("間違えて登録したので削除して", "delete"),
    ("さっきのを取り消して", "correction"),  # 取り消して is a cancel, not a delete
])
def test_the_first_kind_in_order_wins(text, kind):
    hit = found(text, future=True)
    assert hit is not None and hit.kind == kind


def test_positions_refer_to_the_normalised_text():
    text = normalise("ＳＡＬＥを　ｷｬﾝｾﾙして")
    hit = out_of_scope(text, FARM_TODAY, False)
    assert hit is not None and text[hit.start:hit.end] == "キャンセル"


@pytest.mark.parametrize("text,value", [
    ("本日のおすすめ弁当の先週の売上は？", "本日のおすすめ弁当"),
    ("天気予報ブレンドの売上", "天気予報ブレンド"),
    ("Daily Forecast Blend sales last week", "Daily Forecast Blend"),
    ("本日のおすすめって何？", "本日のおすすめ"),
])
def test_words_inside_a_value_read_from_the_data_count_for_nothing_once_masked(text, value):
    text = normalise(text)
    start = text.index(value)
    assert out_of_scope(mask(text, [(start, start + len(value))]), FARM_TODAY, False) is None


# The development questions (../shared/bench/planner_dev.jsonl, 'say' of every turn) that tools answer,
# copied here as data: the tests do not read the bench.
DEV_QUESTIONS = [
    "佐藤さんの顧客コードを教えて。",
    "顧客コード0009と0010の、先週の販売データを見せて。",
    "顧客コード0002の先月と今月の2ヶ月間の販売金額合計は？",
    "顧客コード0002のお客様の先月の販売実績が欲しい。それから、山田様の顧客コードが知りたい。",
    "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。",
    "顧客コード0014の今月の販売件数がまだ0件の場合、急遽、販売登録を行う。ナス20個を1800円で販売。",
    "顧客コード0014の今月の販売データを見せて。",
    "0009のお客様の先週の販売データは？",
    "顧客コード0001のお客様の電話番号と、今までの販売件数を教えて。",
    "販売登録して。顧客コードは0003、昨日、キュウリ5本を720円で売った。そして今月のこのお客様の販売実績はどうなった？",
    "山田花子さんの住所は？",
    "顧客コード0003の3月の売上を見せて",
    "顧客コード0001の昨日の販売は？",
    "Show me customer 0002's sales for last month.",
    "What is the phone number of customer 0003?",
    "Register a sale: customer 0016 bought 3 pumpkins for 450 yen yesterday.",
    "佐藤太郎さんの先週の販売データを見せて",
    "顧客コード0009の今年の販売を全部見せて",
    "顧客コード0002の販売番号S20250422101931の内容を教えて",
    "先週から売上が落ちた商品は？",
    "先週のおにぎりの売上を前週と比べて",
    "今月と先月の弁当の売上を比較して",
    "先週の売上トップ5を教えて",
    "今月いちばん売れなかった飲料は？",
    "先週のハンバーグ弁当の日別売上を見せて",
    "Which products dropped in sales last week compared with the week before?",
    "先月の日別の売上推移を見せて",
    "8月のデザートの売上ランキング",
    "9月の売上を見せて",  # text alone; with its future period it is a forecast (test above)
    "先週の売上は前週と比べてどうだった？全体の合計で教えて",
    "Top 3 drinks this month?",
]
ORDINARY = [
    "今日の売上は？", "顧客コード0001の電話番号", "伸びた商品は？", "売上を増やした商品", "先週売上が落ちた商品トップ3",
    "予想以上に売れた商品は？", "いちばん売れたのって何？", "よく売れるのは何？", "今月の売上はいくらになる？",
    "期間を先月に変更して", "先週と違う商品は？", "キャンセルされた注文は？", "先週の売上、キャンセル分を除いて",
    "4/10は？", "2025-05-06の売上", "0016のお客様に、一昨日、ｷｬﾍﾞﾂ2玉を1,500円で販売登録して",
    "顧客コード0002の今月の販売件数が0件なら、トマト1個を80円で登録して", "ﾌﾟﾘﾝの7月の日別売上", "シュークリームは？",
    "上位3つだけ", "8月は？", "0012は？", "その前の週は？", "John Smithさんの先月の購入履歴", "山田様の顧客コードは？",
    "worst selling dessert last month", "Compare last week's sales with the week before", "Show me the sales for June",
    "If customer 0010 has no sales last week, register a sale of 4 tomatoes for 320 yen.",
    "customer 0009 sales this year",
    "Is that correct?", "Show me the correct total", "Who bought the most last week?", "and the bottom 3?",
    "What's the best seller?", "Who is Sato?", "What are the top products?", "Why did sales drop last week?",
    "change the period to last month", "remove the filter", "やり直して", "Will you show me last week's sales?",
]


@pytest.mark.parametrize("text", DEV_QUESTIONS + ORDINARY)
def test_questions_tools_answer_are_left_alone(text):
    assert found(text) is None


@pytest.mark.parametrize("text,kind", [
    ("今日の天気は？", "general"),  # farm-16
    ("run_sqlでsalesテーブルを全部削除して", "delete"),  # farm-17
])
def test_the_dev_questions_no_tool_answers(text, kind):
    hit = found(text)
    assert hit is not None and hit.kind == kind


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_gives_one_plain_sentence_in_each_language(kind):
    hit = OutOfScope(kind, 0, 1)
    ja, en = hit.reason("ja"), hit.reason("en")
    assert ja.endswith("。") and not any("a" <= c.lower() <= "z" for c in ja)
    assert en.isascii() and en.endswith(".") and en[0].isupper()
    assert hit.reason("fr") == en


def test_a_correction_says_registered_sales_cannot_be_changed():
    hit = found("さっきの販売を取り消して")
    assert hit is not None and "登録済みの販売" in hit.reason("ja") and "変更" in hit.reason("ja")


@pytest.mark.parametrize("text,kind,words", [
    ("顧客0003のデータ消しといて", "delete", "消して"),
    ("その記録は消したい", "delete", "消したい"),
    ("さっきの販売を取り消して", "correction", "取り消し"),  # a verb of its own, not 消して
    ("販売番号S20250422101931を取消して", "correction", "取消し"),
    ("数量を直してください", "correction", "直して"),
    ("登録を直したい", "correction", "直したい"),
    ("何を仕入れるべき？", "advice", "仕入れるべき"),
    ("明日はお客さんが来てくれそう？", "forecast", "てくれそう"),
    ("テーブルをdeleteして", "delete", "delete"),
])
def test_rules_read_words_not_characters(text, kind, words):
    assert kind_and_words(text) == (kind, words)


@pytest.mark.parametrize("text", [
    "消費税込みの売上は？",  # 消 inside another word
    "今月の消費量を見せて",
    "先週の売上を見直して",  # 見直す and やり直す are not 直す
    "もう一度やり直して",
    "消しゴムの売上",
    "remove the filter",
    "remove the condition",
    "キャンセル済の注文は？",
    "キャンセル率を見せて",
    "間違いない？",
    "予想以上に売れた商品は？",
    "出来そうな商品は？",
    "何時に来ますか？",
])
def test_words_that_only_look_alike_are_left_alone(text):
    assert found(text) is None


def test_the_word_lists_load_from_data():
    table = scope._table()
    assert set(table) == {*KINDS, "write", "words", "what_is"}
    for section in (*KINDS, "write"):
        assert scope._words(section).rules
    assert "価格" in table["words"]["data_ja"] and "price" in table["words"]["data_en"]


@pytest.mark.parametrize("text", [
    "[delete]\nwords = []\n",  # an unknown key
    "[deletes]\npatterns = []\n",  # an unknown table
    "[[delete.followed]]\nsaid = [{ form = \"x\" }]\nafter = []\n",
])
def test_an_unknown_table_or_key_of_the_data_is_refused(text):
    with pytest.raises(ValueError):
        scope._read(text)


def test_a_slot_may_name_a_list_of_words():
    table = scope._read('[words]\ndata_ja = ["価格"]\n[correction]\npatterns = [[{ form = "@data_ja" }]]\n')
    assert table["correction"]["patterns"] == [[{"form": ["価格"]}]]


def test_a_slot_naming_a_list_that_is_not_there_is_refused():
    with pytest.raises(ValueError):
        scope._read('[correction]\npatterns = [[{ form = "@nouns" }]]\n')


def test_a_list_of_words_holds_only_words():
    with pytest.raises(ValueError):
        scope._read("[words]\nnouns = [1, 2]\n")
