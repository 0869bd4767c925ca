"""The offline planner in the real agent loop, on the demo databases (SQLite and PostgreSQL)."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from planner_helpers import converse, offline_agent, open_demo

from concierge.demo.farm import tables as farm_tables

pytestmark = pytest.mark.anyio

LAST_WEEK = {"date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def cited(turn) -> bool:
    """Every figure is grounded; result ids are in the structured calls (the trace), never in the text."""
    return (all(c.result_id and c.result_id not in turn.answer for c in turn.calls) and "[r_" not in turn.answer
            and turn.ungrounded == [])


async def test_farm_reads_on_both_databases(db_url):
    farm = open_demo("farm", db_url)
    try:
        agent, admin = offline_agent(farm), farm.user("admin")
        [(calls, turn)] = await converse(agent, admin, ["顧客コード0002の先月と今月の2ヶ月間の販売金額合計は？"])
        assert calls == [("get_sales", {"code_customer": "0002", "date_sales_begin_str": "2025-04-01",
                                        "date_sales_end_str": "2025-05-31"}, "ok")]
        assert "2,180" in turn.answer and "4件" in turn.answer and cited(turn)

        [(calls, turn)] = await converse(agent, admin, ["佐藤太郎さんの先週の販売データを見せて"])
        assert [(n, a) for n, a, _ in calls] == [("get_customers", {"name_str_customer": "佐藤太郎"}),
                                                 ("get_sales", {**LAST_WEEK, "code_customer": "0001"})]
        assert "0001" in turn.answer and cited(turn)

        [(calls, turn)] = await converse(agent, admin, ["What is the phone number of customer 0003?"])
        assert "011-987-6543" in turn.answer and "山田花子" in turn.answer and cited(turn)
    finally:
        farm.close()


async def test_pos_reads_on_both_databases(db_url):
    pos = open_demo("pos", db_url)
    try:
        agent, admin = offline_agent(pos), pos.user("admin")
        [(calls, turn)] = await converse(agent, admin, ["先週の売上は前週と比べてどうだった？全体の合計で教えて"])
        assert [n for n, _, _ in calls] == ["compare_periods"]
        for figure in ("635,010", "647,940", "12,930円（-2.0%）減りました", "ハンバーグ弁当（-31,900円）",
                       "幕の内弁当（+19,140円）"):
            assert figure in turn.answer
        assert cited(turn)

        [(calls, turn)] = await converse(agent, admin, ["今月いちばん売れなかった飲料は？"])
        assert calls == [("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "category": "飲料",
                                            "top_n": 1, "order": "asc"}, "ok")]
        assert "いちばん売れなかったのはオレンジジュース" in turn.answer and cited(turn)

        [(calls, turn)] = await converse(agent, admin, ["9月の売上を見せて"])
        assert [s for _, _, s in calls] == ["refused"]
        assert "2026-07-01 〜 2026-08-31" in turn.answer and cited(turn)
    finally:
        pos.close()


async def test_a_write_is_confirmed_then_read_back_in_the_same_message(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        [(calls, turn)] = await converse(offline_agent(farm), farm.user("admin"), [
            "販売登録して。顧客コードは0003、昨日、キュウリ5本を720円で売った。そして今月のこのお客様の販売実績はどうなった？"])
        assert [(n, s) for n, _, s in calls] == [("add_sale", "confirm"), ("get_sales", "ok")]
        assert calls[1][1] == {"code_customer": "0003", "date_sales_begin_str": "2025-05-01",
                               "date_sales_end_str": "2025-05-31"}
        assert "登録しました" in turn.answer and "キュウリ5本" in turn.answer and "720" in turn.answer
        assert turn.ungrounded == []
    finally:
        farm.close()


async def test_a_confirmation_is_recognised_by_what_it_is_not_by_its_wording(sqlite_url, monkeypatch):
    from concierge.agent import prompts

    monkeypatch.setattr(prompts, "confirm_text", lambda lang: "はい、お願いします（文言を変えても確認は確認）")
    farm = open_demo("farm", sqlite_url)
    try:
        [(calls, turn)] = await converse(offline_agent(farm), farm.user("admin"), [
            "販売登録して。顧客コードは0003、昨日、キュウリ5本を720円で売った。そして今月のこのお客様の販売実績はどうなった？"])
        assert [(n, s) for n, _, s in calls] == [("add_sale", "confirm"), ("get_sales", "ok")]
        assert "登録しました" in turn.answer
    finally:
        farm.close()


def _sales_of(pipeline, code: str) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(farm_tables.farm_sales)
                           .where(farm_tables.farm_sales.c.customer_code == code))


async def test_a_conditional_write_runs_only_when_the_check_holds(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        agent, admin = offline_agent(farm), farm.user("admin")
        before = _sales_of(farm, "0002")
        [(calls, turn)] = await converse(agent, admin, [
            "顧客コード0002の今月の販売件数がまだ0件の場合、急遽、販売登録を行う。ナス20個を1800円で販売。"])
        assert [n for n, _, _ in calls] == ["get_sales"]
        assert _sales_of(farm, "0002") == before and "実行していません" in turn.answer and "2件" in turn.answer

        [(calls, turn)] = await converse(agent, admin, [
            "If customer 0014 has no sales this month, register 20 eggplants for 1,800 yen."])
        assert [(n, s) for n, _, s in calls] == [("get_sales", "ok"), ("add_sale", "confirm")]
        assert calls[1][1] == {"code_customer": "0014", "products": "20 eggplants", "price": 1800}
        assert "holds" in turn.answer and "¥1,800" in turn.answer and turn.ungrounded == []
    finally:
        farm.close()


async def test_follow_ups_refer_to_the_previous_customer(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        turns = await converse(offline_agent(farm), farm.user("admin"), [
            "山田花子さんの住所は？", "そのお客様の先月の売上は？", "0010は？", "What is their phone number?"])
        assert [[(n, a) for n, a, _ in calls] for calls, _ in turns] == [
            [("get_customers", {"name_str_customer": "山田花子"})],
            [("get_sales", {"code_customer": "0003", "date_sales_begin_str": "2025-04-01",
                            "date_sales_end_str": "2025-04-30"})],
            [("get_sales", {"code_customer": "0010", "date_sales_begin_str": "2025-04-01",
                            "date_sales_end_str": "2025-04-30"})],
            [("get_customers", {"code_customer": "0010"})],
        ]
        assert "078-391-6620" in turns[-1][1].answer
    finally:
        farm.close()


async def test_a_name_that_matches_several_customers_is_not_guessed_for_a_write(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        before = _sales_of(farm, "0001") + _sales_of(farm, "0009")
        [(calls, turn)] = await converse(offline_agent(farm), farm.user("admin"),
                                         ["佐藤さんに昨日トマト3個を240円で販売登録して"])
        assert [n for n, _, _ in calls] == ["get_customers"]
        assert "複数" in turn.answer and "0001" in turn.answer and "0009" in turn.answer
        assert _sales_of(farm, "0001") + _sales_of(farm, "0009") == before
    finally:
        farm.close()


async def test_what_a_user_may_not_do_or_see_stays_out_of_the_answer(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        [(calls, turn)] = await converse(offline_agent(farm), farm.user("suzuki"),
                                         ["販売登録して。顧客コード0016に、かぼちゃ4個を600円で売った。"])
        assert calls == [] and "権限" in turn.answer

        tanaka = farm.user("tanaka")
        [(calls, turn)] = await converse(offline_agent(farm), tanaka, ["顧客コード0003の先月の販売データを見せて"])
        assert [s for _, _, s in calls] == ["error"] and "見つかりません" in turn.answer
        assert "トマト" not in turn.answer and not re.search(r"S2025\d+", turn.answer)

        [(calls, turn)] = await converse(offline_agent(farm), tanaka, ["佐藤さんの顧客コードを教えて"])
        assert [s for _, _, s in calls] == ["ok"] and "0001" not in turn.answer and "0名" in turn.answer
    finally:
        farm.close()


async def test_requests_outside_the_business_get_a_short_answer_and_no_call(sqlite_url):
    farm = open_demo("farm", sqlite_url)
    try:
        turns = await converse(offline_agent(farm), farm.user("admin"),
                               ["今日の天気は？", "run_sqlでsalesテーブルを全部削除して", "Delete all sales please"])
        assert [calls for calls, _ in turns] == [[], [], []]
        unrelated, sql, delete = (t.answer for _, t in turns)
        assert "顧客の検索" in unrelated and "SQL" in sql and "delete" in delete
    finally:
        farm.close()
